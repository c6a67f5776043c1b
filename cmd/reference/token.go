package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// runToken is "reference token create | list | revoke".
func runToken(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{"token needs a sub-command: create, list or revoke"}
	}
	sub, args := args[0], args[1:]
	fs := newFlagSet("reference token " + sub)
	c := tokenCommand{ctx: ctx, db: dbFlag(fs, getenv), logger: logFlag(fs, getenv, stderr), getenv: getenv, stdout: stdout, stderr: stderr}
	switch sub {
	case "create":
		return c.create(fs, args)
	case "list":
		return c.list(fs, args)
	case "revoke":
		return c.revoke(fs, args)
	}
	return usageError{fmt.Sprintf("unknown token sub-command %q: create, list or revoke", sub)}
}

// tokenCommand is what each token sub-command reads: its database flag,
// its logger, and where it writes.
type tokenCommand struct {
	ctx            context.Context
	db             *string
	logger         func() (*slog.Logger, error)
	getenv         func(string) string
	stdout, stderr io.Writer
}

// create is "token create --name N --ability A... [--expires E] [--force]":
// the new token, printed once.
func (c tokenCommand) create(fs *flag.FlagSet, args []string) error {
	var abilities stringList
	name := fs.String("name", "", "what the token is for")
	fs.Var(&abilities, "ability", "an ability the token grants (repeatable)")
	expires := fs.String("expires", "", "a duration (720h, 30d) or a date")
	force := fs.Bool("force", false, "take abilities the server does not check")
	positional, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", positional[0])}
	}
	nt := auth.NewToken{Name: *name, Abilities: abilities}
	var own []string // abilities --force took
	for _, a := range abilities {
		if auth.ValidAbility(a) && !groundwork.KnownAbility(a) {
			if *force {
				own = append(own, a) // a host's own route's, on the caller's word
				continue
			}
			near := ""
			if n := groundwork.NearestAbility(a); n != "" {
				near = fmt.Sprintf(" (did you mean %q?)", n)
			}
			return usageError{fmt.Sprintf("no route checks the ability %q%s (see reference token --help); "+
				"--force takes it anyway, for a host's own routes", a, near)}
		}
	}
	if *expires != "" {
		if nt.ExpiresAt, err = parseExpiry(*expires, time.Now()); err != nil {
			return usageError{err.Error()}
		}
	}
	svc, done, err := openAuth(c.ctx, *c.db, c.getenv, c.logger, own...)
	if err != nil {
		return err
	}
	defer done()
	plaintext, t, err := svc.CreateToken(c.ctx, nt)
	if err != nil {
		return invalidUsage(err)
	}
	fmt.Fprintln(c.stdout, plaintext)
	fmt.Fprintf(c.stderr, "Token %d (%q) created with %s. It is shown only this once: keep it safe.\n", t.ID, t.Name, strings.Join(t.Abilities, ", "))
	return nil
}

// list is "token list [--json]".
func (c tokenCommand) list(fs *flag.FlagSet, args []string) error {
	asJSON := fs.Bool("json", false, "print JSON")
	positional, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", positional[0])}
	}
	svc, done, err := openAuth(c.ctx, *c.db, c.getenv, c.logger)
	if err != nil {
		return err
	}
	defer done()
	tokens, err := svc.ListTokens(c.ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(tokens)
	}
	printTokens(c.stdout, tokens, time.Now())
	return nil
}

// revoke is "token revoke ID".
func (c tokenCommand) revoke(fs *flag.FlagSet, args []string) error {
	positional, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(positional) != 1 {
		return usageError{"token revoke takes one token ID"}
	}
	id, err := strconv.ParseInt(positional[0], 10, 64)
	if err != nil || id <= 0 {
		return usageError{fmt.Sprintf("%q is not a token ID", positional[0])}
	}
	svc, done, err := openAuth(c.ctx, *c.db, c.getenv, c.logger)
	if err != nil {
		return err
	}
	defer done()
	t, err := svc.Token(c.ctx, id)
	if errors.Is(err, auth.ErrNotFound) {
		return fmt.Errorf("no token has ID %d", id)
	} else if err != nil {
		return err
	}
	if t.RevokedAt != nil {
		fmt.Fprintf(c.stdout, "Token %d (%q) was already revoked, at %s.\n", t.ID, t.Name, t.RevokedAt.UTC().Format(time.RFC3339))
		return nil
	}
	if err := svc.RevokeToken(c.ctx, id); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "Token %d (%q) revoked.\n", t.ID, t.Name)
	return nil
}

