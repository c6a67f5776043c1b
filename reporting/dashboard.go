package reporting

import (
	"context"
	"embed"
	"encoding/csv"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/spreadsheet"
	"github.com/groundwork-go/groundwork/internal/throttle"
	"github.com/groundwork-go/groundwork/internal/web"
)

//go:embed templates
var templatesFS embed.FS

// DashboardTemplate is the dashboard's "content", by the name a host's
// DashboardOptions.Templates may replace it under.
const DashboardTemplate = "reporting/dashboard.html"

// dashboardRanges are the ranges the dashboard offers, in days; the
// first is the default.
var dashboardRanges = []int{28, 7, 90}

// DashboardOptions configures [NewDashboard]. Nil means the defaults.
type DashboardOptions struct {
	// HTTPOptions: the logger, the rate limiter, the trusted proxies and
	// the base URL, shared by every handler.
	groundwork.HTTPOptions
	// Path is the page's address; "/reporting" when empty.
	Path string
	// Templates replaces the page's template or the page layer's.
	Templates fs.FS
	// ConnectURL, when set, is offered to a user whose Google account is
	// not connected (the OAuth connect route).
	ConnectURL string
	// SharedLinks, when set, serves the shared read-only dashboards at
	// SharedPath/{token} (SharedPathDefault when ""): mount that path
	// without the dashboard's guard. SharedLimit is the shared pages a
	// minute one address may ask for (SharedLimitDefault when zero, none
	// when negative), counted in HTTPOptions.RateLimiter.
	SharedLinks SharedLinkStore
	SharedPath  string
	SharedLimit int
	// Key signs the form tokens and messages of the shared links'
	// password form and the settings page; a key of the process's own
	// when nil (give one when several instances serve the page).
	Key []byte
	// Manage, when set, is asked for AbilityManage: a request it allows
	// gets the settings page at {Path}/settings, where goals, shared
	// links (with SharedLinks) and email reports (with EmailReports) are
	// made and removed.
	Manage       groundwork.RequestAuthorizer
	EmailReports *EmailReports
}

// Dashboard is a server-rendered page of the five reports (and the
// first-party breakdowns): totals, trends drawn as inline SVG on the
// server, tables of top queries, pages and content (each exported as
// CSV with ?export=), the totals against the period before, a range
// picker (7/28/90 days) and a range of dates (?from, ?to). Each page,
// source and device is a link that narrows the whole report to it
// (?page=, ?source=, ?device=), keeping the filters already there (a page
// and a source together), each of which has a link that drops it. It
// needs no JavaScript. Guard it as the routes are guarded (the reference
// server asks for view_search_reporting).
type Dashboard struct {
	svc    *Service
	o      DashboardOptions
	base   *web.Base
	render *web.Renderer
	// sharedBase serves the pages shared by link, under SharedPath.
	sharedBase *web.Base
	// sharedLimit, passwordLimit and linkPasswordLimit throttle the
	// shared pages per address, and the password tries per link and
	// address and per link.
	sharedLimit, passwordLimit, linkPasswordLimit *throttle.Throttle
}

// NewDashboard returns the dashboard of svc's reports.
func NewDashboard(svc *Service, opts *DashboardOptions) (*Dashboard, error) {
	if svc == nil {
		return nil, errors.New("reporting: new dashboard: the service is nil")
	}
	var o DashboardOptions
	if opts != nil {
		o = *opts
	}
	pages, _ := fs.Sub(templatesFS, "templates")
	bo := web.BaseOptions{Domain: "reporting", Prefix: o.Path, Default: "/reporting", Pages: pages, Override: o.Templates,
		Logger: o.Logger, Brand: o.Brand, Navigator: o.Navigator, Funcs: template.FuncMap{"num": num, "pct": pct, "secs": secs, "lower": strings.ToLower,
			"event": eventWords},
		Key: o.Key, Protect: true, MaxFormBytes: 8 << 10,
		NotFound: web.ErrorPage{Heading: "Page not found", Message: "There is no page at this address."},
		Failure:  web.Problem{ErrorPage: web.ErrorPage{Heading: "Something went wrong", Message: "The reports could not be shown. Please try again in a moment."}}}
	base, err := web.NewBase(bo)
	if err != nil {
		return nil, err
	}
	o.Path, o.Logger = base.Prefix, base.Logger
	d := &Dashboard{svc: svc, o: o, base: base, render: base.Render}
	base.Mux.HandleFunc("GET "+o.Path+"/{$}", base.Func(d.show))
	base.Mux.HandleFunc("GET "+o.Path, base.Func(d.show))
	if o.SharedLinks != nil {
		if err := d.sharedPages(bo); err != nil {
			return nil, err
		}
	}
	if o.Manage != nil {
		d.settingsRoutes()
	}
	return d, nil
}

