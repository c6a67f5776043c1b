package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/groundwork-go/groundwork/store"
)

// runBackup is "reference backup [--db DSN] FILE": a consistent copy of a
// live SQLite database (VACUUM INTO: one read transaction, so the copy is
// the database at one moment while the server goes on writing), and its
// key file beside the copy (FILE's name with .key), without which the
// sealed secrets and manage links in it cannot be read. Postgres is
// backed up with pg_dump.
func runBackup(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var out string
	flags := newFlagSet("reference backup")
	db, _, dsn, err := dbCommand(ctx, flags, args, getenv, stderr, func(positional []string) error {
		if len(positional) != 1 {
			return usageError{"backup takes the file to write, e.g. reference backup backup.db"}
		}
		out = positional[0]
		// Opening a SQLite path makes the file: say there is none instead.
		if path := sqlitePath(flags.Lookup("db").Value.String()); path != "" {
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("no database at %s to back up", path)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	defer db.Close()
	if db.Dialect() != store.SQLite {
		return usageError{"backup copies a SQLite database; back up Postgres with pg_dump (see the README)"}
	}
	if _, err := os.Stat(out); err == nil {
		return fmt.Errorf("%s exists: a backup never writes over a file", out)
	}
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, out); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err := os.Chmod(out, 0o600); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Backed up to %s.\n", out)
	from, to := secretKeyPath(dsn), secretKeyPath(out)
	key, err := os.ReadFile(from)
	switch {
	case errors.Is(err, fs.ErrNotExist) || from == "":
		fmt.Fprintln(stdout, "No key file beside the database: keep GROUNDWORK_SECRET_KEY with the backup, or its sealed secrets cannot be read.")
		return nil
	case err != nil:
		return err
	}
	if err := os.WriteFile(to, key, 0o600); err != nil {
		return fmt.Errorf("backup: the key: %w", err)
	}
	fmt.Fprintf(stdout, "Its key is in %s: keep the two together, and apart from anyone who should not read them.\n", filepath.Clean(to))
	return nil
}
