package api

import (
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/throttle"
	"github.com/groundwork-go/groundwork/store/driverless"
)

// Base is what every domain handler starts from: its cleaned prefix, a
// mux that already answers JSON 404s under the prefix, a logger, the
// "api" throttle, and the domain's error table. A handler registers its
// routes with Handle and serves through ServeHTTP, which applies
// [CheckRequestText] to every request.
//
// Route handlers are [HandlerFunc]s: they return their failure, and
// [Base.Func] answers it through Errors, the one error writer of the
// domain's API.
type Base struct {
	Prefix   string
	Mux      *http.ServeMux
	Logger   *slog.Logger
	Throttle *throttle.Throttle
	// Errors maps the domain's errors to answers (see [Table.Lookup]).
	Errors Table
	routes []string
}

// HandlerFunc is a route handler that returns its failure instead of
// writing it; [Base.Func] answers the error.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// Std is h as a HandlerFunc that writes all its own answers and returns
// nil: middleware's output (an idempotency replay, say) in a chain of
// HandlerFuncs.
func Std(h http.Handler) HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		h.ServeHTTP(w, r)
		return nil
	}
}

// Func adapts fn to an http.HandlerFunc that answers fn's error, if any,
// with [Base.Fail].
func (b *Base) Func(fn HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			b.Fail(w, r, err)
		}
	}
}

// Fail answers err through the base's table and logger (see
// [WriteError]). Route handlers return their errors to [Base.Func]
// instead; Fail is for middleware that refuses before a handler runs.
func (b *Base) Fail(w http.ResponseWriter, r *http.Request, err error) {
	WriteError(w, r, b.Logger, b.Errors, err)
}

// Handle registers prefix+path for the methods of m (any other method is
// a JSON 405) and records each as a route.
func (b *Base) Handle(path string, m Methods) {
	b.Mux.Handle(b.Prefix+path, m.Handler())
	for _, method := range slices.Sorted(maps.Keys(m)) {
		b.routes = append(b.routes, method+" "+b.Prefix+path)
	}
}

// Routes lists the routes registered with Handle, "METHOD /path/{param}",
// in the order registered.
func (b *Base) Routes() []string { return slices.Clone(b.routes) }

// ServeHTTP refuses hostile bytes in the path or query (see
// CheckRequestText) with the usual envelope, and serves the rest on Mux,
// draining a refused body after a 413 (see ServeDrained).
func (b *Base) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if e := CheckRequestText(r); e != nil {
		b.Fail(w, r, e)
		return
	}
	ServeDrained(w, r, b.Mux)
}

// NewBase cleans prefix (def when empty, no trailing slash, must start
// with "/"; both empty for routes at the root), and takes the handler's
// HTTP options, with an in-memory limiter and a discarding logger when
// none are given.
func NewBase(prefix, def string, o groundwork.HTTPOptions) (*Base, error) {
	limiter, trusted, logger := o.RateLimiter, o.TrustedProxies, o.Logger
	p := strings.TrimSuffix(prefix, "/")
	if prefix == "" {
		p = def
	}
	if p != "" && !strings.HasPrefix(p, "/") {
		return nil, errors.New("prefix must start with /")
	}
	if limiter == nil {
		limiter = driverless.NewMemoryRateLimiter(nil)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	b := &Base{Prefix: p, Mux: http.NewServeMux(), Logger: logger, Throttle: throttle.API(limiter, trusted, logger)}
	b.Mux.HandleFunc(p+"/", func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, r, logger, nil, ErrNotFound)
	})
	return b, nil
}