// ServeHTTP implements http.Handler.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if d.sharedBase != nil && strings.HasPrefix(r.URL.Path, d.o.SharedPath+"/") {
		d.sharedBase.ServeHTTP(w, r)
		return
	}
	d.base.ServeHTTP(w, r)
}

// Routes lists the routes, as "METHOD /path".
func (d *Dashboard) Routes() []string {
	routes := []string{"GET " + d.o.Path, "GET " + d.o.Path + "/_assets/{file}"}
	if d.o.SharedLinks != nil {
		routes = append(routes, "GET "+d.o.SharedPath+"/{token}", "POST "+d.o.SharedPath+"/{token}", "GET "+d.o.SharedPath+"/_assets/{file}")
	}
	if d.o.Manage != nil {
		routes = append(routes, d.settingsRouteList()...)
	}
	return routes
}

type section struct {
	Error   string
	Connect string
}

type dashboardPage struct {
	Path string
	// SharedName names the shared link the page is read through ("" for
	// the dashboard itself).
	SharedName string
	Days       int
	Ranges     []rangeOption
	Search     *searchSection
	Traffic    *trafficSection
	// From and To are the custom range as given; Custom when they name
	// one, else RangeError says what is wrong. RangeLabel says the range
	// in words; Export links each table's CSV.
	From, To   string
	Custom     bool
	RangeError string
	RangeLabel string
	Export     map[string]string
	// Filters are the values the report is narrowed to (?page=,
	// ?source=, ?country=, ?goal=, ... together: FilterDims), Active them
	// in words with the link that drops each; range is the range's query,
	// which every link keeps; goalNames name the goals a filter may name.
	Filters    Filters
	Active     []activeFilter
	rangeQuery url.Values
	goalNames  map[string]string
	// Event is the event whose properties the page shows (?event=), the
	// top one when "".
	Event string
	// Settings links the settings page, for a user who may change them.
	Settings string
	// steps are the funnel's (?step=, in order).
	steps []string
	// tabs are the tabbed cards' chosen tables (?pages=entry-pages), by
	// card; none is the card's first.
	tabs map[string]string
}

// activeFilter is one filter of the page in words ("visits from
// google.com"), with the page's address without it.
type activeFilter struct {
	Words, What, RemoveURL string
}

// URL is the page's address for the same range with filters fs, and
// export's CSV when not empty.
func (p *dashboardPage) URL(fs Filters, export string) string {
	v := p.query(fs)
	if export != "" {
		v.Set("export", export)
	}
	return p.Path + "?" + v.Encode()
}

// query is the page's query for its range (and cards' tabs) with
// filters fs.
func (p *dashboardPage) query(fs Filters) url.Values {
	v := maps.Clone(p.rangeQuery)
	for _, f := range fs {
		v.Set(string(f.Dim), f.Value)
	}
	return v
}

// filterCell is a table's value as a link that filters the report to
// it, unless it is the filter already (Current).
type filterCell struct {
	Value, URL string
	Current    bool
}

// Cell is dim's value as the first tables of the cards show it (top
// pages, sources, devices): a link that adds it to the filters the page
// has (or puts it in place of dim's), keeping the others, and comes back
// to the card (#sources).
func (p *dashboardPage) Cell(dim Dimension, value string) filterCell {
	return p.cellAt(string(dim)+"s", dim, value)
}

