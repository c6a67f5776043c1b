package reporting_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// Page views through the real handler, and the reports against sums
// made by hand.
func TestFirstPartyReports(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, d)
		ctx := context.Background()
		// httptest clients all come from 127.0.0.1; the user agent tells
		// the visitors apart.
		pv := func(ua, path, title, ref string) int {
			return b.view(t, "", ua, `{"name":"pageview","url":"https://shop.example`+path+`","title":"`+title+`","referrer":"`+ref+`"}`)
		}
		require.Equal(t, 202, pv(browser, "/", "Home", "https://www.search.example/q"))
		b.clock.Set(now.Add(2 * time.Minute))
		require.Equal(t, 202, pv(browser, "/shoes?utm_source=newsletter", "Shoes", "https://shop.example/"))
		b.clock.Set(now.Add(3 * time.Minute))
		require.Equal(t, 202, pv(phone, "/shoes", "Shoes", ""))
		require.Equal(t, 202, b.view(t, "", phone, `{"name":"add_to_cart","url":"https://shop.example/shoes","props":{"sku":"S1"}}`))
		// Bots and scripts: answered, not recorded.
		require.Equal(t, 202, pv("Googlebot/2.1 (+http://www.google.com/bot.html)", "/", "Home", ""))
		require.Equal(t, 202, pv("curl/8.5.0", "/", "Home", ""))
		require.Equal(t, 202, pv("", "/", "Home", ""))
		refusedViews(t, b)
		b.flush(t)

		ov, err := b.analytics.Overview(ctx, reporting.AnalyticsQuery{Days: 7})
		require.NoError(t, err)
		require.Equal(t, reporting.Range{StartDate: "2026-05-26", EndDate: "2026-06-01"}, ov.Range)
		require.Len(t, ov.Trend, 7)
		require.Equal(t, reporting.OverviewPoint{Date: "2026-06-01", Sessions: 2, Users: 2, PageViews: 3}, ov.Trend[6])
		require.Equal(t, reporting.OverviewPoint{Date: "2026-05-31"}, ov.Trend[5], "days without views are zeros")
		noBounce := 0.0
		require.Equal(t, reporting.OverviewTotals{Sessions: 2, Users: 2, PageViews: 3, AvgEngagementSeconds: 60, BounceRate: &noBounce}, ov.Totals,
			"the browser's 2 minutes over 2 sessions; the phone's one view was followed by an event, so no bounce")

		tc, err := b.analytics.TopContent(ctx, reporting.AnalyticsQuery{Days: 7, Limit: 10})
		require.NoError(t, err)
		require.Equal(t, []reporting.ContentPage{{Path: "/shoes", Title: "Shoes", Views: 2, Users: 2}, {Path: "/", Title: "Home", Views: 1, Users: 1}},
			tc.TopPages)
		require.Equal(t, []reporting.ContentEvent{{Event: "add_to_cart", Count: 1, Users: 1}}, tc.TopEvents)

		src, err := b.analytics.Breakdown(ctx, reporting.DimSource, reporting.AnalyticsQuery{Days: 7})
		require.NoError(t, err)
		require.Equal(t, []reporting.BreakdownRow{{Key: "Direct", Views: 1, Users: 1, Shares: 1.0 / 3}, {Key: "newsletter", Views: 1, Users: 1, Shares: 1.0 / 3},
			{Key: "search.example", Views: 1, Users: 1, Shares: 1.0 / 3}}, src.Rows, "utm_source first, the referrer's host without www, else Direct")
		dev, err := b.analytics.Breakdown(ctx, reporting.DimDevice, reporting.AnalyticsQuery{Days: 7})
		require.NoError(t, err)
		require.Equal(t, "desktop", dev.Rows[0].Key)
		require.Equal(t, 2.0, dev.Rows[0].Views)
		require.Equal(t, "mobile", dev.Rows[1].Key)

		// No cookie, no IP, no user agent anywhere.
		var n int
		require.NoError(t, b.db.Get(&n, "SELECT COUNT(*) FROM reporting_seen WHERE visitor LIKE '%127.0.0.1%' OR visitor LIKE '%Mozilla%'"))
		require.Zero(t, n)
	})
}

