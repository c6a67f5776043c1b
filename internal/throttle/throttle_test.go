package throttle_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/internal/throttle"
	"github.com/groundwork-go/groundwork/store/driverless"
)

func TestThrottle(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	limiter := driverless.NewMemoryRateLimiter(&driverless.RateLimiterOptions{Now: clock})
	th := &throttle.Throttle{Name: "t", Limiter: limiter, Limit: 2, Window: time.Minute, Now: clock}
	h := th.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reply.WriteMessage(w, 200, "ok") }))
	do := func(remote string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	w := do("192.0.2.1:1")
	require.Equal(t, 200, w.Code)
	require.Equal(t, "2", w.Header().Get("X-RateLimit-Limit"))
	require.Equal(t, "1", w.Header().Get("X-RateLimit-Remaining"))
	require.Empty(t, w.Header().Get("Retry-After"))
	require.Equal(t, 200, do("192.0.2.1:2").Code)
	now = now.Add(10 * time.Second)
	w = do("192.0.2.1:3")
	require.Equal(t, 429, w.Code)
	require.JSONEq(t, `{"message": "Too Many Attempts."}`, w.Body.String())
	require.Equal(t, "0", w.Header().Get("X-RateLimit-Remaining"))
	require.Equal(t, "50", w.Header().Get("Retry-After"))
	require.Equal(t, strconv.FormatInt(now.Add(50*time.Second).Unix(), 10), w.Header().Get("X-RateLimit-Reset"))
	require.Equal(t, 200, do("192.0.2.2:1").Code, "another client has its own budget")

	// A caller is counted as itself, wherever it calls from.
	r := httptest.NewRequest("GET", "/", nil)
	r = r.WithContext(groundwork.WithCaller(r.Context(), groundwork.Caller{ID: "token:1"}))
	require.Equal(t, "caller:token:1", throttle.CallerOrIP(r, nil))

	failing := &throttle.Throttle{Name: "f", Limiter: failingLimiter{}, Limit: 1, Window: time.Minute}
	w = httptest.NewRecorder()
	failing.Wrap(http.NotFoundHandler()).ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	require.Equal(t, 503, w.Code)
}

func TestTryAgainIn(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		0:                       "Please try again in 1 second.",
		400 * time.Millisecond:  "Please try again in 1 second.",
		1500 * time.Millisecond: "Please try again in 2 seconds.",
		42 * time.Second:        "Please try again in 42 seconds.",
		time.Minute:             "Please try again in 1 minute.",
		61 * time.Second:        "Please try again in 61 seconds.",
		91 * time.Second:        "Please try again in 2 minutes.",
		time.Hour:               "Please try again in 60 minutes.",
	} {
		require.Equal(t, want, throttle.TryAgainIn(d), "%s", d)
	}
}

// Forgive gives a hit back at most Forgiven times a window, and only
// with a limiter that can.
func TestThrottleForgive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	th := &throttle.Throttle{Name: "t", Limiter: driverless.NewMemoryRateLimiter(&driverless.RateLimiterOptions{Now: clock}), Limit: 1,
		Window: time.Minute, Forgiven: 2, Now: clock, Message: "Too many."}
	hit := func() (bool, *httptest.ResponseRecorder) {
		w := httptest.NewRecorder()
		ok, err := th.Hit(w, httptest.NewRequest("POST", "/", nil), "k")
		require.NoError(t, err)
		return ok, w
	}
	for range 3 {
		ok, _ := hit()
		require.True(t, ok)
		th.Forgive(ctx, "k")
	}
	ok, w := hit()
	require.False(t, ok, "the third mistake was not given back")
	require.Equal(t, "Too many. Please try again in 1 minute.", th.Refusal(w))

	var none *throttle.Throttle
	none.Forgive(ctx, "k") // a nil throttle limits nothing and gives nothing back
	plain := &throttle.Throttle{Name: "p", Limiter: failingLimiter{}, Limit: 1, Window: time.Minute, Forgiven: 5}
	plain.Forgive(ctx, "k") // a limiter that cannot give back is left alone
}

type failingLimiter struct{}

func (failingLimiter) Hit(context.Context, string, int, time.Duration) (groundwork.RateLimit, error) {
	return groundwork.RateLimit{}, errors.New("database down")
}
