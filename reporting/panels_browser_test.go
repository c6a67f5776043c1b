package reporting_test

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store"
)

// seedSite records eight weeks of a small shop's traffic with every
// dimension the dashboard shows: countries, browsers and systems,
// campaigns, events with properties, and visits of several pages.
func seedSite(t testing.TB, b *bundle) []reporting.Hit {
	t.Helper()
	rng := rand.New(rand.NewPCG(35, 9))
	pages := []struct{ path, title string }{{"/", "Home"}, {"/shoes", "Shoes"}, {"/pricing", "Pricing"}, {"/blog/spring", "Spring in the shop"},
		{"/checkout", "Checkout"}, {"/thanks", "Thank you"}}
	sources := []string{"Direct", "google.com", "news.example", "duckduckgo.com"}
	countries := []string{"DE", "FR", "US", "GB", "JP", "NL"}
	software := [][2]string{{"Chrome", "Windows"}, {"Safari", "iOS"}, {"Firefox", "Linux"}, {"Safari", "MacOS"}, {"Edge", "Windows"}}
	var hits []reporting.Hit
	for d := 55; d >= 0; d-- {
		day := now.AddDate(0, 0, -d).Truncate(24 * time.Hour)
		for v := range 20 + (55-d)/2 + rng.IntN(10) {
			at := day.Add(time.Duration(rng.IntN(9*60)) * time.Minute)
			sw := software[rng.IntN(len(software))]
			device := "desktop"
			if sw[1] == "iOS" {
				device = "mobile"
			}
			h := reporting.Hit{Day: day.Format(time.DateOnly), Visitor: fmt.Sprintf("%d-%d", d, v), Source: sources[rng.IntN(len(sources))],
				Device: device, Country: countries[rng.IntN(len(countries))], Browser: sw[0], OS: sw[1]}
			if rng.IntN(4) == 0 {
				h.Campaign = [4]string{"email", []string{"spring-sale", "newsletter-12"}[rng.IntN(2)], "", ""}
			}
			for n := range 1 + rng.IntN(4) {
				p := pages[min(n+2+rng.IntN(2), len(pages)-1)]
				if n == 0 {
					p = pages[rng.IntN(4)]
				}
				h.At, h.Path, h.Title = at, p.path, p.title
				hits = append(hits, h)
				if p.path == "/thanks" {
					plan := rng.IntN(2)
					hits = append(hits, reporting.Hit{At: at, Day: h.Day, Visitor: h.Visitor, Event: "purchase",
						Props: []reporting.Prop{{Name: "plan", Value: []string{"basic", "pro"}[plan]}}, Revenue: []int64{19_000, 49_000}[plan], Currency: "EUR"})
				}
				// What the script's opt-in events tell of the page: how
				// far it was read and how long it was seen, now and then
				// a link out, a price list fetched, a page gone.
				ev := func(name string, props ...reporting.Prop) {
					hits = append(hits, reporting.Hit{At: at.Add(time.Second), Day: h.Day, Visitor: h.Visitor, Path: p.path, Event: name, Props: props})
				}
				ev("engagement", reporting.Prop{Name: "scroll_depth", Value: []string{"Under 25%", "25–49%", "50–74%", "75–99%", "100%"}[rng.IntN(5)]},
					reporting.Prop{Name: "time_on_page", Value: []string{"Under 10 s", "10–29 s", "30–59 s", "1–2 min", "3–9 min"}[rng.IntN(5)]})
				switch rng.IntN(12) {
				case 0:
					ev("outbound_link", reporting.Prop{Name: "url", Value: []string{"https://instagram.com/shop", "https://maps.example/shop"}[rng.IntN(2)]})
				case 1:
					ev("file_download", reporting.Prop{Name: "url", Value: "https://shop.example/files/price-list.pdf"})
				case 2:
					ev("not_found", reporting.Prop{Name: "path", Value: []string{"/old-shoes", "/summer-sale"}[rng.IntN(2)]})
				}
				at = at.Add(time.Duration(20+rng.IntN(200)) * time.Second)
			}
		}
	}
	// The goals first: a hit's revenue is counted for the goals there as
	// it is written.
	for _, g := range []reporting.Goal{{Page: "/thanks", Name: "Reached thank-you page"}, {Event: "purchase", Property: "plan", Value: "pro"},
		{Page: "/blog/*", Name: "Read the blog"}} {
		_, err := b.analytics.AddGoal(context.Background(), g)
		require.NoError(t, err)
	}
	require.NoError(t, b.analytics.Store().Record(context.Background(), hits, nil))
	return hits
}

