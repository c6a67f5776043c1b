package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"github.com/jmoiron/sqlx"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Dialect names the SQL database behind a [DB].
type Dialect string

// The dialects groundwork speaks.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// Pool sizes and timeouts [Open] applies. They are the defaults of the
// reference server; a host may change them on the returned pools.
const (
	// SQLiteBusyTimeout is how long a SQLite connection waits for a lock
	// held by another connection or process before giving up.
	SQLiteBusyTimeout = 10 * time.Second
	// PostgresMaxOpenConns caps the Postgres pool.
	PostgresMaxOpenConns = 25
	// SQLiteMaxReadConns caps the SQLite read pool; it is also at least
	// GOMAXPROCS.
	SQLiteMaxReadConns = 4
)

func init() {
	// sqlx does not know modernc's driver name; queries are written with
	// "?" and rebound, which for SQLite means left alone.
	sqlx.BindDriver("sqlite", sqlx.QUESTION)
}

// DB is an open database: a pool for writes and transactions (embedded, so
// every sqlx method is at hand) and a pool for reads that need no
// transaction. On Postgres both are the same pool. On SQLite the write pool
// has exactly one connection, which serialises writers without SQLITE_BUSY
// errors, and the read pool has several read-only connections that run
// beside it thanks to WAL.
//
// Every call made while a transaction is open must go through that
// transaction: on SQLite the transaction holds the only write connection,
// so a call on the pool would wait for it forever.
type DB struct {
	*sqlx.DB
	read    *sqlx.DB
	dialect Dialect
	// ownsRead is false when read and write are the same pool.
	ownsRead bool
	// borrowed is true when the host opened the pool and closes it.
	borrowed bool
}

// Open connects to the database named by dsn and checks that it answers.
//
// A dsn starting with "postgres://" or "postgresql://" opens Postgres
// through pgx's database/sql driver; connection parameters such as
// search_path or sslmode go in its query string. "sqlite:PATH" or a bare
// PATH is SQLite; anything else that starts like an address (a scheme
// and a colon: "postgres:app_db", "mysql://...") is refused, so a
// mistyped address never becomes a file of that name. The file is created when missing, in WAL
// mode with a busy timeout, foreign keys on, immediate transactions and
// times written in SQLite's own format. "sqlite::memory:" (or ":memory:")
// is a private in-memory database that lives as long as the DB.
//
// Open does not migrate; see [Migrate].
func Open(ctx context.Context, dsn string) (*DB, error) {
	if err := CheckDSN(dsn); err != nil {
		return nil, fmt.Errorf("store: open: %w", err)
	}
	switch {
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		return openPostgres(ctx, dsn)
	default:
		return openSQLite(ctx, strings.TrimPrefix(dsn, "sqlite:"))
	}
}

// CheckDSN reports whether [Open] takes dsn as a database address: a
// postgres:// or postgresql:// URL, "sqlite:PATH", or a bare PATH. An
// address of any other scheme ("postgres:app_db", "mysql://...") is an
// error naming the forms to use, so a host can refuse it before it makes
// files beside it. It opens nothing.
func CheckDSN(dsn string) error {
	switch {
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"), strings.HasPrefix(dsn, "sqlite:"):
		return nil
	}
	scheme, ok := addressScheme(dsn)
	if !ok {
		return nil
	}
	hint := "give a path, sqlite:PATH, or postgres://USER@HOST/DATABASE"
	if strings.HasPrefix(strings.ToLower(scheme), "postgres") || strings.EqualFold(scheme, "pg") {
		hint = "a Postgres address starts with postgres:// (postgres://USER@HOST/DATABASE)"
	}
	return fmt.Errorf("%q is not a database address: %s", scheme+":...", hint)
}

// addressScheme returns the scheme of a dsn that starts like an address
// ("postgres:", "mysql:"): a letter, then letters, digits, '+', '-' or
// '.', then a colon. A single letter is a Windows drive ("C:\app.db"),
// and a path with a separator before the colon is a path.
func addressScheme(dsn string) (string, bool) {
	i := strings.IndexByte(dsn, ':')
	if i < 2 {
		return "", false
	}
	for j, r := range dsn[:i] {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (j == 0 || !(r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return "", false
		}
	}
	return dsn[:i], true
}

func openPostgres(ctx context.Context, dsn string) (*DB, error) {
	if _, err := url.Parse(dsn); err != nil {
		// url.Parse quotes the whole input; a password may be in it.
		return nil, errors.New("store: open postgres: the URL does not parse")
	}
	db, err := openExplained("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: open postgres: %w", err)
	}
	db.SetMaxOpenConns(PostgresMaxOpenConns)
	db.SetMaxIdleConns(PostgresMaxOpenConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: open postgres: %w", err)
	}
	return &DB{DB: db, read: db, dialect: Postgres}, nil
}