// cellAt is Cell for a table in the panel place, where its link comes
// back to, the reader's place.
func (p *dashboardPage) cellAt(place string, dim Dimension, value string) filterCell {
	current, _ := p.Filters.Value(dim)
	return filterCell{Value: value, URL: p.URL(p.Filters.With(Filter{Dim: dim, Value: value}), "") + "#" + place, Current: current == value}
}

// Filtering reports whether the page is narrowed to one value of dim.
func (p *dashboardPage) Filtering(dim Dimension) bool {
	_, ok := p.Filters.Value(dim)
	return ok
}

// AllURL is the page's address for the same range, unfiltered.
func (p *dashboardPage) AllURL() string { return p.URL(nil, "") }

// FilterLabel is the page's filters in words: "visits from google.com
// and visits on mobile".
func (p *dashboardPage) FilterLabel() string {
	words := make([]string, len(p.Filters))
	for i, f := range p.Filters.Sorted() {
		words[i] = p.filterWords(f)
	}
	return strings.Join(words, " and ")
}

// filterWords is one filter in words: "the page /pricing", "visits from
// Germany", "visitors who reached Signed up".
func (p *dashboardPage) filterWords(f Filter) string {
	switch f.Dim {
	case DimCountry:
		name, _ := countryLabel(f.Value)
		return "visits from " + name
	case DimGoal:
		if name, ok := p.goalNames[f.Value]; ok {
			return "visitors who reached “" + name + "”"
		}
		if g, ok := stepGoal(f.Value); ok { // a step in place: "Visit /pricing"
			g, _ = g.Normalize()
			return "visitors who reached “" + g.Name + "”"
		}
		return "visitors who reached goal " + f.Value
	case DimProp:
		name, value, _ := SplitPropFilter(f.Value)
		return "visitors who sent " + name + " " + value
	}
	return filterWords[f.Dim] + " " + f.Value
}

// describeFilters says the page's filters in words (Active), once the
// goals' names are known.
func (p *dashboardPage) describeFilters() {
	p.Active = p.Active[:0]
	for _, f := range p.Filters {
		p.Active = append(p.Active, activeFilter{Words: p.filterWords(f), What: removeWords[f.Dim],
			RemoveURL: p.URL(p.Filters.Without(f.Dim), "")})
	}
}

type rangeOption struct {
	Days     int
	Selected bool
}

type searchSection struct {
	section
	Performance Performance
	Chart       Chart
	Queries     TopQueries
	Pages       TopPages
}

type trafficSection struct {
	section
	Overview Overview
	Chart    Chart
	Content  TopContent
	Sources  *Breakdown
	Devices  *Breakdown
	// Panels are the further tables the source has (goals, entry and
	// exit pages, countries, browsers, systems, campaigns, properties).
	Panels []panel
	// Cards are the tabbed cards ("pages", "sources", "devices"): their
	// tabs and chosen table.
	Cards map[string]*cardTab
	// Funnel is the funnel of the page's steps, when the source draws
	// them (a store that keeps views by visitor).
	Funnel *funnelPanel
	// Changes compare the totals with the period before, by total
	// ("users", "sessions", "views", "engagement", "bounce").
	Changes map[string]Change
	// Live is the visitors of the last liveWindow, when the source counts
	// them (HasLive).
	Live    int
	HasLive bool
	// Filtered: the report is narrowed; PerValue: the source is the
	// first-party one (bounces, sessions); Detailed: it keeps events,
	// bounces and the length of visits under filters too (a store that
	// keeps views by visitor), else those are not shown filtered.
	Filtered, PerValue, Detailed bool
}

func (d *Dashboard) sectionError(fam family, err error) section {
	var se *SourceError
	switch {
	case errors.Is(err, ErrNotConnected):
		return section{Error: fam.connect, Connect: d.o.ConnectURL}
	case errors.Is(err, ErrReconnect):
		return section{Error: fam.reconnect, Connect: d.o.ConnectURL}
	case errors.As(err, &se):
		d.o.Logger.Warn("reporting: dashboard", "family", fam.name, "error", err)
		return section{Error: se.Message}
	case errors.Is(err, ErrBadFilter):
		// An address's own filters (a goal since removed): said, not logged.
		return section{Error: "The report cannot be narrowed by these filters (a goal may have been removed): drop one of them above."}
	}
	d.o.Logger.Error("reporting: dashboard", "family", fam.name, "error", err)
	return section{Error: "The report could not be made. Try again in a moment."}
}

