package reportinggoogle_test

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportinggoogle"
)

// fakeGoogle speaks Google's token endpoint (the service-account JWT
// grant and the refresh grant), searchAnalytics.query and runReport. It
// records each API call's path and body; answers come from the recorded
// shapes below, or from fail.
type fakeGoogle struct {
	*httptest.Server
	mu     sync.Mutex
	calls  []string
	tokens int
	fail   int    // status to answer API calls with, 0 for none
	grant  string // "invalid_grant" refuses refreshes
	// answers are tried in order: the first whose key the body holds.
	answers [][2]string
}

func (g *fakeGoogle) answer(key, body string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.answers = append(g.answers, [2]string{key, body})
}

func (g *fakeGoogle) forget(key string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, a := range g.answers {
		if a[0] == key {
			g.answers = append(g.answers[:i], g.answers[i+1:]...)
			return
		}
	}
}

func newFakeGoogle(t *testing.T) *fakeGoogle {
	g := &fakeGoogle{}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		g.mu.Lock()
		defer g.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/token" {
			g.tokens++
			form, _ := parseForm(string(body))
			if g.grant != "" && form["grant_type"] == "refresh_token" {
				w.WriteHeader(400)
				io.WriteString(w, `{"error":"`+g.grant+`","error_description":"Token has been expired or revoked."}`)
				return
			}
			io.WriteString(w, `{"access_token":"at-`+itoa(g.tokens)+`","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-2"}`)
			return
		}
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer at-") {
			w.WriteHeader(401)
			io.WriteString(w, `{"error":{"code":401,"message":"Request had invalid authentication credentials."}}`)
			return
		}
		g.calls = append(g.calls, r.Method+" "+r.URL.EscapedPath()+" "+strings.TrimSpace(string(body)))
		if g.fail != 0 {
			w.WriteHeader(g.fail)
			io.WriteString(w, `{"error":{"code":`+itoa(g.fail)+`,"message":"secret backend detail","status":"PERMISSION_DENIED"}}`)
			return
		}
		for _, a := range g.answers {
			if strings.Contains(string(body), a[0]) {
				io.WriteString(w, a[1])
				return
			}
		}
		io.WriteString(w, `{}`)
	}))
	t.Cleanup(g.Close)
	return g
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func parseForm(s string) (map[string]string, error) {
	out := map[string]string{}
	for kv := range strings.SplitSeq(s, "&") {
		k, v, _ := strings.Cut(kv, "=")
		out[k] = v
	}
	return out, nil
}

func (g *fakeGoogle) Calls() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.calls...)
}

// serviceAccountKey is a service-account key whose token endpoint is
// the fake's.
func serviceAccountKey(t *testing.T, tokenURL string) []byte {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	der, err := x509.MarshalPKCS8PrivateKey(k)
	require.NoError(t, err)
	key, _ := json.Marshal(map[string]string{"type": "service_account", "client_email": "reports@project.iam.gserviceaccount.com",
		"private_key_id": "k1", "private_key": string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), "token_uri": tokenURL})
	return key
}

var today = time.Date(2026, 6, 1, 15, 0, 0, 0, time.UTC)

