package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportinggeo/reportinggeotest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
)

// The reports on the reference server: seeded sample data, the routes'
// guard (token ability, 401, 403), the server's own pages counted.
func TestReporting(t *testing.T) {
	t.Parallel()
	dsn := storetest.DSN(t, store.SQLite)
	e := env{"GROUNDWORK_DB": dsn, "GROUNDWORK_SECRET_KEY": testSecretKey}
	c, out, stderr := runCmd(t, e, "analytics", "seed", "--days", "7", "--views", "50")
	require.Equal(t, 0, c, stderr)
	require.Contains(t, out, "sample page views over 7 days recorded")
	c, _, stderr = runCmd(t, e, "analytics", "seed", "--days", "0")
	require.Equal(t, 2, c)
	require.Contains(t, stderr, "--days must be 1 to 730")
	c, _, _ = runCmd(t, e, "bookings", "seed")
	require.Equal(t, 0, c)

	base := startServe(t, dsn)
	code, body := get(t, base+"/analytics-reporting/overview?days=7", "")
	require.Equal(t, 401, code)
	require.JSONEq(t, `{"error":"unauthenticated","message":"Sign in to view analytics."}`, body)
	c, out, _ = runCmd(t, e, "token", "create", "--name", "other", "--ability", "forms:*")
	require.Equal(t, 0, c)
	code, _ = get(t, base+"/analytics-reporting/overview?days=7", strings.TrimSpace(out))
	require.Equal(t, 403, code)
	c, out, _ = runCmd(t, e, "token", "create", "--name", "reports", "--ability", "reporting:view")
	require.Equal(t, 0, c)
	token := strings.TrimSpace(out)
	code, body = get(t, base+"/analytics-reporting/overview?days=7", token)
	require.Equal(t, 200, code, body)
	var ov struct {
		Totals struct {
			PageViews float64 `json:"page_views"`
		}
		Trend []struct{ Date string }
	}
	require.NoError(t, json.Unmarshal([]byte(body), &ov))
	require.Len(t, ov.Trend, 7)
	require.Greater(t, ov.Totals.PageViews, 200.0, "the seeded views")
	// A funnel over the seeded views: every page, then every page again.
	code, body = get(t, base+"/analytics-reporting/funnel?days=7&step=page:*&step=page:/*", token)
	require.Equal(t, 200, code, body)
	var funnel struct {
		Steps []struct {
			Visitors float64 `json:"visitors"`
		} `json:"steps"`
		Conversion float64 `json:"conversion_rate"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &funnel))
	require.Len(t, funnel.Steps, 2)
	require.Greater(t, funnel.Steps[0].Visitors, 0.0)
	require.Equal(t, 1.0, funnel.Conversion, "every visitor of a page saw a page")
	code, body = get(t, base+"/analytics-reporting/funnel?step=page:*", token)
	require.Equal(t, 422, code, body)
	code, body = get(t, base+"/search-reporting/performance", token)
	require.Equal(t, 501, code, "no Search Console configured")
	require.Contains(t, body, `"base_not_installed"`)

	// A visit to a booking page, from a browser, is counted.
	req, _ := http.NewRequest("GET", base+"/bookings/consultation", nil)
	req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	require.Eventually(t, func() bool {
		_, body := get(t, base+"/analytics-reporting/top-content?days=1&limit=100", token)
		return strings.Contains(body, `"path":"/bookings/consultation"`)
	}, 10*time.Second, 300*time.Millisecond)

	// The dashboard asks for a signed-in user with the capability.
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err = client.Get(base + "/reporting")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusFound, res.StatusCode)
	require.Contains(t, res.Header.Get("Location"), "/login")
}

// The visitor's country: a trusted proxy's header, else the MMDB file
// named by GROUNDWORK_ANALYTICS_MMDB; a missing file or a bad header name
// stops the start.
func TestAnalyticsCountries(t *testing.T) {
	t.Parallel()
	_, err := readReportingConfig(env{"GROUNDWORK_ANALYTICS_COUNTRY_HEADER": "X Country"}.get)
	require.ErrorContains(t, err, "GROUNDWORK_ANALYTICS_COUNTRY_HEADER must be a header name")
	for _, bad := range []string{"0", "17", "two"} {
		_, err = readReportingConfig(env{"GROUNDWORK_ANALYTICS_FLUSH_WRITERS": bad}.get)
		require.ErrorContains(t, err, "GROUNDWORK_ANALYTICS_FLUSH_WRITERS must be 1 to 16")
	}
	c, err := readReportingConfig(env{"GROUNDWORK_ANALYTICS_FLUSH_WRITERS": "3"}.get)
	require.NoError(t, err)
	require.Equal(t, 3, c.flushWriters)
	cfg, err := parseServeFlags([]string{"--uploads", t.TempDir()}, env{"GROUNDWORK_ANALYTICS_MMDB": filepath.Join(t.TempDir(), "none.mmdb")}.get)
	require.NoError(t, err)
	_, err = newApp(cfg, storetest.Open(t, store.SQLite, migrations...), webhooks.GenerateSecretKey(), slog.New(slog.DiscardHandler))
	require.ErrorContains(t, err, "GROUNDWORK_ANALYTICS_MMDB")

	file := reportinggeotest.Countries(t, map[string]string{"192.0.2.0/24": "DE", "198.51.100.0/24": "FR"})
	a := limitedApp(t, env{"GROUNDWORK_ANALYTICS_MMDB": file, "GROUNDWORK_ANALYTICS_COUNTRY_HEADER": "X-Country"},
		"--trusted-proxies", "10.0.0.0/8", "--analytics-sites", "shop.example")
	for i, tc := range []struct{ remote, forwarded, header string }{
		{"10.0.0.1:1", "192.0.2.1", ""},    // the file: DE
		{"10.0.0.1:1", "198.51.100.1", ""}, // FR
		{"10.0.0.1:1", "198.51.100.2", "JP"},
		{"192.0.2.9:1", "", "US"}, // not a proxy: its header is not read, the file says DE
	} {
		r := httptest.NewRequest("POST", "/analytics/collect", strings.NewReader(`{"url":"https://shop.example/"}`))
		r.RemoteAddr = tc.remote
		r.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0")
		if tc.forwarded != "" {
			r.Header.Set("X-Forwarded-For", tc.forwarded)
		}
		if tc.header != "" {
			r.Header.Set("X-Country", tc.header)
		}
		w := httptest.NewRecorder()
		a.handler.ServeHTTP(w, r)
		require.Equal(t, http.StatusAccepted, w.Code, "view %d: %s", i, w.Body)
	}
	analytics := a.analytics
	require.NoError(t, analytics.Flush(context.Background()))
	got, err := analytics.Breakdown(context.Background(), reporting.DimCountry, reporting.AnalyticsQuery{Days: 1})
	require.NoError(t, err)
	views := map[string]float64{}
	for _, r := range got.Rows {
		views[r.Key] = r.Views
	}
	require.Equal(t, map[string]float64{"DE": 2, "FR": 1, "JP": 1}, views)
}

// A shared report link is styled for the people it is for, who cannot
// sign in: its page and its password page link a stylesheet and a script
// they can load, and so does the page of a link that opens nothing.
func TestSharedReportIsStyledWithoutSignIn(t *testing.T) {
	t.Parallel()
	dsn := storetest.DSN(t, store.SQLite)
	c, out, stderr := runCmd(t, env{"GROUNDWORK_DB": dsn}, "token", "create", "--name", "reports", "--ability", "reporting:*")
	require.Equal(t, 0, c, stderr)
	token := strings.TrimSpace(out)
	base := startServe(t, dsn)
	assets := regexp.MustCompile(`(?:href|src)="(/[^"]+/_assets/[^"]+)"`)
	for _, body := range []string{`{"name":"Investors"}`, `{"name":"Board","password":"correct horse"}`, ""} {
		path := "/reporting/shared/" + strings.Repeat("A", 32)
		if body != "" {
			code, made := request(t, "POST", base+"/analytics-shared-links", token, body)
			require.Equal(t, 201, code, made)
			var l struct{ Data struct{ Path string } }
			require.NoError(t, json.Unmarshal([]byte(made), &l))
			require.NotEmpty(t, l.Data.Path, made)
			path = l.Data.Path
		}
		req, err := http.NewRequest("GET", base+path, nil)
		require.NoError(t, err)
		req.Header.Set("Accept", "text/html")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		page, _ := io.ReadAll(res.Body)
		res.Body.Close()
		found := assets.FindAllStringSubmatch(string(page), -1)
		require.Len(t, found, 2, "a stylesheet and a script: %s", page)
		for _, m := range found {
			res, err := http.Get(base + m[1])
			require.NoError(t, err)
			res.Body.Close()
			require.Equal(t, 200, res.StatusCode, "%s from %s, signed out", m[1], path)
			require.Equal(t, base+m[1], res.Request.URL.String(), "not sent to sign in")
		}
	}
}