// exports are the dashboard's tables a CSV export may name (?export=).
var exports = append([]string{"pages", "events", "sources", "devices"}, panelIDs...)

// pickRange reads the page's range: ?from and ?to (dates, both) for a
// range of one's own, else ?days (one of dashboardRanges). A bad pair is
// a message, and the days stand.
func pickRange(r *http.Request, p *dashboardPage) AnalyticsQuery {
	q := r.URL.Query()
	p.steps = q["step"]
	p.Days = dashboardRanges[0]
	if n, err := strconv.Atoi(q.Get("days")); err == nil && slices.Contains(dashboardRanges, n) {
		p.Days = n
	}
	for _, n := range []int{7, 28, 90} {
		p.Ranges = append(p.Ranges, rangeOption{Days: n, Selected: n == p.Days})
	}
	p.From, p.To = q.Get("from"), q.Get("to")
	if e := strings.TrimSpace(q.Get("event")); len(e) <= MaxEventNameLength {
		p.Event = e
	}
	aq := AnalyticsQuery{Days: p.Days, Limit: 10}
	link := url.Values{"days": {strconv.Itoa(p.Days)}}
	if p.From != "" || p.To != "" {
		custom := AnalyticsQuery{Start: p.From, End: p.To}
		if start, end, ok := custom.Dates(); ok {
			aq.Start, aq.End, p.Custom = p.From, p.To, true
			aq.Days = int(end.Sub(start)/(24*time.Hour)) + 1
			p.RangeLabel = start.Format("2 January 2006") + " to " + end.Format("2 January 2006")
			link = url.Values{"from": {p.From}, "to": {p.To}}
		} else {
			p.RangeError = "Give the range as two dates, the first on or before the second, at most " + strconv.Itoa(AnalyticsMaxDays) + " days apart."
		}
	}
	if !p.Custom {
		p.RangeLabel = "the last " + strconv.Itoa(p.Days) + " days"
	}
	p.tabs = map[string]string{}
	for _, g := range cardGroups {
		if v := q.Get(g.id); slices.Contains(g.tabs, v) {
			p.tabs[g.id] = v
			link.Set(g.id, v) // every link keeps the cards' tabs
		}
	}
	p.rangeQuery = link
	for _, dim := range FilterDims {
		if v := q.Get(string(dim)); v != "" {
			p.Filters = append(p.Filters, Filter{Dim: dim, Value: v})
		}
	}
	p.describeFilters()
	aq.Filters = p.Filters
	p.Export = map[string]string{}
	for _, e := range exports {
		p.Export[e] = p.URL(p.Filters, e)
	}
	return aq
}

// filterWords name a filter's dimension in the page's sentences (those
// filterWords does not say otherwise); removeWords name it on the link
// that drops it.
var (
	filterWords = map[Dimension]string{DimPage: "the page", DimSource: "visits from", DimDevice: "visits on", DimBrowser: "visits in",
		DimOS: "visits on", DimMedium: "the medium", DimCampaign: "the campaign", DimTerm: "the term", DimContent: "the content"}
	removeWords = map[Dimension]string{DimPage: "the page", DimSource: "the source", DimDevice: "the device", DimCountry: "the country",
		DimBrowser: "the browser", DimOS: "the operating system", DimMedium: "the medium", DimCampaign: "the campaign",
		DimTerm: "the term", DimContent: "the content", DimGoal: "the goal", DimProp: "the property"}
)

// goals are the source's goals; none (and no error) when it keeps none.
func (d *Dashboard) goals(ctx context.Context) ([]Goal, error) {
	gs, ok := d.svc.o.Analytics.(interface {
		Goals(context.Context) ([]Goal, error)
	})
	if !ok {
		return nil, nil
	}
	return gs.Goals(ctx)
}

