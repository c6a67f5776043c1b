package reporting

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/groundwork-go/groundwork/tenant"
)

// Service defaults.
const (
	// CacheTTLDefault keeps a successful answer five minutes.
	CacheTTLDefault = 5 * time.Minute
	// CacheSizeDefault bounds the answers kept.
	CacheSizeDefault = 1000
)

// Options configures [NewService]. Nil means the defaults; a nil source
// leaves its reports unset (the routes answer them 501).
type Options struct {
	Search    SearchSource
	Analytics AnalyticsSource
	// CacheTTL keeps successful answers, per source, connection and
	// parameters; CacheTTLDefault when zero, no cache when negative.
	CacheTTL time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Service answers the reports from its sources, each through a cache of
// successful answers (Google's quotas are small). It is the only way the
// routes and the dashboard reach a source.
type Service struct {
	o       Options
	cache   answerCache
	reports map[string]reportFunc
}

// reportFunc makes one report.
type reportFunc func(ctx context.Context, q query) (any, error)

// NewService returns the reports of the sources in opts.
func NewService(opts *Options) (*Service, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.CacheTTL == 0 {
		o.CacheTTL = CacheTTLDefault
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Service{o: o, cache: answerCache{max: CacheSizeDefault}, reports: map[string]reportFunc{
		"search/performance": func(ctx context.Context, q query) (any, error) { return o.Search.Performance(ctx, q.days) },
		"search/top-queries": func(ctx context.Context, q query) (any, error) { return o.Search.TopQueries(ctx, q.days, q.limit) },
		"search/top-pages":   func(ctx context.Context, q query) (any, error) { return o.Search.TopPages(ctx, q.days, q.limit) },
		"analytics/overview": func(ctx context.Context, q query) (any, error) {
			return o.Analytics.Overview(ctx, q.analytics())
		},
		"analytics/top-content": func(ctx context.Context, q query) (any, error) {
			return o.Analytics.TopContent(ctx, q.analytics())
		},
		"analytics/sources":           breakdown(o.Analytics, DimSource),
		"analytics/devices":           breakdown(o.Analytics, DimDevice),
		"analytics/browsers":          breakdown(o.Analytics, DimBrowser),
		"analytics/operating-systems": breakdown(o.Analytics, DimOS),
		"analytics/countries":         breakdown(o.Analytics, DimCountry),
		"analytics/campaigns":         breakdown(o.Analytics, DimCampaign),
		"analytics/entry-pages": detail(o.Analytics, errNoBreakdown, func(ctx context.Context, d DetailSource, q AnalyticsQuery) (any, error) {
			return d.EntryPages(ctx, q)
		}),
		"analytics/exit-pages": detail(o.Analytics, errNoBreakdown, func(ctx context.Context, d DetailSource, q AnalyticsQuery) (any, error) {
			return d.ExitPages(ctx, q)
		}),
		"analytics/goals": detail(o.Analytics, ErrNoGoals, func(ctx context.Context, d DetailSource, q AnalyticsQuery) (any, error) {
			return d.GoalConversions(ctx, q)
		}),
		"analytics/event-properties": detail(o.Analytics, errNoProperties, func(ctx context.Context, d DetailSource, q AnalyticsQuery) (any, error) {
			return d.EventProperties(ctx, q)
		}),
	}}
	s.reports["analytics/funnel"] = func(ctx context.Context, q query) (any, error) {
		d, ok := o.Analytics.(DetailSource)
		if !ok {
			return nil, errNoFunnels
		}
		f, err := d.Funnel(ctx, q.analytics(), q.steps)
		if errors.Is(err, ErrBadFilter) && len(q.filters) == 0 {
			err = errNoFunnels // the store keeps no views by visitor
		}
		return f, err
	}
	return s, nil
}

// detail is a report only a DetailSource answers: none is the error of
// a source that is not one.
func detail(src AnalyticsSource, none error, report func(context.Context, DetailSource, AnalyticsQuery) (any, error)) reportFunc {
	return func(ctx context.Context, q query) (any, error) {
		d, ok := src.(DetailSource)
		if !ok {
			return nil, none
		}
		return report(ctx, d, q.analytics())
	}
}

// breakdown is the report of the page views by dim; for a campaign
// dimension, by the one the query's by names (dim when none).
func breakdown(src AnalyticsSource, dim Dimension) reportFunc {
	return func(ctx context.Context, q query) (any, error) {
		d, ok := src.(DetailSource)
		if !ok {
			return nil, errNoBreakdown
		}
		by := dim
		if dim == DimCampaign && q.by != "" {
			if by = Dimension(q.by); !slices.Contains(CampaignDims, by) {
				return nil, ErrBadFilter
			}
		}
		a := q.analytics()
		a.PropertyID = ""
		return d.Breakdown(ctx, by, a)
	}
}

var errNoBreakdown = errors.New("reporting: the analytics source has no breakdowns")

// errNoProperties is a property breakdown asked of a source without one.
var errNoProperties = errors.New("reporting: the analytics source keeps no event properties")

// errNoFunnels is a funnel asked of a source that draws none (GA4, or a
// store that keeps no views by visitor).
var errNoFunnels = errors.New("reporting: the analytics source draws no funnels")

// Enabled reports whether any source is configured.
func (s *Service) Enabled() bool { return s.o.Search != nil || s.o.Analytics != nil }

// source is the family's source, nil when none is configured.
func (s *Service) source(fam family) any {
	if fam.name == "search" {
		if s.o.Search != nil {
			return s.o.Search
		}
		return nil
	}
	if s.o.Analytics != nil {
		return s.o.Analytics
	}
	return nil
}

// Performance is Search Console's totals and trend over the last days
// (clamped as the route clamps them), through the cache.
func (s *Service) Performance(ctx context.Context, days int) (Performance, error) {
	return cached[Performance](ctx, s, searchFamily, "performance", query{days: days})
}

// TopQueries is the top search queries, through the cache.
func (s *Service) TopQueries(ctx context.Context, days, limit int) (TopQueries, error) {
	return cached[TopQueries](ctx, s, searchFamily, "top-queries", query{days: days, limit: limit})
}

// TopPages is the top pages in search, through the cache.
func (s *Service) TopPages(ctx context.Context, days, limit int) (TopPages, error) {
	return cached[TopPages](ctx, s, searchFamily, "top-pages", query{days: days, limit: limit})
}

// Overview is the analytics totals and trend, through the cache.
func (s *Service) Overview(ctx context.Context, q AnalyticsQuery) (Overview, error) {
	q.Limit = 0
	return cached[Overview](ctx, s, analyticsFamily, "overview", analyticsQuery(q))
}

// TopContent is the top pages and events, through the cache.
func (s *Service) TopContent(ctx context.Context, q AnalyticsQuery) (TopContent, error) {
	return cached[TopContent](ctx, s, analyticsFamily, "top-content", analyticsQuery(q))
}

// Breakdown is the page views by dim (one of BreakdownDims), when the
// analytics source breaks them down (a DetailSource: the first-party one
// is), through the cache.
func (s *Service) Breakdown(ctx context.Context, dim Dimension, q AnalyticsQuery) (Breakdown, error) {
	q.PropertyID = ""
	aq := analyticsQuery(q)
	name, ok := breakdownReports[dim]
	if slices.Contains(CampaignDims, dim) {
		name, aq.by = "campaigns", string(dim)
	} else if !ok {
		return Breakdown{}, ErrBadFilter
	}
	return cached[Breakdown](ctx, s, analyticsFamily, name, aq)
}

// breakdownReports are the reports of the dimensions, by the name their
// answers are cached under.
var breakdownReports = map[Dimension]string{DimSource: "sources", DimDevice: "devices", DimBrowser: "browsers", DimOS: "operating-systems",
	DimCountry: "countries"}

// LiveVisitors counts the visitors of the last liveWindow, when the
// analytics source can (a DetailSource; the first-party one is), never
// cached; false when it cannot.
func (s *Service) LiveVisitors(ctx context.Context) (int, bool, error) {
	live, ok := s.o.Analytics.(DetailSource)
	if !ok {
		return 0, false, nil
	}
	n, err := live.Live(ctx)
	return n, err == nil, err
}

// ErrNoSource is the answer of a report whose source is not configured.
var ErrNoSource = errors.New("reporting: no source is configured for this report")

// cached runs one report as the routes do (through the cache, its
// numbers clamped) and decodes it.
func cached[T any](ctx context.Context, s *Service, fam family, name string, q query) (T, error) {
	var out T
	q.days, q.limit = min(max(q.days, 1), fam.maxDays), min(max(q.limit, 1), fam.maxLimit)
	body, err := s.report(ctx, fam, name, q)
	if err != nil {
		return out, err
	}
	err = json.Unmarshal(body, &out)
	return out, err
}

// report is one report's JSON through the cache; ErrNoSource when the
// family has no source.
func (s *Service) report(ctx context.Context, fam family, name string, q query) ([]byte, error) {
	src := s.source(fam)
	if src == nil {
		return nil, ErrNoSource
	}
	return s.fetch(ctx, fam, name, src, q, s.reports[fam.name+"/"+name])
}

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
	// before, start and end are an analytics query's other range
	// (AnalyticsQuery.Before, Start, End).
	before     int
	start, end string
	filters    Filters
	event, by  string
	// steps are a funnel's.
	steps []string
}

// analyticsQuery is q as the cache keys it.
func analyticsQuery(q AnalyticsQuery) query {
	return query{days: q.Days, limit: q.Limit, property: q.PropertyID, before: max(q.Before, 0), start: q.Start, end: q.End,
		filters: q.Filters, event: q.Event}
}

// analytics is the query a source is asked.
func (q query) analytics() AnalyticsQuery {
	return AnalyticsQuery{Days: q.days, Limit: q.limit, PropertyID: q.property, Before: q.before, Start: q.start, End: q.end, Filters: q.filters,
		Event: q.event}
}

// clamp reads a positive whole number; def when absent or not a number.
func clamp(v string, def, hi int) int {
	n, err := strconv.Atoi(v)
	if err != nil {
		return def
	}
	return min(max(n, 1), hi)
}

// fetch is a report's JSON, from the cache when it holds it (keyed per
// source family, route, connection, site and parameters), else from f.
func (s *Service) fetch(ctx context.Context, fam family, name string, src any, q query, f reportFunc) ([]byte, error) {
	connection := ""
	if c, ok := src.(Connected); ok {
		var err error
		if connection, err = c.Connection(ctx); err != nil {
			return nil, err
		}
	}
	_, fresh := src.(Fresh)
	cached := s.o.CacheTTL > 0 && !fresh
	site, _ := tenant.Of(ctx) // the reports of a tenant are its site's (see Store)
	key := cacheKey(fam.name, name, connection+"|"+site, q)
	if cached {
		if body, ok := s.cache.get(key, s.o.Now()); ok {
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
	if cached {
		s.cache.put(key, body, s.o.Now(), s.o.CacheTTL)
	}
	return body, nil
}

func cacheKey(fam, route, connection string, q query) string {
	key := fam + "|" + route + "|" + connection + "|" + strconv.Itoa(q.days) + "|" + strconv.Itoa(q.limit) + "|" + q.property +
		"|" + strconv.Itoa(q.before) + "|" + q.start + "|" + q.end
	for _, f := range q.filters.Sorted() { // equal sets share a key
		key += "|" + string(f.Dim) + "|" + strconv.Quote(f.Value)
	}
	for _, step := range q.steps { // in order: another order is another funnel
		key += "|step|" + strconv.Quote(step)
	}
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
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
