// Command reference is the groundwork reference server: every domain wired
// together on SQLite (the default, no set-up) or Postgres. It is the only
// part of groundwork that reads the environment.
//
//	go run ./cmd/reference                 # serve on 127.0.0.1:8080, data in ./groundwork.db
//	go run ./cmd/reference --db postgres://user@host/db
//	go run ./cmd/reference token create --name me --ability '*'
//	go run ./cmd/reference user create --email me@example.com --name Me --capability '*'
//	go run ./cmd/reference --help
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// After the first signal the next one ends the process at once (the
	// default action), for an operator who will not wait for the stop.
	context.AfterFunc(ctx, stop)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole program; ctx ends on SIGINT or SIGTERM. It returns the
// exit status: 0, 1 for a failure, 2 for a usage error.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cmd, rest := "serve", args
	if len(args) > 0 {
		switch args[0] {
		case "serve", "token", "user", "bookings", "a11y", "webhooks", "emaillist", "analytics", "backup", "mail", "help":
			cmd, rest = args[0], args[1:]
		case "-h", "-help", "--help":
			cmd, rest = "help", nil
		}
	}
	var err error
	switch {
	case cmd == "help" && len(rest) > 0:
		if !slices.ContainsFunc(commandHelp, func(c struct{ group, text string }) bool { return c.group == rest[0] }) {
			return exitCode(usageError{fmt.Sprintf("no command %q: serve, token, user, bookings, webhooks, emaillist, analytics, backup, mail or a11y", rest[0])}, stderr, "help")
		}
		printCommandHelp(stdout, rest[0])
		return 0
	case cmd == "help":
		printHelp(stdout)
		return 0
	case cmd != "serve" && wantsHelp(rest):
		printCommandHelp(stdout, cmd)
		return 0
	}
	switch cmd {
	case "token":
		err = runToken(ctx, rest, getenv, stdout, stderr)
	case "user":
		err = runUser(ctx, rest, getenv, stdout, stderr)
	case "bookings":
		err = runBookings(ctx, rest, getenv, stdout, stderr)
	case "a11y":
		err = runA11y(rest, stdout)
	case "webhooks":
		err = runWebhooks(ctx, rest, getenv, stdout, stderr)
	case "emaillist":
		err = runEmaillist(ctx, rest, getenv, stdout, stderr)
	case "analytics":
		err = runAnalytics(ctx, rest, getenv, stdout, stderr)
	case "backup":
		err = runBackup(ctx, rest, getenv, stdout, stderr)
	case "mail":
		err = runMail(ctx, rest, getenv, stdout, stderr)
	default:
		var cfg *config
		if cfg, err = parseServeFlags(rest, getenv); err == nil {
			err = serve(ctx, cfg, stderr, nil)
		}
	}
	if errors.Is(err, flag.ErrHelp) {
		printHelp(stdout)
		return 0
	}
	return exitCode(err, stderr, cmd)
}

// usageError marks a mistake in the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// exitCode reports err on stderr and returns the exit status; a usage
// error points at the help of cmd, the command it came from.
func exitCode(err error, stderr io.Writer, cmd string) int {
	var usage usageError
	help := "reference --help"
	if cmd != "serve" && cmd != "help" {
		help = "reference " + cmd + " --help"
	}
	switch {
	case err == nil:
		return 0
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "reference: %s\nRun '%s' for usage.\n", usage.msg, help)
		return 2
	default:
		fmt.Fprintln(stderr, "reference:", err)
		return 1
	}
}
