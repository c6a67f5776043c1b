package reporting

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/reporting/reportingstore"
)

// days is the query's range and each of its days: its own dates, else the
// last Days days ending Before days before today, in the site's zone.
func (a *Analytics) days(q AnalyticsQuery) (Range, []string) {
	today := a.o.Now().In(a.o.Location)
	n := dayCount(q)
	start := time.Date(today.Year(), today.Month(), today.Day()-(n-1)-max(q.Before, 0), 0, 0, 0, 0, a.o.Location)
	if s, e, ok := q.Dates(); ok {
		start, n = s, int(e.Sub(s)/(24*time.Hour))+1
	}
	out := make([]string, 0, n)
	for d := start; len(out) < n; d = d.AddDate(0, 0, 1) {
		out = append(out, d.Format(time.DateOnly))
	}
	return Range{StartDate: out[0], EndDate: out[len(out)-1]}, out
}

func dayCount(q AnalyticsQuery) int { return min(max(q.Days, 1), AnalyticsMaxDays) }

// Live implements DetailSource: the visitors whose last page view, as
// written, was in the last liveWindow (the views of the last second,
// still waiting to be written, are not in it yet).
func (a *Analytics) Live(ctx context.Context) (int, error) {
	now := a.o.Now().In(a.o.Location)
	days := []string{now.AddDate(0, 0, -1).Format(time.DateOnly), now.Format(time.DateOnly)}
	return a.store.Recent(ctx, days, now.Add(-liveWindow))
}

// Overview implements AnalyticsSource: per day and in all, page views,
// visitors (counted per day: the salt changes daily, so a visitor on two
// days is two), sessions, their bounce rate and average length. Under
// filters, the sessions are those that began with a view they keep, and
// their bounce rate and length come from the views kept by visitor
// (SegmentStore; when the store keeps none, nil and 0). Narrowed by
// PairDims alone, the counts come from the rollups (whole history) and
// the rate and length from the views kept by visitor, over the sessions
// those keep.
func (a *Analytics) Overview(ctx context.Context, q AnalyticsQuery) (Overview, error) {
	r, days := a.days(q)
	rows, err := a.rows(ctx, q, DimTotal, r, 0)
	if err != nil {
		return Overview{}, err
	}
	byDay := make(map[string]reportingstore.DailyRow, len(rows))
	for _, row := range rows {
		byDay[row.Key] = row
	}
	out := Overview{Range: r, Trend: make([]OverviewPoint, len(days))}
	var duration, bounces float64
	for i, d := range days {
		row := byDay[d]
		out.Trend[i] = OverviewPoint{Date: d, Sessions: float64(row.Sessions), Users: float64(row.Visitors), PageViews: float64(row.Views)}
		out.Totals.Sessions += float64(row.Sessions)
		out.Totals.Users += float64(row.Visitors)
		out.Totals.PageViews += float64(row.Views)
		duration += float64(row.Duration)
		bounces += float64(row.Bounces)
	}
	sessions, known := out.Totals.Sessions, len(q.Filters) == 0 || !pairsOnly(q.Filters, DimTotal)
	if !known { // the rollups keep no bounces or length per page, source or device
		duration, bounces, sessions = 0, 0, 0
		if _, ok := a.store.(SegmentStore); ok {
			seg, err := a.segment(ctx, q, DimTotal, r, 0)
			if err != nil {
				return Overview{}, err
			}
			for _, row := range seg {
				duration, bounces, sessions = duration+float64(row.Duration), bounces+float64(row.Bounces), sessions+float64(row.Sessions)
			}
			known = true
		}
	}
	if sessions > 0 {
		out.Totals.AvgEngagementSeconds = duration / sessions
		if known {
			rate := bounces / sessions
			out.Totals.BounceRate = &rate
		}
	}
	return out, nil
}

