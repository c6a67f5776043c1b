// Command reports seeds a database with a site's analytics (ten million
// views in 90 days by default, varied as bench/varied.lua sends them) and
// times every report over 90 days, unfiltered and filtered, straight from
// the store (no cache): the median of several runs of each, as a
// Markdown table. See BENCHMARKS.md.
//
//	go run ./bench/reports                                  # a SQLite file in a temporary directory
//	go run ./bench/reports -db /tmp/reports.db              # kept: a second run times it again without seeding
//	go run ./bench/reports -db 'postgres://postgres@127.0.0.1:5432/gw_reports?sslmode=disable'
//	go run ./bench/reports -db /tmp/reports.db -live           # while a writer records 100 of today's views a second
//
// A few distinct days (-distinct) are recorded through the store, as the
// collector writes them; the other days are copies of those, row for
// row, and the weeks are summed from the days: seeding ten million views
// one by one would take most of an hour, and a report reads the same
// rows either way.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/bench/traffic"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "reports:", err)
		os.Exit(1)
	}
}

func run() error {
	dsn := flag.String("db", "", "a SQLite file or a postgres:// URL (a temporary SQLite file when empty)")
	views := flag.Int("views", 10_000_000, "the views (and events) of the whole range")
	days := flag.Int("days", 90, "the days they fall on, ending today")
	distinct := flag.Int("distinct", 7, "the days recorded through the store; the others copy them")
	runs := flag.Int("runs", 5, "the runs of each report; the median is given")
	match := flag.String("match", "", "time only the reports whose names hold this")
	live := flag.Bool("live", false, "today is being written: a writer records -rate of today's views a second while the reports run")
	rate := flag.Int("rate", 100, "the views a second the writer records with -live (the site's average is about 1.3)")
	lag := flag.Duration("lag", 0, "the store's Lag: how old its copy of the day being written may be (with -live)")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the timed reports to this file")
	flag.Parse()
	ctx := context.Background()
	if *dsn == "" {
		dir, err := os.MkdirTemp("", "groundwork-reports")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		*dsn = filepath.Join(dir, "reports.db")
	}
	db, err := store.Open(ctx, *dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := store.Migrate(ctx, db, reportingsql.Migrations); err != nil {
		return err
	}
	st := reportingsql.New(db)
	st.Lag = *lag
	today := time.Now().UTC().Truncate(24 * time.Hour)
	var kept int
	if err := db.GetContext(ctx, &kept, `SELECT COUNT(*) FROM reporting_daily`); err != nil {
		return err
	}
	if kept == 0 {
		start := time.Now()
		if err := seed(ctx, db, st, today, *views, *days, *distinct); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "seeded %d views in %d days in %s\n", *views, *days, time.Since(start).Round(time.Second))
	}
	a, err := reporting.NewAnalytics(st, &reporting.AnalyticsOptions{Now: func() time.Time { return today.Add(12 * time.Hour) }})
	if err != nil {
		return err
	}
	goals, err := a.Goals(ctx)
	if err != nil {
		return err
	}
	if len(goals) == 0 {
		for _, g := range []reporting.Goal{{Page: "/p/1*"}, {Name: "Pro", Event: "signup", Property: "plan", Value: "pro"}} {
			made, err := a.AddGoal(ctx, g)
			if err != nil {
				return err
			}
			goals = append(goals, made)
		}
	}
	// The first narrowed report reads the days into memory.
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	if _, err := st.Segment(ctx, reporting.Filters{{Dim: reporting.DimCountry, Value: "C7"}}, reporting.DimTotal,
		today.AddDate(0, 0, -(*days-1)).Format(time.DateOnly), today.Format(time.DateOnly), 0); err != nil {
		return err
	}
	took := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	fmt.Fprintf(os.Stderr, "the first narrowed report read %d days into memory in %s; the heap grew %d MiB\n", *days,
		took.Round(time.Millisecond), (int64(after.HeapAlloc)-int64(before.HeapAlloc))>>20)
	if *live {
		stop, err := write(ctx, st, today, *views / *days, *rate)
		if err != nil {
			return err
		}
		defer stop()
		start := time.Now()
		if _, err := st.Segment(ctx, reporting.Filters{{Dim: reporting.DimCountry, Value: "C7"}}, reporting.DimTotal,
			today.AddDate(0, 0, -(*days-1)).Format(time.DateOnly), today.Format(time.DateOnly), 0); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "the first narrowed report with today being written read its copy of today in %s\n",
			time.Since(start).Round(time.Millisecond))
	}
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	fmt.Printf("| report, 90 days | %s ms (median of %d) |\n|---|---|\n", db.Dialect(), *runs)
	for _, r := range reports(a, goals) {
		if !strings.Contains(r.name, *match) {
			continue
		}
		var took []time.Duration
		for range *runs {
			start := time.Now()
			if err := r.read(ctx); err != nil {
				return fmt.Errorf("%s: %w", r.name, err)
			}
			took = append(took, time.Since(start))
		}
		slices.Sort(took)
		fmt.Printf("| %s | %s |\n", r.name, strconv.FormatFloat(float64(took[len(took)/2].Microseconds())/1000, 'f', 1, 64))
	}
	return nil
}

