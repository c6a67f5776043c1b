package reporting

import (
	"context"
	"slices"

	"github.com/groundwork-go/groundwork/reporting/reportingstore"
)

// SegmentStore is a Store that also keeps each day's page views by
// visitor with all their values, and each visitor's events and their
// properties, so a report can be narrowed by any FilterDims together
// (reportingsql's, from the version that added it on; the rollups stay
// whole and answer the reports narrowed by PairDims alone).
//
// A filter on a page view's value (page, source, device, country,
// browser, system, campaign values) keeps the views that have it; a
// filter on a goal or an event property keeps the views of the visitors
// who reached the goal, or sent an event with the property, that day.
// Events, properties and goals are counted by visitor: those of the
// visitors with a view the filters keep that day.
type SegmentStore interface {
	// Segment is Daily over the views fs keeps (any FilterDims, each
	// at most once; none for all): dim is DimTotal (a row a day, with
	// the Duration and Bounces of the sessions that began on such a
	// view), a value of the view (DimPage, DimSource, DimDevice,
	// DimCountry, DimBrowser, DimOS, CampaignDims; a view without a
	// country, browser, system or campaign value is not in theirs),
	// DimEntry (the sessions that began on such a view, by page: Views
	// and Sessions the entrances, with Duration and Bounces), DimExit
	// (those whose last view it is, by page: Views the exits), DimEvent
	// and DimProp (the events and properties of the visitors kept), or
	// DimGoal (each goal's conversions by those visitors). A goal
	// filter that names no goal is ErrBadFilter.
	Segment(ctx context.Context, fs Filters, dim Dimension, from, to string, limit int) ([]reportingstore.DailyRow, error)
	// SessionEntry is the first page view of the visitor's latest session
	// of day (visitor the day's hash, as Hit.Visitor), as kept: its Path,
	// Source, Country and Campaign; false when the visitor has had no
	// page view that day.
	SessionEntry(ctx context.Context, day, visitor string) (Hit, bool, error)
}

// pairsOnly reports whether the rollups answer dim under fs: every
// filter and the dimension are PairDims (or DimTotal).
func pairsOnly(fs Filters, dim Dimension) bool {
	for _, f := range fs {
		if !slices.Contains(PairDims, f.Dim) {
			return false
		}
	}
	return dim == DimTotal || slices.Contains(PairDims, dim)
}

// segments is the store's SegmentStore, ErrBadFilter when it keeps none.
func (a *Analytics) segments() (SegmentStore, error) {
	ss, ok := a.store.(SegmentStore)
	if !ok {
		return nil, ErrBadFilter
	}
	return ss, nil
}

// segment is dim's rows over r of the views q.Filters keep, from the
// views kept by visitor.
func (a *Analytics) segment(ctx context.Context, q AnalyticsQuery, dim Dimension, r Range, limit int) ([]reportingstore.DailyRow, error) {
	if !q.Filters.Valid() {
		return nil, ErrBadFilter
	}
	ss, err := a.segments()
	if err != nil {
		return nil, err
	}
	return ss.Segment(ctx, q.Filters, dim, r.StartDate, r.EndDate, limit)
}
