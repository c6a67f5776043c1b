package store

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/store/driverless"
)

// SQLRateLimiter is a [groundwork.RateLimiter] whose counters live in the table
// groundwork_rate_limits (see [CoreMigrations]), so every instance on the
// database shares them. Each hit is counted by an atomic upsert; hits on
// one key that arrive while that key's upsert is under way wait and go
// together in the next one (adding their number), so a busy key costs one
// statement at a time per instance rather than one per hit, and each hit
// still learns its own place in the window. On Postgres the upsert commits
// without waiting for its WAL to reach disk (synchronous_commit off, for
// that statement alone): a crash may forget the last fraction of a second
// of hits, which a rate limit can afford.
type SQLRateLimiter struct {
	db        *DB
	opts      driverless.RateLimiterOptions
	nextSweep atomic.Int64 // unix nanoseconds
	upsert    string

	mu   sync.Mutex
	keys map[string]*hitKey
}

// hitKey is one key's batching state: the batch being counted, and the
// one gathering hits meanwhile.
type hitKey struct {
	running <-chan struct{} // closed when the batch under way is done
	next    *hitBatch
}

// hitBatch is hits counted by one upsert.
type hitBatch struct {
	n      int // hits that joined
	sealed int // hits the upsert counted
	done   chan struct{}
	hits   int
	reset  Time
	err    error
}

// NewSQLRateLimiter returns a limiter counting in db.
func NewSQLRateLimiter(db *DB, opts *driverless.RateLimiterOptions) *SQLRateLimiter {
	insert := `INSERT INTO groundwork_rate_limits (key, hits, reset_at) VALUES (?, ?, ?)`
	if db.Dialect() == Postgres {
		// set_config(..., true) lasts until the statement's implicit
		// transaction ends, so it governs that transaction's commit.
		insert = `WITH async AS (SELECT set_config('synchronous_commit', 'off', true))
INSERT INTO groundwork_rate_limits (key, hits, reset_at) SELECT CAST(? AS TEXT), CAST(? AS INTEGER), CAST(? AS TIMESTAMPTZ) FROM async`
	}
	return &SQLRateLimiter{
		db:   db,
		opts: opts.WithDefaults(),
		keys: map[string]*hitKey{},
		// An expired window restarts at the new hits; a live one counts on.
		upsert: db.Rebind(insert + `
ON CONFLICT (key) DO UPDATE SET
	hits = CASE WHEN groundwork_rate_limits.reset_at <= ? THEN excluded.hits ELSE groundwork_rate_limits.hits + excluded.hits END,
	reset_at = CASE WHEN groundwork_rate_limits.reset_at <= ? THEN excluded.reset_at ELSE groundwork_rate_limits.reset_at END
RETURNING hits, reset_at`),
	}
}

// Hit implements [groundwork.RateLimiter].
func (l *SQLRateLimiter) Hit(ctx context.Context, key string, limit int, window time.Duration) (groundwork.RateLimit, error) {
	if err := groundwork.CheckHit(limit, window); err != nil {
		return groundwork.RateLimit{}, err
	}
	if err := l.maybeSweep(ctx, NewTime(l.opts.Now())); err != nil {
		return groundwork.RateLimit{}, err
	}
	l.mu.Lock()
	k := l.keys[key]
	if k == nil {
		k = &hitKey{}
		l.keys[key] = k
	}
	b := k.next
	if b == nil {
		b = &hitBatch{done: make(chan struct{})}
		k.next = b
	}
	b.n++
	place := b.n
	l.mu.Unlock()

	if place == 1 {
		l.count(ctx, key, k, b, window)
	} else {
		select {
		case <-b.done:
		case <-ctx.Done():
			return groundwork.RateLimit{}, fmt.Errorf("store: rate limit hit: %w", ctx.Err())
		}
	}
	if b.err != nil {
		return groundwork.RateLimit{}, b.err
	}
	// The batch's hits end at b.hits; this hit is place-th of them.
	return groundwork.NewRateLimit(b.hits-b.sealed+place, limit, b.reset.Time), nil
}