// write records today's traffic again, rate views a second in one batch
// each second (as the collector flushes), until stop is called: the
// visitors come back, so their rows change, and the day's version rises
// every second. It returns once the first batch is written.
func write(ctx context.Context, st *reportingsql.Store, today time.Time, perDay, rate int) (stop func(), err error) {
	hits := traffic.Day(today, perDay, max(1, perDay*4/11), 1)
	next := func(i int) []reporting.Hit {
		i = i * rate % len(hits)
		return hits[i:min(len(hits), i+rate)]
	}
	if err := st.Record(ctx, next(0), nil); err != nil {
		return nil, err
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for i := 1; ; i++ {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			if err := st.Record(ctx, next(i), nil); err != nil {
				fmt.Fprintln(os.Stderr, "reports: write:", err)
			}
		}
	}()
	return func() { close(done); <-finished }, nil
}

type report struct {
	name string
	read func(context.Context) error
}

// reports are the reports of the dashboard and the API over 90 days:
// each panel unfiltered, then narrowed by filters of each kind (the
// pairs and triples of page, source and device the rollups keep, then
// the other dimensions, goals and properties, read from the views kept
// by visitor).
func reports(a *reporting.Analytics, goals []reporting.Goal) []report {
	q := reporting.AnalyticsQuery{Days: 90, Limit: 10}
	by := func(fs ...reporting.Filter) reporting.AnalyticsQuery {
		f := q
		f.Filters = fs
		return f
	}
	f := func(d reporting.Dimension, v string) reporting.Filter { return reporting.Filter{Dim: d, Value: v} }
	page, source, mobile := f(reporting.DimPage, "/p/7"), f(reporting.DimSource, "ref7.example"), f(reporting.DimDevice, "mobile")
	country, browser := f(reporting.DimCountry, "C7"), f(reporting.DimBrowser, "Firefox")
	campaign := f(reporting.DimCampaign, "spring-3")
	goal := f(reporting.DimGoal, strconv.FormatInt(goals[0].ID, 10))
	prop := f(reporting.DimGoal, strconv.FormatInt(goals[1].ID, 10))
	var out []report
	add := func(name string, q reporting.AnalyticsQuery) {
		out = append(out,
			report{"overview" + name, func(ctx context.Context) error { _, err := a.Overview(ctx, q); return err }},
			report{"top pages and events" + name, func(ctx context.Context) error { _, err := a.TopContent(ctx, q); return err }},
			report{"sources" + name, func(ctx context.Context) error { _, err := a.Breakdown(ctx, reporting.DimSource, q); return err }},
			report{"countries" + name, func(ctx context.Context) error { _, err := a.Breakdown(ctx, reporting.DimCountry, q); return err }},
			report{"browsers" + name, func(ctx context.Context) error { _, err := a.Breakdown(ctx, reporting.DimBrowser, q); return err }},
			report{"campaigns" + name, func(ctx context.Context) error { _, err := a.Breakdown(ctx, reporting.DimCampaign, q); return err }},
			report{"entry pages" + name, func(ctx context.Context) error { _, err := a.EntryPages(ctx, q); return err }},
			report{"exit pages" + name, func(ctx context.Context) error { _, err := a.ExitPages(ctx, q); return err }},
			report{"goals" + name, func(ctx context.Context) error { _, err := a.GoalConversions(ctx, q); return err }},
			report{"event properties" + name, func(ctx context.Context) error {
				e := q
				e.Event = "signup"
				_, err := a.EventProperties(ctx, e)
				return err
			}},
		)
	}
	add("", q)
	add(", by page", by(page))
	add(", by source and device", by(source, mobile))
	add(", by page, source and device", by(page, source, mobile))
	add(", by country", by(country))
	add(", by country and browser", by(country, browser))
	add(", by campaign", by(campaign))
	add(", by a page goal", by(goal))
	add(", by a property's goal", by(prop))
	return out
}

