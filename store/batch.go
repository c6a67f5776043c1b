package store

import (
	"context"
	"database/sql"
	"sync"

	"github.com/riverqueue/river"
)

// BatchEnqueuer is an [Enqueuer] whose Enqueue calls made at the same
// time share one insert: while one batch is being written, the calls that
// arrive wait and go together in the next (natural batching: no timer, so
// a lone call waits for nothing). Each call still returns only once its
// job is committed, or with the batch's error, in which case none of the
// batch's jobs was stored. EnqueueTx and EnqueueMany pass straight
// through. Under load this turns a commit per job into a commit per
// batch. Safe for concurrent use.
type BatchEnqueuer struct {
	next     Enqueuer
	maxBatch int

	mu      sync.Mutex
	pending []pendingJob
	running bool
}

// BatchMaxDefault caps one batch of a BatchEnqueuer.
const BatchMaxDefault = 500

type pendingJob struct {
	args river.JobArgs
	opts *river.InsertOpts
	done chan error
}

// NewBatchEnqueuer batches the Enqueue calls of next.
func NewBatchEnqueuer(next Enqueuer) *BatchEnqueuer {
	return &BatchEnqueuer{next: next, maxBatch: BatchMaxDefault}
}

// Enqueue implements Enqueuer: the job is inserted with the others
// waiting, in one transaction. If ctx ends first, Enqueue returns its
// error, and the job may yet be stored.
func (b *BatchEnqueuer) Enqueue(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) error {
	p := pendingJob{args: args, opts: opts, done: make(chan error, 1)}
	b.mu.Lock()
	b.pending = append(b.pending, p)
	if !b.running {
		b.running = true
		go b.flush()
	}
	b.mu.Unlock()
	select {
	case err := <-p.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// flush writes batches until none is waiting.
func (b *BatchEnqueuer) flush() {
	for {
		b.mu.Lock()
		n := min(len(b.pending), b.maxBatch)
		if n == 0 {
			b.running = false
			b.mu.Unlock()
			return
		}
		batch := b.pending[:n:n]
		b.pending = b.pending[n:]
		b.mu.Unlock()
		params := make([]river.InsertManyParams, len(batch))
		for i, p := range batch {
			params[i] = river.InsertManyParams{Args: p.args, InsertOpts: p.opts}
		}
		err := b.next.EnqueueMany(context.Background(), nil, params)
		for _, p := range batch {
			p.done <- err
		}
	}
}

// EnqueueTx implements Enqueuer: straight through.
func (b *BatchEnqueuer) EnqueueTx(ctx context.Context, tx *sql.Tx, args river.JobArgs, opts *river.InsertOpts) error {
	return b.next.EnqueueTx(ctx, tx, args, opts)
}

// EnqueueMany implements Enqueuer: straight through.
func (b *BatchEnqueuer) EnqueueMany(ctx context.Context, tx *sql.Tx, jobs []river.InsertManyParams) error {
	return b.next.EnqueueMany(ctx, tx, jobs)
}