// refusedViews posts views that are refused: another site, no absolute
// URL, not JSON, too many props.
func refusedViews(t *testing.T, b *bundle) {
	t.Helper()
	require.Equal(t, 422, b.view(t, "", browser, `{"url":"https://elsewhere.example/"}`), "another site")
	require.Equal(t, 422, b.view(t, "", browser, `{"url":"/relative"}`))
	require.Equal(t, 422, b.view(t, "", browser, `not json`))
	props := `{"url":"https://shop.example/","props":{` + strings.TrimSuffix(strings.Repeat(`"k":1,`, 1), ",")
	for i := range 31 {
		props += `,"k` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `":1`
	}
	require.Equal(t, 422, b.view(t, "", browser, props+"}}"))
}

// The salt changes every day and the old one is forgotten: the same
// browser on two days is two visitors, and nothing ties them.
func TestSaltRotation(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	ctx := context.Background()
	body := `{"url":"https://shop.example/"}`
	require.Equal(t, 202, b.view(t, "", browser, body))
	b.flush(t)
	b.clock.Set(now.Add(24 * time.Hour))
	require.NoError(t, b.analytics.Housekeep(ctx))
	require.Equal(t, 202, b.view(t, "", browser, body))
	b.flush(t)
	var visitors []string
	require.NoError(t, b.db.Select(&visitors, "SELECT DISTINCT visitor FROM reporting_seen ORDER BY visitor"))
	require.Len(t, visitors, 2, "two hashes for one browser")
	var salts []string
	require.NoError(t, b.db.Select(&salts, "SELECT day FROM reporting_salts"))
	require.Equal(t, []string{"2026-06-02"}, salts, "yesterday's salt is forgotten")
	ov, err := b.analytics.Overview(ctx, reporting.AnalyticsQuery{Days: 2})
	require.NoError(t, err)
	require.Equal(t, 2.0, ov.Totals.Users)
	b.clock.Set(now.Add(72 * time.Hour))
	require.NoError(t, b.analytics.Housekeep(ctx))
	require.NoError(t, b.db.Select(&visitors, "SELECT DISTINCT visitor FROM reporting_seen"))
	require.Empty(t, visitors, "the hashes go too")
}

// The pixel works without JavaScript: the page is its Referer.
func TestPixelAndScript(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	req, _ := http.NewRequest("GET", b.collect.URL+"/analytics/collect.gif", nil)
	req.Header.Set("Referer", "https://shop.example/contact")
	req.Header.Set("User-Agent", browser)
	res, err := b.collect.Client().Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	require.Equal(t, "image/gif", res.Header.Get("Content-Type"))
	require.True(t, strings.HasPrefix(string(body), "GIF89a"))
	require.Empty(t, res.Header.Values("Set-Cookie"))
	b.flush(t)
	tc, err := b.analytics.TopContent(context.Background(), reporting.AnalyticsQuery{Days: 1})
	require.NoError(t, err)
	require.Equal(t, "/contact", tc.TopPages[0].Path)

	res, err = b.collect.Client().Get(b.collect.URL + "/analytics/script.js")
	require.NoError(t, err)
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, "text/javascript; charset=utf-8", res.Header.Get("Content-Type"))
	require.Contains(t, string(body), `"/analytics/collect"`)
	require.Contains(t, string(body), "sendBeacon")
}

// The per-address throttle.
func TestCollectThrottle(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	h, err := reporting.NewCollectHandler(b.analytics, &reporting.CollectOptions{Hosts: []string{"shop.example"}, Limit: 2})
	require.NoError(t, err)
	for i, want := range []int{202, 202, 429} {
		req, _ := http.NewRequest("POST", "/analytics/collect", strings.NewReader(`{"url":"https://shop.example/"}`))
		req.Header.Set("User-Agent", browser)
		req.RemoteAddr = "192.0.2.1:1234"
		w := newRecorder()
		h.ServeHTTP(w, req)
		require.Equal(t, want, w.Code, i)
	}
}

// saltless is a store that cannot give the day's salt.
type saltless struct{ reporting.Store }

func (saltless) Salt(context.Context, string, []byte) ([]byte, error) {
	return nil, io.ErrUnexpectedEOF
}

