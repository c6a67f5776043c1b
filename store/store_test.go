package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

var sample = store.Migrations{Line: "sample", FS: os.DirFS("testdata/sample")}

func TestOpen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("BarePathAndPrefix", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		for _, dsn := range []string{filepath.Join(dir, "a.db"), "sqlite:" + filepath.Join(dir, "b.db"), "sqlite://" + filepath.Join(dir, "c.db")} {
			db, err := store.Open(ctx, dsn)
			require.NoError(t, err, dsn)
			require.Equal(t, store.SQLite, db.Dialect())
			var mode string
			require.NoError(t, db.GetContext(ctx, &mode, "PRAGMA journal_mode"))
			require.Equal(t, "wal", mode)
			var fk int
			require.NoError(t, db.GetContext(ctx, &fk, "PRAGMA foreign_keys"))
			require.Equal(t, 1, fk)
			require.NoError(t, db.Ping(ctx))
			require.NoError(t, db.Close())
		}
		require.FileExists(t, filepath.Join(dir, "c.db"))
	})

	t.Run("Memory", func(t *testing.T) {
		t.Parallel()
		db, err := store.Open(ctx, "sqlite::memory:")
		require.NoError(t, err)
		defer db.Close()
		_, err = db.ExecContext(ctx, "CREATE TABLE t (x INTEGER)")
		require.NoError(t, err)
		// Reads go to the same, only, database.
		var n int
		require.NoError(t, db.Reader().GetContext(ctx, &n, "SELECT count(*) FROM t"))
	})

	t.Run("ReaderIsReadOnly", func(t *testing.T) {
		t.Parallel()
		db, err := store.Open(ctx, filepath.Join(t.TempDir(), "r.db"))
		require.NoError(t, err)
		defer db.Close()
		_, err = db.Reader().ExecContext(ctx, "CREATE TABLE t (x INTEGER)")
		require.Error(t, err)
	})

	t.Run("BadDSNs", func(t *testing.T) {
		t.Parallel()
		for _, dsn := range []string{"", "sqlite:", "sqlite:/tmp/x.db?_pragma=foo", "file:/tmp/x.db", filepath.Join(t.TempDir(), "missing-dir", "x.db")} {
			_, err := store.Open(ctx, dsn)
			require.Error(t, err, dsn)
		}
	})

	t.Run("MistypedAddresses", func(t *testing.T) {
		t.Parallel()
		for _, tc := range []struct{ dsn, says string }{
			{"postgres:app_db", "postgres://"},
			{"postgresql:app_db", "postgres://"},
			{"pg:app", "postgres://"},
			{"mysql://root@localhost/app", "sqlite:PATH"},
			{"Postgres:" + filepath.Join(t.TempDir(), "app_db"), "postgres://"},
		} {
			_, err := store.Open(ctx, tc.dsn)
			require.Error(t, err, tc.dsn)
			require.Contains(t, err.Error(), tc.says, tc.dsn)
			require.NoFileExists(t, tc.dsn, "no file is made of a mistyped address")
		}
		// A path with a colon after a separator is still a path.
		dsn := filepath.Join(t.TempDir(), "c:d.db")
		db, err := store.Open(ctx, dsn)
		require.NoError(t, err, dsn)
		require.NoError(t, db.Close())
	})

	t.Run("PostgresUnreachable", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_, err := store.Open(ctx, "postgres://nobody:secret@127.0.0.1:1/none?sslmode=disable&connect_timeout=2")
		require.Error(t, err)
		require.NotContains(t, err.Error(), "secret")
	})
}