// nameGoals learns the goals' names, for a goal filter in words.
func (d *Dashboard) nameGoals(ctx context.Context, p *dashboardPage) {
	if _, ok := p.Filters.Value(DimGoal); !ok {
		return
	}
	goals, err := d.goals(ctx)
	if err != nil {
		return // said by number
	}
	p.goalNames = make(map[string]string, len(goals))
	for _, g := range goals {
		p.goalNames[strconv.FormatInt(g.ID, 10)] = g.Name
	}
	p.describeFilters()
}

func (d *Dashboard) show(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p := &dashboardPage{Path: d.o.Path}
	q := pickRange(r, p)
	d.nameGoals(ctx, p)
	if e := r.URL.Query().Get("export"); e != "" {
		return d.export(w, r, e, q)
	}
	if d.manages(r) {
		p.Settings = d.o.Path + "/settings"
	}
	if d.svc.o.Search != nil {
		p.Search = d.searchSection(ctx, p.Days)
	}
	if d.svc.o.Analytics != nil {
		p.Traffic = d.trafficSection(ctx, p, q)
	}
	d.render.Render(w, r, http.StatusOK, DashboardTemplate, &web.Page{Title: "Reports", Data: p, Wide: true})
	return nil
}

func (d *Dashboard) searchSection(ctx context.Context, days int) *searchSection {
	s := &searchSection{}
	var err error
	s.Performance, err = d.svc.Performance(ctx, days)
	if err == nil {
		s.Queries, err = d.svc.TopQueries(ctx, days, 10)
	}
	if err == nil {
		s.Pages, err = d.svc.TopPages(ctx, days, 10)
	}
	if err != nil {
		s.section = d.sectionError(searchFamily, err)
		return s
	}
	points := make([]ChartPoint, len(s.Performance.Trend))
	for i, t := range s.Performance.Trend {
		points[i] = ChartPoint{Label: t.Date, Value: t.Clicks}
	}
	s.Chart = newChart("clicks-chart", "Clicks a day", points)
	return s
}

func (d *Dashboard) trafficSection(ctx context.Context, p *dashboardPage, q AnalyticsQuery) *trafficSection {
	t := &trafficSection{}
	var before Overview
	var err error
	overview := q
	overview.Limit = 0
	t.Overview, err = d.svc.Overview(ctx, overview)
	if err == nil {
		before, err = d.svc.Overview(ctx, previous(overview))
	}
	if err == nil {
		t.Content, err = d.svc.TopContent(ctx, q)
		// The engagement events are the Behaviour card's: among the
		// others they would top every list.
		t.Content.TopEvents = slices.DeleteFunc(slices.Clone(t.Content.TopEvents), func(e ContentEvent) bool { return e.Event == eventEngagement })
	}
	if _, ok := d.svc.o.Analytics.(DetailSource); ok && err == nil {
		var sources, devices Breakdown
		if sources, err = d.svc.Breakdown(ctx, DimSource, q); err == nil {
			devices, err = d.svc.Breakdown(ctx, DimDevice, q)
		}
		t.Sources, t.Devices = &sources, &devices
	}
	if err == nil {
		t.Panels, err = d.panels(ctx, p, q, t.Content.TopEvents)
		t.Cards, t.Panels = p.cards(t.Panels)
	}
	if err != nil {
		t.section = d.sectionError(analyticsFamily, err)
		return t
	}
	_, t.PerValue = d.svc.o.Analytics.(DetailSource)
	if a, ok := d.svc.o.Analytics.(*Analytics); ok {
		_, t.Detailed = a.store.(SegmentStore)
	}
	if t.Detailed {
		t.Funnel = d.funnel(ctx, p, q, t.Content.TopEvents)
	}
	t.Filtered = len(q.Filters) > 0
	if n, ok, err := d.svc.LiveVisitors(ctx); err != nil {
		t.section = d.sectionError(analyticsFamily, err)
		return t
	} else {
		t.Live, t.HasLive = n, ok
	}
	now, was := t.Overview.Totals, before.Totals
	t.Changes = map[string]Change{"users": change(now.Users, was.Users, true), "sessions": change(now.Sessions, was.Sessions, true),
		"views": change(now.PageViews, was.PageViews, true), "engagement": change(now.AvgEngagementSeconds, was.AvgEngagementSeconds, true)}
	switch {
	case now.BounceRate != nil && was.BounceRate != nil:
		t.Changes["bounce"] = change(*now.BounceRate, *was.BounceRate, false)
	case now.BounceRate != nil:
		t.Changes["bounce"] = Change{Text: "no visits"}
	}
	points := make([]ChartPoint, len(t.Overview.Trend))
	for i, o := range t.Overview.Trend {
		points[i] = ChartPoint{Label: o.Date, Value: o.PageViews}
	}
	var earlier []ChartPoint
	if len(before.Trend) == len(points) {
		earlier = make([]ChartPoint, len(before.Trend))
		for i, o := range before.Trend {
			earlier[i] = ChartPoint{Label: o.Date, Value: o.PageViews}
		}
	}
	title := "Page views a day"
	if t.Filtered {
		title += " (" + p.FilterLabel() + ")"
	}
	t.Chart = newChart("views-chart", title, points, earlier...)
	return t
}