// The dashboard with every panel, as a reader walks it: the totals with
// their changes, the chart with the period before, each panel, a filter
// chip added and dropped, an event's properties chosen without
// JavaScript; axe-core finds nothing at 320 px and on a desktop, light
// and dark.
func TestBrowserDashboardPanels(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second)
	b := setup(t, store.SQLite)
	hits := seedSite(t, b)
	svc, err := reporting.NewService(&reporting.Options{Analytics: b.analytics, Now: b.clock.Now})
	require.NoError(t, err)
	d, err := reporting.NewDashboard(svc, nil)
	require.NoError(t, err)
	srv := httptest.NewServer(d)
	t.Cleanup(srv.Close)
	run := func(actions ...chromedp.Action[chromedp.Void]) { t.Helper(); browsertest.Do(t, ctx, actions...) }
	text := func(sel string) string { t.Helper(); return browsertest.Text(t, ctx, sel) }

	run(chromedp.EmulateViewport(320, 800), chromedp.Navigate(srv.URL+"/reporting"), chromedp.WaitVisible(chromedp.CSS("figure.chart")))
	for _, want := range []string{"Visitors", "Page views", "Sessions", "Bounce rate", "Average visit"} {
		require.Contains(t, text(".totals"), want)
	}
	require.Regexp(t, `[▲▼] [+−]\d+% on the period before|no change|about the same`, text(".totals"))
	require.Contains(t, text("figure figcaption"), "The period before (")
	for id, want := range map[string]string{"#goals": "Reached thank-you page", "#countries": "Germany", "#event-properties": "plan: pro"} {
		require.Contains(t, text(id), want, id)
	}
	// The tabbed cards: a tab by keyboard shows its table in the card and
	// keeps the reader there; the others by their links.
	browsertest.TabTo(t, ctx, `#pages nav a[href*="pages=entry-pages"]`)
	browsertest.Press(t, ctx, "\r", true)
	require.Equal(t, "Entry pages", text("#pages h3"))
	require.Contains(t, text("#pages table"), "/pricing")
	place, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.hash + " " + document.activeElement.id`))
	require.NoError(t, err)
	require.Equal(t, "#pages pages", place, "the card the tab is in, focused")
	tabs := map[string]map[string]string{
		"pages=exit-pages&sources=campaigns&devices=browsers": {"#pages": "/thanks", "#sources": "spring-sale", "#devices": "Firefox"},
		"devices=operating-systems":                           {"#devices": "iOS", "#pages": "Top pages"},
	}
	for query, cards := range tabs {
		run(chromedp.Navigate(srv.URL+"/reporting?"+query), chromedp.WaitVisible(chromedp.CSS("figure.chart")))
		for id, want := range cards {
			require.Contains(t, text(id), want, query+" "+id)
		}
		browsertest.NoViolations(t, ctx, "the dashboard's cards on other tabs: "+query)
	}
	// The Behaviour card: what the script's opt-in events tell, a tab
	// each; the bands in their order, not by count.
	run(chromedp.Navigate(srv.URL+"/reporting?behaviour=scroll-depth"), chromedp.WaitVisible(chromedp.CSS("figure.chart")))
	bands, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#behaviour tbody td:first-child")].map(td => td.textContent.replace(": show only these visits", ""))`))
	require.NoError(t, err)
	require.Equal(t, []string{"Under 25%", "25–49%", "50–74%", "75–99%", "100%"}, bands)
	for query, want := range map[string]string{"": "https://instagram.com/shop", "behaviour=file-downloads": "price-list.pdf",
		"behaviour=not-found": "/summer-sale", "behaviour=time-on-page": "1–2 min"} {
		run(chromedp.Navigate(srv.URL+"/reporting?"+query), chromedp.WaitVisible(chromedp.CSS("figure.chart")))
		require.Contains(t, text("#behaviour"), want, query)
	}
	require.Contains(t, text("#goals"), " EUR", "the goals' revenue")
	browsertest.NoViolations(t, ctx, "the dashboard's Behaviour card")
	run(chromedp.Navigate(srv.URL+"/reporting?behaviour=scroll-depth"), chromedp.WaitVisible(chromedp.CSS("figure.chart")))
	cardShots(t, ctx, os.Getenv(browsertest.EnvScreenshots), "#behaviour", "reports-behaviour-card")
	run(chromedp.Navigate(srv.URL+"/reporting"), chromedp.WaitVisible(chromedp.CSS("figure.chart")))
	wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth`))
	require.NoError(t, err)
	require.True(t, wide, "no sideways scrolling at 320 px")
	for _, scheme := range []string{"light", "dark"} {
		require.NoError(t, browsertest.SetScheme(ctx, scheme))
		browsertest.NoViolations(t, ctx, "the dashboard at 320 px, "+scheme)
	}
	require.NoError(t, browsertest.SetScheme(ctx, "light"))
	browsertest.Screenshots(t, ctx, os.Getenv(browsertest.EnvScreenshots), "reports-panels")

	// Rows add filters that stack, each a chip: an entry page, then a
	// country by keyboard, then a goal. Every panel narrows with them, and
	// the totals are those counted here from the raw hits they keep.
	from := now.AddDate(0, 0, 1-28).Format(time.DateOnly) // the dashboard opens on 28 days
	kept := func(keep func(reporting.Hit) bool) (views, visitors int) {
		seen := map[string]bool{}
		for _, h := range hits {
			if h.Event == "" && h.Day >= from && keep(h) {
				views++
				if k := h.Day + h.Visitor; !seen[k] {
					seen[k] = true
					visitors++
				}
			}
		}
		return views, visitors
	}
	reached := map[string]bool{} // day+visitor who saw /thanks
	for _, h := range hits {
		if h.Path == "/thanks" && h.Event == "" {
			reached[h.Day+h.Visitor] = true
		}
	}
	totals := func(views, visitors int) {
		t.Helper()
		require.Regexp(t, fmt.Sprintf(`Visitors\s+%d\b`, visitors), text(".totals"))
		require.Regexp(t, fmt.Sprintf(`Page views\s+%d\b`, views), text(".totals"))
	}
	run(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(srv.URL+"/reporting?pages=entry-pages"), chromedp.WaitVisible(chromedp.CSS("#pages table")),
		chromedp.Click(chromedp.CSS(`#pages a[href*="page=%2Fpricing"]`)), chromedp.WaitVisible(chromedp.CSS(".chip")))
	require.Equal(t, "Entry pages", text("#pages h3"), "a filter keeps the card's tab")
	require.Contains(t, text(".chips"), "the page /pricing")
	require.NotContains(t, text("main"), "Not kept", "every panel narrows by page")
	run(chromedp.Focus(chromedp.CSS(`#countries a[href*="country=DE"]`)))
	browsertest.Press(t, ctx, "\r", true)
	run(chromedp.WaitVisible(chromedp.CSS(".chips li:nth-child(2)")))
	require.Contains(t, text(".chips"), "visits from Germany")
	place, err = chromedp.Run(ctx, chromedp.Evaluate[string](`location.hash + " " + document.activeElement.id`))
	require.NoError(t, err)
	require.Equal(t, "#countries countries", place, "the reader's place kept: the panel clicked in, focused")
	require.Contains(t, text(".filter"), "Showing only the page /pricing and visits from Germany.")
	totals(kept(func(h reporting.Hit) bool { return h.Path == "/pricing" && h.Country == "DE" }))
	require.Contains(t, text("#countries"), "Germany")
	require.NotContains(t, text("#countries"), "France", "the country's views alone")
	browsertest.Submit(t, ctx, `#goals a[href*="goal="]`)
	require.Contains(t, text(".chips"), "visitors who reached “Reached thank-you page”")
	views, visitors := kept(func(h reporting.Hit) bool {
		return h.Path == "/pricing" && h.Country == "DE" && reached[h.Day+h.Visitor]
	})
	require.Positive(t, views)
	totals(views, visitors)
	for _, scheme := range []string{"light", "dark"} {
		require.NoError(t, browsertest.SetScheme(ctx, scheme))
		browsertest.NoViolations(t, ctx, "the dashboard filtered three ways, "+scheme)
	}
	require.NoError(t, browsertest.SetScheme(ctx, "light"))
	browsertest.Screenshots(t, ctx, os.Getenv(browsertest.EnvScreenshots), "reports-panels-filtered")
	// The country's chip drops it alone.
	browsertest.Submit(t, ctx, `.chip[href*="goal="]:not([href*="country="])`)
	require.NotContains(t, text(".chips"), "Germany")
	totals(kept(func(h reporting.Hit) bool { return h.Path == "/pricing" && reached[h.Day+h.Visitor] }))
	run(chromedp.Navigate(srv.URL+"/reporting"), chromedp.WaitVisible(chromedp.CSS("figure.chart")))

	// An event's properties, chosen by keyboard: the select, then its
	// button; no JavaScript needed.
	run(chromedp.WaitVisible(chromedp.ID("f-event")), chromedp.Focus(chromedp.ID("f-event")))
	browsertest.Press(t, ctx, "\t", false)
	browsertest.Press(t, ctx, "\r", true)
	url, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	require.Contains(t, url, "event=purchase")
	require.True(t, strings.HasSuffix(url, "#event-properties"), url)
	require.Contains(t, text("#event-properties"), "plan: basic")
}

