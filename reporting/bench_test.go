package reporting_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// Page views posted over loopback HTTP by 16 clients, each from its own
// address through a trusted proxy, written by the collector's flushes;
// the last flush is inside the timing.
func BenchmarkCollect(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			db := storetest.Open(b, d, reportingsql.Migrations)
			a, err := reporting.NewAnalytics(reportingsql.New(db), nil)
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { a.Run(ctx); close(done) }()
			h, err := reporting.NewCollectHandler(a, &reporting.CollectOptions{
				HTTPOptions: groundwork.HTTPOptions{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}},
				Hosts:       []string{"shop.example"},
			})
			if err != nil {
				b.Fatal(err)
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			var n atomic.Int64
			b.SetParallelism(8)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
				for pb.Next() {
					i := n.Add(1)
					body := `{"name":"pageview","url":"https://shop.example/p/` + strconv.Itoa(int(i%200)) + `","title":"Page","referrer":"https://search.example/"}`
					req, _ := http.NewRequest("POST", srv.URL+"/analytics/collect", strings.NewReader(body))
					req.Header.Set("User-Agent", browser)
					req.Header.Set("X-Forwarded-For", fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255))
					res, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					res.Body.Close()
					if res.StatusCode != http.StatusAccepted {
						b.Errorf("status %d", res.StatusCode)
						return
					}
				}
			})
			cancel()
			<-done
			b.StopTimer()
			var views int64
			if err := db.Get(&views, "SELECT COALESCE(SUM(views), 0) FROM reporting_daily WHERE dim = 'total'"); err != nil {
				b.Fatal(err)
			}
			if views != n.Load() {
				b.Fatalf("%d views recorded of %d", views, n.Load())
			}
		})
	}
}

