package reportingsql_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/bench/traffic"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// variedDay is a day of varied traffic (traffic.Day) on 1 June 2026.
func variedDay(n, visitors int) []reporting.Hit {
	return traffic.Day(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), n, visitors, 1)
}

// BenchmarkRollupFromViewsDesign measures a design, not the store (toward
// issue 50): the collector writing only what a view adds to
// reporting_views, reporting_visitor_events and the session's row, and a
// job computing a day's rollups from those rows in SQL, against today's
// write path (every rollup and every unique-visitor marker written with
// the view). One day of varied traffic, 110,000 views (ten million in 90
// days) from 40,000 visitors, is first recorded through today's Store
// (its cost and rows per view logged); each iteration then computes that
// day's rollups by dimension, pair and triple from reporting_views and
// reporting_visitor_events, as the job would.
func BenchmarkRollupFromViewsDesign(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			db := storetest.Open(b, d, reportingsql.Migrations)
			s := reportingsql.New(db)
			ctx := context.Background()
			views, visitors := 110_000, 40_000
			if n, err := strconv.Atoi(os.Getenv("GROUNDWORK_DESIGN_VIEWS")); err == nil && n > 0 { // a smaller day, to try it
				views, visitors = n, max(1, n*4/11)
			}
			hits := variedDay(views, visitors)
			start := time.Now()
			for chunk := range slices.Chunk(hits, 1000) {
				if err := s.Record(ctx, chunk, nil); err != nil {
					b.Fatal(err)
				}
			}
			took := time.Since(start)
			b.Logf("today's Record: %d hits in %s, %.0f µs a hit", len(hits), took.Round(time.Millisecond),
				float64(took.Microseconds())/float64(len(hits)))
			rows := 0
			var counts []string
			for _, table := range []string{"reporting_daily", "reporting_weekly", "reporting_seen", "reporting_pairs", "reporting_triples",
				"reporting_views", "reporting_visitor_events"} {
				var n int
				if err := db.GetContext(ctx, &n, "SELECT COUNT(*) FROM "+table); err != nil {
					b.Fatal(err)
				}
				rows += n
				counts = append(counts, fmt.Sprintf("%s %.2f", strings.TrimPrefix(table, "reporting_"), float64(n)/float64(len(hits))))
			}
			b.Logf("rows a hit: %.2f (%s)", float64(rows)/float64(len(hits)), strings.Join(counts, ", "))
			for _, prepared := range []bool{false, true} {
				raw := rawIntake(b, db, hits, prepared)
				b.Logf("the design's intake (views, events and session rows only; prepared single rows %t): %.0f µs a hit", prepared,
					float64(raw.Microseconds())/float64(len(hits)))
			}
			for _, q := range []string{
				`CREATE TABLE design_daily (day TEXT NOT NULL, dim TEXT NOT NULL, key TEXT NOT NULL, label TEXT NOT NULL, views BIGINT NOT NULL,
					visitors BIGINT NOT NULL, sessions BIGINT NOT NULL, duration_seconds BIGINT NOT NULL, bounces BIGINT NOT NULL,
					PRIMARY KEY (dim, day, key))`,
				`CREATE TABLE design_pairs (day TEXT NOT NULL, pair TEXT NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL, label TEXT NOT NULL,
					views BIGINT NOT NULL, visitors BIGINT NOT NULL, sessions BIGINT NOT NULL, PRIMARY KEY (pair, a, day, b))`,
				`CREATE TABLE design_triples (day TEXT NOT NULL, page TEXT NOT NULL, source TEXT NOT NULL, device TEXT NOT NULL, label TEXT NOT NULL,
					views BIGINT NOT NULL, visitors BIGINT NOT NULL, sessions BIGINT NOT NULL, PRIMARY KEY (source, device, day, page))`,
			} {
				if _, err := db.ExecContext(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := db.ExecContext(ctx, "ANALYZE"); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if err := db.InTx(ctx, func(tx *sqlx.Tx) error { return rollUpDay(ctx, tx, "2026-06-01") }); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			var n int
			if err := db.GetContext(ctx, &n, "SELECT COUNT(*) FROM design_daily"); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(n), "rollup-rows")
		})
	}
}

