package reporting_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/store"
)

// spaPage is a small single-page app with the analytics script opted into
// every event: its links change the path with pushState (or only the
// query, with replaceState), one goes to another site, one to a file, a
// button is tagged with an event by its classes. The page's own handler
// keeps the links from leaving, as an app's router does.
const spaPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>App</title>
<script src="/analytics/script.js" data-outbound data-downloads data-404 data-engagement %s></script></head>
<body><main><h1>App</h1>
<a id="pricing" href="/pricing">Pricing</a> <a id="about" href="/about">About</a> <a id="sort" href="/about?sort=new">Sort</a>
<a id="away" href="https://elsewhere.example/docs?x=1">Elsewhere</a> <a id="file" href="/files/price-list.pdf">Price list</a>
<button id="signup" class="big gw-event-name=sign+up gw-event-plan=pro">Sign up</button></main>
<script>
for (const a of document.querySelectorAll("a")) a.addEventListener("click", (e) => {
  e.preventDefault();
  if (a.id === "sort") history.replaceState({}, "", a.getAttribute("href"));
  else if (a.id === "pricing" || a.id === "about") history.pushState({}, "", a.getAttribute("href"));
});
</script></body></html>`

// The analytics script in a real browser, on a single-page app: the first
// load and each change of path count one page view (a change of query or
// the same path again does not, Back does), an outbound link, a file
// download, a 404 page and a tagged button their events, and leaving each
// page its engagement; with Do Not Track on, nothing at all.
func TestBrowserScriptOnSinglePageApp(t *testing.T) {
	t.Parallel()
	// As a desktop Safari: headless Chromium says it is headless, which
	// is not counted.
	ctx := browsertest.New(t, 90*time.Second, chromedp.UserAgent(browser))
	b := setup(t, store.SQLite)
	_, err := b.analytics.AddGoal(context.Background(), reporting.Goal{Name: "Purchase", Event: "purchase"})
	require.NoError(t, err)
	attrs := ""
	srv := serveApp(t, b, &attrs)
	click := func(id string) { browsertest.Do(t, ctx, chromedp.Click(chromedp.ID(id))) }
	browsertest.Do(t, ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.ID("pricing")))
	click("pricing")
	click("pricing") // the same path again
	click("about")
	click("sort") // the query only
	click("away")
	click("file")
	click("signup")
	browsertest.Do(t, ctx, chromedp.Evaluate[chromedp.Void](`groundworkAnalytics("purchase", {plan: "pro"}, {revenue: {amount: 19.9, currency: "EUR"}})`))
	browsertest.Do(t, ctx, chromedp.NavigateBack()) // popstate: /pricing again
	browsertest.Eventually(t, ctx, `location.pathname === "/pricing"`, "Back")
	browsertest.Do(t, ctx, chromedp.Navigate(srv.URL+"/missing"), chromedp.WaitVisible(chromedp.ID("pricing")))
	browsertest.Do(t, ctx, chromedp.Navigate("about:blank")) // leaves /missing: its engagement
	waitRecorded(t, b, 5+4+5)                                // five views, four events, five pages left

	q := reporting.AnalyticsQuery{Days: 1, Limit: 100}
	c, err := b.analytics.TopContent(context.Background(), q)
	require.NoError(t, err)
	views := map[string]float64{}
	for _, p := range c.TopPages {
		views[p.Path] = p.Views
	}
	require.Equal(t, map[string]float64{"/": 1, "/pricing": 2, "/about": 1, "/missing": 1}, views, "one view per change of path")
	events := map[string]float64{}
	for _, e := range c.TopEvents {
		events[e.Event] = e.Count
	}
	require.Equal(t, map[string]float64{"outbound_link": 1, "file_download": 1, "not_found": 1, "sign up": 1, "purchase": 1, "engagement": 5}, events)
	goals, err := b.analytics.GoalConversions(context.Background(), reporting.AnalyticsQuery{Days: 1})
	require.NoError(t, err)
	require.Equal(t, map[string]float64{"EUR": 19.9}, goals.Goals[0].Period.Revenue, "the page's own event, with its revenue")
	for event, want := range map[string]string{"outbound_link": "url=https://elsewhere.example/docs", "file_download": "url=" + srv.URL + "/files/price-list.pdf",
		"not_found": "path=/missing", "sign up": "plan=pro"} {
		q.Event = event
		p, err := b.analytics.EventProperties(context.Background(), q)
		require.NoError(t, err)
		require.Len(t, p.Properties, 1, event)
		require.Equal(t, want, p.Properties[0].Property+"="+p.Properties[0].Value, event)
	}
	q.Event = "engagement"
	p, err := b.analytics.EventProperties(context.Background(), q)
	require.NoError(t, err)
	bands := map[string]float64{}
	for _, v := range p.Properties {
		bands[v.Property+"="+v.Value] += v.Count
	}
	require.Equal(t, 5.0, bands["scroll_depth=100%"], "a short page is read to its end: %v", bands)
	require.Equal(t, 5.0, bands["time_on_page=Under 10 s"], "%v", bands)

	// Do Not Track: nothing is sent; the site may choose not to honour it.
	dnt := setup(t, store.SQLite)
	dntAttrs := ""
	quiet := serveApp(t, dnt, &dntAttrs)
	dctx := browsertest.New(t, 60*time.Second, chromedp.UserAgent(browser))
	browsertest.Do(t, dctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `Object.defineProperty(Navigator.prototype, "globalPrivacyControl", {get: () => true})`})
		return err
	}))
	browsertest.Do(t, dctx, chromedp.Navigate(quiet.URL+"/"), chromedp.WaitVisible(chromedp.ID("pricing")))
	click2 := func(id string) { browsertest.Do(t, dctx, chromedp.Click(chromedp.ID(id))) }
	click2("pricing")
	click2("away")
	// A site that does not honour it, and routes by the hash: each change
	// of hash a view (of the page's path), the same hash again none.
	dntAttrs = "data-ignore-dnt data-hash"
	browsertest.Do(t, dctx, chromedp.Navigate(quiet.URL+"/about"), chromedp.WaitVisible(chromedp.ID("pricing")))
	for _, hash := range []string{"#/team", "#/team", "#/jobs"} {
		browsertest.Do(t, dctx, chromedp.Evaluate[chromedp.Void](`location.hash = "`+hash+`"`))
		browsertest.Eventually(t, dctx, `location.hash === "`+hash+`"`, "the hash")
	}
	waitRecorded(t, dnt, 3+2) // and the engagement of the two left
	c, err = dnt.analytics.TopContent(context.Background(), reporting.AnalyticsQuery{Days: 1, Limit: 100})
	require.NoError(t, err)
	require.Len(t, c.TopPages, 1, "only the page whose tag does not honour Global Privacy Control")
	require.Equal(t, "/about", c.TopPages[0].Path)
	require.Equal(t, 3.0, c.TopPages[0].Views, "the page and two changes of its hash")
	require.Equal(t, []reporting.ContentEvent{{Event: "engagement", Count: 2, Users: 1}}, c.TopEvents)
}

// serveApp serves spaPage at every path (404 at /missing) with the
// script's tag carrying *attrs, and b's collect handler, on one origin.
func serveApp(t *testing.T, b *bundle, attrs *string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	h, err := reporting.NewCollectHandler(b.analytics, &reporting.CollectOptions{Hosts: []string{"127.0.0.1"}, Limit: -1})
	require.NoError(t, err)
	mux.Handle("/analytics/", h)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/missing" {
			w.WriteHeader(http.StatusNotFound)
		}
		fmt.Fprintf(w, spaPage, *attrs)
	})
	return srv
}

// waitRecorded flushes b's collector until at least n hits were written
// (beacons come a moment after the clicks that send them).
func waitRecorded(t *testing.T, b *bundle, n int) {
	t.Helper()
	written := 0
	for range 100 {
		b.flush(t)
		c, err := b.analytics.TopContent(context.Background(), reporting.AnalyticsQuery{Days: 1, Limit: 100})
		require.NoError(t, err)
		written = 0
		for _, p := range c.TopPages {
			written += int(p.Views)
		}
		for _, e := range c.TopEvents {
			written += int(e.Count)
		}
		if written >= n {
			time.Sleep(200 * time.Millisecond) // and none more comes
			b.flush(t)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%d hits recorded, not %d", written, n)
}