// count runs batch b of key once the batch before it is done: it takes the
// hits that joined so far and counts them in one upsert.
func (l *SQLRateLimiter) count(ctx context.Context, key string, k *hitKey, b *hitBatch, window time.Duration) {
	l.mu.Lock()
	prev := k.running
	l.mu.Unlock()
	if prev != nil {
		select {
		case <-prev:
		case <-ctx.Done():
		}
	}
	l.mu.Lock()
	k.next = nil // later hits gather in a new batch
	k.running = b.done
	b.sealed = b.n
	l.mu.Unlock()

	now := NewTime(l.opts.Now())
	var hits int
	var reset Time
	err := l.db.QueryRowxContext(context.WithoutCancel(ctx), l.upsert, key, b.sealed, NewTime(now.Add(window)), now, now).Scan(&hits, &reset)
	if err != nil {
		err = fmt.Errorf("store: rate limit hit: %w", err)
	}
	b.hits, b.reset, b.err = hits, reset, err

	l.mu.Lock()
	if k.running == b.done {
		k.running = nil
		if k.next == nil {
			delete(l.keys, key) // idle: forget it
		}
	}
	close(b.done)
	l.mu.Unlock()
}

// Refund implements [groundwork.RateLimitRefunder]: it takes a hit off key's
// live window, on every instance at once.
func (l *SQLRateLimiter) Refund(ctx context.Context, key string) error {
	if _, err := l.db.ExecContext(ctx, l.db.Rebind(`UPDATE groundwork_rate_limits SET hits = hits - 1
		WHERE key = ? AND hits > 0 AND reset_at > ?`), key, NewTime(l.opts.Now())); err != nil {
		return fmt.Errorf("store: rate limit refund: %w", err)
	}
	return nil
}

// Reset implements [groundwork.RateLimitResetter]: it deletes key's row, on every
// instance at once.
func (l *SQLRateLimiter) Reset(ctx context.Context, key string) error {
	if _, err := l.db.ExecContext(ctx, l.db.Rebind(`DELETE FROM groundwork_rate_limits WHERE key = ?`), key); err != nil {
		return fmt.Errorf("store: rate limit reset: %w", err)
	}
	return nil
}

// maybeSweep deletes expired windows, at most once per SweepInterval per
// limiter; the caller that wins the swap does it.
func (l *SQLRateLimiter) maybeSweep(ctx context.Context, now Time) error {
	next := l.nextSweep.Load()
	if now.UnixNano() < next || !l.nextSweep.CompareAndSwap(next, now.Add(l.opts.SweepInterval).UnixNano()) {
		return nil
	}
	return sweepRateLimits(ctx, l.db, now)
}

// sweepRateLimits deletes the windows that ended by now.
func sweepRateLimits(ctx context.Context, db *DB, now Time) error {
	if _, err := db.ExecContext(ctx, db.Rebind(`DELETE FROM groundwork_rate_limits WHERE reset_at <= ?`), now); err != nil {
		return fmt.Errorf("store: rate limit sweep: %w", err)
	}
	return nil
}

// rateLimitSweepInterval is how often a [Queue] sweeps expired windows
// that no hit will sweep inline (keys that went quiet).
const rateLimitSweepInterval = time.Hour

// RateLimitSweepArgs is the job that deletes expired rate-limit windows;
// a [Queue] schedules it every hour, and a host may
// enqueue one at any time.
type RateLimitSweepArgs struct{}

// Kind implements river.JobArgs.
func (RateLimitSweepArgs) Kind() string { return "groundwork_rate_limit_sweep" }

type rateLimitSweepWorker struct {
	river.WorkerDefaults[RateLimitSweepArgs]
	db *DB
}

func (w *rateLimitSweepWorker) Work(ctx context.Context, _ *river.Job[RateLimitSweepArgs]) error {
	return sweepRateLimits(ctx, w.db, NewTime(time.Now()))
}