// rows are dim's rollup rows over r, of the views q.Filters keep.
func (a *Analytics) rows(ctx context.Context, q AnalyticsQuery, dim Dimension, r Range, limit int) ([]reportingstore.DailyRow, error) {
	if len(q.Filters) == 0 {
		return a.store.Daily(ctx, dim, r.StartDate, r.EndDate, limit)
	}
	if !q.Filters.Valid() {
		return nil, ErrBadFilter
	}
	if pairsOnly(q.Filters, dim) {
		return a.store.Filtered(ctx, q.Filters, dim, r.StartDate, r.EndDate, limit)
	}
	return a.segment(ctx, q, dim, r, limit)
}

func limitOf(q AnalyticsQuery) int {
	if q.Limit <= 0 {
		return ContentLimitDefault
	}
	return min(q.Limit, ContentMaxLimit)
}

// TopContent implements AnalyticsSource: pages by views, events by count
// (users: the daily visitors summed). Under filters, the events are those
// of the visitors they keep (SegmentStore), none when the store keeps no
// visitors' events.
func (a *Analytics) TopContent(ctx context.Context, q AnalyticsQuery) (TopContent, error) {
	r, _ := a.days(q)
	limit := limitOf(q)
	pages, err := a.rows(ctx, q, DimPage, r, limit)
	if err != nil {
		return TopContent{}, err
	}
	var events []reportingstore.DailyRow
	if len(q.Filters) == 0 {
		events, err = a.store.Daily(ctx, DimEvent, r.StartDate, r.EndDate, limit)
	} else if _, ok := a.store.(SegmentStore); ok {
		events, err = a.segment(ctx, q, DimEvent, r, limit)
	}
	if err != nil {
		return TopContent{}, err
	}
	out := TopContent{Range: r, TopPages: make([]ContentPage, len(pages)), TopEvents: make([]ContentEvent, len(events))}
	for i, p := range pages {
		out.TopPages[i] = ContentPage{Path: p.Key, Title: p.Label, Views: float64(p.Views), Users: float64(p.Visitors)}
	}
	for i, e := range events {
		out.TopEvents[i] = ContentEvent{Event: e.Key, Count: float64(e.Views), Users: float64(e.Visitors)}
	}
	return out, nil
}

// Breakdown implements DetailSource: page views by dim, one of
// BreakdownDims: a source, a device class, a country (ISO 3166 codes,
// "DE", as CollectOptions.Country told it; views of no known country are
// not in it), a browser, an operating system (as the user agent names
// them, "Unknown" where it does not) or a campaign dimension. Any other
// dimension answers ErrBadFilter.
func (a *Analytics) Breakdown(ctx context.Context, dim Dimension, q AnalyticsQuery) (Breakdown, error) {
	if !slices.Contains(BreakdownDims, dim) {
		return Breakdown{}, ErrBadFilter
	}
	return a.breakdown(ctx, dim, q)
}

func (a *Analytics) breakdown(ctx context.Context, dim Dimension, q AnalyticsQuery) (Breakdown, error) {
	r, _ := a.days(q)
	rows, err := a.rows(ctx, q, dim, r, 0)
	if err != nil {
		return Breakdown{}, err
	}
	var total float64
	for _, row := range rows {
		total += float64(row.Views)
	}
	limit := limitOf(q)
	out := Breakdown{Range: r, Rows: make([]BreakdownRow, 0, min(len(rows), limit))}
	for _, row := range rows[:min(len(rows), limit)] {
		out.Rows = append(out.Rows, BreakdownRow{Key: row.Key, Views: float64(row.Views), Users: float64(row.Visitors),
			Shares: float64(row.Views) / total})
	}
	return out, nil
}

// EventProperties implements DetailSource: q.Event's properties, each
// value with its count and visitors (the daily visitors summed), by
// property then count descending. Under filters, those of the visitors
// they keep (SegmentStore).
func (a *Analytics) EventProperties(ctx context.Context, q AnalyticsQuery) (EventProperties, error) {
	r, _ := a.days(q)
	var rows []reportingstore.DailyRow
	var err error
	if len(q.Filters) == 0 {
		rows, err = a.store.Daily(ctx, DimProp, r.StartDate, r.EndDate, 0)
	} else {
		rows, err = a.segment(ctx, q, DimProp, r, 0)
	}
	if err != nil {
		return EventProperties{}, err
	}
	out := EventProperties{Range: r, Event: q.Event, Properties: []PropertyValue{}}
	for _, row := range rows {
		if event, name, value, ok := splitPropKey(row.Key); ok && event == q.Event {
			out.Properties = append(out.Properties, PropertyValue{Property: name, Value: value, Count: float64(row.Views), Users: float64(row.Visitors)})
		}
	}
	slices.SortStableFunc(out.Properties, func(a, b PropertyValue) int {
		if c := strings.Compare(a.Property, b.Property); c != 0 {
			return c
		}
		return int(b.Count - a.Count)
	})
	return out, nil
}