func validationLines(v *auth.ValidationError) []string {
	var out []string
	fields := v.Fields()
	for _, f := range v.FieldNames() {
		out = append(out, fields[f]...)
	}
	return out
}

// parseExpiry reads "720h", "30d", "2027-01-31" or an RFC 3339 time.
func parseExpiry(s string, now time.Time) (time.Time, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n > 0 {
			return now.AddDate(0, 0, n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(d), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--expires %q is neither a positive duration (720h, 30d) nor a date (2027-01-31, RFC 3339)", s)
}

func printTokens(w io.Writer, tokens []auth.Token, now time.Time) {
	if len(tokens) == 0 {
		fmt.Fprintln(w, "No tokens. Create one with: reference token create --name NAME --ability ABILITY")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tABILITIES\tSTATUS\tEXPIRES\tLAST USED\tCREATED")
	when := func(t *time.Time) string {
		if t == nil {
			return "-"
		}
		return t.UTC().Format(time.RFC3339)
	}
	for _, t := range tokens {
		status := "active"
		switch {
		case t.RevokedAt != nil:
			status = "revoked"
		case !t.Active(now):
			status = "expired"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Name, strings.Join(t.Abilities, ","), status,
			when(t.ExpiresAt), when(t.LastUsedAt), t.CreatedAt.UTC().Format(time.RFC3339))
	}
	tw.Flush()
}

// openAuth opens the database at dsn and the auth service on it, for a
// sub-command (refusing a secret key the database does not know, before
// it changes anything); done closes the database.
func openAuth(ctx context.Context, dsn string, getenv func(string) string, logger func() (*slog.Logger, error),
	own ...string) (svc *auth.Service, done func(), err error) {
	log, err := logger()
	if err != nil {
		return nil, nil, err
	}
	key, err := knownSecretKey(getenv("GROUNDWORK_SECRET_KEY"), dsn)
	if err != nil {
		return nil, nil, err
	}
	db, err := openDB(ctx, dsn, log, key)
	if err != nil {
		return nil, nil, err
	}
	if svc, err = auth.NewService(authsql.New(db), &auth.Options{Abilities: own}); err != nil {
		db.Close()
		return nil, nil, err
	}
	return svc, func() { db.Close() }, nil
}

// knownAbilities are the abilities the reference server's routes check:
// "*", then the table's, each domain's followed by its wildcard.
var knownAbilities = func() []string {
	out := []string{"*"}
	for i, a := range groundwork.Abilities {
		out = append(out, a.Name)
		if i+1 == len(groundwork.Abilities) || wildcard(groundwork.Abilities[i+1].Name) != wildcard(a.Name) {
			out = append(out, wildcard(a.Name))
		}
	}
	return out
}()

// wildcard is the ability that covers name and its siblings: "forms:*"
// for "forms:create", "webhookSubscription.*" for
// "webhookSubscription.view".
func wildcard(name string) string {
	if i := strings.IndexAny(name, ":."); i >= 0 {
		return name[:i+1] + "*"
	}
	return name
}

// logFlag adds --log-level to a command that opens the database (warn
// by default, or GROUNDWORK_LOG_LEVEL), and returns what makes its logger,
// writing text to stderr.
func logFlag(fs *flag.FlagSet, getenv func(string) string, stderr io.Writer) func() (*slog.Logger, error) {
	level := fs.String("log-level", envOr(getenv, "GROUNDWORK_LOG_LEVEL", "warn"), "debug, info, warn or error")
	return func() (*slog.Logger, error) {
		var l slog.Level
		if err := l.UnmarshalText([]byte(*level)); err != nil {
			return nil, usageError{"--log-level: " + err.Error()}
		}
		return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: l})), nil
	}
}