// A shared link in a real browser: the password asked first (and a wrong
// one said), typed by keyboard, then the read-only dashboard; axe-core
// finds nothing in either scheme.
func TestBrowserSharedLink(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 90*time.Second)
	b := setup(t, store.SQLite)
	seedSite(t, b)
	st := reportingsql.New(b.db)
	svc, err := reporting.NewService(&reporting.Options{Analytics: b.analytics, Now: b.clock.Now})
	require.NoError(t, err)
	d, err := reporting.NewDashboard(svc, &reporting.DashboardOptions{SharedLinks: st})
	require.NoError(t, err)
	srv := httptest.NewServer(d)
	t.Cleanup(srv.Close)
	link, err := reporting.MakeSharedLink(context.Background(), st, "Our investors", "correct horse", "")
	require.NoError(t, err)
	text := func(sel string) string { t.Helper(); return browsertest.Text(t, ctx, sel) }
	shots := os.Getenv(browsertest.EnvScreenshots)

	browsertest.Do(t, ctx, chromedp.EmulateViewport(320, 800), chromedp.Navigate(srv.URL+link.Path), chromedp.WaitVisible(chromedp.ID("f-password")))
	require.Contains(t, text("main"), "“Our investors” is read-only")
	for _, scheme := range []string{"light", "dark"} {
		require.NoError(t, browsertest.SetScheme(ctx, scheme))
		browsertest.NoViolations(t, ctx, "the shared link's password form, "+scheme)
	}
	require.NoError(t, browsertest.SetScheme(ctx, "light"))
	browsertest.Do(t, ctx, chromedp.Focus(chromedp.ID("f-password")), chromedp.SendKeys(chromedp.ID("f-password"), "wrong horse"))
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, text(".error-summary"), "That password does not open these reports.")
	for _, scheme := range []string{"light", "dark"} {
		require.NoError(t, browsertest.SetScheme(ctx, scheme))
		browsertest.NoViolations(t, ctx, "the shared link's wrong password, "+scheme)
	}
	require.NoError(t, browsertest.SetScheme(ctx, "light"))
	browsertest.Screenshots(t, ctx, shots, "reports-shared-password")
	browsertest.Do(t, ctx, chromedp.Focus(chromedp.ID("f-password")), chromedp.SendKeys(chromedp.ID("f-password"), "correct horse"))
	browsertest.Press(t, ctx, "\r", true)
	browsertest.Do(t, ctx, chromedp.WaitVisible(chromedp.CSS("figure.chart")))
	require.Contains(t, text("main"), "A read-only view, shared as “Our investors”.")
	for _, scheme := range []string{"light", "dark"} {
		require.NoError(t, browsertest.SetScheme(ctx, scheme))
		browsertest.NoViolations(t, ctx, "the shared dashboard, "+scheme)
	}
	require.NoError(t, browsertest.SetScheme(ctx, "light"))
	browsertest.Screenshots(t, ctx, shots, "reports-shared")
}

