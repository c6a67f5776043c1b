package reportinggoogle

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/api/analyticsdata/v1beta"
	"google.golang.org/api/option"

	"github.com/groundwork-go/groundwork/reporting"
)

// GA4Options configures [NewGA4].
type GA4Options struct {
	// PropertyID is the GA4 property (digits); a request's property_id
	// replaces it, as the original allows.
	PropertyID string
	// Clients authorizes the calls; required.
	Clients Clients
	// Endpoint replaces Google's address (a test double).
	Endpoint string
}

// GA4 is a reporting.AnalyticsSource on the GA4 Data API.
type GA4 struct{ o GA4Options }

// NewGA4 returns the GA4 source.
func NewGA4(o GA4Options) (*GA4, error) {
	if o.Clients == nil {
		return nil, errors.New("reportinggoogle: ga4: Clients is required")
	}
	return &GA4{o: o}, nil
}

// Connection implements reporting.Connected.
func (g *GA4) Connection(ctx context.Context) (string, error) {
	_, c, err := g.o.Clients.Client(ctx)
	return c, err
}

// gaRange is GA4's "last N days": (N−1)daysAgo through today.
func gaRange(days int) reporting.Range {
	days = min(max(days, 1), reporting.AnalyticsMaxDays)
	return reporting.Range{StartDate: strconv.Itoa(days-1) + "daysAgo", EndDate: "today"}
}

func (g *GA4) run(ctx context.Context, property string, req *analyticsdata.RunReportRequest) (*analyticsdata.RunReportResponse, error) {
	if property == "" {
		property = g.o.PropertyID
	}
	if property == "" || strings.Trim(property, "0123456789") != "" {
		return nil, &reporting.SourceError{Message: "GA4 is not set up: the property ID must be digits."}
	}
	client, _, err := g.o.Clients.Client(ctx)
	if err != nil {
		return nil, err
	}
	opts := []option.ClientOption{option.WithHTTPClient(client)}
	if g.o.Endpoint != "" {
		opts = append(opts, option.WithEndpoint(g.o.Endpoint))
	}
	svc, err := analyticsdata.NewService(ctx, opts...)
	if err != nil {
		return nil, &reporting.SourceError{Message: "Could not reach the GA4 Data API.", Err: err}
	}
	res, err := svc.Properties.RunReport("properties/"+property, req).Context(ctx).Do()
	if err != nil {
		return nil, apiErr("GA4 Data", err)
	}
	return res, nil
}

func names[T any](list []string, each func(string) T) []T {
	out := make([]T, len(list))
	for i, n := range list {
		out[i] = each(n)
	}
	return out
}

func metricList(n ...string) []*analyticsdata.Metric {
	return names(n, func(s string) *analyticsdata.Metric { return &analyticsdata.Metric{Name: s} })
}

func dimensionList(n ...string) []*analyticsdata.Dimension {
	return names(n, func(s string) *analyticsdata.Dimension { return &analyticsdata.Dimension{Name: s} })
}

// value is the i-th metric of a row as a number (0 when absent).
func value(row *analyticsdata.Row, i int) float64 {
	if i >= len(row.MetricValues) || row.MetricValues[i] == nil {
		return 0
	}
	f, _ := strconv.ParseFloat(row.MetricValues[i].Value, 64)
	return f
}

func dim(row *analyticsdata.Row, i int) string {
	if i >= len(row.DimensionValues) || row.DimensionValues[i] == nil {
		return ""
	}
	return row.DimensionValues[i].Value
}

// Overview implements reporting.AnalyticsSource: totals of sessions,
// users, page views and the average session duration, and the trend by
// date (GA4's YYYYMMDD as YYYY-MM-DD), ascending.
func (g *GA4) Overview(ctx context.Context, q reporting.AnalyticsQuery) (reporting.Overview, error) {
	r := gaRange(q.Days)
	dates := []*analyticsdata.DateRange{{StartDate: r.StartDate, EndDate: r.EndDate}}
	totals, err := g.run(ctx, q.PropertyID, &analyticsdata.RunReportRequest{DateRanges: dates,
		Metrics: metricList("sessions", "totalUsers", "screenPageViews", "averageSessionDuration")})
	if err != nil {
		return reporting.Overview{}, err
	}
	trend, err := g.run(ctx, q.PropertyID, &analyticsdata.RunReportRequest{DateRanges: dates,
		Metrics: metricList("sessions", "totalUsers", "screenPageViews"), Dimensions: dimensionList("date")})
	if err != nil {
		return reporting.Overview{}, err
	}
	out := reporting.Overview{Range: r, Trend: make([]reporting.OverviewPoint, 0, len(trend.Rows))}
	if len(totals.Rows) > 0 {
		t := totals.Rows[0]
		out.Totals = reporting.OverviewTotals{Sessions: value(t, 0), Users: value(t, 1), PageViews: value(t, 2), AvgEngagementSeconds: value(t, 3)}
	}
	for _, row := range trend.Rows {
		d := dim(row, 0)
		if len(d) == 8 {
			d = d[:4] + "-" + d[4:6] + "-" + d[6:]
		}
		out.Trend = append(out.Trend, reporting.OverviewPoint{Date: d, Sessions: value(row, 0), Users: value(row, 1), PageViews: value(row, 2)})
	}
	sort.SliceStable(out.Trend, func(i, j int) bool { return out.Trend[i].Date < out.Trend[j].Date })
	return out, nil
}

// TopContent implements reporting.AnalyticsSource: pages (path, title)
// by views, and events by count, each descending.
func (g *GA4) TopContent(ctx context.Context, q reporting.AnalyticsQuery) (reporting.TopContent, error) {
	r := gaRange(q.Days)
	limit := int64(min(max(q.Limit, 1), reporting.ContentMaxLimit))
	if q.Limit <= 0 {
		limit = reporting.ContentLimitDefault
	}
	dates := []*analyticsdata.DateRange{{StartDate: r.StartDate, EndDate: r.EndDate}}
	order := func(metric string) []*analyticsdata.OrderBy {
		return []*analyticsdata.OrderBy{{Metric: &analyticsdata.MetricOrderBy{MetricName: metric}, Desc: true}}
	}
	pages, err := g.run(ctx, q.PropertyID, &analyticsdata.RunReportRequest{DateRanges: dates, Dimensions: dimensionList("pagePath", "pageTitle"),
		Metrics: metricList("screenPageViews", "totalUsers"), Limit: limit, OrderBys: order("screenPageViews")})
	if err != nil {
		return reporting.TopContent{}, err
	}
	events, err := g.run(ctx, q.PropertyID, &analyticsdata.RunReportRequest{DateRanges: dates, Dimensions: dimensionList("eventName"),
		Metrics: metricList("eventCount", "totalUsers"), Limit: limit, OrderBys: order("eventCount")})
	if err != nil {
		return reporting.TopContent{}, err
	}
	out := reporting.TopContent{Range: r, TopPages: make([]reporting.ContentPage, 0, len(pages.Rows)),
		TopEvents: make([]reporting.ContentEvent, 0, len(events.Rows))}
	for _, row := range pages.Rows {
		out.TopPages = append(out.TopPages, reporting.ContentPage{Path: dim(row, 0), Title: dim(row, 1), Views: value(row, 0), Users: value(row, 1)})
	}
	for _, row := range events.Rows {
		out.TopEvents = append(out.TopEvents, reporting.ContentEvent{Event: dim(row, 0), Count: value(row, 0), Users: value(row, 1)})
	}
	return out, nil
}
