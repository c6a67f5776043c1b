// Package throttle limits requests per key with a groundwork.RateLimiter
// and writes the rate-limit headers: the "api" throttle every JSON route
// shares, and the named ones of each domain.
package throttle

import (
	"context"
	"log/slog"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/proxies"
	"github.com/groundwork-go/groundwork/internal/reply"
)

// The throttle named "api": every JSON route that has one allows
// APILimit requests per APIWindow per caller (a bearer token, else the
// client IP).
const (
	APILimit  = groundwork.APILimitDefault
	APIWindow = time.Minute
)

// Throttle limits requests per key with a [groundwork.RateLimiter] and writes
// the rate-limit headers: X-RateLimit-Limit and X-RateLimit-Remaining on
// every answer, and on a 429 also Retry-After and X-RateLimit-Reset. A nil
// *Throttle limits nothing and sets no headers.
type Throttle struct {
	// Name prefixes every key, so routes sharing a name share a budget.
	Name    string
	Limiter groundwork.RateLimiter
	Limit   int
	Window  time.Duration
	// Key names who is counted; nil means [CallerOrIP].
	Key func(r *http.Request) string
	// Message is the 429 body's message; reply.MsgTooManyRequests when empty.
	Message string
	// TrustedProxies feed the client IP of the default key.
	TrustedProxies []netip.Prefix
	// Forgiven is how many hits a key may be given back a window (see
	// Forgive); 0 gives none back.
	Forgiven int
	// Now is the clock; time.Now when nil.
	Now    func() time.Time
	Logger *slog.Logger
}

// API is the "api" throttle on limiter: 60 a minute per caller,
// else per client IP.
func API(limiter groundwork.RateLimiter, trusted []netip.Prefix, logger *slog.Logger) *Throttle {
	return APIOf(limiter, APILimit, trusted, logger)
}

// APIOf is the "api" throttle with limit requests a minute: APILimit
// when zero, nil (no limit) when negative.
func APIOf(limiter groundwork.RateLimiter, limit int, trusted []netip.Prefix, logger *slog.Logger) *Throttle {
	if limit < 0 {
		return nil
	}
	if limit == 0 {
		limit = APILimit
	}
	return &Throttle{Name: "api", Limiter: limiter, Limit: limit, Window: APIWindow, TrustedProxies: trusted, Logger: logger}
}

// CallerOrIP keys by the authenticated caller, else by the client IP.
func CallerOrIP(r *http.Request, trusted []netip.Prefix) string {
	if c, ok := groundwork.CallerFrom(r.Context()); ok {
		return "caller:" + c.ID
	}
	return "ip:" + proxies.ClientIPString(r, trusted)
}

// Wrap answers 429 when the key is over its limit, else calls next.
func (t *Throttle) Wrap(next http.Handler) http.Handler {
	if t == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var key string
		if t.Key != nil {
			key = t.Key(r)
		} else {
			key = CallerOrIP(r, t.TrustedProxies)
		}
		if t.Allow(w, r, key) {
			next.ServeHTTP(w, r)
		}
	})
}

// Allow counts a hit on key and sets the headers. When the key is over
// its limit it answers 429 and returns false. When the limiter fails it
// answers 503 and returns false: a limit that cannot be checked is not
// waved through.
func (t *Throttle) Allow(w http.ResponseWriter, r *http.Request, key string) bool {
	allowed, err := t.Hit(w, r, key)
	switch {
	case err != nil:
		reply.WriteMessage(w, http.StatusServiceUnavailable, reply.MsgUnavailable)
	case !allowed:
		reply.WriteMessage(w, http.StatusTooManyRequests, t.message())
	}
	return err == nil && allowed
}

// Hit counts a hit on key and sets the rate-limit headers, leaving the
// answer to the caller: allowed is false over the limit, and err is the
// limiter's failure (logged here).
func (t *Throttle) Hit(w http.ResponseWriter, r *http.Request, key string) (allowed bool, err error) {
	if t == nil {
		return true, nil
	}
	res, err := t.Limiter.Hit(r.Context(), t.Name+":"+key, t.Limit, t.Window)
	if err != nil {
		if t.Logger != nil && r.Context().Err() == nil {
			t.Logger.ErrorContext(r.Context(), "rate limiter failed", "throttle", t.Name, "error", err)
		}
		return false, err
	}
	h := w.Header()
	// Canonical forms of X-RateLimit-Limit and -Remaining, set directly:
	// this runs on every request of a throttled route. Of several
	// throttles on one route, the headers tell of the tightest: the one
	// with the fewest requests left.
	if prev, ok := h["X-Ratelimit-Remaining"]; !ok || len(prev) != 1 || remainingOf(prev[0]) > res.Remaining {
		h["X-Ratelimit-Limit"] = []string{strconv.Itoa(res.Limit)}
		h["X-Ratelimit-Remaining"] = []string{strconv.Itoa(res.Remaining)}
	}
	if res.Allowed {
		return true, nil
	}
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	h.Set("Retry-After", strconv.Itoa(int(res.RetryAfter(now())/time.Second)))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(res.Reset.Unix(), 10))
	return false, nil
}

// Forgive gives back key's last hit, when the limiter can
// ([groundwork.RateLimitRefunder]), at most Forgiven times a window per key: a
// request refused for a mistake the person then corrects does not use up
// their allowance, while a stream of mistakes still does. A failure is
// logged and leaves the hit counted.
func (t *Throttle) Forgive(ctx context.Context, key string) {
	if t == nil || t.Forgiven <= 0 {
		return
	}
	refunder, ok := t.Limiter.(groundwork.RateLimitRefunder)
	if !ok {
		return
	}
	res, err := t.Limiter.Hit(ctx, t.Name+"-forgiven:"+key, t.Forgiven, t.Window)
	if err == nil && res.Allowed {
		err = refunder.Refund(ctx, t.Name+":"+key)
	}
	if err != nil && t.Logger != nil && ctx.Err() == nil {
		t.Logger.ErrorContext(ctx, "rate limiter failed to give back a hit", "throttle", t.Name, "error", err)
	}
}

// Refusal is the message of the 429 of a hit Hit did not allow:
// Message, then when to try again, from the Retry-After header Hit set
// on w.
func (t *Throttle) Refusal(w http.ResponseWriter) string {
	secs, _ := strconv.Atoi(w.Header().Get("Retry-After"))
	return t.message() + " " + TryAgainIn(time.Duration(secs)*time.Second)
}

// TryAgainIn says when to try again: "Please try again in 42 seconds.",
// "... in 1 minute.", "... in 3 minutes." (whole minutes rounded up past
// 90 seconds).
func TryAgainIn(d time.Duration) string {
	secs := int((d + time.Second - 1) / time.Second)
	switch {
	case secs <= 1:
		return "Please try again in 1 second."
	case secs <= 90:
		if secs == 60 {
			return "Please try again in 1 minute."
		}
		return "Please try again in " + strconv.Itoa(secs) + " seconds."
	}
	return "Please try again in " + strconv.Itoa((secs+59)/60) + " minutes."
}

func remainingOf(v string) int {
	n, err := strconv.Atoi(v)
	if err != nil {
		return math.MaxInt
	}
	return n
}

// message is the 429 body's message.
func (t *Throttle) message() string {
	if t.Message == "" {
		return reply.MsgTooManyRequests
	}
	return t.Message
}
