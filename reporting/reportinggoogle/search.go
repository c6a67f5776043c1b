// Package reportinggoogle is the reporting sources on Google's APIs:
// Search Console's searchAnalytics.query and the GA4 Data API's
// runReport, through Google's own Go clients, with credentials from a
// service-account key or a user's own Google connection (OAuth with PKCE,
// tokens sealed at rest). It lives apart from package reporting so that
// a host without Google does not link Google's clients.
package reportinggoogle

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"time"

	"golang.org/x/oauth2"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
	"google.golang.org/api/searchconsole/v1"

	"github.com/groundwork-go/groundwork/reporting"
)

// Scopes the sources need.
const (
	ScopeSearchConsole = "https://www.googleapis.com/auth/webmasters.readonly"
	ScopeAnalytics     = "https://www.googleapis.com/auth/analytics.readonly"
)

// Clients gives a source the authorized HTTP client for a request, and
// the name of the connection it uses ("" for one shared by everyone, such
// as a service account's). ErrNotConnected when the caller has none.
type Clients interface {
	Client(ctx context.Context) (client *http.Client, connection string, err error)
}

// Static is one client for every request: a service account's.
type Static struct{ HTTP *http.Client }

// Client implements Clients.
func (s Static) Client(context.Context) (*http.Client, string, error) { return s.HTTP, "", nil }

// SearchConsoleOptions configures [NewSearchConsole].
type SearchConsoleOptions struct {
	// SiteURL is the property: "sc-domain:example.com" or
	// "https://example.com/"; required. No request may name another.
	SiteURL string
	// Clients authorizes the calls; required.
	Clients Clients
	// Endpoint replaces Google's address (a test double).
	Endpoint string
	// Now is the clock; time.Now when nil. Days are UTC dates.
	Now func() time.Time
}

// SearchConsole is a reporting.SearchSource on the Search Console API.
type SearchConsole struct{ o SearchConsoleOptions }

