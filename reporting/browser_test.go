package reporting_test

import (
	"bytes"
	"context"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/store"
)

// seedViews records a week of views: more each day, two pages, a
// referrer, a phone now and then, and an event.
func seedViews(t testing.TB, b *bundle) {
	t.Helper()
	var hits []reporting.Hit
	for d := range 7 {
		day := now.AddDate(0, 0, d-6)
		for i := range 5 + 3*d {
			h := reporting.Hit{At: day.Add(time.Duration(i) * time.Minute), Day: day.Format(time.DateOnly), Visitor: "v" + itoa(i%4),
				Path: "/", Title: "Home", Source: "Direct", Device: "desktop"}
			if i%3 == 0 {
				h.Path, h.Title, h.Source = "/shoes", "Shoes", "news.example"
			}
			if i%5 == 0 {
				h.Device = "mobile"
			}
			hits = append(hits, h)
		}
		hits = append(hits, reporting.Hit{At: day, Day: day.Format(time.DateOnly), Visitor: "v1", Event: "add_to_cart"})
	}
	require.NoError(t, b.analytics.Store().Record(context.Background(), hits, nil))
}

// The dashboard in a real browser, on a phone and a desktop: the charts
// drawn, the tables, the range picker, an unconnected search source; no
// axe-core violations. The chart's screenshot is checked for its line.
func TestBrowserDashboard(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 90*time.Second)
	b := setup(t, store.SQLite)
	seedViews(t, b)
	search := &fakeSearch{conn: "none"}
	svc, err := reporting.NewService(&reporting.Options{Analytics: b.analytics, Search: search, Now: b.clock.Now})
	require.NoError(t, err)
	d, err := reporting.NewDashboard(svc, &reporting.DashboardOptions{ConnectURL: "/google/auth/connect"})
	require.NoError(t, err)
	srv := httptest.NewServer(d)
	t.Cleanup(srv.Close)
	run := func(actions ...chromedp.Action[chromedp.Void]) { t.Helper(); browsertest.Do(t, ctx, actions...) }
	text := func(sel string) string { t.Helper(); return browsertest.Text(t, ctx, sel) }

	run(chromedp.EmulateViewport(375, 800), chromedp.Navigate(srv.URL+"/reporting?days=7"), chromedp.WaitVisible(chromedp.CSS("figure.chart")))
	require.Equal(t, "Reports", text("h1"))
	require.Contains(t, text(".totals"), "98", "page views: 5+8+...+23")
	require.Contains(t, text("#traffic ~ figure figcaption, figure figcaption"), "Page views a day from 26 May 2026 to 1 June 2026: 98 in all, at most 23 on 1 June 2026.")
	require.Contains(t, text("#search ~ p, section[aria-labelledby=search]"), "Connect a Google account to view Search Console data.")
	wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth`))
	require.NoError(t, err)
	require.True(t, wide, "no sideways scrolling on a phone")
	browsertest.NoViolations(t, ctx, "the dashboard on a phone")

	// The chart as the browser draws it: a line in the link blue.
	shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("figure.chart svg")))
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(shot))
	require.NoError(t, err)
	blue := 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 < 0x40 && g>>8 > 0x30 && g>>8 < 0x70 && bl>>8 > 0xb0 {
				blue++
			}
		}
	}
	require.Greater(t, img.Bounds().Dx(), 300)
	require.Greater(t, blue, 100, "the trend line is drawn")
	kept := filepath.Join(t.TempDir(), "dashboard-chart.png")
	require.NoError(t, os.WriteFile(kept, shot, 0o644))
	t.Logf("the chart as drawn: %s", kept)

	// The range picker works without JavaScript.
	run(chromedp.EmulateViewport(1280, 900), chromedp.SetValue(chromedp.ID("f-days"), "90"), chromedp.Click(chromedp.CSS("form button")))
	// The old page's chart is visible until the new page arrives: wait for
	// the new address, then for its chart.
	var url string
	for range 100 {
		if url, err = chromedp.Run(ctx, chromedp.Location()); err == nil && strings.Contains(url, "days=90") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	run(chromedp.WaitVisible(chromedp.CSS("figure.chart")))
	require.NoError(t, err)
	require.Contains(t, url, "days=90")
	require.Contains(t, text("figure figcaption"), "from 4 March 2026 to 1 June 2026")
	browsertest.NoViolations(t, ctx, "the dashboard on a desktop")

	// A range of one's own, and one that is not.
	run(chromedp.Navigate(srv.URL+"/reporting?from=2026-05-30&to=2026-06-01"), chromedp.WaitVisible(chromedp.CSS("figure.chart")))
	require.Contains(t, text(".totals"), "on the period before")
	browsertest.NoViolations(t, ctx, "the dashboard for a range of dates")
	run(chromedp.Navigate(srv.URL+"/reporting?from=2026-06-01&to=2026-05-01"), chromedp.WaitVisible(chromedp.CSS(".error-summary")))
	browsertest.NoViolations(t, ctx, "the dashboard with a bad range")

	// A click on a source narrows the whole report to it; a click on
	// "Show all visits" widens it again.
	run(chromedp.Navigate(srv.URL+"/reporting?days=7"), chromedp.WaitVisible(chromedp.CSS("figure.chart")),
		chromedp.Click(chromedp.CSS(`a[href="/reporting?days=7&source=news.example#sources"]`)), chromedp.WaitVisible(chromedp.CSS(".notice.filter")))
	require.Contains(t, text(".notice.filter"), "Showing only visits from news.example.")
	require.Contains(t, text(".totals"), "35")
	browsertest.NoViolations(t, ctx, "the dashboard filtered by a source")
	// A second click adds a device to the source; each can be dropped.
	browsertest.Submit(t, ctx, `a[href="/reporting?days=7&device=mobile&source=news.example#devices"]`)
	require.Contains(t, text(".notice.filter"), "Showing only visits from news.example and visits on mobile.")
	require.Contains(t, text(".totals"), "10")
	browsertest.NoViolations(t, ctx, "the dashboard filtered by a source and a device")
	browsertest.Submit(t, ctx, `.notice.filter a[href="/reporting?days=7&device=mobile"]`)
	require.Contains(t, text(".notice.filter"), "Showing only visits on mobile.")
	browsertest.Submit(t, ctx, ".notice.filter a")
	unfiltered, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector(".notice.filter") === null`))
	require.NoError(t, err)
	require.True(t, unfiltered, "the last filter dropped, the notice goes")
	require.Contains(t, text(".totals"), "98")
}