// With the store down a view is a 503, not a 500.
func TestCollectStoreDown(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	a, err := reporting.NewAnalytics(saltless{b.analytics.Store()}, nil)
	require.NoError(t, err)
	h, err := reporting.NewCollectHandler(a, &reporting.CollectOptions{Hosts: []string{"shop.example"}})
	require.NoError(t, err)
	req, _ := http.NewRequest("POST", "/analytics/collect", strings.NewReader(`{"url":"https://shop.example/"}`))
	req.Header.Set("User-Agent", browser)
	w := newRecorder()
	h.ServeHTTP(w, req)
	require.Equal(t, 503, w.Code)
	require.NotContains(t, w.Body.String(), "EOF")
}

// The first-party reports are never cached: a view recorded after a
// report shows in the next one at once (the cache is for Google's quotas).
func TestFirstPartyReportsAreFresh(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	ctx := context.Background()
	svc, err := reporting.NewService(&reporting.Options{Analytics: b.analytics, Now: b.clock.Now})
	require.NoError(t, err)
	pv := func() {
		require.Equal(t, 202, b.view(t, "", browser, `{"name":"pageview","url":"https://shop.example/","title":"Home"}`))
		b.flush(t)
	}
	pv()
	before, err := svc.Overview(ctx, reporting.AnalyticsQuery{Days: 7})
	require.NoError(t, err)
	pv()
	after, err := svc.Overview(ctx, reporting.AnalyticsQuery{Days: 7})
	require.NoError(t, err)
	require.Equal(t, before.Totals.PageViews+1, after.Totals.PageViews, "the second view shows at once")
}

// flaky is the real store whose Record fails while down is set, as when
// the database is unreachable.
type flaky struct {
	reporting.Store
	down atomic.Bool
}

func (f *flaky) Record(ctx context.Context, hits []reporting.Hit, reached func(context.Context, *sql.Tx, []reporting.GoalReached) error) error {
	if f.down.Load() {
		return io.ErrUnexpectedEOF
	}
	return f.Store.Record(ctx, hits, reached)
}

// Nothing taken is lost: with MaxPending views waiting the next is
// refused with a 503 and Retry-After (the pixel too) instead of taken; a
// failed flush keeps its batch; and the last flush, when Run's context
// ends, writes every view still waiting, trying again until the store is
// back.
func TestCollectBackpressureAndLastFlush(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, d)
		st := &flaky{Store: b.analytics.Store()}
		st.down.Store(true)
		a, err := reporting.NewAnalytics(st, &reporting.AnalyticsOptions{Now: b.clock.Now, FlushInterval: time.Hour, MaxPending: 3})
		require.NoError(t, err)
		h, err := reporting.NewCollectHandler(a, &reporting.CollectOptions{Hosts: []string{"shop.example"}, Limit: -1})
		require.NoError(t, err)
		post := func() *httptest.ResponseRecorder {
			req := httptest.NewRequest("POST", "/analytics/collect", strings.NewReader(`{"url":"https://shop.example/"}`))
			req.Header.Set("User-Agent", browser)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			return w
		}
		for i := range 3 {
			require.Equal(t, 202, post().Code, i)
		}
		w := post()
		require.Equal(t, 503, w.Code)
		require.Equal(t, "1", w.Header().Get("Retry-After"))
		require.Contains(t, w.Body.String(), "try again")
		req := httptest.NewRequest("GET", "/analytics/collect.gif?u=https://shop.example/p", nil)
		req.Header.Set("User-Agent", browser)
		pw := httptest.NewRecorder()
		h.ServeHTTP(pw, req)
		require.Equal(t, 503, pw.Code, "the pixel is refused too, not taken and lost")

		require.Error(t, a.Flush(context.Background()))
		require.Equal(t, 3, a.Pending(), "a failed flush keeps its batch")
		require.Equal(t, 503, post().Code)

		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { a.Run(ctx); close(done) }()
		cancel()
		time.Sleep(300 * time.Millisecond) // the last flush fails and tries again
		select {
		case <-done:
			t.Fatal("Run ended with views not written")
		default:
		}
		st.down.Store(false)
		<-done
		require.Zero(t, a.Pending())
		ov, err := b.analytics.Overview(context.Background(), reporting.AnalyticsQuery{Days: 1})
		require.NoError(t, err)
		require.EqualValues(t, 3, ov.Totals.PageViews, "every view answered 202 is stored")
	})
}