// seed records distinct days of varied traffic through st (views/days
// each), copies them to the other days, and sums the weeks from the
// days.
func seed(ctx context.Context, db *store.DB, st *reportingsql.Store, today time.Time, views, days, distinct int) error {
	if distinct < 1 || distinct > days {
		return errors.New("-distinct must be between 1 and -days")
	}
	perDay := views / days
	var recorded []string
	for d := range distinct {
		day := today.AddDate(0, 0, -d)
		hits := traffic.Day(day, perDay, max(1, perDay*4/11), uint64(d+1))
		for chunk := range slices.Chunk(hits, reporting.FlushBatchDefault) {
			if err := st.Record(ctx, chunk, nil); err != nil {
				return err
			}
		}
		recorded = append(recorded, day.Format(time.DateOnly))
	}
	tables := []string{"reporting_daily", "reporting_pairs", "reporting_triples", "reporting_views", "reporting_visitor_events"}
	columns := map[string][]string{}
	for _, t := range tables {
		rows, err := db.QueryxContext(ctx, `SELECT * FROM `+t+` LIMIT 0`)
		if err != nil {
			return err
		}
		cols, err := rows.Columns()
		rows.Close()
		if err != nil {
			return err
		}
		columns[t] = cols
	}
	for d := distinct; d < days; d++ {
		day, from := today.AddDate(0, 0, -d).Format(time.DateOnly), recorded[d%distinct]
		err := db.InTx(ctx, func(tx *sqlx.Tx) error {
			for _, t := range tables {
				picked := slices.Clone(columns[t])
				picked[slices.Index(picked, "day")] = "?"
				if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO `+t+` (`+strings.Join(columns[t], ", ")+`) SELECT `+
					strings.Join(picked, ", ")+` FROM `+t+` WHERE day = ?`), day, from); err != nil {
					return fmt.Errorf("%s: %w", t, err)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	// The weeks (Mondays) from the days.
	if _, err := db.ExecContext(ctx, `DELETE FROM reporting_weekly`); err != nil {
		return err
	}
	first := today.AddDate(0, 0, -(days - 1))
	for w := first.AddDate(0, 0, -((int(first.Weekday()) + 6) % 7)); !w.After(today); w = w.AddDate(0, 0, 7) {
		if _, err := db.ExecContext(ctx, db.Rebind(`INSERT INTO reporting_weekly (week, dim, key, label, views, visitors, sessions, duration_seconds, bounces)
			SELECT ?, dim, key, MAX(label), SUM(views), SUM(visitors), SUM(sessions), SUM(duration_seconds), SUM(bounces)
			FROM reporting_daily WHERE day >= ? AND day <= ? GROUP BY dim, key`),
			w.Format(time.DateOnly), w.Format(time.DateOnly), w.AddDate(0, 0, 6).Format(time.DateOnly)); err != nil {
			return err
		}
	}
	// The steady state: the visitors' days before yesterday forgotten (as
	// the hourly housekeeping does), the tables analysed.
	if _, err := st.Forget(ctx, today.Format(time.DateOnly), ""); err != nil {
		return err
	}
	analyze := "ANALYZE"
	if db.Dialect() == store.Postgres {
		analyze = "VACUUM ANALYZE"
	}
	_, err := db.ExecContext(ctx, analyze)
	return err
}
