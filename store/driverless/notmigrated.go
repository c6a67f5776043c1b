package driverless

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"sync"
)

// ErrNotMigrated reports that a table a store or queue uses does not
// exist: its migrations have not run on this database. Test with
// errors.Is; the error's text names the Migrate call that is missing.
var ErrNotMigrated = errors.New("store: the database is not migrated")

// notMigratedError is a missing table, explained.
type notMigratedError struct {
	table, call string
	err         error
}

func (e *notMigratedError) Error() string {
	return fmt.Sprintf("store: the table %s does not exist: its migrations have not run on this database; call %s at start, "+
		"before the stores and the queue are used (%v)", e.table, e.call, e.err)
}

func (e *notMigratedError) Unwrap() []error { return []error{ErrNotMigrated, e.err} }

// MigrationLine is a set of migrations as [ExplainMissingTable] knows it:
// its line's name, the dialect directories of its SQL files, and the Go
// expression that names it ("formssql.Migrations"). store.MigrationsFrom
// registers each line it makes.
type MigrationLine struct {
	Line string
	FS   fs.FS
	Expr string
	// Core lines are applied by every Migrate call.
	Core bool
}

var known struct {
	sync.Mutex
	lines []MigrationLine
}

// RegisterMigrationLine adds l to the lines ExplainMissingTable searches.
func RegisterMigrationLine(l MigrationLine) {
	known.Lock()
	known.lines = append(known.lines, l)
	known.Unlock()
}

var (
	missingSQLite   = regexp.MustCompile(`no such table: "?([A-Za-z0-9_.]+)`)
	missingPostgres = regexp.MustCompile(`relation "([^"]+)" does not exist \(SQLSTATE 42P01\)`)
)

// ExplainMissingTable returns err unchanged unless it reports a missing
// table (SQLite's "no such table", Postgres's undefined_table); then it
// is an error that is [ErrNotMigrated], keeps err in its chain, and names
// the Migrate call that makes the table: store.Migrate(ctx, db,
// formssql.Migrations) for a domain's table, store.Migrate itself for the
// core and River tables. It reads only the error's text, so it needs no
// driver.
func ExplainMissingTable(err error) error {
	if err == nil || errors.Is(err, ErrNotMigrated) {
		return err
	}
	text := err.Error()
	m := missingSQLite.FindStringSubmatch(text)
	if m == nil {
		m = missingPostgres.FindStringSubmatch(text)
	}
	if m == nil {
		return err
	}
	table := m[1]
	if i := strings.LastIndexByte(table, '.'); i >= 0 {
		table = table[i+1:] // schema.table
	}
	return &notMigratedError{table: table, call: migrateCall(table), err: err}
}

// migrateCall is the Migrate call that makes table.
func migrateCall(table string) string {
	if strings.HasPrefix(table, "river_") {
		return "store.Migrate(ctx, db, ...) without MigrateOptions.WithoutQueue (it makes River's tables)"
	}
	create := regexp.MustCompile(`(?i)CREATE\s+TABLE\s+(IF\s+NOT\s+EXISTS\s+)?"?` + regexp.QuoteMeta(table) + `"?[\s(]`)
	known.Lock()
	defer known.Unlock()
	for _, l := range known.lines {
		for _, dir := range []string{"sqlite", "postgres"} {
			files, _ := fs.ReadDir(l.FS, dir)
			for _, f := range files {
				body, err := fs.ReadFile(l.FS, dir+"/"+f.Name())
				if err != nil || !create.Match(body) {
					continue
				}
				if l.Core {
					return "store.Migrate(ctx, db, ...) (it always makes the core tables)"
				}
				return "store.Migrate(ctx, db, " + l.Expr + ")"
			}
		}
	}
	return "store.Migrate(ctx, db, ...) with the Migrations of the package whose table it is"
}
