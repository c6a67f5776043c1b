package reporting

import (
	"context"
	"errors"
	"time"
)

// Limits of the parameters: a value past a limit is clamped to it, and
// one that is not a whole number takes the default.
const (
	// SearchMaxDays (16 months) and SearchDaysDefault bound days of the
	// search routes.
	SearchMaxDays     = 490
	SearchDaysDefault = 28
	// AnalyticsMaxDays and AnalyticsDaysDefault bound days of the
	// analytics routes.
	AnalyticsMaxDays     = 730
	AnalyticsDaysDefault = 30
	// SearchLimitDefault and SearchMaxLimit bound limit of top queries
	// and pages.
	SearchLimitDefault = 25
	SearchMaxLimit     = 1000
	// ContentLimitDefault and ContentMaxLimit bound limit of top
	// content.
	ContentLimitDefault = 10
	ContentMaxLimit     = 100
)

// SearchSource answers the search reports (Search Console, or a host's
// own).
type SearchSource interface {
	Performance(ctx context.Context, days int) (Performance, error)
	TopQueries(ctx context.Context, days, limit int) (TopQueries, error)
	TopPages(ctx context.Context, days, limit int) (TopPages, error)
}

// AnalyticsQuery is what an analytics report is asked: Days, Limit (top
// content) and PropertyID (GA4: overrides the configured property; other
// sources ignore it).
type AnalyticsQuery struct {
	Days, Limit int
	// Before moves the range back: the Days days that end Before days
	// before today (the period to compare with).
	Before int
	// Start and End (YYYY-MM-DD, both or neither) ask for those dates
	// instead of the last Days days; see [AnalyticsQuery.Dates].
	Start, End string
	PropertyID string
	// Filters keep only the page views that have all of them (none for
	// all): a page, a source, a device, each at most once. A source that
	// cannot filter that way answers ErrBadFilter.
	Filters Filters
	// Event names the event DetailSource.EventProperties breaks down.
	Event string
}

// Dates is the query's own range of dates, when Start and End name one:
// both dates, Start not after End, at most AnalyticsMaxDays days.
func (q AnalyticsQuery) Dates() (start, end time.Time, ok bool) {
	start, err1 := time.Parse(time.DateOnly, q.Start)
	end, err2 := time.Parse(time.DateOnly, q.End)
	if err1 != nil || err2 != nil || end.Before(start) || end.Sub(start) >= AnalyticsMaxDays*24*time.Hour {
		return time.Time{}, time.Time{}, false
	}
	return start, end, true
}

// AnalyticsSource answers the analytics reports (GA4, the first-party
// source, or a host's own).
type AnalyticsSource interface {
	Overview(ctx context.Context, q AnalyticsQuery) (Overview, error)
	TopContent(ctx context.Context, q AnalyticsQuery) (TopContent, error)
}

// DetailSource is an AnalyticsSource that answers the detailed reports
// too (the first-party one): page views broken down by a dimension (one
// of BreakdownDims), an event broken down by its properties, the pages
// sessions began and ended on, the goals' conversions, and the visitors
// of the last liveWindow. The reports and the dashboard's panels that
// need them are left out for a source without them (GA4).
type DetailSource interface {
	AnalyticsSource
	Breakdown(ctx context.Context, dim Dimension, q AnalyticsQuery) (Breakdown, error)
	EventProperties(ctx context.Context, q AnalyticsQuery) (EventProperties, error)
	EntryPages(ctx context.Context, q AnalyticsQuery) (EntryPages, error)
	ExitPages(ctx context.Context, q AnalyticsQuery) (ExitPages, error)
	GoalConversions(ctx context.Context, q AnalyticsQuery) (GoalConversions, error)
	Funnel(ctx context.Context, q AnalyticsQuery, steps []string) (Funnel, error)
	Live(ctx context.Context) (int, error)
}

var _ DetailSource = (*Analytics)(nil)

// liveWindow is how far back the visitors "now" reach.
const liveWindow = 30 * time.Minute

// Fresh is a source whose answers are never cached: cheap to make and
// expected at once (the first-party analytics: a site owner who visits
// their own page sees the view). The cache is for the quotas of Google's
// APIs.
type Fresh interface {
	Fresh()
}

// Connected is a source whose answers depend on who asks (a per-user
// Google connection): Connection names the connection ctx's caller uses,
// so cached answers are never shared between connections.
type Connected interface {
	Connection(ctx context.Context) (string, error)
}

// Errors a source returns; the routes map them to the error contract.
var (
	// ErrNotConnected: the caller has no connected account (409
	// not_connected).
	ErrNotConnected = errors.New("reporting: not connected")
	// ErrReconnect: the connection was refused (an expired or revoked
	// grant); the caller must connect again (502).
	ErrReconnect = errors.New("reporting: reconnect")
	// ErrBadFilter: the query's filter names a dimension the source
	// cannot filter by, or no value.
	ErrBadFilter = errors.New("reporting: the report cannot be filtered that way")
)

// SourceError is a source's failure (an API error, no answer, a missing
// setting): 502 reporting_error with Message, which names no secret and
// holds no provider body (that goes to the log through Err).
type SourceError struct {
	Message string
	Err     error
}

// Error is the message and, for logs, the cause.
func (e *SourceError) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

// Unwrap returns the cause.
func (e *SourceError) Unwrap() error { return e.Err }
