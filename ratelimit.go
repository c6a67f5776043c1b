package groundwork

import (
	"context"
	"fmt"
	"time"
)

// RateLimiter counts hits on a key in fixed windows: a window opens at the
// first hit on a key, lasts the given length, and allows limit hits. Every
// hit counts, allowed or not, so a client that keeps knocking does not
// open a fresh window early.
//
// driverless.MemoryRateLimiter counts in the process; store.SQLRateLimiter
// counts in the database, so a limit holds across every instance sharing
// it.
type RateLimiter interface {
	// Hit counts one hit on key and reports the state of its window.
	// limit must be positive and window at least a millisecond.
	Hit(ctx context.Context, key string, limit int, window time.Duration) (RateLimit, error)
}

// RateLimitResetter is a [RateLimiter] that can also forget a key's
// window, as a successful sign-in forgets the failures before it. Both
// limiters of groundwork's store are one.
type RateLimitResetter interface {
	RateLimiter
	// Reset forgets key's window; the next hit opens a new one. A key
	// with no window is not an error.
	Reset(ctx context.Context, key string) error
}

// RateLimitRefunder is a [RateLimiter] that can also give back a hit, as
// a submission refused for a mistake gives back its place so that the
// person's correction is not counted twice. Both limiters of groundwork's
// store are one.
type RateLimitRefunder interface {
	RateLimiter
	// Refund takes one hit off key's window while the window lasts and
	// holds a hit; otherwise it does nothing, and that is not an error.
	Refund(ctx context.Context, key string) error
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

// NewRateLimit is the state after the hits-th hit of a window of limit
// hits that ends at reset; for a RateLimiter written elsewhere.
func NewRateLimit(hits, limit int, reset time.Time) RateLimit {
	return RateLimit{Allowed: hits <= limit, Limit: limit, Remaining: max(limit-hits, 0), Reset: reset}
}

// CheckHit is the argument check every RateLimiter.Hit makes first.
func CheckHit(limit int, window time.Duration) error {
	if limit <= 0 || window < time.Millisecond {
		return fmt.Errorf("rate limit: limit %d and window %s must be positive", limit, window)
	}
	return nil
}