// export answers one table of the report as CSV (every row the source
// gives, up to ContentMaxLimit), named for the table and the range.
func (d *Dashboard) export(w http.ResponseWriter, r *http.Request, table string, q AnalyticsQuery) error {
	if !slices.Contains(exports, table) || d.svc.o.Analytics == nil {
		return &web.Problem{Status: http.StatusNotFound, ErrorPage: web.ErrorPage{Heading: "No such table",
			Message: "There is no report table by that name to export.", Link: d.o.Path, LinkText: "Back to the reports"}}
	}
	q.Limit = ContentMaxLimit
	var rows [][]string
	var err error
	switch table {
	case "goals", "entry-pages", "exit-pages", "countries", "browsers", "operating-systems", "campaigns", "event-properties",
		"outbound-links", "file-downloads", "not-found", "scroll-depth", "time-on-page":
		p := &dashboardPage{Path: d.o.Path}
		pickRange(r, p)
		var pn panel
		var ok bool
		var events []ContentEvent
		if table == "event-properties" {
			var c TopContent
			if c, err = d.svc.TopContent(r.Context(), q); err == nil {
				events = c.TopEvents
			}
		}
		if err == nil {
			pn, ok, err = d.panel(r.Context(), p, q, table, events)
		}
		if err == nil && (!ok || pn.Note != "") {
			return &web.Problem{Status: http.StatusNotFound, ErrorPage: web.ErrorPage{Heading: "No such table",
				Message: "The analytics source has no such table, or cannot narrow it to these visits.", Link: d.o.Path, LinkText: "Back to the reports"}}
		}
		rows = append(rows, pn.csvHead)
		for _, row := range pn.Rows {
			rows = append(rows, row.csv)
		}
	case "pages", "events":
		var c TopContent
		if c, err = d.svc.TopContent(r.Context(), q); err == nil && table == "pages" {
			rows = append(rows, []string{"path", "title", "views", "visitors"})
			for _, p := range c.TopPages {
				rows = append(rows, []string{p.Path, p.Title, num(p.Views), num(p.Users)})
			}
		} else if err == nil {
			rows = append(rows, []string{"event", "count", "visitors"})
			for _, e := range c.TopEvents {
				rows = append(rows, []string{e.Event, num(e.Count), num(e.Users)})
			}
		}
	default:
		dim := DimSource
		if table == "devices" {
			dim = DimDevice
		}
		var b Breakdown
		if b, err = d.svc.Breakdown(r.Context(), dim, q); err == nil {
			rows = append(rows, []string{strings.TrimSuffix(table, "s"), "views", "visitors", "share"})
			for _, row := range b.Rows {
				rows = append(rows, []string{row.Key, num(row.Views), num(row.Users), strconv.FormatFloat(row.Shares, 'f', 4, 64)})
			}
		}
	}
	if err != nil {
		s := d.sectionError(analyticsFamily, err) // logged there
		return &web.Problem{Status: http.StatusBadGateway, Err: err, ErrorPage: web.ErrorPage{Heading: "Export not made", Message: s.Error,
			Link: d.o.Path, LinkText: "Back to the reports"}}
	}
	name := table + "-" + strconv.Itoa(q.Days) + "-days"
	if q.Start != "" {
		name = table + "-" + q.Start + "-to-" + q.End
	}
	for _, f := range q.Filters.Sorted() {
		name += "-" + string(f.Dim) + "-" + fileWord(f.Value)
	}
	name += ".csv"
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	cw := csv.NewWriter(w)
	for _, row := range rows {
		for i, v := range row {
			row[i] = spreadsheet.Cell(v)
		}
		_ = cw.Write(row)
	}
	cw.Flush()
	return nil
}

