package reportingsql_test

import (
	"context"
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