// sqliteParams are the connection parameters of groundwork's SQLite
// pools: a busy timeout, WAL (not for a memory database), foreign keys,
// times in SQLite's own format and immediate transactions.
func sqliteParams(wal bool) url.Values {
	params := url.Values{}
	params.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", SQLiteBusyTimeout.Milliseconds()))
	if wal {
		params.Add("_pragma", "journal_mode(WAL)")
	}
	params.Add("_pragma", "synchronous(NORMAL)")
	params.Add("_pragma", "foreign_keys(ON)")
	params.Set("_time_format", "sqlite")
	params.Set("_txlock", "immediate")
	return params
}

// SQLiteDSN is the data source name, for database/sql's "sqlite" driver
// (modernc.org/sqlite), of the file at path with the settings [Open]
// uses: WAL, a busy timeout, foreign keys, times in SQLite's own format
// and immediate transactions. A host that opens its own pool for [New]
// can start from it:
//
//	pool, err := sql.Open("sqlite", store.SQLiteDSN("app.db"))
func SQLiteDSN(path string) string {
	return path + "?" + sqliteParams(path != ":memory:").Encode()
}

func openSQLite(ctx context.Context, path string) (*DB, error) {
	path = strings.TrimPrefix(path, "//")
	switch {
	case path == "":
		return nil, errors.New("store: open sqlite: the path is empty")
	case strings.ContainsRune(path, '?'):
		// The driver cuts its own parameters at the first '?'.
		return nil, fmt.Errorf("store: open sqlite: the path %q may not contain '?'", path)
	case strings.HasPrefix(path, "file:"):
		return nil, fmt.Errorf("store: open sqlite: give a plain path, not a file: URI (%q)", path)
	}
	memory := path == ":memory:"
	params := sqliteParams(!memory)
	write, err := openExplained("sqlite", path+"?"+params.Encode())
	if err != nil {
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}
	// One writer: immediate transactions on one connection never meet
	// SQLITE_BUSY inside the process, and River wants the same.
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)
	if err := write.PingContext(ctx); err != nil {
		write.Close()
		return nil, fmt.Errorf("store: open sqlite %s: %w", path, err)
	}
	db := &DB{DB: write, read: write, dialect: SQLite}
	if memory {
		// A second pool would open a second, empty, database.
		return db, nil
	}

	params.Set("_pragma", fmt.Sprintf("busy_timeout(%d)", SQLiteBusyTimeout.Milliseconds()))
	params.Add("_pragma", "query_only(1)")
	params.Set("_txlock", "deferred")
	read, err := openExplained("sqlite", path+"?"+params.Encode())
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}
	n := max(SQLiteMaxReadConns, runtime.GOMAXPROCS(0))
	read.SetMaxOpenConns(n)
	read.SetMaxIdleConns(n)
	if err := read.PingContext(ctx); err != nil {
		read.Close()
		write.Close()
		return nil, fmt.Errorf("store: open sqlite %s: %w", path, err)
	}
	db.read, db.ownsRead = read, true
	return db, nil
}

// Dialect reports which database this is.
func (db *DB) Dialect() Dialect { return db.dialect }

// Reader is the pool for reads that need no transaction. On SQLite its
// connections are read-only and run beside the single writer; a read made
// after a commit returns sees that commit.
func (db *DB) Reader() *sqlx.DB { return db.read }

// Close closes both pools; a DB made by [New] leaves the host's pool open.
func (db *DB) Close() error {
	if db.borrowed {
		return nil
	}
	var err error
	if db.ownsRead {
		err = db.read.Close()
	}
	return errors.Join(err, db.DB.Close())
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.DB.PingContext(ctx); err != nil {
		return fmt.Errorf("store: ping: %w", err)
	}
	return nil
}

// InTx runs fn in a transaction on the write pool. fn gets the sqlx
// wrapper that SQL code reads rows with; its Tx field is the *sql.Tx that
// every domain contract (hooks, Enqueuer.EnqueueTx) takes, so there is one
// transaction type across the domains. It commits when fn returns nil and
// rolls back when fn returns an error or panics (the panic then
// continues). Errors come back through [MapError], so a unique violation
// at commit is [ErrConflict] too.
//
// When ctx carries a transaction of db (it was given by [DB.RunInTx]),
// InTx joins it instead of beginning another: fn runs in a savepoint of
// it, released when fn returns nil and rolled back to when it fails, and
// what fn wrote commits or rolls back with the transaction it joined. A
// store method that works through InTx is thus one step of whatever
// transaction its caller began.
func (db *DB) InTx(ctx context.Context, fn func(tx *sqlx.Tx) error) (err error) {
	if outer, ok := ctx.Value(txKey{db}).(*sqlx.Tx); ok {
		return db.savepoint(ctx, outer, fn)
	}
	tx, err := db.begin(ctx)
	if err != nil {
		return MapError(fmt.Errorf("store: begin: %w", err))
	}
	committed := false
	defer func() {
		if !committed {
			_ = tx.Rollback()
		}
	}()
	if err := fn(tx); err != nil {
		return MapError(err)
	}
	if err := tx.Commit(); err != nil {
		return MapError(fmt.Errorf("store: commit: %w", err))
	}
	committed = true
	return nil
}

