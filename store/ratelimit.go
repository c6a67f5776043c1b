package store

import (
	"context"
	"fmt"
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
)

// RateLimiter counts hits on a key in fixed windows: a window opens at the
// first hit on a key, lasts the given length, and allows limit hits. Every
// hit counts, allowed or not, so a client that keeps knocking does not
// open a fresh window early.
//
// [MemoryRateLimiter] counts in the process; [SQLRateLimiter] counts in the
// database, so a limit holds across every instance sharing it.
type RateLimiter interface {
	// Hit counts one hit on key and reports the state of its window.
	// limit must be positive and window at least a millisecond.
	Hit(ctx context.Context, key string, limit int, window time.Duration) (RateLimit, error)
}

// RateLimitResetter is a [RateLimiter] that can also forget a key's
// window, as a successful sign-in forgets the failures before it. Both
// limiters of this package are one.
type RateLimitResetter interface {
	RateLimiter
	// Reset forgets key's window; the next hit opens a new one. A key
	// with no window is not an error.
	Reset(ctx context.Context, key string) error
}

// RateLimit is the state of a key's window after a hit.
type RateLimit struct {
	// Allowed is false once the hits in the window exceed Limit.
	Allowed bool
	// Limit is the number of hits the window allows.
	Limit int
	// Remaining is how many more hits the window allows, never negative.
	Remaining int
	// Reset is when the window ends.
	Reset time.Time
}

// RetryAfter is how long until the window ends, rounded up to whole
// seconds as the Retry-After header wants, and at least one second.
func (r RateLimit) RetryAfter(now time.Time) time.Duration {
	d := r.Reset.Sub(now)
	secs := (d + time.Second - 1) / time.Second
	return max(secs, 1) * time.Second
}

func newRateLimit(hits, limit int, reset time.Time) RateLimit {
	return RateLimit{Allowed: hits <= limit, Limit: limit, Remaining: max(limit-hits, 0), Reset: reset}
}

func checkHit(limit int, window time.Duration) error {
	if limit <= 0 || window < time.Millisecond {
		return fmt.Errorf("store: rate limit: limit %d and window %s must be positive", limit, window)
	}
	return nil
}

// RateLimiterOptions configures the rate limiters. Nil means defaults.
type RateLimiterOptions struct {
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// SweepInterval is how often expired windows are forgotten (deleted,
	// for the SQL limiter). Default RateLimitSweepIntervalDefault.
	SweepInterval time.Duration
}

// RateLimitSweepIntervalDefault is how often expired windows are dropped.
const RateLimitSweepIntervalDefault = time.Minute

func (o *RateLimiterOptions) withDefaults() RateLimiterOptions {
	var out RateLimiterOptions
	if o != nil {
		out = *o
	}
	if out.Now == nil {
		out.Now = time.Now
	}
	if out.SweepInterval <= 0 {
		out.SweepInterval = RateLimitSweepIntervalDefault
	}
	return out
}

// MemoryRateLimiter is a [RateLimiter] for one process. It is safe for
// concurrent use; keys are spread over shards so hits on different keys
// rarely wait for each other.
type MemoryRateLimiter struct {
	opts   RateLimiterOptions
	seed   maphash.Seed
	shards [32]memoryShard
}

type memoryShard struct {
	mu        sync.Mutex
	windows   map[string]memoryWindow // values, not pointers: less for the GC to trace
	nextSweep time.Time
}

type memoryWindow struct {
	hits  int
	reset time.Time
}

// NewMemoryRateLimiter returns an empty in-memory limiter.
func NewMemoryRateLimiter(opts *RateLimiterOptions) *MemoryRateLimiter {
	l := &MemoryRateLimiter{opts: opts.withDefaults(), seed: maphash.MakeSeed()}
	for i := range l.shards {
		l.shards[i].windows = map[string]memoryWindow{}
	}
	return l
}

// Hit implements [RateLimiter].
func (l *MemoryRateLimiter) Hit(_ context.Context, key string, limit int, window time.Duration) (RateLimit, error) {
	if err := checkHit(limit, window); err != nil {
		return RateLimit{}, err
	}
	now := l.opts.Now()
	s := &l.shards[maphash.String(l.seed, key)%uint64(len(l.shards))]
	s.mu.Lock()
	defer s.mu.Unlock()
	if now.After(s.nextSweep) {
		for k, w := range s.windows {
			if !now.Before(w.reset) {
				delete(s.windows, k)
			}
		}
		s.nextSweep = now.Add(l.opts.SweepInterval)
	}
	w, ok := s.windows[key]
	if !ok || !now.Before(w.reset) {
		w = memoryWindow{reset: now.Add(window)}
	}
	w.hits++
	s.windows[key] = w
	return newRateLimit(w.hits, limit, w.reset), nil
}

// Reset implements [RateLimitResetter].
func (l *MemoryRateLimiter) Reset(_ context.Context, key string) error {
	s := &l.shards[maphash.String(l.seed, key)%uint64(len(l.shards))]
	s.mu.Lock()
	delete(s.windows, key)
	s.mu.Unlock()
	return nil
}

// SQLRateLimiter is a [RateLimiter] whose counters live in the table
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
	opts      RateLimiterOptions
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
func NewSQLRateLimiter(db *DB, opts *RateLimiterOptions) *SQLRateLimiter {
	insert := `INSERT INTO groundwork_rate_limits (key, hits, reset_at) VALUES (?, ?, ?)`
	if db.Dialect() == Postgres {
		// set_config(..., true) lasts until the statement's implicit
		// transaction ends, so it governs that transaction's commit.
		insert = `WITH async AS (SELECT set_config('synchronous_commit', 'off', true))
INSERT INTO groundwork_rate_limits (key, hits, reset_at) SELECT CAST(? AS TEXT), CAST(? AS INTEGER), CAST(? AS TIMESTAMPTZ) FROM async`
	}
	return &SQLRateLimiter{
		db:   db,
		opts: opts.withDefaults(),
		keys: map[string]*hitKey{},
		// An expired window restarts at the new hits; a live one counts on.
		upsert: db.Rebind(insert + `
ON CONFLICT (key) DO UPDATE SET
	hits = CASE WHEN groundwork_rate_limits.reset_at <= ? THEN excluded.hits ELSE groundwork_rate_limits.hits + excluded.hits END,
	reset_at = CASE WHEN groundwork_rate_limits.reset_at <= ? THEN excluded.reset_at ELSE groundwork_rate_limits.reset_at END
RETURNING hits, reset_at`),
	}
}

// Hit implements [RateLimiter].
func (l *SQLRateLimiter) Hit(ctx context.Context, key string, limit int, window time.Duration) (RateLimit, error) {
	if err := checkHit(limit, window); err != nil {
		return RateLimit{}, err
	}
	if err := l.maybeSweep(ctx, NewTime(l.opts.Now())); err != nil {
		return RateLimit{}, err
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
			return RateLimit{}, fmt.Errorf("store: rate limit hit: %w", ctx.Err())
		}
	}
	if b.err != nil {
		return RateLimit{}, b.err
	}
	// The batch's hits end at b.hits; this hit is place-th of them.
	return newRateLimit(b.hits-b.sealed+place, limit, b.reset.Time), nil
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

// Reset implements [RateLimitResetter]: it deletes key's row, on every
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

// RateLimitSweepInterval is how often a [Queue] sweeps expired windows
// that no hit will sweep inline (keys that went quiet).
const RateLimitSweepInterval = time.Hour

// RateLimitSweepArgs is the job that deletes expired rate-limit windows;
// a [Queue] schedules it every RateLimitSweepInterval, and a host may
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
