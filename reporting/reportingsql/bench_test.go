package reportingsql_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// One flush of the collector: 1,000 page views of a busy hour (200
// pages, 20 sources, 3 devices, 400 visitors, a third of them new) in
// one Record, on a day that already holds earlier batches. Reported per
// view.
func BenchmarkRecord(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			s := reportingsql.New(storetest.Open(b, d, reportingsql.Migrations))
			ctx := context.Background()
			start := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
			devices := []string{"desktop", "mobile", "tablet"}
			batch := func(n int) []reporting.Hit {
				hits := make([]reporting.Hit, 1000)
				for i := range hits {
					k := n*1000 + i
					hits[i] = reporting.Hit{At: start.Add(time.Duration(k) * 100 * time.Millisecond), Day: "2026-06-01",
						Visitor: "v" + strconv.Itoa(k%400+n*133), Path: "/p/" + strconv.Itoa(k*7%200), Title: "Page",
						Source: "s" + strconv.Itoa(k%20) + ".example", Device: devices[k%3]}
				}
				return hits
			}
			for n := range 5 { // earlier batches
				if err := s.Record(ctx, batch(n), nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for n := 0; b.Loop(); n++ {
				b.StopTimer()
				hits := batch(5 + n)
				b.StartTimer()
				if err := s.Record(ctx, hits, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/view")
		})
	}
}