// Events with properties, from the script's JSON (text, numbers and
// booleans), the pixel (p.<name>) and the server's Collect, counted by
// (event, property, value) with their visitors, and read back per event;
// a page view's props are not counted; props that break the bounds are a
// 422 naming props. Checked against counts made here from the hits sent,
// on both databases.
func TestEventProperties(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, d)
		agents := []string{browser, phone, browser + " A", phone + " B"}
		plans := []string{"pro", "free", "pro", "pro"}
		want := map[string][2]int{} // property=value → count, visitors
		for i, plan := range plans {
			body := `{"name":"signup","url":"https://shop.example/","props":{"plan":"` + plan + `","seats":` + strconv.Itoa(i%2+1) + `,"trial":true}}`
			require.Equal(t, 202, b.view(t, "", agents[i], body))
			for _, kv := range []string{"plan=" + plan, "seats=" + strconv.Itoa(i%2+1), "trial=true"} {
				c := want[kv]
				want[kv] = [2]int{c[0] + 1, c[1] + 1}
			}
		}
		// The pixel, the same visitor as the first: a count, not a visitor.
		req, err := http.NewRequest("GET", b.collect.URL+"/analytics/collect.gif?n=signup&u=https://shop.example/&p.plan=pro", nil)
		require.NoError(t, err)
		req.Header.Set("User-Agent", agents[0])
		res, err := b.collect.Client().Do(req)
		require.NoError(t, err)
		res.Body.Close()
		c := want["plan=pro"]
		want["plan=pro"] = [2]int{c[0] + 1, c[1]}
		require.NoError(t, b.analytics.Collect(context.Background(), reporting.View{Name: "signup", URL: "https://shop.example/",
			UserAgent: "server-side", IP: "10.9.9.9", Props: map[string]string{"plan": "team"}}))
		want["plan=team"] = [2]int{1, 1}
		require.Equal(t, 202, b.view(t, "", agents[1], `{"url":"https://shop.example/","props":{"plan":"view"}}`), "a page view's props are not counted")

		for _, bad := range []string{`{"plan":{"nested":1}}`, `{"` + strings.Repeat("k", 41) + `":"x"}`, `{"plan":"` + strings.Repeat("v", 201) + `"}`,
			`{"plan":"a\u0001b"}`} {
			code := b.view(t, "", browser, `{"name":"signup","url":"https://shop.example/","props":`+bad+`}`)
			require.Equal(t, 422, code, bad)
		}
		b.flush(t)
		ep, err := b.analytics.EventProperties(context.Background(), reporting.AnalyticsQuery{Days: 1, Event: "signup"})
		require.NoError(t, err)
		got := map[string][2]int{}
		for _, p := range ep.Properties {
			got[p.Property+"="+p.Value] = [2]int{int(p.Count), int(p.Users)}
		}
		require.Equal(t, want, got)
		require.Equal(t, "plan", ep.Properties[0].Property)
		require.Equal(t, "pro", ep.Properties[0].Value, "the most counted first")
		other, err := b.analytics.EventProperties(context.Background(), reporting.AnalyticsQuery{Days: 1, Event: "purchase"})
		require.NoError(t, err)
		require.Empty(t, other.Properties)

		// The route, its answer checked against the document.
		rt := setupRoutes(t, b.analytics, false)
		code, body := rt.get(t, "/analytics-reporting/event-properties?event=signup&days=1")
		require.Equal(t, 200, code, body)
		require.Contains(t, body, `{"property":"plan","value":"pro","count":4,"users":3}`)
		code, body = rt.get(t, "/analytics-reporting/event-properties?days=1")
		require.Equal(t, 422, code)
		require.Contains(t, body, `"bad_event"`)
	})
}

// counting records the size of each batch it is given.
type counting struct {
	reporting.Store
	mu      sync.Mutex
	batches []int
}

func (c *counting) Record(ctx context.Context, hits []reporting.Hit, reached func(context.Context, *sql.Tx, []reporting.GoalReached) error) error {
	c.mu.Lock()
	c.batches = append(c.batches, len(hits))
	c.mu.Unlock()
	return c.Store.Record(ctx, hits, reached)
}