func TestSearchConsole(t *testing.T) {
	t.Parallel()
	g := newFakeGoogle(t)
	ctx := context.Background()
	clients, err := reportinggoogle.ServiceAccount(ctx, serviceAccountKey(t, g.URL+"/token"), g.Client(), reportinggoogle.ScopeSearchConsole)
	require.NoError(t, err)
	src, err := reportinggoogle.NewSearchConsole(reportinggoogle.SearchConsoleOptions{SiteURL: "sc-domain:example.com", Clients: clients,
		Endpoint: g.URL + "/", Now: func() time.Time { return today }})
	require.NoError(t, err)
	// Recorded shapes: totals, the trend by date (out of order), queries.
	g.answer(`"dimensions":["date"]`, `{"rows":[{"keys":["2026-06-01"],"clicks":3,"impressions":40,"ctr":0.075,"position":7.5},
		{"keys":["2026-05-31"],"clicks":5,"impressions":60,"ctr":0.0833,"position":6.1}],"responseAggregationType":"byProperty"}`)
	g.answer(`"dimensions":["query"]`, `{"rows":[{"keys":["blue shoes"],"clicks":4,"impressions":30,"ctr":0.1333,"position":3.2}]}`)
	g.answer(`"startDate"`, `{"rows":[{"clicks":8,"impressions":100,"ctr":0.08,"position":6.7}],"responseAggregationType":"byProperty"}`)

	perf, err := src.Performance(ctx, 2)
	require.NoError(t, err)
	require.Equal(t, reporting.Performance{Range: reporting.Range{StartDate: "2026-05-31", EndDate: "2026-06-01"}, HasData: true,
		Totals: reporting.SearchMetrics{Clicks: 8, Impressions: 100, CTR: 0.08, Position: 6.7},
		Trend: []reporting.SearchPoint{{Date: "2026-05-31", SearchMetrics: reporting.SearchMetrics{Clicks: 5, Impressions: 60, CTR: 0.0833, Position: 6.1}},
			{Date: "2026-06-01", SearchMetrics: reporting.SearchMetrics{Clicks: 3, Impressions: 40, CTR: 0.075, Position: 7.5}}}}, perf)
	calls := g.Calls()
	require.Equal(t, []string{
		`POST /webmasters/v3/sites/sc-domain%3Aexample.com/searchAnalytics/query {"endDate":"2026-06-01","startDate":"2026-05-31"}`,
		`POST /webmasters/v3/sites/sc-domain%3Aexample.com/searchAnalytics/query {"dimensions":["date"],"endDate":"2026-06-01","rowLimit":25000,"startDate":"2026-05-31"}`,
	}, calls, "the request bodies Search Console expects")

	top, err := src.TopQueries(ctx, 28, 5000)
	require.NoError(t, err)
	require.Equal(t, []reporting.QueryRow{{Query: "blue shoes", SearchMetrics: reporting.SearchMetrics{Clicks: 4, Impressions: 30, CTR: 0.1333, Position: 3.2}}}, top.Rows)
	require.Contains(t, g.Calls()[2], `"rowLimit":1000`, "clamped")
	require.Contains(t, g.Calls()[2], `"startDate":"2026-05-05"`, "28 days: today−27")

	// No data: has_data false.
	g.forget(`"startDate"`)
	g.forget(`"dimensions":["date"]`)
	perf, err = src.Performance(ctx, 7)
	require.NoError(t, err)
	require.False(t, perf.HasData)
	require.Empty(t, perf.Trend)

	// API errors: 502 material, the body never in the message.
	for _, status := range []int{403, 500} {
		g.mu.Lock()
		g.fail = status
		g.mu.Unlock()
		_, err = src.TopPages(ctx, 7, 10)
		var se *reporting.SourceError
		require.ErrorAs(t, err, &se)
		require.Equal(t, "Search Console API returned an error (status "+itoa(status)+").", se.Message)
		require.NotContains(t, se.Message, "secret backend detail")
	}
	require.Equal(t, 1, g.tokens, "one token, reused")
}