// A range of one's own dates, the totals against the period before, and
// each table as CSV, without a browser; a bad range is said, and the days
// stand.
func TestDashboardRangesCompareAndExport(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	seedViews(t, b) // 5, 8, 11, 14, 17, 20, 23 views on 2026-05-26..06-01
	svc, err := reporting.NewService(&reporting.Options{Analytics: b.analytics, Now: b.clock.Now})
	require.NoError(t, err)
	d, err := reporting.NewDashboard(svc, nil)
	require.NoError(t, err)
	get := func(path string) (int, http.Header, string) {
		t.Helper()
		w := httptest.NewRecorder()
		d.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		return w.Code, w.Header(), w.Body.String()
	}

	const up = `<span class="change good"><span aria-hidden="true">▲</span> `
	// The last two of the seven days against the two before: 43 views
	// against 31 is +39%.
	code, _, body := get("/reporting?from=2026-05-31&to=2026-06-01")
	require.Equal(t, 200, code)
	require.Contains(t, body, "For 31 May 2026 to 1 June 2026, against the period of the same length before it.")
	require.Contains(t, body, `<dd>43 `+up+`&#43;39% on the period before</span></dd>`)
	require.Contains(t, body, "Page views a day from 31 May 2026 to 1 June 2026: 43 in all")
	// The last 7 days against the 7 before them, which had none.
	_, _, body = get("/reporting?days=7")
	require.Contains(t, body, `<dd>98 `+up+`up from none on the period before</span></dd>`)
	require.Contains(t, body, `<p class="live"><strong>4</strong> visitors in the last 30 minutes</p>`, "today's four, seen from now on")
	require.Contains(t, body, `href="/reporting?days=7&amp;export=pages"`)

	code, _, body = get("/reporting?from=2026-06-01&to=2026-05-01")
	require.Equal(t, 200, code)
	require.Contains(t, body, "Give the range as two dates, the first on or before the second")
	require.Contains(t, body, "For the last 28 days")

	code, h, csv := get("/reporting?from=2026-05-31&to=2026-06-01&export=pages")
	require.Equal(t, 200, code)
	require.Equal(t, "text/csv; charset=utf-8", h.Get("Content-Type"))
	require.Equal(t, `attachment; filename="pages-2026-05-31-to-2026-06-01.csv"`, h.Get("Content-Disposition"))
	require.Equal(t, "path,title,views,visitors\n/,Home,28,8\n/shoes,Shoes,15,8\n", csv)
	_, _, csv = get("/reporting?days=7&export=sources")
	require.True(t, strings.HasPrefix(csv, "source,views,visitors,share\nDirect,"), csv)
	_, _, csv = get("/reporting?days=7&export=events")
	require.Equal(t, "event,count,visitors\nadd_to_cart,7,7\n", csv)
	code, _, page := get("/reporting?export=secrets")
	require.Equal(t, 404, code)
	require.Contains(t, page, "<h1>No such table</h1>")
	// A query that is not text never reaches a report.
	code, _, page = get("/reporting?page=%00")
	require.Equal(t, 422, code)
	require.Contains(t, page, "<h1>Address not understood</h1>")
	code, _, page = get("/reporting/elsewhere")
	require.Equal(t, 404, code)
	require.Contains(t, page, "<h1>Page not found</h1>")

	// Each page, source and device is a link that narrows the whole
	// report; the range stays. /shoes had d+2 views on day d: 35.
	require.Contains(t, body, `<a href="/reporting?days=28&amp;source=news.example#sources" title="news.example"><span class="clip">news.example</span><span class="visually-hidden">: show only these visits</span></a>`)
	code, _, body = get("/reporting?days=7&page=%2Fshoes")
	require.Equal(t, 200, code)
	require.Contains(t, body, `<p>Showing only the page /shoes.</p>
<ul class="chips" aria-label="Filters"><li><a class="chip" href="/reporting?days=7">the page /shoes <span aria-hidden="true">✕</span><span class="visually-hidden">: drop the page</span></a></li></ul>
<p class="actions"><a href="/reporting?days=7">Show all visits</a></p>`)
	require.Contains(t, body, `<dt>Page views</dt><dd>35 `+up+`up from none on the period before</span>`)
	require.Contains(t, body, `<dt>Sessions begun on this page</dt>`)
	require.NotContains(t, body, "Not kept for one page, source or device", "bounces and length are kept by visitor")
	require.Contains(t, body, `<dt>Bounce rate</dt><dd>7.1% <span class="change">no visits on the period before</span>`)
	require.Contains(t, body, "Page views a day (the page /shoes) from 26 May 2026 to 1 June 2026: 35 in all, at most 8 on 1 June 2026.")
	require.Contains(t, body, `<code><span class="clip" title="/shoes">/shoes</span></code>`, "the filter's own page is no link")
	require.NotContains(t, body, `page=%2F&amp;`, "nor is any other page listed")
	require.Contains(t, body, "<tbody><tr><td>Add to cart<br><small class=\"detail\"><code>add_to_cart</code></small></td><td class=\"num\">5</td>", "the events of the page's visitors")
	require.Contains(t, body, `<a href="/reporting?days=7&amp;device=mobile&amp;page=%2Fshoes#devices" title="mobile"><span class="clip">mobile</span>`, "a second filter keeps the first")
	require.Contains(t, body, `<input type="hidden" name="page" value="/shoes">`, "the range forms keep the filter")
	// A filter on a goal that is not there: said, with its chip to drop it.
	code, _, gone := get("/reporting?days=7&goal=999")
	require.Equal(t, 200, code)
	require.Contains(t, gone, "The report cannot be narrowed by these filters (a goal may have been removed)")
	require.Contains(t, gone, "visitors who reached goal 999")
	// Filters stack: the page on mobile, each with a way out, the range
	// and both filters kept by every link and form.
	code, _, body = get("/reporting?days=7&device=mobile&page=%2Fshoes")
	require.Equal(t, 200, code)
	require.Contains(t, body, `<p>Showing only the page /shoes and visits on mobile.</p>
<ul class="chips" aria-label="Filters"><li><a class="chip" href="/reporting?days=7&amp;device=mobile">the page /shoes <span aria-hidden="true">✕</span><span class="visually-hidden">: drop the page</span></a></li>`+
		`<li><a class="chip" href="/reporting?days=7&amp;page=%2Fshoes">visits on mobile <span aria-hidden="true">✕</span><span class="visually-hidden">: drop the device</span></a></li></ul>
<p class="actions"><a href="/reporting?days=7">Show all visits</a></p>`)
	require.Contains(t, body, `<dt>Page views</dt><dd>10 `)
	require.Contains(t, body, `<a href="/reporting?days=7&amp;device=mobile&amp;page=%2Fshoes&amp;source=news.example#sources" title="news.example"><span class="clip">news.example</span>`)
	require.Contains(t, body, `<input type="hidden" name="page" value="/shoes"><input type="hidden" name="device" value="mobile">`)
	require.Contains(t, body, "Page views a day (the page /shoes and visits on mobile)")
	_, h, csv = get("/reporting?days=7&device=mobile&page=%2Fshoes&export=sources")
	require.Equal(t, `attachment; filename="sources-7-days-page-shoes-device-mobile.csv"`, h.Get("Content-Disposition"))
	require.True(t, strings.HasPrefix(csv, "source,views,visitors,share\nnews.example,10,"), csv)
	require.Contains(t, body, `visitors on the whole site in the last 30 minutes`)
	_, h, csv = get("/reporting?days=7&page=%2Fshoes&export=devices")
	require.Equal(t, `attachment; filename="devices-7-days-page-shoes.csv"`, h.Get("Content-Disposition"))
	lines := strings.Split(csv, "\n")
	require.Equal(t, "device,views,visitors,share", lines[0])
	require.True(t, strings.HasPrefix(lines[1], "desktop,25,") && strings.HasSuffix(lines[1], ",0.7143"), lines[1])
	require.True(t, strings.HasPrefix(lines[2], "mobile,10,") && strings.HasSuffix(lines[2], ",0.2857"), lines[2])
	// Filtered by a source: its pages only.
	_, _, csv = get("/reporting?days=7&source=news.example&export=pages")
	require.Equal(t, "path,title,views,visitors\n/shoes,Shoes,35,", csv[:len("path,title,views,visitors\n/shoes,Shoes,35,")])
	require.Equal(t, 2, strings.Count(csv, "\n"), csv)
	_, _, csv = get("/reporting?days=7&source=nowhere.example&export=sources")
	require.Equal(t, "source,views,visitors,share\n", csv)
}