// NewSearchConsole returns the Search Console source.
func NewSearchConsole(o SearchConsoleOptions) (*SearchConsole, error) {
	if o.Clients == nil {
		return nil, errors.New("reportinggoogle: search console: Clients is required")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &SearchConsole{o: o}, nil
}

// Connection implements reporting.Connected.
func (s *SearchConsole) Connection(ctx context.Context) (string, error) {
	_, c, err := s.o.Clients.Client(ctx)
	return c, err
}

func (s *SearchConsole) service(ctx context.Context) (*searchconsole.Service, error) {
	if s.o.SiteURL == "" {
		return nil, &reporting.SourceError{Message: "Search Console is not set up: no site URL is configured."}
	}
	client, _, err := s.o.Clients.Client(ctx)
	if err != nil {
		return nil, err
	}
	opts := []option.ClientOption{option.WithHTTPClient(client)}
	if s.o.Endpoint != "" {
		opts = append(opts, option.WithEndpoint(s.o.Endpoint))
	}
	svc, err := searchconsole.NewService(ctx, opts...)
	if err != nil {
		return nil, &reporting.SourceError{Message: "Could not reach the Search Console API.", Err: err}
	}
	return svc, nil
}

// searchRange is "last N days": today − (N−1) through today.
func (s *SearchConsole) searchRange(days int) reporting.Range {
	days = min(max(days, 1), reporting.SearchMaxDays)
	today := s.o.Now().UTC()
	return reporting.Range{StartDate: today.AddDate(0, 0, -(days - 1)).Format(time.DateOnly), EndDate: today.Format(time.DateOnly)}
}

func (s *SearchConsole) query(ctx context.Context, r reporting.Range, dimension string, limit int64) ([]*searchconsole.ApiDataRow, error) {
	svc, err := s.service(ctx)
	if err != nil {
		return nil, err
	}
	req := &searchconsole.SearchAnalyticsQueryRequest{StartDate: r.StartDate, EndDate: r.EndDate, RowLimit: limit}
	if dimension != "" {
		req.Dimensions = []string{dimension}
	}
	res, err := svc.Searchanalytics.Query(s.o.SiteURL, req).Context(ctx).Do()
	if err != nil {
		return nil, apiErr("Search Console", err)
	}
	return res.Rows, nil
}

func metrics(r *searchconsole.ApiDataRow) reporting.SearchMetrics {
	return reporting.SearchMetrics{Clicks: r.Clicks, Impressions: r.Impressions, CTR: r.Ctr, Position: r.Position}
}

// Performance implements reporting.SearchSource: totals (no dimension)
// and the trend by date, ascending.
func (s *SearchConsole) Performance(ctx context.Context, days int) (reporting.Performance, error) {
	r := s.searchRange(days)
	totals, err := s.query(ctx, r, "", 0)
	if err != nil {
		return reporting.Performance{}, err
	}
	trend, err := s.query(ctx, r, "date", 25000)
	if err != nil {
		return reporting.Performance{}, err
	}
	out := reporting.Performance{Range: r, Trend: make([]reporting.SearchPoint, 0, len(trend)), HasData: len(totals) > 0}
	if len(totals) > 0 {
		out.Totals = metrics(totals[0])
	}
	for _, row := range trend {
		if len(row.Keys) > 0 {
			out.Trend = append(out.Trend, reporting.SearchPoint{Date: row.Keys[0], SearchMetrics: metrics(row)})
		}
	}
	sort.SliceStable(out.Trend, func(i, j int) bool { return out.Trend[i].Date < out.Trend[j].Date })
	return out, nil
}

// TopQueries implements reporting.SearchSource.
func (s *SearchConsole) TopQueries(ctx context.Context, days, limit int) (reporting.TopQueries, error) {
	r := s.searchRange(days)
	rows, err := s.query(ctx, r, "query", int64(clampLimit(limit)))
	if err != nil {
		return reporting.TopQueries{}, err
	}
	out := reporting.TopQueries{Range: r, Rows: make([]reporting.QueryRow, 0, len(rows))}
	for _, row := range rows {
		if len(row.Keys) > 0 {
			out.Rows = append(out.Rows, reporting.QueryRow{Query: row.Keys[0], SearchMetrics: metrics(row)})
		}
	}
	return out, nil
}

// TopPages implements reporting.SearchSource.
func (s *SearchConsole) TopPages(ctx context.Context, days, limit int) (reporting.TopPages, error) {
	r := s.searchRange(days)
	rows, err := s.query(ctx, r, "page", int64(clampLimit(limit)))
	if err != nil {
		return reporting.TopPages{}, err
	}
	out := reporting.TopPages{Range: r, Rows: make([]reporting.PageRow, 0, len(rows))}
	for _, row := range rows {
		if len(row.Keys) > 0 {
			out.Rows = append(out.Rows, reporting.PageRow{Page: row.Keys[0], SearchMetrics: metrics(row)})
		}
	}
	return out, nil
}

func clampLimit(n int) int { return min(max(n, 1), reporting.SearchMaxLimit) }

// apiErr maps a Google client error: a refused token refresh
// (invalid_grant) asks the user to reconnect; an API answer names its
// status only (the body goes to the log through Err); anything else is
// "could not reach".
func apiErr(api string, err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.ErrorCode == "invalid_grant" {
			return fmt.Errorf("%w: %v", reporting.ErrReconnect, err)
		}
		return &reporting.SourceError{Message: "Google refused the credentials.", Err: err}
	}
	if errors.Is(err, reporting.ErrReconnect) || errors.Is(err, reporting.ErrNotConnected) {
		return err
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return &reporting.SourceError{Message: fmt.Sprintf("%s API returned an error (status %d).", api, ge.Code), Err: err}
	}
	return &reporting.SourceError{Message: fmt.Sprintf("Could not reach the %s API.", api), Err: err}
}
