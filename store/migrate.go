package store

import (
	"cmp"
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/groundwork-go/groundwork/store/driverless"
)

// Migrations is one line of schema changes that a package embeds. FS holds
// a directory per dialect, "sqlite" and "postgres", each with files named
// NNNN_description.sql; they are applied in version order, each exactly
// once, and recorded under Line in the table groundwork_migrations. A
// first file named NNNN_baseline.sql stands for versions 1 to NNNN (the
// files a release folded into one): a database that recorded NNNN has it,
// and one that recorded only earlier versions is refused with what to do.
// A host with its own migration tool can read the SQL from FS instead; one
// whose tool applied the earlier files marks each baseline as applied
// without running it.
type Migrations struct {
	// Line names the set, e.g. "auth" or "forms". Versions are per line.
	Line string
	// FS holds the sqlite/ and postgres/ directories.
	FS fs.FS
}

//go:embed migrations
var coreFS embed.FS

// CoreMigrations is this package's own schema: the migration table's
// companions, such as the counters of [SQLRateLimiter]. [Migrate] always
// applies it.
var CoreMigrations = MigrationsFrom("core", coreFS, "migrations")

// MigrationsFrom returns the line whose dialect directories sit in dir of
// fsys, typically an embed.FS:
//
//	//go:embed migrations
//	var migrationsFS embed.FS
//	var Migrations = store.MigrationsFrom("forms", migrationsFS, "migrations")
//
// It panics if dir is not a valid path, which is a mistake in the code.
func MigrationsFrom(line string, fsys fs.FS, dir string) Migrations {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err)
	}
	m := Migrations{Line: line, FS: sub}
	expr := "the " + line + " Migrations"
	if _, file, _, ok := runtime.Caller(1); ok {
		expr = filepath.Base(filepath.Dir(file)) + ".Migrations" // the package that made it: formssql.Migrations
	}
	driverless.RegisterMigrationLine(driverless.MigrationLine{Line: line, FS: sub, Expr: expr, Core: line == "core"})
	return m
}

// migration is one parsed file.
type migration struct {
	version int
	name    string
	sql     string
}

// baselineName names a file that stands for every version up to its own:
// the earlier files folded into one at a release. A database those files
// made records the baseline's version, so it is not run there; a fresh one
// runs it alone. A baseline is the first file of its directory.
const baselineName = "baseline"

var migrationName = regexp.MustCompile(`^([0-9]+)_([a-z0-9_]+)\.sql$`)

// load reads and orders the migrations of one line for one dialect.
func (m Migrations) load(d Dialect) ([]migration, error) {
	if m.Line == "" || m.FS == nil {
		return nil, errors.New("store: migrate: a Migrations needs a Line and an FS")
	}
	entries, err := fs.ReadDir(m.FS, string(d))
	if err != nil {
		return nil, fmt.Errorf("store: migrate %s: %w", m.Line, err)
	}
	var out []migration
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		match := migrationName.FindStringSubmatch(e.Name())
		if match == nil {
			return nil, fmt.Errorf("store: migrate %s: %s/%s is not named NNNN_description.sql", m.Line, d, e.Name())
		}
		version, err := strconv.Atoi(match[1])
		if err != nil || version <= 0 {
			return nil, fmt.Errorf("store: migrate %s: %s has no positive version", m.Line, e.Name())
		}
		body, err := fs.ReadFile(m.FS, string(d)+"/"+e.Name())
		if err != nil {
			return nil, fmt.Errorf("store: migrate %s: %w", m.Line, err)
		}
		out = append(out, migration{version: version, name: match[2], sql: string(body)})
	}
	slices.SortFunc(out, func(a, b migration) int { return cmp.Compare(a.version, b.version) })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, fmt.Errorf("store: migrate %s: version %d appears twice", m.Line, out[i].version)
		}
		if out[i].name == baselineName {
			return nil, fmt.Errorf("store: migrate %s: %s/%04d_%s follows another file; a baseline comes first", m.Line, d, out[i].version, out[i].name)
		}
	}
	return out, nil
}

const migrationsTable = `CREATE TABLE IF NOT EXISTS groundwork_migrations (
	line TEXT NOT NULL,
	version INTEGER NOT NULL,
	name TEXT NOT NULL,
	applied_at %s NOT NULL,
	PRIMARY KEY (line, version)
)`

