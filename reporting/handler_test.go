package reporting_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// fakeSearch records its calls and answers with err when set.
type fakeSearch struct {
	mu    sync.Mutex
	calls []string
	err   error
	conn  string
}

func (f *fakeSearch) record(s string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
	return f.err
}

func (f *fakeSearch) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeSearch) Performance(_ context.Context, days int) (reporting.Performance, error) {
	return reporting.Performance{Range: reporting.Range{StartDate: "2026-05-05", EndDate: "2026-06-01"}, Trend: []reporting.SearchPoint{},
		HasData: true, Totals: reporting.SearchMetrics{Clicks: float64(days)}}, f.record("performance " + itoa(days))
}

func (f *fakeSearch) TopQueries(_ context.Context, days, limit int) (reporting.TopQueries, error) {
	return reporting.TopQueries{Rows: []reporting.QueryRow{}}, f.record("queries " + itoa(days) + " " + itoa(limit))
}

func (f *fakeSearch) TopPages(_ context.Context, days, limit int) (reporting.TopPages, error) {
	return reporting.TopPages{Rows: []reporting.PageRow{}}, f.record("pages " + itoa(days) + " " + itoa(limit))
}

func (f *fakeSearch) Connection(context.Context) (string, error) {
	if f.conn == "none" {
		return "", reporting.ErrNotConnected
	}
	return f.conn, nil
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

type routes struct {
	srv    *httptest.Server
	search *fakeSearch
	access groundwork.Access
	mu     sync.Mutex
}

func setupRoutes(t *testing.T, analytics reporting.AnalyticsSource, withSearch bool) *routes {
	rt := &routes{search: &fakeSearch{conn: "user-1"}}
	o := &reporting.Options{Analytics: analytics}
	if withSearch {
		o.Search = rt.search
	}
	svc, err := reporting.NewService(o)
	require.NoError(t, err)
	h, err := reporting.NewHandler(svc, groundwork.RequestAuthorizerFunc(func(*http.Request, string, any) groundwork.Access {
		rt.mu.Lock()
		defer rt.mu.Unlock()
		return rt.access
	}), nil)
	require.NoError(t, err)
	rt.srv = httptest.NewServer(apitest.Documented(t, h))
	t.Cleanup(rt.srv.Close)
	return rt
}

func (rt *routes) get(t *testing.T, path string) (int, string) {
	t.Helper()
	res, err := rt.srv.Client().Get(rt.srv.URL + path)
	require.NoError(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func TestRouteErrors(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	rt := setupRoutes(t, b.analytics, true)

	rt.access = groundwork.Unauthenticated
	code, body := rt.get(t, "/search-reporting/performance")
	require.Equal(t, 401, code)
	require.JSONEq(t, `{"error":"unauthenticated","message":"Sign in to view Search Console data."}`, body)
	code, body = rt.get(t, "/analytics-reporting/overview")
	require.Equal(t, 401, code)
	require.JSONEq(t, `{"error":"unauthenticated","message":"Sign in to view analytics."}`, body)
	rt.access = groundwork.Forbidden
	code, body = rt.get(t, "/analytics-reporting/top-content")
	require.Equal(t, 403, code)
	require.JSONEq(t, `{"error":"forbidden","message":"You may not view these reports."}`, body)
	require.Empty(t, rt.search.Calls(), "no source asked")
	rt.access = groundwork.Allowed

	rt.search.conn = "none"
	code, body = rt.get(t, "/search-reporting/top-queries")
	require.Equal(t, 409, code)
	require.JSONEq(t, `{"error":"not_connected","message":"Connect a Google account to view Search Console data."}`, body)
	rt.search.conn = "user-1"
	rt.search.err = reporting.ErrReconnect
	code, body = rt.get(t, "/search-reporting/top-queries")
	require.Equal(t, 502, code)
	require.JSONEq(t, `{"error":"reporting_error","message":"Reconnect your Google account to continue viewing Search Console data."}`, body)
	rt.search.err = &reporting.SourceError{Message: "Search Console API returned an error (status 403).",
		Err: errors.New(`{"error":{"message":"secret internal detail"}}`)}
	code, body = rt.get(t, "/search-reporting/top-pages")
	require.Equal(t, 502, code)
	require.JSONEq(t, `{"error":"reporting_error","message":"Search Console API returned an error (status 403)."}`, body)
	require.NotContains(t, body, "secret internal detail", "the provider's body is logged, never shown")
	rt.search.err = errors.New("boom")
	code, body = rt.get(t, "/search-reporting/top-pages?days=3")
	require.Equal(t, 502, code)
	require.NotContains(t, body, "boom")

	none := setupRoutes(t, nil, false)
	code, body = none.get(t, "/search-reporting/performance")
	require.Equal(t, 501, code)
	require.JSONEq(t, `{"error":"base_not_installed","message":"Search reporting is not set up: no search source is configured.","baseInstalled":false}`, body)
	code, body = none.get(t, "/analytics-reporting/overview")
	require.Equal(t, 501, code)
	require.Contains(t, body, `"base_not_installed"`)
	plain := setupRoutes(t, overviewOnly{}, false)
	code, _ = plain.get(t, "/analytics-reporting/sources")
	require.Equal(t, 501, code, "a source without breakdowns")
	code, body = plain.get(t, "/analytics-reporting/funnel?step=page:/a&step=page:/b")
	require.Equal(t, 501, code, "a source that draws no funnels")
	require.JSONEq(t, `{"error":"base_not_installed","message":"The analytics source draws no funnels.","baseInstalled":false}`, body)
	code, _ = plain.get(t, "/analytics-reporting/nope")
	require.Equal(t, 404, code)
}

type overviewOnly struct{}

func (overviewOnly) Overview(context.Context, reporting.AnalyticsQuery) (reporting.Overview, error) {
	return reporting.Overview{}, nil
}

func (overviewOnly) TopContent(context.Context, reporting.AnalyticsQuery) (reporting.TopContent, error) {
	return reporting.TopContent{}, nil
}

// days and limit clamped to each route's range; a cached answer does not ask
// the source again; each connection has its own entries.
func TestRouteParametersAndCache(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	rt := setupRoutes(t, b.analytics, true)
	for _, c := range []struct{ path, call string }{
		{"/search-reporting/performance", "performance 28"},
		{"/search-reporting/performance?days=abc", ""},
		{"/search-reporting/performance?days=0", "performance 1"},
		{"/search-reporting/performance?days=9999", "performance 490"},
		{"/search-reporting/top-queries?days=7&limit=5000", "queries 7 1000"},
		{"/search-reporting/top-pages?limit=-3", "pages 28 1"},
		{"/search-reporting/top-pages", "pages 28 25"},
	} {
		code, body := rt.get(t, c.path)
		require.Equal(t, 200, code, body)
		calls := rt.search.Calls()
		if c.call == "" {
			require.Equal(t, "performance 28", calls[len(calls)-1], "cached: not asked again")
			continue
		}
		require.Equal(t, c.call, calls[len(calls)-1], c.path)
	}
	n := len(rt.search.Calls())
	code, body := rt.get(t, "/search-reporting/performance")
	require.Equal(t, 200, code)
	require.Contains(t, body, `"clicks":28`)
	require.Len(t, rt.search.Calls(), n, "a cache hit does not call the source")
	rt.search.conn = "user-2"
	rt.get(t, "/search-reporting/performance")
	require.Len(t, rt.search.Calls(), n+1, "another connection, another entry")

	code, body = rt.get(t, "/analytics-reporting/overview?days=7")
	require.Equal(t, 200, code)
	var ov reporting.Overview
	require.NoError(t, json.Unmarshal([]byte(body), &ov))
	require.Len(t, ov.Trend, 7)
	code, body = rt.get(t, "/analytics-reporting/top-content?days=9999&limit=0")
	require.Equal(t, 200, code)
	require.Contains(t, body, `"top_pages":[]`)
	code, body = rt.get(t, "/analytics-reporting/devices")
	require.Equal(t, 200, code, body)
}

// The analytics API takes several filters at once: the report counts only
// the views with all of them, on both databases.
func TestRouteFiltersStack(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, d)
		for _, v := range []struct{ ip, ua, body string }{
			{"192.0.2.1", phone, `{"url":"https://shop.example/shoes","referrer":"https://news.example/a","title":"Shoes"}`},
			{"192.0.2.2", browser, `{"url":"https://shop.example/","referrer":"https://news.example/b","title":"Home"}`},
			{"192.0.2.3", phone, `{"url":"https://shop.example/","title":"Home"}`},
		} {
			require.Equal(t, 202, b.view(t, v.ip, v.ua, v.body))
		}
		b.flush(t)
		rt := setupRoutes(t, b.analytics, false)
		code, body := rt.get(t, "/analytics-reporting/top-content?days=7&source=news.example&device=mobile")
		require.Equal(t, 200, code, body)
		var tc reporting.TopContent
		require.NoError(t, json.Unmarshal([]byte(body), &tc))
		require.Equal(t, []reporting.ContentPage{{Path: "/shoes", Title: "Shoes", Views: 1, Users: 1}}, tc.TopPages)
		code, body = rt.get(t, "/analytics-reporting/overview?days=7&device=mobile&source=news.example")
		require.Equal(t, 200, code, body)
		var ov reporting.Overview
		require.NoError(t, json.Unmarshal([]byte(body), &ov))
		require.Equal(t, 1.0, ov.Totals.PageViews)
		code, body = rt.get(t, "/analytics-reporting/sources?days=7&device=mobile&page=%2F")
		require.Equal(t, 200, code, body)
		var br reporting.Breakdown
		require.NoError(t, json.Unmarshal([]byte(body), &br))
		require.Len(t, br.Rows, 1)
		require.Equal(t, "Direct", br.Rows[0].Key, "the phone's own visit to the home page")
		code, body = rt.get(t, "/analytics-reporting/top-content?days=7&source=news.example&device=tablet")
		require.Equal(t, 200, code, body)
		require.Contains(t, body, `"top_pages":[]`)
	})
}