// The settings page as its user walks it, by keyboard where it counts: a
// goal with a mistake (said, and fixed), a shared link shown once, an
// address for the weekly report, a goal removed; axe-core finds nothing
// in either scheme, error state included. A reader who may not manage
// gets no link to it and a 403.
func TestBrowserSettings(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second)
	b := setup(t, store.SQLite)
	seedSite(t, b)
	st := reportingsql.New(b.db)
	queue, err := store.NewQueue(b.db, &store.QueueOptions{TestOnly: true})
	require.NoError(t, err)
	reports, err := reporting.NewEmailReports(reporting.EmailReportsOptions{Analytics: b.analytics, Store: st, Enqueuer: queue,
		Mailer: mail.NewOutbox(&mail.OutboxOptions{Logger: slog.New(slog.DiscardHandler)})})
	require.NoError(t, err)
	svc, err := reporting.NewService(&reporting.Options{Analytics: b.analytics, Now: b.clock.Now})
	require.NoError(t, err)
	manager := true
	d, err := reporting.NewDashboard(svc, &reporting.DashboardOptions{SharedLinks: st, EmailReports: reports,
		Manage: groundwork.RequestAuthorizerFunc(func(*http.Request, string, any) groundwork.Access {
			if manager {
				return groundwork.Allowed
			}
			return groundwork.Forbidden
		})})
	require.NoError(t, err)
	srv := httptest.NewServer(d)
	t.Cleanup(srv.Close)
	text := func(sel string) string { t.Helper(); return browsertest.Text(t, ctx, sel) }
	axe := func(what string) {
		t.Helper()
		for _, scheme := range []string{"light", "dark"} {
			require.NoError(t, browsertest.SetScheme(ctx, scheme))
			browsertest.NoViolations(t, ctx, what+", "+scheme)
		}
		require.NoError(t, browsertest.SetScheme(ctx, "light"))
	}
	shots := os.Getenv(browsertest.EnvScreenshots)

	browsertest.Do(t, ctx, chromedp.EmulateViewport(320, 800), chromedp.Navigate(srv.URL+"/reporting"), chromedp.WaitVisible(chromedp.CSS("figure.chart")),
		chromedp.Click(chromedp.CSS(`a[href="/reporting/settings"]`)), chromedp.WaitVisible(chromedp.ID("goals-title")))
	require.Contains(t, text("#goals-title ~ table"), "Reached thank-you page")
	axe("the settings page at 320 px")
	browsertest.Screenshots(t, ctx, shots, "reports-settings")

	// A page goal with no page: said at the top and at the field.
	browsertest.Do(t, ctx, chromedp.Focus(chromedp.ID("goal-name")), chromedp.SendKeys(chromedp.ID("goal-name"), "Pricing seen"))
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, text(".error-summary"), "Give a page")
	axe("a goal with a mistake")
	browsertest.Screenshots(t, ctx, shots, "reports-settings-errors")
	browsertest.Do(t, ctx, chromedp.Focus(chromedp.ID("goal-page")), chromedp.SendKeys(chromedp.ID("goal-page"), "/pricing"))
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, text(".notice"), "The goal “Pricing seen” is counted")
	require.Contains(t, text("#goals-title ~ table"), "A visit to /pricing")

	browsertest.Do(t, ctx, chromedp.Focus(chromedp.ID("link-name")), chromedp.SendKeys(chromedp.ID("link-name"), "Investors"))
	browsertest.Press(t, ctx, "\r", true)
	flash := text(".notice")
	require.Contains(t, flash, "The link for “Investors” is "+srv.URL+"/reporting/shared/")
	link := flash[strings.Index(flash, srv.URL):strings.Index(flash, " — copy")]
	browsertest.Do(t, ctx, chromedp.Focus(chromedp.ID("report-email")), chromedp.SendKeys(chromedp.ID("report-email"), "owner@example.com"))
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, text(".notice"), "owner@example.com gets the weekly report: the first, of the last whole week, within the hour.")
	axe("the settings page after three changes")
	// Removing a goal asks first, naming it and what goes with it.
	browsertest.Do(t, ctx, chromedp.Focus(chromedp.CSS(`#goals-title ~ table a.button`)))
	browsertest.Press(t, ctx, "\r", true)
	first := text("#goals-title ~ table tbody tr td")
	require.Equal(t, "Remove the goal “"+first+"”?", text("#confirm-title"))
	require.Contains(t, text("#goals-title ~ table"), first, "nothing removed before the step is confirmed")
	axe("the step before a goal is removed")
	browsertest.Screenshots(t, ctx, shots, "reports-settings-confirm")
	browsertest.Do(t, ctx, chromedp.Focus(chromedp.CSS(`#confirm-title ~ form button.danger`)))
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, text(".notice"), "The goal and its counts are removed.")

	// The link made works, for anyone.
	browsertest.Do(t, ctx, chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS("figure.chart")))
	require.Contains(t, text("main"), "shared as “Investors”")
	// Revoking it asks first; after, it opens nothing.
	browsertest.Do(t, ctx, chromedp.Navigate(srv.URL+"/reporting/settings"), chromedp.WaitVisible(chromedp.CSS("h1")))
	browsertest.Do(t, ctx, chromedp.Focus(chromedp.CSS(`#links-title ~ table a.button`)))
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, text("#confirm-title"), "Revoke the link for “Investors”?")
	browsertest.Do(t, ctx, chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS("figure.chart")))
	browsertest.Do(t, ctx, chromedp.Navigate(srv.URL+"/reporting/settings?revoke-link=1"), chromedp.WaitVisible(chromedp.CSS("#confirm-title")))
	browsertest.Do(t, ctx, chromedp.Focus(chromedp.CSS(`#confirm-title ~ form button.danger`)))
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, text(".notice"), "The link is revoked")
	browsertest.Do(t, ctx, chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS("h1")))
	require.NotContains(t, text("main"), "shared as “Investors”")

	manager = false
	browsertest.Do(t, ctx, chromedp.Navigate(srv.URL+"/reporting"), chromedp.WaitVisible(chromedp.CSS("figure.chart")))
	require.NotContains(t, text("main"), "Goals, shared links, email reports and addresses")
	res, err := http.Get(srv.URL + "/reporting/settings")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 403, res.StatusCode)
}

// cardShots saves the element sel of the tab's page at 390 and 1280 px,
// light and dark, as <name>-<width>-<scheme>.png in dir (nothing when
// dir is ""): a card deep in a long page, which a page's picture cuts off.
func cardShots(t *testing.T, ctx context.Context, dir, sel, name string) {
	t.Helper()
	if dir == "" {
		return
	}
	for _, width := range []int64{390, 1280} {
		for _, scheme := range []string{"light", "dark"} {
			require.NoError(t, browsertest.SetScheme(ctx, scheme))
			png, err := browsertest.AtWidth(ctx, width, func(ctx context.Context) ([]byte, error) {
				return chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(sel)))
			})
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d-%s.png", name, width, scheme)), png, 0o644))
		}
	}
	require.NoError(t, browsertest.SetScheme(ctx, "light"))
}