// seedMillion records 1,000,000 page views over 90 days through the
// store: 2,000 pages, 40 sources, 3 devices, 20 events, a visitor
// population of 4,000 a day, each visitor of one of 20 countries,
// browsers and systems, a view in ten with a campaign.
func seedMillion(b *testing.B, st reporting.Store, today time.Time) {
	b.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	const days, total = 90, 1_000_000
	devices := []string{"desktop", "mobile", "tablet"}
	browsers := []string{"Chrome", "Safari", "Firefox", "Edge", "Opera"}
	systems := []string{"Windows", "MacOS", "iOS", "Android", "Linux"}
	for d := range days {
		day := today.AddDate(0, 0, d-(days-1))
		var batch []reporting.Hit
		for i := range total / days {
			h := reporting.Hit{At: day.Add(time.Duration(i) * time.Second * 7), Day: day.Format(time.DateOnly),
				Visitor: "v" + strconv.Itoa(r.IntN(4000)), Path: "/p/" + strconv.Itoa(int(r.ExpFloat64()*300)%2000),
				Title: "Page", Source: "s" + strconv.Itoa(r.IntN(40)), Device: devices[r.IntN(3)]}
			v, _ := strconv.Atoi(h.Visitor[1:])
			h.Country = string(rune('A'+v%20)) + "X"
			h.Browser, h.OS = browsers[v%5], systems[v/5%5]
			if i%10 == 0 {
				h.Campaign = [4]string{"email", "c" + strconv.Itoa(r.IntN(30)), "", ""}
			}
			if i%50 == 0 {
				h.Event = "e" + strconv.Itoa(r.IntN(20))
			}
			batch = append(batch, h)
			if len(batch) == 5000 {
				if err := st.Record(context.Background(), batch, nil); err != nil {
					b.Fatal(err)
				}
				batch = batch[:0]
			}
		}
		if err := st.Record(context.Background(), batch, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// funnelSteps is the benchmarks' funnel: a popular section, one of its
// pages, an event.
var funnelSteps = []string{"page:/p/1*", "page:/p/12", "event:e3"}

// The reports over a million page views in 90 days, uncached (straight
// from the source).
func BenchmarkReports(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			db := storetest.Open(b, d, reportingsql.Migrations)
			today := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
			st := reportingsql.New(db)
			start := time.Now()
			seedMillion(b, st, today)
			b.Logf("seeded a million views in %s", time.Since(start).Round(time.Second))
			// The steady state: the uniques of past days forgotten (as the
			// hourly housekeeping does) and, on Postgres, the tables
			// vacuumed and analyzed (as autovacuum would by now; left to
			// itself it works through the deletions during the timing).
			if _, err := st.Forget(context.Background(), today.Format(time.DateOnly), ""); err != nil {
				b.Fatal(err)
			}
			if d == store.Postgres {
				if _, err := db.Exec("VACUUM ANALYZE"); err != nil {
					b.Fatal(err)
				}
			}
			a, err := reporting.NewAnalytics(st, &reporting.AnalyticsOptions{Now: func() time.Time { return today.Add(12 * time.Hour) }})
			if err != nil {
				b.Fatal(err)
			}
			q := reporting.AnalyticsQuery{Days: 90, Limit: 10}
			b.Run("overview", func(b *testing.B) {
				for b.Loop() {
					ov, err := a.Overview(context.Background(), q)
					if err != nil || ov.Totals.PageViews < 900_000 {
						b.Fatal(err, ov.Totals.PageViews)
					}
				}
			})
			b.Run("top-content", func(b *testing.B) {
				for b.Loop() {
					tc, err := a.TopContent(context.Background(), q)
					if err != nil || len(tc.TopPages) != 10 {
						b.Fatal(err)
					}
				}
			})
			g, err := a.AddGoal(context.Background(), reporting.Goal{Page: "/p/1*"})
			if err != nil {
				b.Fatal(err)
			}
			country, browser := reporting.Filter{Dim: reporting.DimCountry, Value: "CX"}, reporting.Filter{Dim: reporting.DimBrowser, Value: "Firefox"}
			mobile, page := reporting.Filter{Dim: reporting.DimDevice, Value: "mobile"}, reporting.Filter{Dim: reporting.DimPage, Value: "/p/7"}
			goal := reporting.Filter{Dim: reporting.DimGoal, Value: strconv.FormatInt(g.ID, 10)}
			narrowed := func(q reporting.AnalyticsQuery, fs ...reporting.Filter) reporting.AnalyticsQuery {
				q.Filters = fs
				return q
			}
			// The dashboard's further panels, over 7, 28 and 90 days.
			for _, days := range []int{7, 28, 90} {
				pq := reporting.AnalyticsQuery{Days: days, Limit: 10}
				for _, p := range []struct {
					name string
					read func() error
				}{
					{"countries", func() error { _, err := a.Breakdown(context.Background(), reporting.DimCountry, pq); return err }},
					{"browsers", func() error { _, err := a.Breakdown(context.Background(), reporting.DimBrowser, pq); return err }},
					{"campaigns", func() error { _, err := a.Breakdown(context.Background(), reporting.DimCampaign, pq); return err }},
					{"entry-pages", func() error { _, err := a.EntryPages(context.Background(), pq); return err }},
					{"exit-pages", func() error { _, err := a.ExitPages(context.Background(), pq); return err }},
					{"goals", func() error { _, err := a.GoalConversions(context.Background(), pq); return err }},
					// Narrowed by dimensions the rollups do not pair: read from
					// the views kept by visitor.
					{"filtered-overview", func() error { _, err := a.Overview(context.Background(), narrowed(pq, country, browser)); return err }},
					{"filtered-pages", func() error { _, err := a.TopContent(context.Background(), narrowed(pq, country, mobile)); return err }},
					{"filtered-countries-by-page", func() error {
						_, err := a.Breakdown(context.Background(), reporting.DimCountry, narrowed(pq, page))
						return err
					}},
					{"filtered-goals", func() error { _, err := a.GoalConversions(context.Background(), narrowed(pq, country)); return err }},
					{"filtered-sources-by-goal", func() error {
						_, err := a.Breakdown(context.Background(), reporting.DimSource, narrowed(pq, goal))
						return err
					}},
					// A funnel of three steps (a page pattern, a page, an
					// event), alone and on mobile.
					{"funnel", func() error { _, err := a.Funnel(context.Background(), pq, funnelSteps); return err }},
					{"filtered-funnel", func() error { _, err := a.Funnel(context.Background(), narrowed(pq, mobile), funnelSteps); return err }},
				} {
					b.Run(fmt.Sprintf("%s-%dd", p.name, days), func(b *testing.B) {
						for b.Loop() {
							if err := p.read(); err != nil {
								b.Fatal(err)
							}
						}
					})
				}
			}
		})
	}
}
