package store_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// A service begins the transaction with RunInTx; a store step that works
// through InTx, called with the context it gives, joins it: the steps
// commit together or not at all, a step that fails is undone alone, and
// steps nest.
func TestRunInTx(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d, sample)
		// step is a store method as the adapters write them.
		step := func(ctx context.Context, name string, fail error) error {
			return db.InTx(ctx, func(tx *sqlx.Tx) error {
				if _, err := tx.ExecContext(ctx, tx.Rebind("INSERT INTO samples (name, data, at) VALUES (?, '{}', ?)"), name, store.NewTime(storetestNow)); err != nil {
					return err
				}
				return fail
			})
		}
		names := func() []string {
			var out []string
			require.NoError(t, db.Reader().SelectContext(ctx, &out, "SELECT name FROM samples ORDER BY name"))
			return out
		}
		boom := errors.New("boom")

		// Both steps and the caller's own write commit together.
		require.NoError(t, db.RunInTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
			require.NoError(t, step(ctx, "a", nil))
			require.NoError(t, step(ctx, "b", nil))
			_, err := tx.ExecContext(ctx, db.Rebind("INSERT INTO samples (name, data, at) VALUES (?, '{}', ?)"), "c", store.NewTime(storetestNow))
			return err
		}))
		require.Equal(t, []string{"a", "b", "c"}, names())

		// The caller's error after the steps undoes them all.
		err := db.RunInTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
			require.NoError(t, step(ctx, "d", nil))
			return boom
		})
		require.ErrorIs(t, err, boom)
		require.Equal(t, []string{"a", "b", "c"}, names())

		// A step that fails after writing is undone alone; the caller goes
		// on and commits the rest (on Postgres too, whose transaction a
		// failed statement would otherwise have spoiled).
		require.NoError(t, db.RunInTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
			require.ErrorIs(t, step(ctx, "e", boom), boom)
			require.ErrorIs(t, step(ctx, "a", nil), store.ErrConflict) // a unique violation
			return step(ctx, "f", nil)
		}))
		require.Equal(t, []string{"a", "b", "c", "f"}, names())

		// RunInTx inside RunInTx nests: the inner one's failure is its own.
		require.NoError(t, db.RunInTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
			require.NoError(t, step(ctx, "g", nil))
			err := db.RunInTx(ctx, func(ctx context.Context, _ *sql.Tx) error {
				require.NoError(t, step(ctx, "h", nil))
				return boom
			})
			require.ErrorIs(t, err, boom)
			return db.RunInTx(ctx, func(ctx context.Context, _ *sql.Tx) error { return step(ctx, "i", nil) })
		}))
		require.Equal(t, []string{"a", "b", "c", "f", "g", "i"}, names())

		// One statement on On(ctx), or through a StmtCache without a
		// transaction of its own, joins the transaction too.
		stmts := store.NewStmtCache(db)
		t.Cleanup(func() { _ = stmts.Close() })
		insert := db.Rebind("INSERT INTO samples (name, data, at) VALUES (?, '{}', ?)")
		for range 2 { // the second time prepared, on SQLite
			err = db.RunInTx(ctx, func(ctx context.Context, _ *sql.Tx) error {
				if _, err := db.On(ctx).ExecContext(ctx, insert, "on", store.NewTime(storetestNow)); err != nil {
					return err
				}
				if _, err := stmts.ExecContext(ctx, nil, insert, "cached", store.NewTime(storetestNow)); err != nil {
					return err
				}
				return boom
			})
			require.ErrorIs(t, err, boom)
			require.Equal(t, []string{"a", "b", "c", "f", "g", "i"}, names())
			require.Eventually(t, func() bool { return d != store.SQLite || store.StmtPrepared(stmts, insert) }, 5*time.Second, 10*time.Millisecond)
		}
		_, err = db.On(ctx).ExecContext(ctx, insert, "z", store.NewTime(storetestNow))
		require.NoError(t, err, "outside a transaction, the pool")

		// A panic rolls back and goes on.
		require.Panics(t, func() {
			_ = db.RunInTx(ctx, func(ctx context.Context, _ *sql.Tx) error {
				require.NoError(t, step(ctx, "j", nil))
				panic("step panicked")
			})
		})
		require.Equal(t, []string{"a", "b", "c", "f", "g", "i", "z"}, names())

		// Another DB's transaction is not joined: the context names db's.
		other := storetest.Open(t, d, sample)
		require.NoError(t, db.RunInTx(ctx, func(ctx context.Context, _ *sql.Tx) error {
			return other.InTx(ctx, func(tx *sqlx.Tx) error {
				_, err := tx.ExecContext(ctx, tx.Rebind("INSERT INTO samples (name, data, at) VALUES (?, '{}', ?)"), "k", store.NewTime(storetestNow))
				return err
			})
		}))
		require.Equal(t, []string{"a", "b", "c", "f", "g", "i", "z"}, names())
		var inOther []string
		require.NoError(t, other.Reader().SelectContext(ctx, &inOther, "SELECT name FROM samples"))
		require.Equal(t, []string{"k"}, inOther)
	})
}

var storetestNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// WithBeginWait bounds the wait to begin (on SQLite, for the one writer
// another transaction holds), not the transaction once begun.
func TestBeginWait(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d, sample)
		insert := db.Rebind("INSERT INTO samples (name, data, at) VALUES (?, '{}', ?)")
		bounded := store.WithBeginWait(ctx, 100*time.Millisecond)

		// Begun at once, it outlives its bound.
		require.NoError(t, db.RunInTx(bounded, func(ctx context.Context, tx *sql.Tx) error {
			time.Sleep(300 * time.Millisecond)
			_, err := tx.ExecContext(ctx, insert, "slow", store.NewTime(storetestNow))
			return err
		}))

		if d != store.SQLite {
			return // Postgres begins beside another writer
		}
		held, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
		go func() {
			done <- db.InTx(ctx, func(tx *sqlx.Tx) error { close(held); <-release; return nil })
		}()
		<-held
		err := db.RunInTx(bounded, func(ctx context.Context, tx *sql.Tx) error {
			t.Error("began while another transaction held the writer")
			return nil
		})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		close(release)
		require.NoError(t, <-done)
		require.NoError(t, db.RunInTx(bounded, func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, insert, "after", store.NewTime(storetestNow))
			return err
		}))
		var n int
		require.NoError(t, db.Reader().GetContext(ctx, &n, "SELECT COUNT(*) FROM samples"))
		require.Equal(t, 2, n)
	})
}
