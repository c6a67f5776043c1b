package store_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// hostPool opens a pool as a host would, with its own database/sql call.
func hostPool(t *testing.T, driverName, dsn string) *sql.DB {
	t.Helper()
	pool, err := sql.Open(driverName, dsn)
	require.NoError(t, err)
	t.Cleanup(func() { pool.Close() })
	return pool
}

// A host brings its own pool: groundwork migrates it (without River's
// tables when the host runs no queue), works on it, and leaves it open.
func TestNewOnTheHostsPool(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		var pool *sql.DB
		if d == store.SQLite {
			pool = hostPool(t, "sqlite", store.SQLiteDSN(filepath.Join(t.TempDir(), "host.db")))
		} else {
			pool = hostPool(t, "pgx", strings.TrimPrefix(storetest.DSN(t, d), "sqlite:"))
		}
		_, err := pool.ExecContext(ctx, `CREATE TABLE host_things (id INTEGER PRIMARY KEY)`)
		require.NoError(t, err)

		db, err := store.New(ctx, pool)
		require.NoError(t, err)
		require.Equal(t, d, db.Dialect())
		require.NoError(t, store.MigrateWithOptions(ctx, db, &store.MigrateOptions{WithoutQueue: true}, sample))
		versions, err := store.AppliedVersions(ctx, db, "sample")
		require.NoError(t, err)
		require.Equal(t, []int{1, 2}, versions)
		require.False(t, hasTable(t, db, "river_job"), "no queue, no River tables")
		require.True(t, hasTable(t, db, "host_things"), "the host's own tables stay")

		// groundwork's SQL runs on the pool: a rate limit counted in it.
		limiter := store.NewSQLRateLimiter(db, nil)
		for range 2 {
			_, err := limiter.Hit(ctx, "k", 1, 60e9)
			require.NoError(t, err)
		}
		rl, err := limiter.Hit(ctx, "k", 1, 60e9)
		require.NoError(t, err)
		require.False(t, rl.Allowed)

		// A later run with a queue adds River's tables.
		require.NoError(t, store.Migrate(ctx, db, sample))
		require.True(t, hasTable(t, db, "river_job"))

		require.NoError(t, db.Close())
		require.NoError(t, pool.PingContext(ctx), "Close leaves the host's pool open")
	})
}

func hasTable(t *testing.T, db *store.DB, name string) bool {
	t.Helper()
	q := `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`
	if db.Dialect() == store.Postgres {
		q = `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?`
	}
	var n int
	require.NoError(t, db.GetContext(context.Background(), &n, db.Rebind(q), name))
	return n > 0
}

// A SQLite pool without the settings groundwork's SQL relies on is
// refused with the setting to change.
func TestNewRefusesUnfitSQLitePools(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "host.db")
	cases := []struct {
		name, dsn string
		oneConn   bool
		want      string
	}{
		{"NoForeignKeys", path + "?_time_format=sqlite&_pragma=busy_timeout(1000)", false, "_pragma=foreign_keys(1)"},
		{"DriverTimeFormat", path + "?_pragma=foreign_keys(1)&_pragma=busy_timeout(1000)", false, "_time_format=sqlite"},
		{"NoBusyTimeout", path + "?_pragma=foreign_keys(1)&_time_format=sqlite", false, "busy_timeout"},
		{"OneConnectionNeedsNoBusyTimeout", path + "?_pragma=foreign_keys(1)&_time_format=sqlite", true, ""},
		{"Ours", store.SQLiteDSN(path), false, ""},
	}
	for _, c := range cases {
		pool := hostPool(t, "sqlite", c.dsn)
		if c.oneConn {
			pool.SetMaxOpenConns(1)
		}
		_, err := store.New(ctx, pool)
		if c.want == "" {
			require.NoError(t, err, c.name)
			continue
		}
		require.ErrorContains(t, err, c.want, c.name)
	}
}

type otherDriver struct{}

func (otherDriver) Open(string) (driver.Conn, error) { return nil, errors.New("never opened") }

// registerOther registers otherDriver once (a second Register panics,
// as with -count 2).
var registerOther = sync.OnceFunc(func() { sql.Register("groundwork-test-other", otherDriver{}) })

func TestNewRefusesOtherDrivers(t *testing.T) {
	t.Parallel()
	registerOther()
	pool := hostPool(t, "groundwork-test-other", "x")
	_, err := store.New(context.Background(), pool)
	require.ErrorContains(t, err, "store_test.otherDriver")
	require.ErrorContains(t, err, "modernc.org/sqlite or pgx")
	_, err = store.New(context.Background(), nil)
	require.Error(t, err)
}
