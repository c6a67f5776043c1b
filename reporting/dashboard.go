package reporting

import (
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/web"
)

//go:embed templates
var templatesFS embed.FS

// DashboardTemplate is the dashboard's "content", by the name a host's
// DashboardOptions.Templates may replace it under.
const DashboardTemplate = "reporting/dashboard.html"

// DashboardRanges are the ranges the dashboard offers, in days; the
// first is the default.
var DashboardRanges = []int{28, 7, 90}

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
}

// Dashboard is a server-rendered page of the five reports (and the
// first-party breakdowns): totals, trends drawn as inline SVG on the
// server, tables of top queries, pages and content, a range picker
// (7/28/90 days). It needs no JavaScript. Guard it as the routes are
// guarded (the reference server asks for view_search_reporting).
type Dashboard struct {
	svc     *Service
	o       DashboardOptions
	render  *web.Renderer
	handler http.Handler
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
	if o.Path == "" {
		o.Path = "/reporting"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	pages, _ := fs.Sub(templatesFS, "templates")
	r, err := web.New(web.Options{Pages: pages, Override: o.Templates, AssetPrefix: o.Path + "/_assets", Logger: o.Logger, Brand: o.Brand, Navigator: o.Navigator,
		Funcs: template.FuncMap{"num": num, "pct": pct, "secs": secs}})
	if err != nil {
		return nil, fmt.Errorf("reporting: new dashboard: %w", err)
	}
	d := &Dashboard{svc: svc, o: o, render: r}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+o.Path+"/{$}", d.show)
	mux.HandleFunc("GET "+o.Path, d.show)
	mux.Handle("GET "+o.Path+"/_assets/{file}", r.Assets())
	d.handler = mux
	return d, nil
}

// ServeHTTP implements http.Handler.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) { d.handler.ServeHTTP(w, r) }

// Routes lists the routes, as "METHOD /path".
func (d *Dashboard) Routes() []string {
	return []string{"GET " + d.o.Path, "GET " + d.o.Path + "/_assets/{file}"}
}

type section struct {
	Error   string
	Connect string
}

type dashboardPage struct {
	Path    string
	Days    int
	Ranges  []rangeOption
	Search  *searchSection
	Traffic *trafficSection
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
	}
	d.o.Logger.Error("reporting: dashboard", "family", fam.name, "error", err)
	return section{Error: "The report could not be made. Try again in a moment."}
}

func (d *Dashboard) show(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	days := DashboardRanges[0]
	if n, err := strconv.Atoi(r.URL.Query().Get("days")); err == nil && slices.Contains(DashboardRanges, n) {
		days = n
	}
	p := &dashboardPage{Path: d.o.Path, Days: days}
	for _, n := range []int{7, 28, 90} {
		p.Ranges = append(p.Ranges, rangeOption{Days: n, Selected: n == days})
	}
	if d.svc.o.Search != nil {
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
		} else {
			points := make([]ChartPoint, len(s.Performance.Trend))
			for i, t := range s.Performance.Trend {
				points[i] = ChartPoint{Label: t.Date, Value: t.Clicks}
			}
			s.Chart = NewChart("clicks-chart", "Clicks a day", points)
		}
		p.Search = s
	}
	if d.svc.o.Analytics != nil {
		t := &trafficSection{}
		q := AnalyticsQuery{Days: days, Limit: 10}
		var err error
		t.Overview, err = d.svc.Overview(ctx, AnalyticsQuery{Days: days})
		if err == nil {
			t.Content, err = d.svc.TopContent(ctx, q)
		}
		if _, ok := d.svc.o.Analytics.(BreakdownSource); ok && err == nil {
			var sources, devices Breakdown
			if sources, err = d.svc.Sources(ctx, q); err == nil {
				devices, err = d.svc.Devices(ctx, q)
			}
			t.Sources, t.Devices = &sources, &devices
		}
		if err != nil {
			t.section = d.sectionError(analyticsFamily, err)
		} else {
			points := make([]ChartPoint, len(t.Overview.Trend))
			for i, o := range t.Overview.Trend {
				points[i] = ChartPoint{Label: o.Date, Value: o.PageViews}
			}
			t.Chart = NewChart("views-chart", "Page views a day", points)
		}
		p.Traffic = t
	}
	d.render.Render(w, r, http.StatusOK, DashboardTemplate, &web.Page{Title: "Reports", Data: p, Wide: true})
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
	Max                float64
	First, Last        string
	Empty              bool
}

// ChartDot is a point of the line, with its text.
type ChartDot struct {
	X, Y  float64
	Title string
}

// NewChart lays points out in a 600×160 box (with room for labels); id
// names its elements.
func NewChart(id, title string, points []ChartPoint) Chart {
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
	top := c.Max
	if top == 0 {
		top = 1
	}
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
		c.Points = append(c.Points, ChartDot{X: math.Round(x*10) / 10, Y: math.Round(y*10) / 10, Title: p.Label + ": " + num(p.Value)})
	}
	c.Line = strings.TrimSpace(line.String())
	c.First, c.Last = points[0].Label, points[len(points)-1].Label
	c.Description = fmt.Sprintf("%s from %s to %s: %s in all, at most %s on %s.", title, c.First, c.Last, num(total), num(c.Max),
		points[maxI].Label)
	return c
}

// num writes a count with thousands separators, or a decimal to one
// place.
func num(v float64) string {
	if v != math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	s := strconv.FormatInt(int64(v), 10)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// pct writes a fraction as a percentage.
func pct(v float64) string { return strconv.FormatFloat(v*100, 'f', 1, 64) + "%" }

// secs writes seconds as "1 min 5 s".
func secs(v float64) string {
	s := int(math.Round(v))
	if s < 60 {
		return strconv.Itoa(s) + " s"
	}
	return strconv.Itoa(s/60) + " min " + strconv.Itoa(s%60) + " s"
}