func TestMigrate(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()

		t.Run("TwiceInARow", func(t *testing.T) {
			t.Parallel()
			db := storetest.Open(t, d, sample)
			require.NoError(t, store.Migrate(ctx, db, sample))
			versions, err := store.AppliedVersions(ctx, db, "sample")
			require.NoError(t, err)
			require.Equal(t, []int{1, 2}, versions)
			core, err := store.AppliedVersions(ctx, db, "core")
			require.NoError(t, err)
			require.Equal(t, []int{3}, core, "the core baseline")
			var n int
			require.NoError(t, db.GetContext(ctx, &n, "SELECT count(*) FROM river_job"))
			_, err = db.ExecContext(ctx, db.Rebind("INSERT INTO samples (name, note) VALUES (?, ?)"), "x", "y")
			require.NoError(t, err)
		})

		// Pending names what a database lacks: everything before Migrate,
		// nothing after, and a line added later.
		t.Run("Pending", func(t *testing.T) {
			t.Parallel()
			db, err := store.Open(ctx, storetest.DSN(t, d))
			require.NoError(t, err)
			t.Cleanup(func() { db.Close() })
			pending, err := store.Pending(ctx, db, sample)
			require.NoError(t, err)
			require.Equal(t, []string{"core 0003_baseline", "sample 0001_samples", "sample 0002_samples_note"}, pending)
			require.NoError(t, store.Migrate(ctx, db, sample))
			pending, err = store.Pending(ctx, db, sample)
			require.NoError(t, err)
			require.Empty(t, pending)
			later := store.Migrations{Line: "later", FS: os.DirFS("testdata/sample")}
			pending, err = store.Pending(ctx, db, sample, later)
			require.NoError(t, err)
			require.Equal(t, []string{"later 0001_samples", "later 0002_samples_note"}, pending)
		})

		t.Run("Concurrently", func(t *testing.T) {
			t.Parallel()
			dsn := storetest.DSN(t, d)
			const instances = 4
			dbs := make([]*store.DB, instances)
			for i := range dbs {
				db, err := store.Open(ctx, dsn)
				require.NoError(t, err)
				t.Cleanup(func() { db.Close() })
				dbs[i] = db
			}
			var wg sync.WaitGroup
			errs := make([]error, instances)
			for i, db := range dbs {
				wg.Go(func() { errs[i] = store.Migrate(ctx, db, sample) })
			}
			wg.Wait()
			for _, err := range errs {
				require.NoError(t, err)
			}
			var n int
			require.NoError(t, dbs[0].GetContext(ctx, &n, "SELECT count(*) FROM groundwork_migrations WHERE line = 'sample'"))
			require.Equal(t, 2, n)
		})

		t.Run("NewVersionAppliedLater", func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			require.NoError(t, os.CopyFS(dir, os.DirFS("testdata/sample")))
			for _, sub := range []string{"sqlite", "postgres"} {
				require.NoError(t, os.Remove(filepath.Join(dir, sub, "0002_samples_note.sql")))
			}
			first := store.Migrations{Line: "sample", FS: os.DirFS(dir)}
			dsn := storetest.DSN(t, d)
			db := storetest.OpenDSN(t, dsn, first)
			versions, err := store.AppliedVersions(ctx, db, "sample")
			require.NoError(t, err)
			require.Equal(t, []int{1}, versions)
			require.NoError(t, store.Migrate(ctx, db, sample))
			versions, err = store.AppliedVersions(ctx, db, "sample")
			require.NoError(t, err)
			require.Equal(t, []int{1, 2}, versions)
		})

		t.Run("FailedMigrationIsNotRecorded", func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			require.NoError(t, os.CopyFS(dir, os.DirFS("testdata/sample")))
			for _, sub := range []string{"sqlite", "postgres"} {
				require.NoError(t, os.WriteFile(filepath.Join(dir, sub, "0003_broken.sql"), []byte("CREATE TABLE broken (;"), 0o644))
			}
			db := storetest.Open(t, d)
			err := store.Migrate(ctx, db, store.Migrations{Line: "sample", FS: os.DirFS(dir)})
			require.ErrorContains(t, err, "0003_broken")
			versions, err := store.AppliedVersions(ctx, db, "sample")
			require.NoError(t, err)
			if d == store.SQLite {
				require.Empty(t, versions, "SQLite migrates all or nothing")
			} else {
				require.Equal(t, []int{1, 2}, versions, "Postgres keeps what committed")
			}
		})

		t.Run("BadLines", func(t *testing.T) {
			t.Parallel()
			db := storetest.Open(t, d)
			dir := t.TempDir()
			require.NoError(t, os.MkdirAll(filepath.Join(dir, string(d)), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, string(d), "one.sql"), nil, 0o644))
			require.ErrorContains(t, store.Migrate(ctx, db, store.Migrations{Line: "bad", FS: os.DirFS(dir)}), "NNNN_description.sql")
			require.ErrorContains(t, store.Migrate(ctx, db, sample, sample), "given twice")
			require.Error(t, store.Migrate(ctx, db, store.Migrations{Line: "empty", FS: os.DirFS(t.TempDir())}))
		})
	})
}

type sampleRow struct {
	ID   int64                        `db:"id"`
	Name string                       `db:"name"`
	Data store.JSON[map[string][]int] `db:"data"`
	At   store.Time                   `db:"at"`
}

