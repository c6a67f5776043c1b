package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// TestStmtCache runs cached statements in transactions (which on SQLite
// hold the write pool's only connection while the cache prepares) and
// outside them, from several goroutines, and checks every write landed.
func TestStmtCache(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		db := storetest.Open(t, d)
		_, err := db.ExecContext(ctx, `CREATE TABLE stmt_t (id BIGINT PRIMARY KEY, v TEXT NOT NULL)`)
		require.NoError(t, err)
		c := store.NewStmtCache(db)
		insert := db.Rebind(`INSERT INTO stmt_t (id, v) VALUES (?, ?)`)
		get := db.Rebind(`SELECT v FROM stmt_t WHERE id = ?`)

		const workers, each = 4, 50
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := range workers {
			wg.Go(func() {
				for i := range each {
					id := w*each + i
					err := db.InTx(ctx, func(tx *sqlx.Tx) error {
						if _, err := c.ExecContext(ctx, tx, insert, id, fmt.Sprint("v", id)); err != nil {
							return err
						}
						var v string
						if err := c.QueryRowContext(ctx, tx, get, id).Scan(&v); err != nil {
							return err
						}
						if v != fmt.Sprint("v", id) {
							return fmt.Errorf("read %q back for %d", v, id)
						}
						return nil
					})
					if err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		// Outside a transaction, and a query for many rows.
		_, err = c.ExecContext(ctx, nil, insert, -1, "outside")
		require.NoError(t, err)
		rows, err := c.QueryContext(ctx, nil, db.Rebind(`SELECT count(*) FROM stmt_t WHERE id >= ?`), -1)
		require.NoError(t, err)
		require.True(t, rows.Next())
		var n int
		require.NoError(t, rows.Scan(&n))
		require.NoError(t, rows.Close())
		require.Equal(t, workers*each+1, n)

		// A query that does not compile reports its error, every time.
		for range 3 {
			_, err = c.ExecContext(ctx, nil, `INSERT INTO no_such_table VALUES (1)`)
			require.Error(t, err)
		}
		require.NoError(t, c.Close())
		// After Close, queries still run (unprepared).
		_, err = c.ExecContext(ctx, nil, insert, -2, "after close")
		require.NoError(t, err)
	})
}