// fileWord is v as a part of a file name: letters and digits, the rest
// as hyphens, at most 40 characters.
func fileWord(v string) string {
	w := strings.Trim(strings.Map(func(r rune) rune {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return r
		}
		return '-'
	}, v), "-")
	if w == "" {
		w = "root"
	}
	return clip(w, 40)
}

// ChartPoint is one value of a trend.
type ChartPoint struct {
	Label string
	Value float64
}

// Chart is a trend drawn on the server as an SVG line with its points
// and axes, and described in words for screen readers.
type Chart struct {
	// ID names the chart's title and description elements.
	ID                 string
	Title, Description string
	Width, Height      int
	Line               string // the polyline's points
	Points             []ChartDot
	// Previous is the period before's line, drawn grey behind (""
	// without one).
	Previous    string
	Max         float64
	First, Last string
	Empty       bool
	// Ticks are the vertical axis' values, top to bottom.
	Ticks []string
}

// ChartDot is a point of the line, with its text.
type ChartDot struct {
	X, Y  float64
	Title string
}

// newChart lays points out in a 600×160 box (with room for labels); id
// names its elements. The previous period's points, when given (as many
// as points), are a second line on the same scale.
func newChart(id, title string, points []ChartPoint, previous ...ChartPoint) Chart {
	c := Chart{ID: id, Title: title, Width: 600, Height: 160}
	if len(points) == 0 {
		c.Empty, c.Description = true, "No data for this range."
		return c
	}
	var total float64
	maxI := 0
	for i, p := range points {
		c.Max = math.Max(c.Max, p.Value)
		total += p.Value
		if p.Value > points[maxI].Value {
			maxI = i
		}
	}
	if len(previous) != len(points) {
		previous = nil
	}
	top := c.Max
	var before float64
	for _, p := range previous {
		top = math.Max(top, p.Value)
		before += p.Value
	}
	if top == 0 {
		top = 1
	}
	c.Ticks = []string{num(math.Round(top)), num(math.Round(top / 2)), "0"}
	const left, right, upper, lower = 40.0, 10.0, 10.0, 20.0
	w, h := float64(c.Width)-left-right, float64(c.Height)-upper-lower
	var line strings.Builder
	for i, p := range points {
		x := left
		if len(points) > 1 {
			x += w * float64(i) / float64(len(points)-1)
		}
		y := upper + h*(1-p.Value/top)
		fmt.Fprintf(&line, "%.1f,%.1f ", x, y)
		c.Points = append(c.Points, ChartDot{X: math.Round(x*10) / 10, Y: math.Round(y*10) / 10, Title: dayWords(p.Label, true) + ": " + num(p.Value)})
	}
	c.Line = strings.TrimSpace(line.String())
	var prev strings.Builder
	for i, p := range previous {
		x := left
		if len(previous) > 1 {
			x += w * float64(i) / float64(len(previous)-1)
		}
		fmt.Fprintf(&prev, "%.1f,%.1f ", x, upper+h*(1-p.Value/top))
	}
	c.Previous = strings.TrimSpace(prev.String())
	// The axis and the description say days in words ("5 May"), the
	// description with their year.
	c.First, c.Last = dayWords(points[0].Label, false), dayWords(points[len(points)-1].Label, false)
	c.Description = fmt.Sprintf("%s from %s to %s: %s in all, at most %s on %s.", title, dayWords(points[0].Label, true),
		dayWords(points[len(points)-1].Label, true), num(total), num(c.Max), dayWords(points[maxI].Label, true))
	if previous != nil {
		c.Description += fmt.Sprintf(" The period before (%s to %s, the grey line): %s.", dayWords(previous[0].Label, true),
			dayWords(previous[len(previous)-1].Label, true), num(before))
	}
	return c
}