func TestColumnsAndErrors(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d, sample)
		insert := db.Rebind("INSERT INTO samples (name, data, at) VALUES (?, ?, ?)")

		t.Run("RoundTrips", func(t *testing.T) {
			paris, err := time.LoadLocation("Europe/Paris")
			require.NoError(t, err)
			at := time.Date(2026, 3, 29, 2, 30, 15, 123456789, paris) // a DST edge, nanoseconds
			data := map[string][]int{"a": {1, 2}, "ü": nil}
			_, err = db.ExecContext(ctx, insert, "rt", store.JSON[map[string][]int]{V: data}, store.NewTime(at))
			require.NoError(t, err)

			var row sampleRow
			require.NoError(t, db.Reader().GetContext(ctx, &row, db.Rebind("SELECT id, name, data, at FROM samples WHERE name = ?"), "rt"))
			require.Equal(t, data, row.Data.V)
			require.Equal(t, time.UTC, row.At.Location())
			require.True(t, row.At.Equal(at.Truncate(time.Microsecond)), "%s vs %s", row.At, at)
			require.Equal(t, at.UTC().Truncate(time.Microsecond), row.At.Time)

			// Aggregates hand SQLite's text back; it still scans in UTC.
			var latest store.Time
			require.NoError(t, db.GetContext(ctx, &latest, "SELECT MAX(at) FROM samples"))
			require.Equal(t, row.At.Time, latest.Time)
		})

		t.Run("TimesCompareInOrder", func(t *testing.T) {
			base := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
			for i, offset := range []time.Duration{0, 500 * time.Millisecond, 1500 * time.Microsecond, time.Second, 10 * time.Second} {
				_, err := db.ExecContext(ctx, insert, "cmp"+string(rune('a'+i)), nil, store.NewTime(base.Add(offset)))
				require.NoError(t, err)
			}
			var names []string
			require.NoError(t, db.SelectContext(ctx, &names, db.Rebind("SELECT name FROM samples WHERE name LIKE 'cmp%' AND at > ? ORDER BY at"), store.NewTime(base.Add(time.Millisecond))))
			require.Equal(t, []string{"cmpc", "cmpb", "cmpd", "cmpe"}, names)
		})

		t.Run("NullsScanAsZero", func(t *testing.T) {
			_, err := db.ExecContext(ctx, insert, "nulls", store.JSON[map[string][]int]{}, store.Time{})
			require.NoError(t, err)
			var row sampleRow
			require.NoError(t, db.GetContext(ctx, &row, db.Rebind("SELECT id, name, data, at FROM samples WHERE name = ?"), "nulls"))
			require.Nil(t, row.Data.V)
			require.True(t, row.At.IsZero())
		})

		t.Run("Conflict", func(t *testing.T) {
			_, err := db.ExecContext(ctx, insert, "dup", nil, nil)
			require.NoError(t, err)
			_, err = db.ExecContext(ctx, insert, "dup", nil, nil)
			require.Error(t, err)
			mapped := store.MapError(err)
			require.ErrorIs(t, mapped, store.ErrConflict)
			require.True(t, store.IsUniqueViolation(err))

			// Inside InTx, the error comes back mapped.
			err = db.InTx(ctx, func(tx *sqlx.Tx) error {
				_, err := tx.ExecContext(ctx, insert, "dup", nil, nil)
				return err
			})
			require.ErrorIs(t, err, store.ErrConflict)
		})

		t.Run("ForeignKey", func(t *testing.T) {
			_, err := db.ExecContext(ctx, `CREATE TABLE sample_tags (sample_id BIGINT NOT NULL REFERENCES samples (id), tag TEXT NOT NULL)`)
			require.NoError(t, err)
			_, err = db.ExecContext(ctx, db.Rebind(`INSERT INTO sample_tags (sample_id, tag) VALUES (?, ?)`), 987654, "orphan")
			require.Error(t, err, "foreign keys are enforced")
			require.True(t, store.IsForeignKeyViolation(err))
			require.False(t, store.IsUniqueViolation(err))
			require.False(t, store.IsForeignKeyViolation(errors.New("other")))
			_, err = db.ExecContext(ctx, insert, "dup", nil, nil) // taken by Conflict, or not
			require.False(t, store.IsForeignKeyViolation(err))
		})

		t.Run("NotFound", func(t *testing.T) {
			var row sampleRow
			err := db.GetContext(ctx, &row, db.Rebind("SELECT id, name, data, at FROM samples WHERE name = ?"), "nobody")
			require.ErrorIs(t, store.MapError(err), store.ErrNotFound)
			require.ErrorIs(t, store.MapError(err), sql.ErrNoRows)
			require.NoError(t, store.MapError(nil))
			other := errors.New("other")
			require.Equal(t, other, store.MapError(other))
		})

		t.Run("InTxRollsBack", func(t *testing.T) {
			boom := errors.New("boom")
			err := db.InTx(ctx, func(tx *sqlx.Tx) error {
				_, err := tx.ExecContext(ctx, insert, "rolled", nil, nil)
				require.NoError(t, err)
				return boom
			})
			require.ErrorIs(t, err, boom)
			require.Panics(t, func() {
				_ = db.InTx(ctx, func(tx *sqlx.Tx) error {
					_, err := tx.ExecContext(ctx, insert, "panicked", nil, nil)
					require.NoError(t, err)
					panic("boom")
				})
			})
			var n int
			require.NoError(t, db.GetContext(ctx, &n, "SELECT count(*) FROM samples WHERE name IN ('rolled', 'panicked')"))
			require.Zero(t, n)
			// The pool is still usable: the panicking transaction released its connection.
			require.NoError(t, db.InTx(ctx, func(tx *sqlx.Tx) error {
				_, err := tx.ExecContext(ctx, insert, "committed", nil, nil)
				return err
			}))
			require.NoError(t, db.GetContext(ctx, &n, "SELECT count(*) FROM samples WHERE name = 'committed'"))
			require.Equal(t, 1, n)
		})
	})
}

