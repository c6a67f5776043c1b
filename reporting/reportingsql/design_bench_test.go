package reportingsql_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// BenchmarkSessionTableDesign measures a design, not the store: reports
// narrowed by any dimensions together, read at query time from a table of
// sessions (one row a session with its source, campaign, country,
// device, browser, system, entry and exit, and one row a page it saw),
// instead of rollups of every combination. The traffic is that of
// BenchmarkReports (about a million page views in 90 days, 4,000 visitors
// a day), so the times compare with its rollup reads.
func BenchmarkSessionTableDesign(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			db := storetest.Open(b, d)
			ctx := context.Background()
			for _, q := range []string{
				`CREATE TABLE design_sessions (day TEXT NOT NULL, sid BIGINT NOT NULL, visitor BIGINT NOT NULL, entry TEXT NOT NULL,
					exit TEXT NOT NULL, views BIGINT NOT NULL, events BIGINT NOT NULL, duration BIGINT NOT NULL, source TEXT NOT NULL,
					campaign TEXT NOT NULL, country TEXT NOT NULL, device TEXT NOT NULL, browser TEXT NOT NULL, os TEXT NOT NULL,
					PRIMARY KEY (day, sid))`,
				`CREATE TABLE design_pages (day TEXT NOT NULL, sid BIGINT NOT NULL, path TEXT NOT NULL, views BIGINT NOT NULL,
					PRIMARY KEY (day, sid, path))`,
			} {
				if _, err := db.ExecContext(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
			start := time.Now()
			sessions, pages := seedSessions(b, db)
			b.Logf("seeded %d sessions, %d session pages in %s", sessions, pages, time.Since(start).Round(time.Second))
			if d == store.Postgres {
				if _, err := db.Exec("VACUUM ANALYZE"); err != nil {
					b.Fatal(err)
				}
			} else if _, err := db.Exec("ANALYZE"); err != nil {
				b.Fatal(err)
			}
			for _, days := range []int{7, 28, 90} {
				from := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -days+1).Format(time.DateOnly)
				for _, q := range []struct{ name, sql string }{
					{"trend-3-filters", `SELECT day, COUNT(DISTINCT visitor), COUNT(*), SUM(views), SUM(duration),
						SUM(CASE WHEN views = 1 AND events = 0 THEN 1 ELSE 0 END) FROM design_sessions
						WHERE day >= ? AND day <= '2026-06-01' AND source = 's3.example' AND country = 'DE' AND device = 'mobile' GROUP BY day`},
					{"pages-2-filters", `SELECT p.path, SUM(p.views) AS v, COUNT(DISTINCT s.visitor) FROM design_sessions s
						JOIN design_pages p ON p.day = s.day AND p.sid = s.sid
						WHERE s.day >= ? AND s.day <= '2026-06-01' AND s.country = 'FR' AND s.browser = 'Firefox'
						GROUP BY p.path ORDER BY v DESC LIMIT 10`},
					{"sources-by-page", `SELECT s.source, SUM(s.views) AS v, COUNT(DISTINCT s.visitor) FROM design_sessions s
						WHERE s.day >= ? AND s.day <= '2026-06-01'
						AND EXISTS (SELECT 1 FROM design_pages p WHERE p.day = s.day AND p.sid = s.sid AND p.path = '/p/7')
						GROUP BY s.source ORDER BY v DESC LIMIT 10`},
					{"countries-unfiltered", `SELECT country, SUM(views) AS v, COUNT(DISTINCT visitor) FROM design_sessions
						WHERE day >= ? AND day <= '2026-06-01' GROUP BY country ORDER BY v DESC LIMIT 10`},
				} {
					b.Run(fmt.Sprintf("%s-%dd", q.name, days), func(b *testing.B) {
						for b.Loop() {
							rows, err := db.QueryContext(ctx, db.Rebind(q.sql), from)
							if err != nil {
								b.Fatal(err)
							}
							n := 0
							for rows.Next() {
								n++
							}
							if err := rows.Close(); err != nil || n == 0 {
								b.Fatal(err, n)
							}
						}
					})
				}
			}
		})
	}
}

// seedSessions writes 90 days of sessions: 4,000 visitors a day, 1.25
// sessions each, 2.2 page views a session over 2,000 pages.
func seedSessions(b *testing.B, db *store.DB) (int, int) {
	b.Helper()
	rng := rand.New(rand.NewPCG(8, 35))
	countries := []string{"DE", "FR", "US", "GB", "JP", "NL", "IT", "ES", "BR", "IN"}
	devices := []string{"desktop", "mobile", "tablet"}
	browsers := []string{"Chrome", "Safari", "Firefox", "Edge", "Opera"}
	systems := []string{"Windows", "MacOS", "iOS", "Android", "Linux"}
	var srows, prows [][]any
	var sid int64
	nsessions, npages := 0, 0
	flush := func(force bool) {
		for _, t := range []struct {
			rows *[][]any
			q    string
		}{{&srows, "INSERT INTO design_sessions VALUES %s"}, {&prows, "INSERT INTO design_pages VALUES %s"}} {
			if len(*t.rows) == 0 || !force && len(*t.rows) < 500 {
				continue
			}
			n := len((*t.rows)[0])
			one := "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")"
			var args []any
			for _, r := range *t.rows {
				args = append(args, r...)
			}
			q := db.Rebind(fmt.Sprintf(t.q, strings.TrimSuffix(strings.Repeat(one+", ", len(*t.rows)), ", ")))
			if _, err := db.Exec(q, args...); err != nil {
				b.Fatal(err)
			}
			*t.rows = (*t.rows)[:0]
		}
	}
	for dayN := range 90 {
		day := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -dayN).Format(time.DateOnly)
		for v := range 4000 {
			visitor := int64(dayN*10_000 + v)
			for range 1 + rng.IntN(4)/3 {
				sid++
				n := 1 + rng.IntN(3)
				seen := map[string]bool{}
				var entry, exit string
				for i := range n {
					p := fmt.Sprintf("/p/%d", int(rng.ExpFloat64()*200)%2000)
					if i == 0 {
						entry = p
					}
					exit = p
					if !seen[p] {
						seen[p] = true
						prows = append(prows, []any{day, sid, p, int64(1)})
						npages++
					}
				}
				srows = append(srows, []any{day, sid, visitor, entry, exit, int64(n), int64(rng.IntN(2)), int64(rng.IntN(600)),
					fmt.Sprintf("s%d.example", int(rng.ExpFloat64()*5)%40), "", countries[rng.IntN(len(countries))],
					devices[rng.IntN(3)], browsers[rng.IntN(5)], systems[rng.IntN(5)]})
				nsessions++
				flush(false)
			}
		}
	}
	flush(true)
	return nsessions, npages
}