// EntryPages implements DetailSource: the pages sessions began on, with
// their bounce rate and average visit; under filters, the sessions that
// began on a view they keep (SegmentStore).
func (a *Analytics) EntryPages(ctx context.Context, q AnalyticsQuery) (EntryPages, error) {
	r, _ := a.days(q)
	var rows []reportingstore.DailyRow
	var err error
	if len(q.Filters) == 0 {
		rows, err = a.store.Daily(ctx, DimEntry, r.StartDate, r.EndDate, limitOf(q))
	} else {
		rows, err = a.segment(ctx, q, DimEntry, r, limitOf(q))
	}
	if err != nil {
		return EntryPages{}, err
	}
	out := EntryPages{Range: r, Rows: make([]EntryPage, 0, len(rows))}
	for _, row := range rows {
		if row.Sessions <= 0 {
			continue
		}
		out.Rows = append(out.Rows, EntryPage{Path: row.Key, Title: row.Label, Entrances: float64(row.Sessions), Users: float64(row.Visitors),
			BounceRate: float64(row.Bounces) / float64(row.Sessions), AvgSeconds: float64(row.Duration) / float64(row.Sessions)})
	}
	return out, nil
}

// ExitPages implements DetailSource: the pages sessions ended on, with
// the share of each page's views that ended one; under filters, the
// sessions whose last view they keep, against the views they keep
// (SegmentStore).
func (a *Analytics) ExitPages(ctx context.Context, q AnalyticsQuery) (ExitPages, error) {
	if len(q.Filters) > 0 {
		return a.exitPagesOf(ctx, q)
	}
	r, _ := a.days(q)
	rows, err := a.store.Daily(ctx, DimExit, r.StartDate, r.EndDate, limitOf(q))
	if err != nil {
		return ExitPages{}, err
	}
	out := ExitPages{Range: r, Rows: make([]ExitPage, 0, len(rows))}
	for _, row := range rows {
		if row.Views <= 0 { // a page whose exits all moved on
			continue
		}
		page, err := a.store.Filtered(ctx, Filters{{Dim: DimPage, Value: row.Key}}, DimPage, r.StartDate, r.EndDate, 1)
		if err != nil {
			return ExitPages{}, err
		}
		e := ExitPage{Path: row.Key, Title: row.Label, Exits: float64(row.Views)}
		if len(page) > 0 && page[0].Views > 0 {
			e.Views = float64(page[0].Views)
			e.ExitRate = min(e.Exits/e.Views, 1)
		}
		out.Rows = append(out.Rows, e)
	}
	return out, nil
}

// exitPagesOf is ExitPages under q's filters.
func (a *Analytics) exitPagesOf(ctx context.Context, q AnalyticsQuery) (ExitPages, error) {
	r, _ := a.days(q)
	rows, err := a.segment(ctx, q, DimExit, r, limitOf(q))
	if err != nil {
		return ExitPages{}, err
	}
	pages, err := a.segment(ctx, q, DimPage, r, 0)
	if err != nil {
		return ExitPages{}, err
	}
	views := make(map[string]int64, len(pages))
	for _, p := range pages {
		views[p.Key] = p.Views
	}
	out := ExitPages{Range: r, Rows: make([]ExitPage, 0, len(rows))}
	for _, row := range rows {
		e := ExitPage{Path: row.Key, Title: row.Label, Exits: float64(row.Views)}
		if v := views[row.Key]; v > 0 {
			e.Views = float64(v)
			e.ExitRate = min(e.Exits/e.Views, 1)
		}
		out.Rows = append(out.Rows, e)
	}
	return out, nil
}
