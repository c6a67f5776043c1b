package store_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/driverless"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// clock is a settable time source for the limiters.
type clock = testkit.Clock

func newClock() *clock                             { return testkit.NewClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)) }
func opts(c *clock) *driverless.RateLimiterOptions { return &driverless.RateLimiterOptions{Now: c.Now} }

// limiterSuite is what every RateLimiter must do; newLimiter gives two
// limiters that share their counters (two instances), with the clock they
// read.
func limiterSuite(t *testing.T, newLimiters func(t *testing.T) (a, b groundwork.RateLimiter, c *clock)) {
	ctx := context.Background()

	t.Run("WindowCountsAndResets", func(t *testing.T) {
		t.Parallel()
		a, _, c := newLimiters(t)
		start := c.Now()
		for i := 1; i <= 3; i++ {
			r, err := a.Hit(ctx, "k", 3, time.Minute)
			require.NoError(t, err)
			require.True(t, r.Allowed)
			require.Equal(t, 3, r.Limit)
			require.Equal(t, 3-i, r.Remaining)
			require.True(t, r.Reset.Equal(start.Add(time.Minute)), "reset %s", r.Reset)
			c.Advance(time.Second)
		}
		r, err := a.Hit(ctx, "k", 3, time.Minute)
		require.NoError(t, err)
		require.False(t, r.Allowed)
		require.Zero(t, r.Remaining)
		require.Equal(t, 57*time.Second, r.RetryAfter(c.Now()))

		// Other keys have their own windows.
		r, err = a.Hit(ctx, "other", 3, time.Minute)
		require.NoError(t, err)
		require.True(t, r.Allowed)

		// Denied hits do not move the window's end.
		c.Advance(57 * time.Second)
		r, err = a.Hit(ctx, "k", 3, time.Minute)
		require.NoError(t, err)
		require.True(t, r.Allowed, "a new window opens at the old one's end")
		require.Equal(t, 2, r.Remaining)
		require.True(t, r.Reset.Equal(c.Now().Add(time.Minute)))
	})

	t.Run("SharedAcrossInstances", func(t *testing.T) {
		t.Parallel()
		a, b, _ := newLimiters(t)
		var allowed atomic.Int32
		var wg sync.WaitGroup
		for i := range 40 {
			l := a
			if i%2 == 1 {
				l = b
			}
			wg.Go(func() {
				r, err := l.Hit(ctx, "shared", 25, time.Minute)
				require.NoError(t, err)
				if r.Allowed {
					allowed.Add(1)
				}
			})
		}
		wg.Wait()
		require.EqualValues(t, 25, allowed.Load())
	})

	t.Run("ExpiredWindowsAreSwept", func(t *testing.T) {
		t.Parallel()
		a, _, c := newLimiters(t)
		_, err := a.Hit(ctx, "old", 1, time.Second)
		require.NoError(t, err)
		c.Advance(2 * driverless.RateLimitSweepIntervalDefault)
		r, err := a.Hit(ctx, "old", 1, time.Second)
		require.NoError(t, err)
		require.True(t, r.Allowed)
	})

	t.Run("ConcurrentHitsEachCount", func(t *testing.T) {
		t.Parallel()
		a, b, _ := newLimiters(t)
		var mu sync.Mutex
		allowed := 0
		remaining := map[int]int{}
		var wg sync.WaitGroup
		for i := range 60 {
			l := a
			if i%2 == 1 {
				l = b
			}
			wg.Go(func() {
				res, err := l.Hit(ctx, "burst", 25, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if res.Allowed {
					allowed++
					remaining[res.Remaining]++
				}
			})
		}
		wg.Wait()
		require.Equal(t, 25, allowed, "exactly the limit gets through")
		for r := range 25 {
			require.Equal(t, 1, remaining[r], "each allowed hit has its own place (remaining %d)", r)
		}
		res, err := a.Hit(ctx, "burst", 25, time.Minute)
		require.NoError(t, err)
		require.False(t, res.Allowed)
	})

	t.Run("ResetForgetsTheWindowEverywhere", func(t *testing.T) {
		t.Parallel()
		a, b, _ := newLimiters(t)
		for range 2 {
			_, err := a.Hit(ctx, "reset", 2, time.Minute)
			require.NoError(t, err)
		}
		r, err := b.Hit(ctx, "reset", 2, time.Minute)
		require.NoError(t, err)
		require.False(t, r.Allowed)
		require.NoError(t, b.(groundwork.RateLimitResetter).Reset(ctx, "reset"))
		require.NoError(t, b.(groundwork.RateLimitResetter).Reset(ctx, "never-hit"))
		r, err = a.Hit(ctx, "reset", 2, time.Minute)
		require.NoError(t, err)
		require.True(t, r.Allowed)
		require.Equal(t, 1, r.Remaining, "a new window after the reset")
	})

	t.Run("RefundGivesBackAHitEverywhere", func(t *testing.T) {
		t.Parallel()
		a, b, c := newLimiters(t)
		for range 2 {
			_, err := a.Hit(ctx, "refund", 2, time.Minute)
			require.NoError(t, err)
		}
		require.NoError(t, b.(groundwork.RateLimitRefunder).Refund(ctx, "refund"))
		require.NoError(t, b.(groundwork.RateLimitRefunder).Refund(ctx, "never-hit"))
		r, err := a.Hit(ctx, "refund", 2, time.Minute)
		require.NoError(t, err)
		require.True(t, r.Allowed, "the refunded place is free again")
		require.Zero(t, r.Remaining)
		r, err = b.Hit(ctx, "refund", 2, time.Minute)
		require.NoError(t, err)
		require.False(t, r.Allowed)

		// Refunds never go below nothing, and an ended window is left alone.
		_, err = a.Hit(ctx, "floor", 1, time.Minute)
		require.NoError(t, err)
		for range 3 {
			require.NoError(t, a.(groundwork.RateLimitRefunder).Refund(ctx, "floor"))
		}
		r, err = a.Hit(ctx, "floor", 1, time.Minute)
		require.NoError(t, err)
		require.True(t, r.Allowed)
		r, err = a.Hit(ctx, "floor", 1, time.Minute)
		require.NoError(t, err)
		require.False(t, r.Allowed, "three refunds of one hit gave back one place")
		c.Advance(time.Minute)
		require.NoError(t, a.(groundwork.RateLimitRefunder).Refund(ctx, "floor"))
		r, err = a.Hit(ctx, "floor", 1, time.Minute)
		require.NoError(t, err)
		require.True(t, r.Allowed, "a new window")
		require.Zero(t, r.Remaining)
	})

	t.Run("RejectsBadArguments", func(t *testing.T) {
		t.Parallel()
		a, _, _ := newLimiters(t)
		_, err := a.Hit(ctx, "k", 0, time.Minute)
		require.Error(t, err)
		_, err = a.Hit(ctx, "k", 1, 0)
		require.Error(t, err)
	})
}

func TestMemoryRateLimiter(t *testing.T) {
	t.Parallel()
	limiterSuite(t, func(t *testing.T) (groundwork.RateLimiter, groundwork.RateLimiter, *clock) {
		c := newClock()
		l := driverless.NewMemoryRateLimiter(opts(c))
		return l, l, c
	})
}

func TestSQLRateLimiter(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		limiterSuite(t, func(t *testing.T) (groundwork.RateLimiter, groundwork.RateLimiter, *clock) {
			dsn := storetest.DSN(t, d)
			c := newClock()
			one := storetest.OpenDSN(t, dsn)
			two := storetest.OpenDSN(t, dsn)
			return store.NewSQLRateLimiter(one, opts(c)), store.NewSQLRateLimiter(two, opts(c)), c
		})
	})
}

