package reporting

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/groundwork-go/groundwork/internal/api"
)

// Handler defaults.
const (
	// CacheTTLDefault keeps a successful answer five minutes.
	CacheTTLDefault = 5 * time.Minute
	// CacheSizeDefault bounds the answers kept.
	CacheSizeDefault = 1000
	// CapabilityView is what a signed-in user needs; AbilityView what a
	// bearer token needs.
	CapabilityView = "view_search_reporting"
	AbilityView    = "reporting:view"
)

// Access is an Authorizer's answer.
type Access int

// Answers of an Authorizer.
const (
	// Allowed: the request may see the reports.
	Allowed Access = iota
	// Unauthenticated: nobody is signed in and no token was given (401).
	Unauthenticated
	// Forbidden: the caller lacks the capability or ability (403).
	Forbidden
)

// Authorizer decides who may see the reports.
type Authorizer interface {
	Authorize(r *http.Request) Access
}

// AuthorizerFunc is a function as an Authorizer.
type AuthorizerFunc func(r *http.Request) Access

// Authorize implements Authorizer.
func (f AuthorizerFunc) Authorize(r *http.Request) Access { return f(r) }

// HandlerOptions configures [NewHandler]; Authorizer is required, and a
// nil source answers its routes 501.
type HandlerOptions struct {
	Search     SearchSource
	Analytics  AnalyticsSource
	Authorizer Authorizer
	// CacheTTL keeps successful answers, per source, connection and
	// parameters; CacheTTLDefault when zero, no cache when negative.
	CacheTTL time.Duration
	// Now is the clock; time.Now when nil.
	Now    func() time.Time
	Logger *slog.Logger
}

// Handler serves the report routes:
//
//	GET /search-reporting/performance   ?days (28; 1..490)
//	GET /search-reporting/top-queries   ?days&limit (25; 1..1000)
//	GET /search-reporting/top-pages     ?days&limit
//	GET /analytics-reporting/overview   ?days (30; 1..730)&property_id
//	GET /analytics-reporting/top-content ?days&limit (10; 1..100)&property_id
//	GET /analytics-reporting/sources    ?days&limit (first-party source)
//	GET /analytics-reporting/devices    ?days&limit (first-party source)
//
// Errors are {"error", "message"}: 401 unauthenticated, 403 forbidden,
// 409 not_connected, 501 base_not_installed (no source), 502
// reporting_error (never the provider's body, which is logged).
type Handler struct {
	o       HandlerOptions
	mux     *http.ServeMux
	cache   answerCache
	reports map[string]func(ctx context.Context, q query) (any, error)
}

