// Package reportinggoogle is the reporting sources on Google's APIs:
// Search Console's searchAnalytics.query and the GA4 Data API's
// runReport, called over plain REST with typed requests and answers (no
// generated client, so no grpc, genproto or OpenTelemetry), with
// credentials from a service-account key or a user's own Google
// connection (OAuth with PKCE, tokens sealed at rest), both through
// golang.org/x/oauth2. It lives apart from package reporting so that a
// host without Google does not link the OAuth client.
package reportinggoogle

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/groundwork-go/groundwork/internal/outbound"
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

// SearchConsoleEndpoint is the Search Console API's address.
const SearchConsoleEndpoint = "https://searchconsole.googleapis.com/"

// SearchConsole is a reporting.SearchSource on the Search Console API.
type SearchConsole struct {
	o   SearchConsoleOptions
	api *outbound.Client
}

// NewSearchConsole returns the Search Console source.
func NewSearchConsole(o SearchConsoleOptions) (*SearchConsole, error) {
	if o.Clients == nil {
		return nil, errors.New("reportinggoogle: search console: Clients is required")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	api, err := newAPI("Search Console", o.Endpoint, SearchConsoleEndpoint)
	if err != nil {
		return nil, fmt.Errorf("reportinggoogle: search console: %w", err)
	}
	return &SearchConsole{o: o, api: api}, nil
}

// newAPI is the REST client of one Google API at endpoint (def when
// empty). A report call is sent once: the dashboard waits on it.
func newAPI(name, endpoint, def string) (*outbound.Client, error) {
	if endpoint == "" {
		endpoint = def
	}
	return outbound.New(outbound.Options{Provider: name, BaseURL: endpoint, MaxAttempts: 1})
}

// jsonAlt is the query every call carries, as Google's own clients send
// it: a JSON answer, not pretty-printed.
var jsonAlt = url.Values{"alt": {"json"}, "prettyPrint": {"false"}}

// call posts in to path with the caller's authorized client and decodes
// the answer into out; errors are mapped by apiErr.
func call(ctx context.Context, api *outbound.Client, clients Clients, name, path string, in, out any) error {
	client, _, err := clients.Client(ctx)
	if err != nil {
		return err
	}
	req := &outbound.Request{Method: http.MethodPost, Path: path, Query: jsonAlt, HTTPClient: client}
	if err := api.DoJSON(ctx, req, in, out); err != nil {
		return apiErr(name, err)
	}
	return nil
}

// escapeSegment escapes s as one path segment the way Google's URL
// templates do for a simple variable: everything but the unreserved
// characters (letters, digits, "-", ".", "_", "~") is percent-encoded,
// so "sc-domain:example.com" is "sc-domain%3Aexample.com" and a URL
// property keeps its slashes out of the path.
func escapeSegment(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// searchQuery is searchAnalytics.query's request body; fields in the
// order Google's clients send them.
type searchQuery struct {
	Dimensions []string `json:"dimensions,omitempty"`
	EndDate    string   `json:"endDate,omitempty"`
	RowLimit   int64    `json:"rowLimit,omitempty"`
	StartDate  string   `json:"startDate,omitempty"`
}

// searchRow is one row of searchAnalytics.query's answer.
type searchRow struct {
	Keys        []string `json:"keys"`
	Clicks      float64  `json:"clicks"`
	Impressions float64  `json:"impressions"`
	Ctr         float64  `json:"ctr"`
	Position    float64  `json:"position"`
}

// Connection implements reporting.Connected.
func (s *SearchConsole) Connection(ctx context.Context) (string, error) {
	_, c, err := s.o.Clients.Client(ctx)
	return c, err
}

// searchRange is "last N days": today − (N−1) through today.
func (s *SearchConsole) searchRange(days int) reporting.Range {
	days = min(max(days, 1), reporting.SearchMaxDays)
	today := s.o.Now().UTC()
	return reporting.Range{StartDate: today.AddDate(0, 0, -(days - 1)).Format(time.DateOnly), EndDate: today.Format(time.DateOnly)}
}

func (s *SearchConsole) query(ctx context.Context, r reporting.Range, dimension string, limit int64) ([]searchRow, error) {
	if s.o.SiteURL == "" {
		return nil, &reporting.SourceError{Message: "Search Console is not set up: no site URL is configured."}
	}
	req := searchQuery{StartDate: r.StartDate, EndDate: r.EndDate, RowLimit: limit}
	if dimension != "" {
		req.Dimensions = []string{dimension}
	}
	var res struct {
		Rows []searchRow `json:"rows"`
	}
	path := "webmasters/v3/sites/" + escapeSegment(s.o.SiteURL) + "/searchAnalytics/query"
	if err := call(ctx, s.api, s.o.Clients, "Search Console", path, req, &res); err != nil {
		return nil, err
	}
	return res.Rows, nil
}

func metrics(r searchRow) reporting.SearchMetrics {
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

// apiErr maps a failed call: a refused token refresh (invalid_grant)
// asks the user to reconnect; an API answer names its status only (the
// body goes to the log through Err); anything else is "could not reach".
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
	var oe *outbound.Error
	if errors.As(err, &oe) && oe.Status != 0 {
		return &reporting.SourceError{Message: fmt.Sprintf("%s API returned an error (status %d).", api, oe.Status), Err: err}
	}
	return &reporting.SourceError{Message: fmt.Sprintf("Could not reach the %s API.", api), Err: err}
}
