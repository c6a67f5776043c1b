package driverless

import (
	"context"
	"hash/maphash"
	"sync"
	"time"

	"github.com/groundwork-go/groundwork"
)

// RateLimiterOptions configures the rate limiters. Nil means defaults.
type RateLimiterOptions struct {
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// SweepInterval is how often expired windows are forgotten (deleted,
	// for store.SQLRateLimiter). Default RateLimitSweepIntervalDefault.
	SweepInterval time.Duration
}

// RateLimitSweepIntervalDefault is how often expired windows are dropped.
const RateLimitSweepIntervalDefault = time.Minute

// WithDefaults returns o (nil for none) with its zero fields set to the
// defaults.
func (o *RateLimiterOptions) WithDefaults() RateLimiterOptions {
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

// MemoryRateLimiter is a [groundwork.RateLimiter] for one process. It is safe for
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
	l := &MemoryRateLimiter{opts: opts.WithDefaults(), seed: maphash.MakeSeed()}
	for i := range l.shards {
		l.shards[i].windows = map[string]memoryWindow{}
	}
	return l
}

// Hit implements [groundwork.RateLimiter].
func (l *MemoryRateLimiter) Hit(_ context.Context, key string, limit int, window time.Duration) (groundwork.RateLimit, error) {
	if err := groundwork.CheckHit(limit, window); err != nil {
		return groundwork.RateLimit{}, err
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
	return groundwork.NewRateLimit(w.hits, limit, w.reset), nil
}

// Refund implements [groundwork.RateLimitRefunder].
func (l *MemoryRateLimiter) Refund(_ context.Context, key string) error {
	now := l.opts.Now()
	s := &l.shards[maphash.String(l.seed, key)%uint64(len(l.shards))]
	s.mu.Lock()
	defer s.mu.Unlock()
	if w, ok := s.windows[key]; ok && now.Before(w.reset) && w.hits > 0 {
		w.hits--
		s.windows[key] = w
	}
	return nil
}

// Reset implements [groundwork.RateLimitResetter].
func (l *MemoryRateLimiter) Reset(_ context.Context, key string) error {
	s := &l.shards[maphash.String(l.seed, key)%uint64(len(l.shards))]
	s.mu.Lock()
	delete(s.windows, key)
	s.mu.Unlock()
	return nil
}