func TestSQLRateLimiterSweepDeletes(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		c := newClock()
		l := store.NewSQLRateLimiter(db, opts(c))
		for _, k := range []string{"a", "b", "c"} {
			_, err := l.Hit(ctx, k, 1, time.Second)
			require.NoError(t, err)
		}
		c.Advance(2 * driverless.RateLimitSweepIntervalDefault)
		_, err := l.Hit(ctx, "d", 1, time.Second)
		require.NoError(t, err)
		var keys []string
		require.NoError(t, db.SelectContext(ctx, &keys, "SELECT key FROM groundwork_rate_limits"))
		require.Equal(t, []string{"d"}, keys)
	})
}

// On Postgres a hit commits asynchronously; the setting must end with the
// hit's own transaction, never linger on the pooled connection.
func TestSQLRateLimiterLeavesSessionDurable(t *testing.T) {
	t.Parallel()
	if !slices.Contains(storetest.Dialects(), store.Postgres) {
		t.Skip("TEST_DATABASE_URL is not set")
	}
	ctx := context.Background()
	db := storetest.Open(t, store.Postgres)
	db.SetMaxOpenConns(1) // every statement on the one connection
	l := store.NewSQLRateLimiter(db, nil)
	for range 3 {
		res, err := l.Hit(ctx, "k", 10, time.Minute)
		require.NoError(t, err)
		require.True(t, res.Allowed)
	}
	var setting string
	require.NoError(t, db.GetContext(ctx, &setting, "SHOW synchronous_commit"))
	require.Equal(t, "on", setting)
	var hits int
	require.NoError(t, db.GetContext(ctx, &hits, "SELECT hits FROM groundwork_rate_limits WHERE key = 'k'"))
	require.Equal(t, 3, hits)
}

func TestQueueSweepsRateLimits(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		old := store.NewSQLRateLimiter(db, &driverless.RateLimiterOptions{Now: func() time.Time { return time.Now().Add(-time.Hour) }})
		_, err := old.Hit(ctx, "quiet", 1, time.Minute)
		require.NoError(t, err)
		_, err = store.NewSQLRateLimiter(db, nil).Hit(ctx, "live", 1, time.Hour)
		require.NoError(t, err)

		q, err := store.NewQueue(db, &store.QueueOptions{TestOnly: true})
		require.NoError(t, err)
		require.NoError(t, q.Start(ctx))
		t.Cleanup(func() { require.NoError(t, q.Stop(context.Background())) })
		require.NoError(t, q.Enqueue(ctx, store.RateLimitSweepArgs{}, nil))
		require.Eventually(t, func() bool {
			var keys []string
			require.NoError(t, db.SelectContext(ctx, &keys, "SELECT key FROM groundwork_rate_limits ORDER BY key"))
			return len(keys) == 1 && keys[0] == "live"
		}, 10*time.Second, 20*time.Millisecond)
	})
}
