package reportinggoogle

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/internal/outbound"
	"github.com/groundwork-go/groundwork/reporting"
)

// GA4Options configures [NewGA4].
type GA4Options struct {
	// PropertyID is the GA4 property (digits); a request's property_id
	// replaces it.
	PropertyID string
	// Clients authorizes the calls; required.
	Clients Clients
	// Endpoint replaces Google's address (a test double).
	Endpoint string
}

// GA4Endpoint is the GA4 Data API's address.
const GA4Endpoint = "https://analyticsdata.googleapis.com/"

// GA4 is a reporting.AnalyticsSource on the GA4 Data API.
type GA4 struct {
	o   GA4Options
	api *outbound.Client
}

// NewGA4 returns the GA4 source.
func NewGA4(o GA4Options) (*GA4, error) {
	if o.Clients == nil {
		return nil, errors.New("reportinggoogle: ga4: Clients is required")
	}
	api, err := newAPI("GA4 Data", o.Endpoint, GA4Endpoint)
	if err != nil {
		return nil, fmt.Errorf("reportinggoogle: ga4: %w", err)
	}
	return &GA4{o: o, api: api}, nil
}

// runReport is the Data API's runReport request body; fields in the
// order Google's clients send them (int64 as a JSON string).
type runReport struct {
	DateRanges      []dateRange       `json:"dateRanges,omitempty"`
	DimensionFilter *filterExpression `json:"dimensionFilter,omitempty"`
	Dimensions      []named           `json:"dimensions,omitempty"`
	Limit           int64             `json:"limit,omitempty,string"`
	Metrics         []named           `json:"metrics,omitempty"`
	OrderBys        []orderBy         `json:"orderBys,omitempty"`
}

// filterExpression is the Data API's FilterExpression: here one exact
// match of a dimension (Filter), or several that must all hold
// (AndGroup).
type filterExpression struct {
	AndGroup *filterExpressionList `json:"andGroup,omitempty"`
	Filter   *fieldFilter          `json:"filter,omitempty"`
}

type filterExpressionList struct {
	Expressions []filterExpression `json:"expressions"`
}

// fieldFilter is one dimension matched exactly, case and all.
type fieldFilter struct {
	FieldName    string `json:"fieldName"`
	StringFilter struct {
		CaseSensitive bool   `json:"caseSensitive,omitempty"`
		MatchType     string `json:"matchType"`
		Value         string `json:"value"`
	} `json:"stringFilter"`
}

// gaDimensions are the GA4 dimensions a report's filter names (GA4 has no
// goal or property filter of ours: those are reporting.ErrBadFilter).
var gaDimensions = map[reporting.Dimension]string{reporting.DimPage: "pagePath", reporting.DimSource: "sessionSource", reporting.DimDevice: "deviceCategory",
	reporting.DimCountry: "countryId", reporting.DimBrowser: "browser", reporting.DimOS: "operatingSystem", reporting.DimMedium: "sessionMedium",
	reporting.DimCampaign: "sessionCampaignName", reporting.DimTerm: "sessionManualTerm", reporting.DimContent: "sessionManualAdContent"}

// gaFilter is q's filters as GA4 takes them: nil for none, one filter as
// itself, several as an andGroup.
func gaFilter(q reporting.AnalyticsQuery) (*filterExpression, error) {
	if len(q.Filters) == 0 {
		return nil, nil
	}
	if !q.Filters.Valid() {
		return nil, reporting.ErrBadFilter
	}
	var all []filterExpression
	for _, f := range q.Filters.Sorted() {
		name, ok := gaDimensions[f.Dim]
		if !ok {
			return nil, reporting.ErrBadFilter
		}
		ff := &fieldFilter{FieldName: name}
		ff.StringFilter.MatchType, ff.StringFilter.Value, ff.StringFilter.CaseSensitive = "EXACT", f.Value, true
		all = append(all, filterExpression{Filter: ff})
	}
	if len(all) == 1 {
		return &all[0], nil
	}
	return &filterExpression{AndGroup: &filterExpressionList{Expressions: all}}, nil
}

type dateRange struct {
	EndDate   string `json:"endDate,omitempty"`
	StartDate string `json:"startDate,omitempty"`
}

// named is a metric or a dimension.
type named struct {
	Name string `json:"name"`
}

type orderBy struct {
	Desc   bool `json:"desc,omitempty"`
	Metric *struct {
		MetricName string `json:"metricName"`
	} `json:"metric,omitempty"`
}

// reportRow is one row of runReport's answer.
type reportRow struct {
	DimensionValues []struct {
		Value string `json:"value"`
	} `json:"dimensionValues"`
	MetricValues []struct {
		Value string `json:"value"`
	} `json:"metricValues"`
}

// Connection implements reporting.Connected.
func (g *GA4) Connection(ctx context.Context) (string, error) {
	_, c, err := g.o.Clients.Client(ctx)
	return c, err
}

