package store_test

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

type noteArgs struct{ N int }

func (noteArgs) Kind() string { return "note" }

// recordingEnqueuer records EnqueueMany's batches; the first one waits
// for release, so that others pile up behind it.
type recordingEnqueuer struct {
	store.Enqueuer
	mu      sync.Mutex
	batches [][]int
	release chan struct{}
	fail    error
}

func (r *recordingEnqueuer) EnqueueMany(_ context.Context, _ *sql.Tx, jobs []river.InsertManyParams) error {
	r.mu.Lock()
	first := len(r.batches) == 0
	var ns []int
	for _, j := range jobs {
		ns = append(ns, j.Args.(noteArgs).N)
	}
	r.batches = append(r.batches, ns)
	r.mu.Unlock()
	if first {
		<-r.release
	}
	return r.fail
}

func TestBatchEnqueuer(t *testing.T) {
	t.Parallel()
	rec := &recordingEnqueuer{release: make(chan struct{})}
	b := store.NewBatchEnqueuer(rec)
	ctx := context.Background()
	errs := make(chan error, 11)
	go func() { errs <- b.Enqueue(ctx, noteArgs{0}, nil) }()
	require.Eventually(t, func() bool { rec.mu.Lock(); defer rec.mu.Unlock(); return len(rec.batches) == 1 }, 5*time.Second, time.Millisecond)
	// Ten calls while the first batch is being written: one batch next.
	for i := 1; i <= 10; i++ {
		go func() { errs <- b.Enqueue(ctx, noteArgs{i}, nil) }()
	}
	time.Sleep(50 * time.Millisecond)
	close(rec.release)
	for range 11 {
		require.NoError(t, <-errs)
	}
	rec.mu.Lock()
	require.Len(t, rec.batches, 2)
	require.Equal(t, []int{0}, rec.batches[0])
	require.ElementsMatch(t, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, rec.batches[1])
	rec.mu.Unlock()

	// A failed batch fails every call in it.
	bad := &recordingEnqueuer{release: make(chan struct{}), fail: errors.New("down")}
	close(bad.release)
	require.ErrorContains(t, store.NewBatchEnqueuer(bad).Enqueue(ctx, noteArgs{1}, nil), "down")
	// A caller that gives up gets its context's error.
	slow := &recordingEnqueuer{release: make(chan struct{})}
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, store.NewBatchEnqueuer(slow).Enqueue(cctx, noteArgs{1}, nil), context.DeadlineExceeded)
	close(slow.release)
}

// Through a real queue: the jobs are stored.
func TestBatchEnqueuerQueue(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite)
	q, err := store.NewQueue(db, &store.QueueOptions{TestOnly: true})
	require.NoError(t, err)
	b := store.NewBatchEnqueuer(q)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() { require.NoError(t, b.Enqueue(context.Background(), noteArgs{i}, nil)) })
	}
	wg.Wait()
	var n int
	require.NoError(t, db.Get(&n, "SELECT COUNT(*) FROM river_job WHERE kind = 'note'"))
	require.Equal(t, 20, n)
}
