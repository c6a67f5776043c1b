package store_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store/driverless"
)

// The drivers' own errors for a database that cannot serve at the moment are
// told apart from the request's own faults.
func TestUnavailableReadsTheDrivers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	unavailable := func(t *testing.T, err error, want string) {
		t.Helper()
		require.Error(t, err)
		cause, ok := driverless.Unavailable(err)
		require.True(t, ok, "%v", err)
		require.Equal(t, want, cause, "%v", err)
	}
	fault := func(t *testing.T, err error) {
		t.Helper()
		require.Error(t, err)
		_, ok := driverless.Unavailable(err)
		require.False(t, ok, "%v", err)
	}

	t.Run("SQLite", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "a.db")
		db, err := sql.Open("sqlite", "file:"+path)
		require.NoError(t, err)
		defer db.Close()
		_, err = db.ExecContext(ctx, "CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB)")
		require.NoError(t, err)
		fault(t, exec(db, "INSERT INTO nowhere VALUES (1)"))
		fault(t, exec(db, "INSERT INTO t (id) VALUES (1), (1)"))

		ro, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
		require.NoError(t, err)
		defer ro.Close()
		unavailable(t, exec(ro, "INSERT INTO t (id) VALUES (2)"), driverless.CauseReadOnly)

		// A database that may grow no further is what a full disk looks like.
		_, err = db.ExecContext(ctx, "PRAGMA max_page_count = 8")
		require.NoError(t, err)
		unavailable(t, exec(db, "INSERT INTO t (b) VALUES (zeroblob(100000))"), driverless.CauseDiskFull)
	})

	t.Run("PostgresRefused", func(t *testing.T) {
		t.Parallel()
		db, err := sql.Open("pgx", "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=2")
		require.NoError(t, err)
		defer db.Close()
		unavailable(t, db.PingContext(ctx), driverless.CauseNoAnswer)
	})

	t.Run("PostgresTerminated", func(t *testing.T) {
		t.Parallel()
		url := os.Getenv("TEST_DATABASE_URL")
		if url == "" {
			t.Skip("TEST_DATABASE_URL is not set")
		}
		db, err := sql.Open("pgx", url)
		require.NoError(t, err)
		defer db.Close()
		fault(t, exec(db, "SELEC 1"))
		fault(t, exec(db, "SELECT 1/0"))
		victim, err := db.Conn(ctx)
		require.NoError(t, err)
		defer victim.Close()
		var pid int
		require.NoError(t, victim.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid))
		_, err = db.ExecContext(ctx, "SELECT pg_terminate_backend($1)", pid)
		require.NoError(t, err)
		_, err = victim.ExecContext(ctx, "SELECT 1")
		require.Error(t, err)
		cause, ok := driverless.Unavailable(err)
		require.True(t, ok, "%v", err)
		require.True(t, cause == driverless.CauseRestarting || cause == driverless.CauseNoAnswer, "%s: %v", cause, err)
		require.NoError(t, db.PingContext(ctx), "the pool makes a new connection")
	})
}

func exec(db *sql.DB, query string) error {
	_, err := db.ExecContext(context.Background(), query)
	return err
}