// NewHandler returns the report routes.
func NewHandler(opts *HandlerOptions) (*Handler, error) {
	if opts == nil || opts.Authorizer == nil {
		return nil, errors.New("reporting: new handler: an Authorizer is required")
	}
	o := *opts
	if o.CacheTTL == 0 {
		o.CacheTTL = CacheTTLDefault
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	h := &Handler{o: o, mux: http.NewServeMux(), cache: answerCache{max: CacheSizeDefault},
		reports: map[string]func(ctx context.Context, q query) (any, error){}}
	search := func(name string, f func(ctx context.Context, q query) (any, error)) {
		h.reports["search/"+name] = f
		h.mux.Handle("GET /search-reporting/"+name, h.route(searchFamily, name, f))
	}
	analytics := func(name string, f func(ctx context.Context, q query) (any, error)) {
		h.reports["analytics/"+name] = f
		h.mux.Handle("GET /analytics-reporting/"+name, h.route(analyticsFamily, name, f))
	}
	search("performance", func(ctx context.Context, q query) (any, error) { return o.Search.Performance(ctx, q.days) })
	search("top-queries", func(ctx context.Context, q query) (any, error) { return o.Search.TopQueries(ctx, q.days, q.limit) })
	search("top-pages", func(ctx context.Context, q query) (any, error) { return o.Search.TopPages(ctx, q.days, q.limit) })
	analytics("overview", func(ctx context.Context, q query) (any, error) {
		return o.Analytics.Overview(ctx, AnalyticsQuery{Days: q.days, PropertyID: q.property})
	})
	analytics("top-content", func(ctx context.Context, q query) (any, error) {
		return o.Analytics.TopContent(ctx, AnalyticsQuery{Days: q.days, Limit: q.limit, PropertyID: q.property})
	})
	breakdown := func(f func(BreakdownSource, context.Context, AnalyticsQuery) (Breakdown, error)) func(ctx context.Context, q query) (any, error) {
		return func(ctx context.Context, q query) (any, error) {
			b, ok := o.Analytics.(BreakdownSource)
			if !ok {
				return nil, errNoBreakdown
			}
			return f(b, ctx, AnalyticsQuery{Days: q.days, Limit: q.limit})
		}
	}
	analytics("sources", breakdown(BreakdownSource.Sources))
	analytics("devices", breakdown(BreakdownSource.Devices))
	return h, nil
}

var errNoBreakdown = errors.New("reporting: the analytics source has no breakdowns")

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if e := api.CheckRequestText(r); e != nil {
		api.WriteError(w, r, h.o.Logger, nil, e)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// Routes lists the routes, as "METHOD /path".
func (h *Handler) Routes() []string {
	return []string{"GET /search-reporting/performance", "GET /search-reporting/top-queries", "GET /search-reporting/top-pages",
		"GET /analytics-reporting/overview", "GET /analytics-reporting/top-content", "GET /analytics-reporting/sources",
		"GET /analytics-reporting/devices"}
}

// Enabled reports whether any source is configured.
func (h *Handler) Enabled() bool { return h.o.Search != nil || h.o.Analytics != nil }

type family struct {
	name, signIn, connect, reconnect, missing string
	defDays, maxDays, defLimit, maxLimit      int
}

var (
	searchFamily = family{name: "search", signIn: "Sign in to view Search Console data.",
		connect:   "Connect a Google account to view Search Console data.",
		reconnect: "Reconnect your Google account to continue viewing Search Console data.",
		missing:   "Search reporting is not set up: no search source is configured.",
		defDays:   SearchDaysDefault, maxDays: SearchMaxDays, defLimit: SearchLimitDefault, maxLimit: SearchMaxLimit}
	analyticsFamily = family{name: "analytics", signIn: "Sign in to view analytics.",
		connect:   "Connect a Google account to view analytics.",
		reconnect: "Reconnect your Google account to continue viewing analytics.",
		missing:   "Analytics reporting is not set up: no analytics source is configured.",
		defDays:   AnalyticsDaysDefault, maxDays: AnalyticsMaxDays, defLimit: ContentLimitDefault, maxLimit: ContentMaxLimit}
)

type query struct {
	days, limit int
	property    string
}

// clamp reads a positive whole number; def when absent or not a number.
func clamp(v string, def, hi int) int {
	n, err := strconv.Atoi(v)
	if err != nil {
		return def
	}
	return min(max(n, 1), hi)
}

type errorBody struct {
	Error         string `json:"error"`
	Message       string `json:"message"`
	BaseInstalled *bool  `json:"baseInstalled,omitempty"`
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	body := errorBody{Error: code, Message: msg}
	if code == "base_not_installed" {
		f := false
		body.BaseInstalled = &f
	}
	api.WriteJSON(w, status, body)
}

func (h *Handler) route(fam family, name string, f func(ctx context.Context, q query) (any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch h.o.Authorizer.Authorize(r) {
		case Unauthenticated:
			writeError(w, http.StatusUnauthorized, "unauthenticated", fam.signIn)
			return
		case Forbidden:
			writeError(w, http.StatusForbidden, "forbidden", "You may not view these reports.")
			return
		}
		var src any
		if fam.name == "search" {
			if h.o.Search != nil {
				src = h.o.Search
			}
		} else if h.o.Analytics != nil {
			src = h.o.Analytics
		}
		if src == nil {
			writeError(w, http.StatusNotImplemented, "base_not_installed", fam.missing)
			return
		}
		v := r.URL.Query()
		q := query{days: clamp(v.Get("days"), fam.defDays, fam.maxDays), limit: clamp(v.Get("limit"), fam.defLimit, fam.maxLimit)}
		if fam.name == "analytics" {
			q.property = v.Get("property_id")
		}
		body, err := h.fetch(r.Context(), fam, name, src, q, f)
		if err != nil {
			h.fail(w, r, fam, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
}

// fetch is a report's JSON, from the cache when it holds it (keyed per
// source family, route, connection and parameters), else from f.
func (h *Handler) fetch(ctx context.Context, fam family, name string, src any, q query, f func(ctx context.Context, q query) (any, error)) ([]byte, error) {
	connection := ""
	if c, ok := src.(Connected); ok {
		var err error
		if connection, err = c.Connection(ctx); err != nil {
			return nil, err
		}
	}
	key := cacheKey(fam.name, name, connection, q)
	if h.o.CacheTTL > 0 {
		if body, ok := h.cache.get(key, h.o.Now()); ok {
			return body, nil
		}
	}
	out, err := f(ctx, q)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	body = append(body, '\n')
	if h.o.CacheTTL > 0 {
		h.cache.put(key, body, h.o.Now(), h.o.CacheTTL)
	}
	return body, nil
}

func cacheKey(fam, route, connection string, q query) string {
	sum := sha256.Sum256([]byte(fam + "|" + route + "|" + connection + "|" + strconv.Itoa(q.days) + "|" + strconv.Itoa(q.limit) + "|" + q.property))
	return hex.EncodeToString(sum[:])
}

func (h *Handler) fail(w http.ResponseWriter, r *http.Request, fam family, err error) {
	var se *SourceError
	switch {
	case errors.Is(err, ErrNotConnected):
		writeError(w, http.StatusConflict, "not_connected", fam.connect)
	case errors.Is(err, ErrReconnect):
		writeError(w, http.StatusBadGateway, "reporting_error", fam.reconnect)
	case errors.Is(err, errNoBreakdown):
		writeError(w, http.StatusNotImplemented, "base_not_installed", "The analytics source has no breakdown by source or device.")
	case errors.As(err, &se):
		h.o.Logger.WarnContext(r.Context(), "reporting: source failed", "family", fam.name, "path", r.URL.Path, "error", err)
		writeError(w, http.StatusBadGateway, "reporting_error", se.Message)
	default:
		if r.Context().Err() == nil {
			h.o.Logger.ErrorContext(r.Context(), "reporting: source failed", "family", fam.name, "path", r.URL.Path, "error", err)
		}
		writeError(w, http.StatusBadGateway, "reporting_error", "The report could not be made. Try again in a moment.")
	}
}

// answerCache keeps answers until they expire, at most max of them.
type answerCache struct {
	mu      sync.Mutex
	max     int
	entries map[string]cachedAnswer
}

type cachedAnswer struct {
	body    []byte
	expires time.Time
}

func (c *answerCache) get(key string, now time.Time) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || !now.Before(e.expires) {
		return nil, false
	}
	return e.body, true
}

func (c *answerCache) put(key string, body []byte, now time.Time, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]cachedAnswer{}
	}
	if len(c.entries) >= c.max {
		for k, e := range c.entries { // the expired ones go first
			if !now.Before(e.expires) {
				delete(c.entries, k)
			}
		}
		for k := range c.entries { // then any, until there is room
			if len(c.entries) < c.max {
				break
			}
			delete(c.entries, k)
		}
	}
	c.entries[key] = cachedAnswer{body: body, expires: now.Add(ttl)}
}

// report runs one report as the routes do (through the cache) and decodes
// it into out; fam is "search" or "analytics".
func (h *Handler) report(ctx context.Context, fam, name string, days, limit int, out any) error {
	f := searchFamily
	var src any = h.o.Search
	if fam == "analytics" {
		f, src = analyticsFamily, h.o.Analytics
	}
	body, err := h.fetch(ctx, f, name, src, query{days: min(max(days, 1), f.maxDays), limit: min(max(limit, 1), f.maxLimit)}, h.reports[fam+"/"+name])
	if err != nil {
		return err
	}
	return json.Unmarshal(body, out)
}