// beginWaitKey keys the bound WithBeginWait puts on a begin.
type beginWaitKey struct{}

// WithBeginWait returns ctx with a bound on the wait to begin a
// transaction: InTx and RunInTx given it wait at most d for their
// transaction to begin (on SQLite, for the one write connection another
// transaction holds), and then fail with an error that wraps
// context.DeadlineExceeded, while ctx itself goes on. Once begun, the
// transaction is bounded by ctx alone. A transaction that joins another
// (RunInTx's context) does not wait.
func WithBeginWait(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, beginWaitKey{}, d)
}

// begin begins a transaction, waiting at most the bound WithBeginWait put
// on ctx, if any.
func (db *DB) begin(ctx context.Context) (*sqlx.Tx, error) {
	d, ok := ctx.Value(beginWaitKey{}).(time.Duration)
	if !ok || d <= 0 {
		return db.BeginTxx(ctx, nil)
	}
	// The transaction lives as long as the context it began with, so
	// the bound cancels that context only while it has not begun.
	txCtx, cancel := context.WithCancel(ctx)
	var mu sync.Mutex
	begun, late := false, false
	timer := time.AfterFunc(d, func() {
		mu.Lock()
		defer mu.Unlock()
		if !begun {
			late = true
			cancel()
		}
	})
	tx, err := db.BeginTxx(txCtx, nil)
	mu.Lock()
	begun = true
	mu.Unlock()
	timer.Stop()
	if err != nil {
		cancel()
		if late && ctx.Err() == nil {
			return nil, fmt.Errorf("waited %s to begin: %w", d, context.DeadlineExceeded)
		}
		return nil, err
	}
	if late { // began as the bound passed, with its context cancelled
		_ = tx.Rollback()
		return nil, fmt.Errorf("waited %s to begin: %w", d, context.DeadlineExceeded)
	}
	context.AfterFunc(ctx, cancel) // txCtx ends with ctx, nothing sooner
	return tx, nil
}

// txKey keys the transaction RunInTx put in a context, per DB.
type txKey struct{ db *DB }

// savepoint runs fn inside tx, in a savepoint: a step that fails is
// undone alone (on Postgres the transaction is usable again), and the
// caller's transaction decides the rest. Savepoints nest, one name
// serving all: each release or rollback names the newest.
func (db *DB) savepoint(ctx context.Context, tx *sqlx.Tx, fn func(tx *sqlx.Tx) error) (err error) {
	if _, err := tx.ExecContext(ctx, "SAVEPOINT groundwork_step"); err != nil {
		return MapError(fmt.Errorf("store: savepoint: %w", err))
	}
	done := false
	defer func() {
		if !done {
			_, _ = tx.ExecContext(context.WithoutCancel(ctx), "ROLLBACK TO SAVEPOINT groundwork_step")
			_, _ = tx.ExecContext(context.WithoutCancel(ctx), "RELEASE SAVEPOINT groundwork_step")
		}
	}()
	if err := fn(tx); err != nil {
		return MapError(err)
	}
	if _, err := tx.ExecContext(ctx, "RELEASE SAVEPOINT groundwork_step"); err != nil {
		return MapError(fmt.Errorf("store: release savepoint: %w", err))
	}
	done = true
	return nil
}

// Transactor begins the transactions a service's steps share. [DB] is
// one, and so is each domain's SQL store (its DB's): a service that must
// store two things, or a thing and a job, all or nothing, begins the
// transaction itself and calls the store with the context it is given.
type Transactor interface {
	// RunInTx runs fn in one transaction, as [DB.RunInTx] does.
	RunInTx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error
}

// RunInTx runs fn in a transaction and commits it when fn returns nil
// (rolling it back on an error or a panic, as InTx). fn's context
// carries the transaction: every store method called with it that works
// through InTx joins it, and tx is for the queue's EnqueueTx and the
// hosts' hooks. Inside a transaction already (ctx came from another
// RunInTx of db), fn runs in a savepoint of it.
//
// Every call fn makes on db must go through that context or tx: on SQLite
// the transaction holds the only write connection, so a call on the pool
// would wait for it forever.
func (db *DB) RunInTx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return db.InTx(ctx, func(tx *sqlx.Tx) error {
		return fn(context.WithValue(ctx, txKey{db}, tx), tx.Tx)
	})
}

var _ Transactor = (*DB)(nil)

// On is what a statement of a store method runs on: the transaction of db
// that ctx carries (see RunInTx), or else the write pool. A method that is
// one statement, atomic on its own, runs it on On(ctx), and so joins its
// caller's transaction without a savepoint.
func (db *DB) On(ctx context.Context) sqlx.ExtContext {
	if tx, ok := ctx.Value(txKey{db}).(*sqlx.Tx); ok {
		return tx
	}
	return db.DB
}