type pingArgs struct {
	N int `json:"n"`
}

func (pingArgs) Kind() string { return "store_test_ping" }

type pingWorker struct {
	river.WorkerDefaults[pingArgs]
	got chan int
}

func (w *pingWorker) Work(_ context.Context, job *river.Job[pingArgs]) error {
	w.got <- job.Args.N
	return nil
}

func TestQueue(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d, sample)
		q, err := store.NewQueue(db, &store.QueueOptions{TestOnly: true, Queues: map[string]int{"other": 2}})
		require.NoError(t, err)
		_, err = store.NewQueue(db, &store.QueueOptions{Queues: map[string]int{"bad": 0}})
		require.Error(t, err)
		w := &pingWorker{got: make(chan int, 20)}
		river.AddWorker(q.Workers(), w)
		require.False(t, q.Running(), "not started")
		require.NoError(t, q.Start(ctx))
		require.True(t, q.Running())
		t.Cleanup(func() {
			require.NoError(t, q.Stop(context.Background()))
			require.False(t, q.Running(), "stopped")
		})

		insert := db.Rebind("INSERT INTO samples (name) VALUES (?)")
		rollback := errors.New("rollback")
		err = db.InTx(ctx, func(tx *sqlx.Tx) error {
			_, err := tx.ExecContext(ctx, insert, "rolled-back")
			require.NoError(t, err)
			require.NoError(t, q.EnqueueTx(ctx, tx.Tx, pingArgs{N: 1}, nil))
			return rollback
		})
		require.ErrorIs(t, err, rollback)

		require.NoError(t, db.InTx(ctx, func(tx *sqlx.Tx) error {
			_, err := tx.ExecContext(ctx, insert, "committed")
			require.NoError(t, err)
			return q.EnqueueTx(ctx, tx.Tx, pingArgs{N: 2}, nil)
		}))
		require.NoError(t, q.Enqueue(ctx, pingArgs{N: 3}, nil))
		// Batches: one rolled back, one committed, one outside a
		// transaction.
		many := func(ns ...int) []river.InsertManyParams {
			var out []river.InsertManyParams
			for _, n := range ns {
				out = append(out, river.InsertManyParams{Args: pingArgs{N: n}})
			}
			return out
		}
		err = db.InTx(ctx, func(tx *sqlx.Tx) error {
			require.NoError(t, q.EnqueueMany(ctx, tx.Tx, many(10, 11)))
			return rollback
		})
		require.ErrorIs(t, err, rollback)
		require.NoError(t, db.InTx(ctx, func(tx *sqlx.Tx) error { return q.EnqueueMany(ctx, tx.Tx, many(4, 5)) }))
		require.NoError(t, q.EnqueueMany(ctx, nil, many(6)))
		require.NoError(t, q.Enqueue(ctx, pingArgs{N: 7}, &river.InsertOpts{Queue: "other"}))
		require.NoError(t, q.EnqueueMany(ctx, nil, nil))

		got := map[int]bool{}
		for range 6 {
			select {
			case n := <-w.got:
				got[n] = true
			case <-time.After(10 * time.Second):
				t.Fatal("jobs did not run")
			}
		}
		require.Equal(t, map[int]bool{2: true, 3: true, 4: true, 5: true, 6: true, 7: true}, got, "the named queue is worked too")
		// The rolled-back jobs never existed, so they can never run.
		var kinds []int
		require.NoError(t, db.SelectContext(ctx, &kinds, "SELECT id FROM river_job"))
		require.Len(t, kinds, 6)
		select {
		case n := <-w.got:
			t.Fatalf("job %d ran", n)
		case <-time.After(3 * store.QueueFetchPollIntervalDefault):
		}
		// What waits, counted from the database.
		require.NoError(t, q.Enqueue(ctx, pingArgs{N: 8}, &river.InsertOpts{Queue: "other", ScheduledAt: time.Now().Add(time.Hour)}))
		waiting, err := q.Waiting(ctx)
		require.NoError(t, err)
		require.Equal(t, []store.QueueCount{{Queue: "other", State: "scheduled", N: 1}}, waiting)
	})
}

