package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/groundwork-go/groundwork/auth"
)

// stdin is where "user create" and "user password" read the password;
// tests replace it.
var stdin io.Reader = os.Stdin

// readPassword reads a new password: prompted twice without echo on a
// terminal, else the first line of stdin. Never a flag, so it stays out
// of shell history and process lists.
func readPassword(stderr io.Writer) (string, error) {
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(stderr, "Password: ")
		first, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(stderr)
		if err != nil {
			return "", err
		}
		fmt.Fprint(stderr, "Again: ")
		second, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(stderr)
		if err != nil {
			return "", err
		}
		if string(first) != string(second) {
			return "", errors.New("the passwords differ")
		}
		return string(first), nil
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", usageError{"no password on stdin (pipe one in, or run in a terminal to be asked)"}
	}
	return line, nil
}

func runUser(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	const subs = "create, list, grant, revoke, password, two-factor-off, disable or enable"
	if len(args) == 0 {
		return usageError{"user needs a sub-command: " + subs}
	}
	sub, args := args[0], args[1:]
	fs := newFlagSet("reference user " + sub)
	db := dbFlag(fs, getenv)
	logger := logFlag(fs, getenv, stderr)
	var (
		email, name *string
		caps        stringList
		asJSON      *bool
		verified    *bool
	)
	want := 0 // positional arguments
	switch sub {
	case "create":
		email = fs.String("email", "", "the user's email address")
		name = fs.String("name", "", "the user's name")
		fs.Var(&caps, "capability", "a capability to grant (repeatable)")
		verified = fs.Bool("unverified", false, "leave the address unverified")
	case "list":
		asJSON = fs.Bool("json", false, "print JSON")
	case "grant", "revoke":
		want = 2
	case "password", "two-factor-off", "disable", "enable":
		want = 1
	default:
		return usageError{fmt.Sprintf("unknown user sub-command %q: %s", sub, subs)}
	}
	positional, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(positional) != want {
		if want == 0 {
			return usageError{fmt.Sprintf("unexpected argument %q", positional[0])}
		}
		return usageError{fmt.Sprintf("user %s takes %s", sub, map[int]string{1: "EMAIL", 2: "EMAIL CAPABILITY"}[want])}
	}
	var password string
	if sub == "create" || sub == "password" {
		if password, err = readPassword(stderr); err != nil {
			return err
		}
	}

	svc, done, err := openAuth(ctx, *db, getenv, logger)
	if err != nil {
		return err
	}
	defer done()
	find := func(email string) (auth.User, error) { return findUser(ctx, svc, email) }

	switch sub {
	case "create":
		u, err := svc.CreateUser(ctx, auth.NewUser{Name: *name, Email: *email, Password: password, Capabilities: caps, Verified: !*verified})
		if err != nil {
			return invalidUsage(err)
		}
		fmt.Fprintf(stdout, "User %d (%s) created%s.\n", u.ID, u.Email, capsText(u.Capabilities))
	case "list":
		users, err := svc.ListUsers(ctx, auth.UserQuery{})
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(users)
		}
		return printUsers(stdout, users)
	case "grant", "revoke":
		u, err := find(positional[0])
		if err != nil {
			return err
		}
		change := svc.Grant
		if sub == "revoke" {
			change = svc.Revoke
		}
		if u, err = change(ctx, u.ID, positional[1]); err != nil {
			return invalidUsage(err)
		}
		fmt.Fprintf(stdout, "User %d (%s) now has %s.\n", u.ID, u.Email, strings.TrimPrefix(capsText(u.Capabilities), " with "))
	case "password":
		u, err := find(positional[0])
		if err != nil {
			return err
		}
		if err := svc.SetPassword(ctx, u.ID, password); err != nil {
			return invalidUsage(err)
		}
		fmt.Fprintf(stdout, "Password of user %d (%s) changed; they are signed out everywhere.\n", u.ID, u.Email)
	case "two-factor-off":
		u, err := find(positional[0])
		if err != nil {
			return err
		}
		if err := svc.TurnOffTwoFactor(ctx, u.ID); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Two-factor sign-in of user %d (%s) is off; they sign in with their password and can set it up again.\n", u.ID, u.Email)
	case "disable", "enable":
		u, err := find(positional[0])
		if err != nil {
			return err
		}
		if u, err = svc.SetDisabled(ctx, u.ID, sub == "disable"); err != nil {
			return err
		}
		if u.DisabledAt != nil {
			fmt.Fprintf(stdout, "User %d (%s) is disabled: signed out everywhere, they cannot sign in and their API tokens do not work until enabled.\n", u.ID, u.Email)
		} else {
			fmt.Fprintf(stdout, "User %d (%s) is enabled: they can sign in, and their API tokens work.\n", u.ID, u.Email)
		}
	}
	return nil
}

// findUser is the user with the address, or an error that says none has
// it.
func findUser(ctx context.Context, svc *auth.Service, email string) (auth.User, error) {
	u, err := svc.UserByEmail(ctx, email)
	if errors.Is(err, auth.ErrNotFound) {
		return u, fmt.Errorf("no user has the address %q", email)
	}
	return u, err
}

// invalidUsage is a validation error as a usage error, its messages on one
// line; any other error as it is.
func invalidUsage(err error) error {
	var v *auth.ValidationError
	if errors.As(err, &v) {
		return usageError{strings.Join(validationLines(v), "; ")}
	}
	return err
}

// printUsers prints the users as a table.
func printUsers(w io.Writer, users []auth.User) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tEMAIL\tNAME\tVERIFIED\tTWO-FACTOR\tDISABLED\tCAPABILITIES")
	since := func(t *time.Time) string {
		if t == nil {
			return "no"
		}
		return t.UTC().Format(time.DateOnly)
	}
	for _, u := range users {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", u.ID, u.Email, u.Name, since(u.EmailVerifiedAt), since(u.TwoFactorConfirmedAt),
			since(u.DisabledAt), strings.Join(u.Capabilities, ", "))
	}
	return tw.Flush()
}

func capsText(caps []string) string {
	if len(caps) == 0 {
		return " with no capabilities"
	}
	return " with " + strings.Join(caps, ", ")
}