// A writer that fell behind drains in bounded transactions, the oldest
// views first, without waiting for the next tick while a flush's worth
// waits; the last flush writes the rest, and every view is stored.
func TestFlushInBoundedBatches(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	st := &counting{Store: b.analytics.Store()}
	a, err := reporting.NewAnalytics(st, &reporting.AnalyticsOptions{Now: b.clock.Now, FlushInterval: time.Hour, FlushSize: 50,
		FlushBatch: 40, MaxPending: 1000})
	require.NoError(t, err)
	ctx := context.Background()
	for i := range 100 {
		require.NoError(t, a.Collect(ctx, reporting.View{URL: fmt.Sprintf("https://shop.example/p/%d", i), UserAgent: browser,
			IP: fmt.Sprintf("10.0.0.%d", i)}))
	}
	require.Equal(t, 100, a.Pending(), "a full batch waiting kicks the writer, which is not running yet")
	run, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { a.Run(run); close(done) }()
	require.Eventually(t, func() bool { return a.Pending() == 20 }, 5*time.Second, 10*time.Millisecond,
		"drained batch after batch while a flush's worth waits, not an hour later")
	cancel()
	<-done
	st.mu.Lock()
	require.Equal(t, []int{40, 40, 20}, st.batches)
	st.mu.Unlock()
	ov, err := b.analytics.Overview(ctx, reporting.AnalyticsQuery{Days: 1})
	require.NoError(t, err)
	require.EqualValues(t, 100, ov.Totals.PageViews)
}

// Campaigns: each utm_ part of a page's address counted with its visitors
// and sessions, read back by campaign, medium, term or content; an
// address without them is in none; filters narrow them. Checked against
// counts made from the views sent, on both databases.
func TestCampaigns(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, d)
		views := []struct{ ua, query string }{
			{browser, "utm_source=news&utm_medium=email&utm_campaign=spring&utm_content=header"},
			{browser, "utm_source=news&utm_medium=email&utm_campaign=spring&utm_content=footer"},
			{phone, "utm_medium=cpc&utm_campaign=spring&utm_term=shoes"},
			{phone + " B", "utm_medium=cpc&utm_campaign=%20summer%0A"},
			{browser + " C", ""},
		}
		for _, v := range views {
			body := `{"url":"https://shop.example/?` + v.query + `"}`
			require.Equal(t, 202, b.view(t, "", v.ua, body))
		}
		b.flush(t)
		want := map[string]map[string][2]float64{ // by → value → views, users
			"campaign": {"spring": {3, 2}, "summer": {1, 1}},
			"medium":   {"email": {2, 1}, "cpc": {2, 2}},
			"term":     {"shoes": {1, 1}},
			"content":  {"header": {1, 1}, "footer": {1, 1}},
		}
		for by, values := range want {
			got, err := b.analytics.Breakdown(context.Background(), reporting.Dimension(by), reporting.AnalyticsQuery{Days: 1})
			require.NoError(t, err)
			rows := map[string][2]float64{}
			for _, r := range got.Rows {
				rows[r.Key] = [2]float64{r.Views, r.Users}
			}
			require.Equal(t, values, rows, by)
		}
		_, err := b.analytics.Breakdown(context.Background(), "keyword", reporting.AnalyticsQuery{Days: 1})
		require.ErrorIs(t, err, reporting.ErrBadFilter)
		// Narrowed by the source: the views from "news" alone.
		bySource, err := b.analytics.Breakdown(context.Background(), reporting.DimMedium, reporting.AnalyticsQuery{Days: 1,
			Filters: reporting.Filters{{Dim: reporting.DimSource, Value: "news"}}})
		require.NoError(t, err)
		require.Equal(t, []reporting.BreakdownRow{{Key: "email", Views: 2, Users: 1, Shares: 1}}, bySource.Rows)

		rt := setupRoutes(t, b.analytics, false)
		code, body := rt.get(t, "/analytics-reporting/campaigns?days=1")
		require.Equal(t, 200, code, body)
		require.Contains(t, body, `"key":"spring","views":3,"users":2`)
		code, body = rt.get(t, "/analytics-reporting/campaigns?days=1&by=source&campaign=spring")
		require.Equal(t, 422, code, "no such campaign dimension: %s", body)
		code, body = rt.get(t, "/analytics-reporting/campaigns?days=1&by=content&medium=email&campaign=spring")
		require.Equal(t, 200, code, body)
		require.Contains(t, body, `"key":"header","views":1,"users":1`)
		require.Contains(t, body, `"key":"footer","views":1,"users":1`)
		code, body = rt.get(t, "/analytics-reporting/campaigns?days=1&goal=first")
		require.Equal(t, 422, code, "a goal is named by its number: %s", body)
	})
}