func TestQueueStopLetsRunningJobsFinish(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.Open(t, store.SQLite)
	q, err := store.NewQueue(db, &store.QueueOptions{TestOnly: true})
	require.NoError(t, err)
	w := &slowWorker{started: make(chan struct{}), release: make(chan struct{}), finished: make(chan struct{}, 1)}
	river.AddWorker(q.Workers(), w)
	require.NoError(t, q.Start(ctx))
	require.NoError(t, q.Enqueue(ctx, slowArgs{}, nil))
	<-w.started
	stopped := make(chan error, 1)
	go func() { stopped <- q.Stop(ctx) }()
	select {
	case err := <-stopped:
		t.Fatalf("Stop returned before the job finished: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(w.release)
	require.NoError(t, <-stopped)
	select {
	case <-w.finished:
	default:
		t.Fatal("the job did not finish")
	}
	var state string
	require.NoError(t, db.GetContext(ctx, &state, "SELECT state FROM river_job"))
	require.Equal(t, "completed", state)
}

type slowArgs struct{}

func (slowArgs) Kind() string { return "store_test_slow" }

type slowWorker struct {
	river.WorkerDefaults[slowArgs]
	started, release chan struct{}
	finished         chan struct{}
}

func (w *slowWorker) Work(ctx context.Context, _ *river.Job[slowArgs]) error {
	close(w.started)
	select {
	case <-w.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	w.finished <- struct{}{}
	return nil
}

func TestKeyFingerprint(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		k1, k2 := []byte("0123456789abcdef0123456789abcdef"), []byte("fedcba9876543210fedcba9876543210")

		// Before the first migration there is nothing to compare with.
		fresh, err := store.Open(ctx, storetest.DSN(t, d))
		require.NoError(t, err)
		t.Cleanup(func() { fresh.Close() })
		require.NoError(t, store.CheckKey(ctx, fresh, "secret", k1))

		db := storetest.Open(t, d)
		require.NoError(t, store.CheckKey(ctx, db, "secret", k2), "none recorded yet")
		require.NoError(t, store.RecordKey(ctx, db, "secret", k1))
		require.NoError(t, store.RecordKey(ctx, db, "secret", k1), "again: the same key")
		require.NoError(t, store.CheckKey(ctx, db, "secret", k1))
		require.NoError(t, store.CheckKey(ctx, db, "other", k2), "names are apart")

		err = store.CheckKey(ctx, db, "secret", k2)
		require.ErrorIs(t, err, store.ErrKeyMismatch)
		var km *store.KeyMismatchError
		require.ErrorAs(t, err, &km)
		require.Equal(t, store.KeyFingerprint(k1)[:8], km.Want)
		require.Equal(t, store.KeyFingerprint(k2)[:8], km.Got)
		require.Contains(t, err.Error(), "every instance on a database must be given the same key")
		require.NotContains(t, err.Error(), string(k1))
		require.NotContains(t, err.Error(), string(k2))
		require.ErrorIs(t, store.RecordKey(ctx, db, "secret", k2), store.ErrKeyMismatch)

		var stored string
		require.NoError(t, db.GetContext(ctx, &stored, `SELECT fingerprint FROM groundwork_keys`))
		require.Equal(t, store.KeyFingerprint(k1), stored)
		require.NotContains(t, stored, string(k1))
	})
}

// Instances that start at once with different keys: one records its key,
// the others are refused.
func TestRecordKeyRace(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		dsn := storetest.DSN(t, d)
		dbs := make([]*store.DB, 4)
		for i := range dbs {
			dbs[i] = storetest.OpenDSN(t, dsn)
		}
		errs := make([]error, len(dbs))
		var wg sync.WaitGroup
		for i, db := range dbs {
			wg.Go(func() { errs[i] = store.RecordKey(ctx, db, "secret", bytes.Repeat([]byte{byte(i)}, 32)) })
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
			} else {
				require.ErrorIs(t, err, store.ErrKeyMismatch)
			}
		}
		require.Equal(t, 1, ok)
	})
}