func TestGA4(t *testing.T) {
	t.Parallel()
	g := newFakeGoogle(t)
	ctx := context.Background()
	clients, err := reportinggoogle.ServiceAccount(ctx, serviceAccountKey(t, g.URL+"/token"), g.Client(), reportinggoogle.ScopeAnalytics)
	require.NoError(t, err)
	src, err := reportinggoogle.NewGA4(reportinggoogle.GA4Options{PropertyID: "123456", Clients: clients, Endpoint: g.URL + "/"})
	require.NoError(t, err)
	g.answer(`"name":"date"`, `{"rows":[{"dimensionValues":[{"value":"20260601"}],"metricValues":[{"value":"4"},{"value":"3"},{"value":"9"}]},
		{"dimensionValues":[{"value":"20260531"}],"metricValues":[{"value":"6"},{"value":"5"},{"value":"11"}]}]}`)
	g.answer(`averageSessionDuration`, `{"rows":[{"metricValues":[{"value":"10"},{"value":"7"},{"value":"20"},{"value":"61.5"}]}]}`)
	g.answer(`pagePath`, `{"rows":[{"dimensionValues":[{"value":"/shoes"},{"value":"Shoes"}],"metricValues":[{"value":"12"},{"value":"8"}]}]}`)
	g.answer(`eventName`, `{"rows":[{"dimensionValues":[{"value":"add_to_cart"}],"metricValues":[{"value":"5"},{"value":"4"}]}]}`)

	ov, err := src.Overview(ctx, reporting.AnalyticsQuery{Days: 2})
	require.NoError(t, err)
	require.Equal(t, reporting.Overview{Range: reporting.Range{StartDate: "1daysAgo", EndDate: "today"},
		Totals: reporting.OverviewTotals{Sessions: 10, Users: 7, PageViews: 20, AvgEngagementSeconds: 61.5},
		Trend:  []reporting.OverviewPoint{{Date: "2026-05-31", Sessions: 6, Users: 5, PageViews: 11}, {Date: "2026-06-01", Sessions: 4, Users: 3, PageViews: 9}}}, ov)
	calls := g.Calls()
	require.Equal(t, `POST /v1beta/properties/123456:runReport {"dateRanges":[{"endDate":"today","startDate":"1daysAgo"}],"metrics":[{"name":"sessions"},{"name":"totalUsers"},{"name":"screenPageViews"},{"name":"averageSessionDuration"}]}`, calls[0])
	require.Equal(t, `POST /v1beta/properties/123456:runReport {"dateRanges":[{"endDate":"today","startDate":"1daysAgo"}],"dimensions":[{"name":"date"}],"metrics":[{"name":"sessions"},{"name":"totalUsers"},{"name":"screenPageViews"}]}`, calls[1])

	tc, err := src.TopContent(ctx, reporting.AnalyticsQuery{Days: 30, Limit: 500, PropertyID: "999"})
	require.NoError(t, err)
	require.Equal(t, []reporting.ContentPage{{Path: "/shoes", Title: "Shoes", Views: 12, Users: 8}}, tc.TopPages)
	require.Equal(t, []reporting.ContentEvent{{Event: "add_to_cart", Count: 5, Users: 4}}, tc.TopEvents)
	calls = g.Calls()
	require.Equal(t, `POST /v1beta/properties/999:runReport {"dateRanges":[{"endDate":"today","startDate":"29daysAgo"}],"dimensions":[{"name":"pagePath"},{"name":"pageTitle"}],"limit":"100","metrics":[{"name":"screenPageViews"},{"name":"totalUsers"}],"orderBys":[{"desc":true,"metric":{"metricName":"screenPageViews"}}]}`, calls[2],
		"the request's property, the limit clamped to 100")
	// The period before, and a range of dates, as GA4 takes them.
	ov, err = src.Overview(ctx, reporting.AnalyticsQuery{Days: 7, Before: 7})
	require.NoError(t, err)
	require.Equal(t, reporting.Range{StartDate: "13daysAgo", EndDate: "7daysAgo"}, ov.Range)
	ov, err = src.Overview(ctx, reporting.AnalyticsQuery{Days: 7, Start: "2026-05-01", End: "2026-05-10"})
	require.NoError(t, err)
	require.Equal(t, reporting.Range{StartDate: "2026-05-01", EndDate: "2026-05-10"}, ov.Range)
	require.Contains(t, g.Calls()[len(g.Calls())-1], `"dateRanges":[{"endDate":"2026-05-10","startDate":"2026-05-01"}]`)
	// A filter is one exact, case-sensitive match of GA4's own dimension,
	// on every request of the report.
	_, err = src.TopContent(ctx, reporting.AnalyticsQuery{Days: 7, Filters: reporting.Filters{{Dim: reporting.DimPage, Value: "/shoes"}}})
	require.NoError(t, err)
	const pageFilter = `"dimensionFilter":{"filter":{"fieldName":"pagePath","stringFilter":{"caseSensitive":true,"matchType":"EXACT","value":"/shoes"}}}`
	calls = g.Calls()
	require.Equal(t, `POST /v1beta/properties/123456:runReport {"dateRanges":[{"endDate":"today","startDate":"6daysAgo"}],`+pageFilter+
		`,"dimensions":[{"name":"pagePath"},{"name":"pageTitle"}],"limit":"10","metrics":[{"name":"screenPageViews"},{"name":"totalUsers"}],"orderBys":[{"desc":true,"metric":{"metricName":"screenPageViews"}}]}`,
		calls[len(calls)-2])
	require.Contains(t, calls[len(calls)-1], pageFilter)
	_, err = src.Overview(ctx, reporting.AnalyticsQuery{Days: 7, Filters: reporting.Filters{{Dim: reporting.DimDevice, Value: "mobile"}}})
	require.NoError(t, err)
	calls = g.Calls()
	for _, c := range calls[len(calls)-2:] {
		require.Contains(t, c, `"filter":{"fieldName":"deviceCategory","stringFilter":{"caseSensitive":true,"matchType":"EXACT","value":"mobile"}}`)
	}
	// Several filters hold together: an andGroup of the matches, in one
	// order whatever order they came in.
	_, err = src.Overview(ctx, reporting.AnalyticsQuery{Days: 7, Filters: reporting.Filters{{Dim: reporting.DimDevice, Value: "mobile"},
		{Dim: reporting.DimPage, Value: "/shoes"}}})
	require.NoError(t, err)
	calls = g.Calls()
	require.Contains(t, calls[len(calls)-1], `"dimensionFilter":{"andGroup":{"expressions":[`+
		`{"filter":{"fieldName":"pagePath","stringFilter":{"caseSensitive":true,"matchType":"EXACT","value":"/shoes"}}},`+
		`{"filter":{"fieldName":"deviceCategory","stringFilter":{"caseSensitive":true,"matchType":"EXACT","value":"mobile"}}}]}}`)
	// A country and a campaign, as GA4 names them.
	_, err = src.Overview(ctx, reporting.AnalyticsQuery{Days: 7, Filters: reporting.Filters{{Dim: reporting.DimCountry, Value: "DE"},
		{Dim: reporting.DimCampaign, Value: "spring"}}})
	require.NoError(t, err)
	calls = g.Calls()
	require.Contains(t, calls[len(calls)-1], `"dimensionFilter":{"andGroup":{"expressions":[`+
		`{"filter":{"fieldName":"countryId","stringFilter":{"caseSensitive":true,"matchType":"EXACT","value":"DE"}}},`+
		`{"filter":{"fieldName":"sessionCampaignName","stringFilter":{"caseSensitive":true,"matchType":"EXACT","value":"spring"}}}]}}`)
	// Our goals and event properties are not GA4's.
	_, err = src.Overview(ctx, reporting.AnalyticsQuery{Days: 7, Filters: reporting.Filters{{Dim: reporting.DimGoal, Value: "1"}}})
	require.ErrorIs(t, err, reporting.ErrBadFilter)
	_, err = src.Overview(ctx, reporting.AnalyticsQuery{Days: 7, Filters: reporting.Filters{{Dim: reporting.DimProp, Value: "plan:pro"}}})
	require.ErrorIs(t, err, reporting.ErrBadFilter)
	_, err = src.Overview(ctx, reporting.AnalyticsQuery{Days: 7, Filters: reporting.Filters{{Dim: reporting.DimDevice, Value: "mobile"},
		{Dim: reporting.DimDevice, Value: "desktop"}}})
	require.ErrorIs(t, err, reporting.ErrBadFilter, "one value a dimension")
	_, err = src.Overview(ctx, reporting.AnalyticsQuery{Days: 2, PropertyID: "12; DROP"})
	var se *reporting.SourceError
	require.ErrorAs(t, err, &se)
}