// gaRange is the query's range as GA4 takes it: its own dates, else the
// last N days, (N−1+Before)daysAgo through Before days ago (today).
func gaRange(q reporting.AnalyticsQuery) reporting.Range {
	if start, end, ok := q.Dates(); ok {
		return reporting.Range{StartDate: start.Format(time.DateOnly), EndDate: end.Format(time.DateOnly)}
	}
	days, before := min(max(q.Days, 1), reporting.AnalyticsMaxDays), max(q.Before, 0)
	end := "today"
	if before > 0 {
		end = strconv.Itoa(before) + "daysAgo"
	}
	return reporting.Range{StartDate: strconv.Itoa(days-1+before) + "daysAgo", EndDate: end}
}

func (g *GA4) run(ctx context.Context, property string, req runReport) ([]reportRow, error) {
	if property == "" {
		property = g.o.PropertyID
	}
	if property == "" || strings.Trim(property, "0123456789") != "" {
		return nil, &reporting.SourceError{Message: "GA4 is not set up: the property ID must be digits."}
	}
	var res struct {
		Rows []reportRow `json:"rows"`
	}
	if err := call(ctx, g.api, g.o.Clients, "GA4 Data", "v1beta/properties/"+property+":runReport", req, &res); err != nil {
		return nil, err
	}
	return res.Rows, nil
}

// list names metrics or dimensions.
func list(names ...string) []named {
	out := make([]named, len(names))
	for i, n := range names {
		out[i] = named{Name: n}
	}
	return out
}

// value is the i-th metric of a row as a number (0 when absent).
func value(row reportRow, i int) float64 {
	if i >= len(row.MetricValues) {
		return 0
	}
	f, _ := strconv.ParseFloat(row.MetricValues[i].Value, 64)
	return f
}

func dim(row reportRow, i int) string {
	if i >= len(row.DimensionValues) {
		return ""
	}
	return row.DimensionValues[i].Value
}

// Overview implements reporting.AnalyticsSource: totals of sessions,
// users, page views and the average session duration, and the trend by
// date (GA4's YYYYMMDD as YYYY-MM-DD), ascending.
func (g *GA4) Overview(ctx context.Context, q reporting.AnalyticsQuery) (reporting.Overview, error) {
	r := gaRange(q)
	filter, err := gaFilter(q)
	if err != nil {
		return reporting.Overview{}, err
	}
	dates := []dateRange{{StartDate: r.StartDate, EndDate: r.EndDate}}
	totals, err := g.run(ctx, q.PropertyID, runReport{DateRanges: dates, DimensionFilter: filter,
		Metrics: list("sessions", "totalUsers", "screenPageViews", "averageSessionDuration")})
	if err != nil {
		return reporting.Overview{}, err
	}
	trend, err := g.run(ctx, q.PropertyID, runReport{DateRanges: dates, DimensionFilter: filter,
		Metrics: list("sessions", "totalUsers", "screenPageViews"), Dimensions: list("date")})
	if err != nil {
		return reporting.Overview{}, err
	}
	out := reporting.Overview{Range: r, Trend: make([]reporting.OverviewPoint, 0, len(trend))}
	if len(totals) > 0 {
		t := totals[0]
		out.Totals = reporting.OverviewTotals{Sessions: value(t, 0), Users: value(t, 1), PageViews: value(t, 2), AvgEngagementSeconds: value(t, 3)}
	}
	for _, row := range trend {
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
// by views, and events by count, each descending; under a filter, those
// of the filter's page, source or device (GA4 keeps events per page).
func (g *GA4) TopContent(ctx context.Context, q reporting.AnalyticsQuery) (reporting.TopContent, error) {
	r := gaRange(q)
	limit := int64(min(max(q.Limit, 1), reporting.ContentMaxLimit))
	if q.Limit <= 0 {
		limit = reporting.ContentLimitDefault
	}
	dates := []dateRange{{StartDate: r.StartDate, EndDate: r.EndDate}}
	order := func(metric string) []orderBy {
		o := orderBy{Desc: true}
		o.Metric = &struct {
			MetricName string `json:"metricName"`
		}{metric}
		return []orderBy{o}
	}
	filter, err := gaFilter(q)
	if err != nil {
		return reporting.TopContent{}, err
	}
	pages, err := g.run(ctx, q.PropertyID, runReport{DateRanges: dates, DimensionFilter: filter, Dimensions: list("pagePath", "pageTitle"),
		Metrics: list("screenPageViews", "totalUsers"), Limit: limit, OrderBys: order("screenPageViews")})
	if err != nil {
		return reporting.TopContent{}, err
	}
	events, err := g.run(ctx, q.PropertyID, runReport{DateRanges: dates, DimensionFilter: filter, Dimensions: list("eventName"),
		Metrics: list("eventCount", "totalUsers"), Limit: limit, OrderBys: order("eventCount")})
	if err != nil {
		return reporting.TopContent{}, err
	}
	out := reporting.TopContent{Range: r, TopPages: make([]reporting.ContentPage, 0, len(pages)),
		TopEvents: make([]reporting.ContentEvent, 0, len(events))}
	for _, row := range pages {
		out.TopPages = append(out.TopPages, reporting.ContentPage{Path: dim(row, 0), Title: dim(row, 1), Views: value(row, 0), Users: value(row, 1)})
	}
	for _, row := range events {
		out.TopEvents = append(out.TopEvents, reporting.ContentEvent{Event: dim(row, 0), Count: value(row, 0), Users: value(row, 1)})
	}
	return out, nil
}
