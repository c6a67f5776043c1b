package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/jmoiron/sqlx"
	"modernc.org/sqlite"
)

// New returns a DB on a pool the host opened and keeps: groundwork's
// tables and queries then share the host's connections. The dialect comes
// from the pool's driver, which must be pgx's database/sql driver
// (github.com/jackc/pgx/v5/stdlib, for Postgres) or modernc.org/sqlite;
// other drivers report errors that groundwork could not tell apart. New
// pings the database and leaves the pool's settings alone; [DB.Close]
// leaves it open.
//
// A SQLite pool must have foreign keys on and write times in SQLite's own
// format, and New refuses one that does not; [SQLiteDSN] gives the
// settings [Open] uses. Where the pool has more than one connection, also
// give it a busy timeout (checked) and immediate transactions
// (_txlock=immediate), or writers meet SQLITE_BUSY; a pool of one
// connection (SetMaxOpenConns(1)) needs neither. Unlike [Open], reads then
// share the host's pool rather than a read-only one of their own.
func New(ctx context.Context, pool *sql.DB) (*DB, error) {
	if pool == nil {
		return nil, fmt.Errorf("store: new: the pool is nil")
	}
	var d Dialect
	switch drv := pool.Driver().(type) {
	case *sqlite.Driver:
		d = SQLite
	case *stdlib.Driver:
		d = Postgres
	default:
		return nil, fmt.Errorf("store: new: the pool's driver is %T; groundwork works on modernc.org/sqlite or pgx's stdlib driver", drv)
	}
	if err := pool.PingContext(ctx); err != nil {
		return nil, fmt.Errorf("store: new: %w", err)
	}
	if d == SQLite {
		if err := checkSQLitePool(ctx, pool); err != nil {
			return nil, fmt.Errorf("store: new: %w", err)
		}
	}
	driverName := map[Dialect]string{SQLite: "sqlite", Postgres: "pgx"}[d] // picks sqlx's placeholders
	x := sqlx.NewDb(pool, driverName)
	return &DB{DB: x, read: x, dialect: d, borrowed: true}, nil
}

// sqliteTimeProbe is written and read back to learn how a pool writes
// times: with _time_format=sqlite it is sqliteTimeWant, which sorts as
// text in time order.
var (
	sqliteTimeProbe = time.Date(2001, 2, 3, 4, 5, 6, 7000, time.UTC)
	sqliteTimeWant  = "2001-02-03 04:05:06.000007+00:00"
)

// checkSQLitePool checks the settings groundwork's SQL relies on, on one
// of the pool's connections (they all share the pool's DSN).
func checkSQLitePool(ctx context.Context, pool *sql.DB) error {
	conn, err := pool.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var fk, busy int
	if err := conn.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&fk); err != nil {
		return err
	}
	if fk != 1 {
		return fmt.Errorf("foreign keys are off on this SQLite pool; open it with _pragma=foreign_keys(1) (see store.SQLiteDSN)")
	}
	var written string
	if err := conn.QueryRowContext(ctx, `SELECT ?`, sqliteTimeProbe).Scan(&written); err != nil {
		return err
	}
	if written != sqliteTimeWant {
		return fmt.Errorf("this SQLite pool writes times as %q, which does not sort in time order; open it with _time_format=sqlite (see store.SQLiteDSN)", written)
	}
	if err := conn.QueryRowContext(ctx, `PRAGMA busy_timeout`).Scan(&busy); err != nil {
		return err
	}
	if busy <= 0 && pool.Stats().MaxOpenConnections != 1 {
		return fmt.Errorf("this SQLite pool has several connections and no busy timeout; open it with _pragma=busy_timeout(10000) or SetMaxOpenConns(1) (see store.SQLiteDSN)")
	}
	return nil
}
