package reporting

// Range is a report's span: dates (YYYY-MM-DD) for Search Console and the
// first-party source, GA4's aliases ("29daysAgo", "today") for GA4.
type Range struct {
	StartDate string `json:"startDate"`
	EndDate   string `json:"endDate"`
}

// SearchMetrics are Search Console's four metrics; CTR is a fraction.
type SearchMetrics struct {
	Clicks      float64 `json:"clicks"`
	Impressions float64 `json:"impressions"`
	CTR         float64 `json:"ctr"`
	Position    float64 `json:"position"`
}

// SearchPoint is one day of a trend.
type SearchPoint struct {
	Date string `json:"date"`
	SearchMetrics
}

// Performance is GET /search-reporting/performance: the totals and the
// daily trend, date ascending; HasData is false when the totals had no
// rows.
type Performance struct {
	Range   Range         `json:"range"`
	Totals  SearchMetrics `json:"totals"`
	Trend   []SearchPoint `json:"trend"`
	HasData bool          `json:"has_data"`
}

// QueryRow is a row of top queries.
type QueryRow struct {
	Query string `json:"query"`
	SearchMetrics
}

// PageRow is a row of top pages (Page an absolute URL).
type PageRow struct {
	Page string `json:"page"`
	SearchMetrics
}

// TopQueries is GET /search-reporting/top-queries, clicks descending.
type TopQueries struct {
	Range Range      `json:"range"`
	Rows  []QueryRow `json:"rows"`
}

// TopPages is GET /search-reporting/top-pages, clicks descending.
type TopPages struct {
	Range Range     `json:"range"`
	Rows  []PageRow `json:"rows"`
}

// OverviewTotals are the analytics totals; AvgEngagementSeconds is the
// average session duration.
type OverviewTotals struct {
	Sessions             float64 `json:"sessions"`
	Users                float64 `json:"users"`
	PageViews            float64 `json:"page_views"`
	AvgEngagementSeconds float64 `json:"avg_engagement_seconds"`
	// BounceRate is the share of sessions that were one page view and no
	// event, 0 to 1; absent where the source does not keep it (GA4, or
	// the built-in one under filters).
	BounceRate *float64 `json:"bounce_rate,omitempty"`
}

// OverviewPoint is one day of the analytics trend.
type OverviewPoint struct {
	Date      string  `json:"date"`
	Sessions  float64 `json:"sessions"`
	Users     float64 `json:"users"`
	PageViews float64 `json:"page_views"`
}

// Overview is GET /analytics-reporting/overview.
type Overview struct {
	Range  Range           `json:"range"`
	Totals OverviewTotals  `json:"totals"`
	Trend  []OverviewPoint `json:"trend"`
}

// ContentPage is a row of top pages by views.
type ContentPage struct {
	Path  string  `json:"path"`
	Title string  `json:"title"`
	Views float64 `json:"views"`
	Users float64 `json:"users"`
}

// ContentEvent is a row of top events by count.
type ContentEvent struct {
	Event string  `json:"event"`
	Count float64 `json:"count"`
	Users float64 `json:"users"`
}

// TopContent is GET /analytics-reporting/top-content.
type TopContent struct {
	Range     Range          `json:"range"`
	TopPages  []ContentPage  `json:"top_pages"`
	TopEvents []ContentEvent `json:"top_events"`
}

// Breakdown is a first-party report by one dimension (sources, devices):
// rows by views descending.
type Breakdown struct {
	Range Range          `json:"range"`
	Rows  []BreakdownRow `json:"rows"`
}

// EntryPages is the first-party report of the pages sessions began on,
// by entrances descending.
type EntryPages struct {
	Range Range       `json:"range"`
	Rows  []EntryPage `json:"rows"`
}

// EntryPage is a page sessions began on: how many (Entrances), by how
// many visitors (each day's, summed), the share of them that bounced (one
// page view and no event) and their average length (last hit minus
// first, in seconds).
type EntryPage struct {
	Path       string  `json:"path"`
	Title      string  `json:"title"`
	Entrances  float64 `json:"entrances"`
	Users      float64 `json:"users"`
	BounceRate float64 `json:"bounce_rate"`
	AvgSeconds float64 `json:"avg_visit_seconds"`
}

// ExitPages is the first-party report of the pages sessions ended on,
// by exits descending.
type ExitPages struct {
	Range Range      `json:"range"`
	Rows  []ExitPage `json:"rows"`
}

// ExitPage is a page sessions ended on: how many, the page's views, and
// the share of those views that ended a session.
type ExitPage struct {
	Path     string  `json:"path"`
	Title    string  `json:"title"`
	Exits    float64 `json:"exits"`
	Views    float64 `json:"views"`
	ExitRate float64 `json:"exit_rate"`
}

// EventProperties is an event broken down by its properties: for each
// property, its values by count.
type EventProperties struct {
	Range      Range           `json:"range"`
	Event      string          `json:"event"`
	Properties []PropertyValue `json:"properties"`
}

// PropertyValue is one value of one property of an event: how many times
// the event had it, and by how many visitors (each day's, summed).
type PropertyValue struct {
	Property string  `json:"property"`
	Value    string  `json:"value"`
	Count    float64 `json:"count"`
	Users    float64 `json:"users"`
}

// BreakdownRow is one value of the dimension.
type BreakdownRow struct {
	Key    string  `json:"key"`
	Views  float64 `json:"views"`
	Users  float64 `json:"users"`
	Shares float64 `json:"share"`
}
