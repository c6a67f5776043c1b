package api

import (
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"

	"github.com/groundwork-go/groundwork/store"
)

// Base is what every domain handler starts from: its cleaned prefix, a
// mux that already answers JSON 404s under the prefix, a logger, and the
// "api" throttle.
type Base struct {
	Prefix   string
	Mux      *http.ServeMux
	Logger   *slog.Logger
	Throttle *Throttle
}

// NewBase cleans prefix (def when empty, no trailing slash, must start
// with "/"), and fills in an in-memory limiter and a discarding logger
// when none are given.
func NewBase(prefix, def string, limiter store.RateLimiter, trusted []netip.Prefix, logger *slog.Logger) (*Base, error) {
	p := strings.TrimSuffix(prefix, "/")
	if prefix == "" {
		p = def
	}
	if !strings.HasPrefix(p, "/") {
		return nil, errors.New("prefix must start with /")
	}
	if limiter == nil {
		limiter = store.NewMemoryRateLimiter(nil)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	b := &Base{Prefix: p, Mux: http.NewServeMux(), Logger: logger, Throttle: APIThrottle(limiter, trusted, logger)}
	b.Mux.HandleFunc(p+"/", func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, r, logger, nil, ErrNotFound)
	})
	return b, nil
}