// Browsers and operating systems, read from the user agent (never kept),
// with their visitors; checked against counts made from the views sent,
// on both databases.
func TestBrowsersAndSystems(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, d)
		chrome := "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
		firefox := "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
		for _, ua := range []string{browser, phone, chrome, chrome, firefox} {
			require.Equal(t, 202, b.view(t, "", ua, `{"url":"https://shop.example/"}`))
		}
		b.flush(t)
		read := func(dim reporting.Dimension) map[string][2]float64 {
			t.Helper()
			got, err := b.analytics.Breakdown(context.Background(), dim, reporting.AnalyticsQuery{Days: 1})
			require.NoError(t, err)
			out := map[string][2]float64{}
			for _, r := range got.Rows {
				out[r.Key] = [2]float64{r.Views, r.Users}
			}
			return out
		}
		require.Equal(t, map[string][2]float64{"Safari": {2, 2}, "Chrome": {2, 1}, "Firefox": {1, 1}}, read(reporting.DimBrowser))
		require.Equal(t, map[string][2]float64{"MacOS": {1, 1}, "iOS": {1, 1}, "Windows": {2, 1}, "Linux": {1, 1}}, read(reporting.DimOS))
		var raw int
		require.NoError(t, b.db.Get(&raw, `SELECT COUNT(*) FROM reporting_daily WHERE key LIKE '%Mozilla%'`))
		require.Zero(t, raw, "no user agent is kept")
		rt := setupRoutes(t, b.analytics, false)
		code, body := rt.get(t, "/analytics-reporting/browsers?days=1")
		require.Equal(t, 200, code, body)
		code, body = rt.get(t, "/analytics-reporting/operating-systems?days=1&device=mobile")
		require.Equal(t, 200, code, body)
		require.Contains(t, body, `"key":"iOS","views":1,"users":1`)
		require.NotContains(t, body, "Windows", "the phone's system alone")
	})
}

// failing fails the Record of any batch holding a hit of one visitor,
// once.
type failing struct {
	reporting.Store
	mu      sync.Mutex
	visitor string
	failed  bool
	batches []int
}

func (f *failing) Record(ctx context.Context, hits []reporting.Hit, reached func(context.Context, *sql.Tx, []reporting.GoalReached) error) error {
	f.mu.Lock()
	f.batches = append(f.batches, len(hits))
	if !f.failed && slices.ContainsFunc(hits, func(h reporting.Hit) bool { return h.Visitor == f.visitor }) {
		f.failed = true
		f.mu.Unlock()
		return errors.New("the database blinked")
	}
	f.mu.Unlock()
	return f.Store.Record(ctx, hits, reached)
}

// Several writers a flush: the hits shared by visitor, each share a
// transaction at once, counted as one writer counts them; a share that
// fails waits for the next flush and nothing is lost or counted twice. On
// both databases.
func TestFlushWriters(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		views := func(a *reporting.Analytics, c *clock) {
			for i := range 120 {
				c.Set(now.Add(time.Duration(i) * 20 * time.Second))
				require.NoError(t, a.Collect(context.Background(), reporting.View{URL: fmt.Sprintf("https://shop.example/p/%d", i%7),
					UserAgent: browser, IP: fmt.Sprintf("10.0.0.%d", i%60)}))
			}
		}
		overview := func(a *reporting.Analytics) reporting.OverviewTotals {
			ov, err := a.Overview(context.Background(), reporting.AnalyticsQuery{Days: 1})
			require.NoError(t, err)
			return ov.Totals
		}
		one := setup(t, d)
		a1, err := reporting.NewAnalytics(one.analytics.Store(), &reporting.AnalyticsOptions{Now: one.clock.Now, FlushInterval: time.Hour,
			FlushSize: 1000})
		require.NoError(t, err)
		views(a1, one.clock)
		require.NoError(t, a1.Flush(context.Background()))

		many := setup(t, d)
		st := &failing{Store: many.analytics.Store()}
		a3, err := reporting.NewAnalytics(st, &reporting.AnalyticsOptions{Now: many.clock.Now, FlushInterval: time.Hour, FlushSize: 1000,
			FlushBatch: 50, FlushWriters: 3})
		require.NoError(t, err)
		views(a3, many.clock)
		// Which visitor's share fails: the hash of the first view's.
		st.visitor = firstVisitor(t, a3, many)
		require.Error(t, a3.Flush(context.Background()), "one share failed")
		require.Positive(t, a3.Pending(), "its hits wait")
		for a3.Pending() > 0 {
			require.NoError(t, a3.Flush(context.Background()))
		}
		st.mu.Lock()
		require.Greater(t, len(st.batches), 2, "the first flush wrote its shares as transactions of their own")
		for _, n := range st.batches {
			require.LessOrEqual(t, n, 50, "none above FlushBatch")
		}
		st.mu.Unlock()
		require.Equal(t, overview(a1), overview(a3), "the same totals as one writer's, sessions and bounces included")
	})
}