// Migrate brings the schema up to date: River's own tables first, then
// [CoreMigrations], then each line in the order given. It is idempotent,
// and safe when several instances start at once: on Postgres they queue on
// an advisory lock (per schema) and each migration commits on its own; on
// SQLite the whole run is one immediate transaction, so it is all or
// nothing and other processes wait for it.
//
// Migrate logs nothing; see [MigrateWithOptions] to log each applied
// version, or to leave River's tables out.
func Migrate(ctx context.Context, db *DB, lines ...Migrations) error {
	return MigrateWithOptions(ctx, db, nil, lines...)
}

// MigrateOptions configures [MigrateWithOptions]. Nil means defaults.
type MigrateOptions struct {
	// Logger receives each applied version at info level; nil discards.
	Logger *slog.Logger
	// WithoutQueue leaves River's tables out, for a host that runs no
	// [Queue] (a later run without it adds them). Without a queue nothing
	// runs in the background: hand the domains no Enqueuer, and forms
	// sends no notifications, webhooks records deliveries but sends none
	// and does not reconcile payments on its own, and no periodic job
	// (retries, sweeps, pruning) runs unless the host calls the
	// services' methods for them itself.
	WithoutQueue bool
}

// MigrateWithOptions is [Migrate] with options.
func MigrateWithOptions(ctx context.Context, db *DB, opts *MigrateOptions, lines ...Migrations) error {
	var o MigrateOptions
	if opts != nil {
		o = *opts
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	all := append([]Migrations{CoreMigrations}, lines...)
	seen := map[string]bool{}
	loaded := make([][]migration, len(all))
	for i, m := range all {
		if seen[m.Line] {
			return fmt.Errorf("store: migrate: line %q given twice", m.Line)
		}
		seen[m.Line] = true
		var err error
		if loaded[i], err = m.load(db.dialect); err != nil {
			return err
		}
	}
	r := &migrator{db: db, logger: logger}
	if !o.WithoutQueue {
		// River logs every step at info; keep only its warnings.
		r.riverLogger = slog.New(leveledHandler{Handler: logger.Handler(), min: slog.LevelWarn})
	}
	if db.dialect == Postgres {
		return r.postgres(ctx, all, loaded)
	}
	return r.sqlite(ctx, all, loaded)
}

type migrator struct {
	db     *DB
	logger *slog.Logger
	// riverLogger is nil when River's tables are left out.
	riverLogger *slog.Logger
}

func (r *migrator) sqlite(ctx context.Context, lines []Migrations, loaded [][]migration) error {
	var river *rivermigrate.Migrator[*sql.Tx]
	if r.riverLogger != nil {
		var err error
		if river, err = rivermigrate.New(riversqlite.New(r.db.DB.DB), &rivermigrate.Config{Logger: r.riverLogger}); err != nil {
			return fmt.Errorf("store: migrate river: %w", err)
		}
	}
	return r.db.InTx(ctx, func(tx *sqlx.Tx) error {
		// MigrateTx is deprecated because some Postgres migrations cannot
		// share a transaction; SQLite has no such limit, and one
		// immediate transaction keeps other processes out until it ends.
		if river != nil {
			if _, err := river.MigrateTx(ctx, tx.Tx, rivermigrate.DirectionUp, nil); err != nil { //nolint:staticcheck
				return fmt.Errorf("store: migrate river: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(migrationsTable, "TIMESTAMP")); err != nil {
			return fmt.Errorf("store: migrate: %w", err)
		}
		for i, m := range lines {
			if err := r.applyLine(ctx, tx, m.Line, loaded[i], func(fn func(*sqlx.Tx) error) error { return fn(tx) }); err != nil {
				return err
			}
		}
		return nil
	})
}

func (r *migrator) postgres(ctx context.Context, lines []Migrations, loaded [][]migration) error {
	// A session lock on a connection of its own: River's migrator and ours
	// use the pool, and other instances wait on the same key until this
	// connection unlocks or closes.
	conn, err := r.db.Connx(ctx)
	if err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	defer conn.Close()
	const key = `hashtext('groundwork_migrate.' || current_schema())`
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(`+key+`)`); err != nil {
		return fmt.Errorf("store: migrate: take lock: %w", err)
	}
	defer func() {
		// A fresh context: the caller's may be done, and the lock must go.
		unlockCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_, _ = conn.ExecContext(unlockCtx, `SELECT pg_advisory_unlock(`+key+`)`)
	}()

	if r.riverLogger != nil {
		river, err := rivermigrate.New(riverdatabasesql.New(r.db.DB.DB), &rivermigrate.Config{Logger: r.riverLogger})
		if err != nil {
			return fmt.Errorf("store: migrate river: %w", err)
		}
		if _, err := river.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
			return fmt.Errorf("store: migrate river: %w", err)
		}
	}
	if _, err := r.db.ExecContext(ctx, fmt.Sprintf(migrationsTable, "TIMESTAMPTZ")); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	for i, m := range lines {
		if err := r.applyLine(ctx, r.db.DB, m.Line, loaded[i], func(fn func(*sqlx.Tx) error) error { return r.db.InTx(ctx, fn) }); err != nil {
			return err
		}
	}
	return nil
}

// applyLine applies the versions of one line that q does not list as
// applied, each through inTx.
func (r *migrator) applyLine(ctx context.Context, q sqlx.ExtContext, line string, ms []migration, inTx func(func(*sqlx.Tx) error) error) error {
	var applied []int
	if err := sqlx.SelectContext(ctx, q, &applied, q.Rebind(`SELECT version FROM groundwork_migrations WHERE line = ?`), line); err != nil {
		return fmt.Errorf("store: migrate %s: %w", line, err)
	}
	for _, m := range ms {
		if slices.Contains(applied, m.version) {
			continue
		}
		if m.name == baselineName && len(applied) > 0 {
			return fmt.Errorf("store: migrate %s: the database holds versions %v of this line, made by a commit older than its baseline "+
				"(%04d_%s) and not brought up to it; migrate it with that older code first (every version up to %d), then with this",
				line, applied, m.version, m.name, m.version)
		}
		err := inTx(func(tx *sqlx.Tx) error {
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO groundwork_migrations (line, version, name, applied_at) VALUES (?, ?, ?, ?)`),
				line, m.version, m.name, NewTime(time.Now()))
			return err
		})
		if err != nil {
			return fmt.Errorf("store: migrate %s %04d_%s: %w", line, m.version, m.name, err)
		}
		r.logger.InfoContext(ctx, "migrated", "line", line, "version", m.version, "name", m.name)
	}
	return nil
}