// rollUpDay computes one day's rollups from reporting_views and
// reporting_visitor_events into the design_ tables, replacing the day's.
func rollUpDay(ctx context.Context, tx *sqlx.Tx, day string) error {
	cols := map[string]string{"page": "page", "source": "source", "device": "device", "country": "country", "browser": "browser",
		"os": "os", "medium": "medium", "campaign": "campaign", "term": "term", "content": "content"}
	qs := []string{
		`DELETE FROM design_daily WHERE day = ?`, `DELETE FROM design_pairs WHERE day = ?`, `DELETE FROM design_triples WHERE day = ?`,
		`INSERT INTO design_daily SELECT day, 'total', '', '', SUM(views), COUNT(DISTINCT visitor), SUM(sessions), SUM(duration_seconds),
			SUM(bounces) FROM reporting_views WHERE day = ? GROUP BY day`,
		`INSERT INTO design_daily SELECT day, 'entry', page, MAX(label), SUM(sessions), COUNT(DISTINCT visitor), SUM(sessions),
			SUM(duration_seconds), SUM(bounces) FROM reporting_views WHERE day = ? AND sessions > 0 GROUP BY day, page`,
		`INSERT INTO design_daily SELECT day, 'exit', page, MAX(label), SUM(exits), COUNT(DISTINCT visitor), 0, 0, 0
			FROM reporting_views WHERE day = ? AND exits > 0 GROUP BY day, page`,
		`INSERT INTO design_daily SELECT day, 'event', event, '', SUM(count), COUNT(DISTINCT visitor), 0, 0, 0
			FROM reporting_visitor_events WHERE day = ? AND prop = '' GROUP BY day, event`,
		`INSERT INTO design_daily SELECT day, 'prop', event || prop, '', SUM(count), COUNT(DISTINCT visitor), 0, 0, 0
			FROM reporting_visitor_events WHERE day = ? AND prop <> '' GROUP BY day, event, prop`,
		`INSERT INTO design_pairs SELECT day, 'page>source', page, source, MAX(label), SUM(views), COUNT(DISTINCT visitor), SUM(sessions)
			FROM reporting_views WHERE day = ? GROUP BY day, page, source`,
		`INSERT INTO design_pairs SELECT day, 'page>device', page, device, MAX(label), SUM(views), COUNT(DISTINCT visitor), SUM(sessions)
			FROM reporting_views WHERE day = ? GROUP BY day, page, device`,
		`INSERT INTO design_pairs SELECT day, 'source>device', source, device, '', SUM(views), COUNT(DISTINCT visitor), SUM(sessions)
			FROM reporting_views WHERE day = ? GROUP BY day, source, device`,
		`INSERT INTO design_triples SELECT day, page, source, device, MAX(label), SUM(views), COUNT(DISTINCT visitor), SUM(sessions)
			FROM reporting_views WHERE day = ? GROUP BY day, page, source, device`,
	}
	for _, dim := range []string{"page", "source", "device", "country", "browser", "os", "medium", "campaign", "term", "content"} {
		c := cols[dim]
		label := "''"
		if dim == "page" {
			label = "MAX(label)"
		}
		qs = append(qs, `INSERT INTO design_daily SELECT day, '`+dim+`', `+c+`, `+label+`, SUM(views), COUNT(DISTINCT visitor), SUM(sessions),
			SUM(duration_seconds), SUM(bounces) FROM reporting_views WHERE day = ? AND `+c+` <> '' GROUP BY day, `+c)
	}
	for _, q := range qs {
		if _, err := tx.ExecContext(ctx, tx.Rebind(q), day); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// rawIntake writes what the design's collector would for hits, in
// batches of 1,000 (each batch's rows summed first, as a flush does):
// reporting_views-like rows, each visitor's events, and one session row a
// visitor, into tables of their own (emptied first), 100 rows a statement
// or, prepared, one row a statement prepared once a batch. It answers how
// long that took.
func rawIntake(b *testing.B, db *store.DB, hits []reporting.Hit, prepared bool) time.Duration {
	ctx := context.Background()
	for _, t := range []string{"design_views", "design_events", "design_visits"} {
		if _, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			b.Fatal(err)
		}
	}
	write := upsert
	if prepared {
		write = upsertPrepared
	}
	for _, q := range []string{
		`CREATE TABLE design_views (day TEXT NOT NULL, visitor BIGINT NOT NULL, row_key BIGINT NOT NULL, page TEXT NOT NULL, label TEXT NOT NULL,
			source TEXT NOT NULL, device TEXT NOT NULL, country TEXT NOT NULL, browser TEXT NOT NULL, os TEXT NOT NULL, medium TEXT NOT NULL,
			campaign TEXT NOT NULL, term TEXT NOT NULL, content TEXT NOT NULL, views BIGINT NOT NULL, PRIMARY KEY (day, visitor, row_key))`,
		`CREATE TABLE design_events (day TEXT NOT NULL, visitor BIGINT NOT NULL, event TEXT NOT NULL, prop TEXT NOT NULL, count BIGINT NOT NULL,
			PRIMARY KEY (day, visitor, event, prop))`,
		`CREATE TABLE design_visits (day TEXT NOT NULL, visitor BIGINT NOT NULL, last_seen TEXT NOT NULL, page TEXT NOT NULL, hits BIGINT NOT NULL,
			PRIMARY KEY (day, visitor))`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	start := time.Now()
	for chunk := range slices.Chunk(hits, 1000) {
		type viewKey struct{ visitor, key int64 }
		hash := func(parts ...string) int64 {
			f := fnv.New64a()
			for _, p := range parts {
				f.Write([]byte(p))
				f.Write([]byte{0})
			}
			return int64(f.Sum64())
		}
		views := map[viewKey][]any{}
		events := map[[3]any]int{}
		visits := map[int64][]any{}
		for _, h := range chunk {
			visitor := hash(h.Day, h.Visitor)
			visits[visitor] = []any{h.Day, visitor, h.At.Format(time.RFC3339Nano), h.Path, 1}
			if h.Event != "" {
				events[[3]any{visitor, h.Event, ""}]++
				for _, p := range h.Props {
					events[[3]any{visitor, h.Event, p.Name + "=" + p.Value}]++
				}
				continue
			}
			k := viewKey{visitor, hash(h.Path, h.Source, h.Device, h.Country, h.Browser, h.OS, h.Campaign[0], h.Campaign[1], h.Campaign[2], h.Campaign[3])}
			if r := views[k]; r != nil {
				r[14] = r[14].(int) + 1
				continue
			}
			views[k] = []any{h.Day, k.visitor, k.key, h.Path, h.Title, h.Source, h.Device, h.Country, h.Browser, h.OS,
				h.Campaign[0], h.Campaign[1], h.Campaign[2], h.Campaign[3], 1}
		}
		err := db.InTx(ctx, func(tx *sqlx.Tx) error {
			if err := write(ctx, tx, `INSERT INTO design_views VALUES %s ON CONFLICT (day, visitor, row_key) DO UPDATE SET views = design_views.views + excluded.views`,
				15, mapValues(views)); err != nil {
				return err
			}
			var ev [][]any
			for k, n := range events {
				ev = append(ev, []any{"2026-06-01", k[0], k[1], k[2], n})
			}
			if err := write(ctx, tx, `INSERT INTO design_events VALUES %s ON CONFLICT (day, visitor, event, prop) DO UPDATE SET count = design_events.count + excluded.count`,
				5, ev); err != nil {
				return err
			}
			return write(ctx, tx, `INSERT INTO design_visits VALUES %s ON CONFLICT (day, visitor) DO UPDATE SET last_seen = excluded.last_seen,
				page = excluded.page, hits = design_visits.hits + excluded.hits`, 5, mapValues(visits))
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}

func mapValues[K comparable](m map[K][]any) [][]any {
	out := make([][]any, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// upsert runs q (a "%s" where the VALUES go) over rows of width columns,
// 100 rows a statement.
func upsert(ctx context.Context, tx *sqlx.Tx, q string, width int, rows [][]any) error {
	for part := range slices.Chunk(rows, 100) {
		var sb strings.Builder
		args := make([]any, 0, len(part)*width)
		for i, r := range part {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString("(")
			for j := range width {
				if j > 0 {
					sb.WriteString(", ")
				}
				fmt.Fprintf(&sb, "$%d", len(args)+j+1)
			}
			sb.WriteString(")")
			args = append(args, r...)
		}
		if _, err := tx.ExecContext(ctx, tx.Rebind(fmt.Sprintf(q, sb.String())), args...); err != nil {
			return err
		}
	}
	return nil
}

// upsertPrepared runs q with one row's VALUES, prepared once, for each
// row.
func upsertPrepared(ctx context.Context, tx *sqlx.Tx, q string, width int, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	st, err := tx.PreparexContext(ctx, tx.Rebind(fmt.Sprintf(q, "("+strings.TrimSuffix(strings.Repeat("?, ", width), ", ")+")")))
	if err != nil {
		return err
	}
	defer st.Close()
	for _, r := range rows {
		if _, err := st.ExecContext(ctx, r...); err != nil {
			return err
		}
	}
	return nil
}