// firstVisitor is the visitor hash of a's first waiting hit, read by
// recording a copy of the same view in a scratch analytics on the same
// salt: the store's Salt gives the day's first salt to every caller.
func firstVisitor(t *testing.T, a *reporting.Analytics, b *bundle) string {
	t.Helper()
	rec := &recording{}
	scratch, err := reporting.NewAnalytics(&saltOnly{Store: b.analytics.Store(), rec: rec}, &reporting.AnalyticsOptions{Now: b.clock.Now})
	require.NoError(t, err)
	require.NoError(t, scratch.Collect(context.Background(), reporting.View{URL: "https://shop.example/p/0", UserAgent: browser, IP: "10.0.0.0"}))
	require.NoError(t, scratch.Flush(context.Background()))
	require.Len(t, rec.hits, 1)
	return rec.hits[0].Visitor
}

type recording struct{ hits []reporting.Hit }

// saltOnly shares a store's salts and keeps what it is asked to record.
type saltOnly struct {
	reporting.Store
	rec *recording
}

func (s *saltOnly) Record(_ context.Context, hits []reporting.Hit, _ func(context.Context, *sql.Tx, []reporting.GoalReached) error) error {
	s.rec.hits = append(s.rec.hits, hits...)
	return nil
}

// gated is a store whose writes wait until the test lets them through.
type gated struct {
	reporting.Store
	open chan struct{}
}

func (g *gated) Record(ctx context.Context, hits []reporting.Hit, reached func(context.Context, *sql.Tx, []reporting.GoalReached) error) error {
	<-g.open
	return g.Store.Record(ctx, hits, reached)
}

// A view that finds MaxPending waiting waits for the flush under way to
// make room, and is taken when it does; one that waits a second without
// a flush ending is refused with ErrBusy. Every view taken is stored.
func TestFullBufferWaitsForRoom(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	st := &gated{Store: b.analytics.Store(), open: make(chan struct{})}
	a, err := reporting.NewAnalytics(st, &reporting.AnalyticsOptions{Now: b.clock.Now, FlushInterval: time.Hour, MaxPending: 2})
	require.NoError(t, err)
	ctx := context.Background()
	view := func(i int) reporting.View {
		return reporting.View{URL: fmt.Sprintf("https://shop.example/p/%d", i), UserAgent: browser, IP: fmt.Sprintf("10.0.0.%d", i)}
	}
	require.NoError(t, a.Collect(ctx, view(1)))
	require.NoError(t, a.Collect(ctx, view(2)))
	flushed := make(chan error, 1)
	go func() { flushed <- a.Flush(ctx) }() // writes the two, held at the gate
	third := make(chan error, 1)
	go func() { third <- a.Collect(ctx, view(3)) }()
	select {
	case err := <-third:
		t.Fatalf("the third view was answered (%v) while the buffer was full and no flush had ended", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(st.open) // the flush ends, making room
	require.NoError(t, <-flushed)
	require.NoError(t, <-third, "taken once the flush made room")

	require.NoError(t, a.Collect(ctx, view(4)))
	require.ErrorIs(t, a.Collect(ctx, view(5)), reporting.ErrBusy, "full, and no flush under way")
	require.NoError(t, a.Flush(ctx))
	ov, err := b.analytics.Overview(ctx, reporting.AnalyticsQuery{Days: 1})
	require.NoError(t, err)
	require.EqualValues(t, 4, ov.Totals.PageViews)
}