// AppliedVersions lists the versions of line recorded as applied, in
// order.
func AppliedVersions(ctx context.Context, db *DB, line string) ([]int, error) {
	var versions []int
	err := db.SelectContext(ctx, &versions, db.Rebind(`SELECT version FROM groundwork_migrations WHERE line = ? ORDER BY version`), line)
	if err != nil {
		return nil, fmt.Errorf("store: applied versions: %w", err)
	}
	return versions, nil
}

// Pending lists the migrations of [CoreMigrations] and lines that db has
// not applied, as "line NNNN_name", in order: none when the schema is
// current (a readiness check). A database never migrated has them all.
func Pending(ctx context.Context, db *DB, lines ...Migrations) ([]string, error) {
	type row struct {
		Line    string `db:"line"`
		Version int    `db:"version"`
	}
	var applied []row
	err := db.Reader().SelectContext(ctx, &applied, `SELECT line, version FROM groundwork_migrations`)
	if err != nil && !isMissingTable(err) {
		return nil, fmt.Errorf("store: pending migrations: %w", err)
	}
	done := map[row]bool{}
	for _, r := range applied {
		done[r] = true
	}
	var out []string
	for _, m := range append([]Migrations{CoreMigrations}, lines...) {
		ms, err := m.load(db.dialect)
		if err != nil {
			return nil, err
		}
		for _, v := range ms {
			if !done[row{m.Line, v.version}] {
				out = append(out, fmt.Sprintf("%s %04d_%s", m.Line, v.version, v.name))
			}
		}
	}
	return out, nil
}

// leveledHandler drops records below min.
type leveledHandler struct {
	slog.Handler
	min slog.Level
}

func (h leveledHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h leveledHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return leveledHandler{Handler: h.Handler.WithAttrs(attrs), min: h.min}
}

func (h leveledHandler) WithGroup(name string) slog.Handler {
	return leveledHandler{Handler: h.Handler.WithGroup(name), min: h.min}
}