func time30s() time.Duration { return 30 * time.Second }

// A service-account key signs an RS256 JWT (iss the key's email, the
// scopes asked for, aud the token endpoint, kid the key's id) and trades
// it at the key's token_uri; any other kind of key is refused.
func TestServiceAccountKey(t *testing.T) {
	t.Parallel()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	der, err := x509.MarshalPKCS8PrivateKey(k)
	require.NoError(t, err)
	var assertion string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/token" {
			require.NoError(t, r.ParseForm())
			require.Equal(t, "urn:ietf:params:oauth:grant-type:jwt-bearer", r.PostForm.Get("grant_type"))
			assertion = r.PostForm.Get("assertion")
			io.WriteString(w, `{"access_token":"at-1","token_type":"Bearer","expires_in":3600}`)
			return
		}
		io.WriteString(w, r.Header.Get("Authorization"))
	}))
	t.Cleanup(srv.Close)
	key, _ := json.Marshal(map[string]string{"type": "service_account", "client_email": "reports@project.iam.gserviceaccount.com",
		"private_key_id": "k1", "private_key": string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), "token_uri": srv.URL + "/token"})
	clients, err := reportinggoogle.ServiceAccount(context.Background(), key, srv.Client(), reportinggoogle.ScopeAnalytics)
	require.NoError(t, err)
	res, err := clients.HTTP.Get(srv.URL + "/api")
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, "Bearer at-1", string(body))

	parts := strings.Split(assertion, ".")
	require.Len(t, parts, 3)
	header, _ := base64.RawURLEncoding.DecodeString(parts[0])
	claims, _ := base64.RawURLEncoding.DecodeString(parts[1])
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	require.JSONEq(t, `{"alg":"RS256","typ":"JWT","kid":"k1"}`, string(header))
	var c map[string]any
	require.NoError(t, json.Unmarshal(claims, &c))
	require.Equal(t, "reports@project.iam.gserviceaccount.com", c["iss"])
	require.Equal(t, reportinggoogle.ScopeAnalytics, c["scope"])
	require.Equal(t, srv.URL+"/token", c["aud"])
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	require.NoError(t, rsa.VerifyPKCS1v15(&k.PublicKey, crypto.SHA256, sum[:], sig), "signed by the key")

	for _, bad := range []string{`{"type":"authorized_user","client_id":"x"}`, `{"type":"service_account"}`, `not json`} {
		_, err := reportinggoogle.ServiceAccount(context.Background(), []byte(bad), nil)
		require.Error(t, err, bad)
	}
}
