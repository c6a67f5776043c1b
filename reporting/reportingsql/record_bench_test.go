package reportingsql_test

import (
	"context"
	"database/sql"
	"maps"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// BenchmarkRecordVariedDay records a day of varied traffic (traffic.Day:
// 110,000 hits from 40,000 visitors, as bench/varied.lua sends them) on a
// fresh database, in the collector's batches of
// reporting.FlushBatchDefault, as a writer that has fallen behind writes
// them. Reported per hit; GROUNDWORK_DESIGN_VIEWS sets a smaller day.
func BenchmarkRecordVariedDay(b *testing.B) {
	views, visitors := 110_000, 40_000
	if n, err := strconv.Atoi(os.Getenv("GROUNDWORK_DESIGN_VIEWS")); err == nil && n > 0 {
		views, visitors = n, max(1, n*4/11)
	}
	hits := variedDay(views, visitors)
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				b.StopTimer()
				s := reportingsql.New(storetest.Open(b, d, reportingsql.Migrations))
				b.StartTimer()
				for chunk := range slices.Chunk(hits, reporting.FlushBatchDefault) {
					if err := s.Record(ctx, chunk, nil); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(hits)), "µs/hit")
		})
	}
}

// BenchmarkRecordGoalsReached records a varied day (30,000 hits by
// default; GROUNDWORK_DESIGN_VIEWS sets another) on a site with four page
// goals over its most visited paths, without a goals-reached hook and
// with one that does nothing, interleaved: what collecting and telling
// the goals reached adds to the write path. Reported per hit, with the
// goals told per op.
func BenchmarkRecordGoalsReached(b *testing.B) {
	views := 30_000
	if n, err := strconv.Atoi(os.Getenv("GROUNDWORK_DESIGN_VIEWS")); err == nil && n > 0 {
		views = n
	}
	hits := variedDay(views, max(1, views*4/11))
	counts := map[string]int{}
	for _, h := range hits {
		if h.Event == "" {
			counts[h.Path]++
		}
	}
	paths := slices.Collect(maps.Keys(counts))
	slices.SortFunc(paths, func(a, b string) int { return counts[b] - counts[a] })
	for _, d := range storetest.Dialects() {
		for _, hooked := range []bool{false, true} {
			name := string(d) + "/no-hook"
			if hooked {
				name = string(d) + "/hook"
			}
			b.Run(name, func(b *testing.B) {
				ctx := context.Background()
				told := 0
				var hook func(context.Context, *sql.Tx, []reporting.GoalReached) error
				if hooked {
					hook = func(_ context.Context, _ *sql.Tx, rs []reporting.GoalReached) error { told += len(rs); return nil }
				}
				for b.Loop() {
					b.StopTimer()
					s := reportingsql.New(storetest.Open(b, d, reportingsql.Migrations))
					for _, p := range paths[1:5] {
						if _, err := s.AddGoal(ctx, reporting.Goal{Page: p}); err != nil {
							b.Fatal(err)
						}
					}
					b.StartTimer()
					for chunk := range slices.Chunk(hits, reporting.FlushBatchDefault) {
						if err := s.Record(ctx, chunk, hook); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(hits)), "µs/hit")
				b.ReportMetric(float64(told)/float64(b.N), "told/op")
			})
		}
	}
}
