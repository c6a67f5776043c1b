package reportingsql_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/reporting/visits"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// TestSessionsAgainstRawHits records a day of made-up traffic in batches
// cut at random (a session's hits fall into several) and checks the
// sessions, bounces, visit length, entry and exit pages the reports give
// against the same figures computed here from the raw hits, by the
// definitions: a session is a visitor's hits with no gap over visits.Gap,
// begun by a page view; a bounce is a session of one page view and no
// event; its length is its last hit minus its first; it enters on its
// first page and exits on its last.
func TestSessionsAgainstRawHits(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(35, 6))
	pages := []string{"/", "/pricing", "/blog/a", "/blog/b", "/thanks"}
	var hits []reporting.Hit
	for v := range 120 {
		visitor := fmt.Sprintf("v%03d", v)
		at := day.Add(time.Duration(rng.IntN(20*60)) * time.Minute)
		n := 1 + rng.IntN(6)
		if rng.IntN(5) == 0 { // an event first, before any page view: no session
			hits = append(hits, reporting.Hit{At: at.Add(-time.Minute), Day: "2026-06-01", Visitor: visitor, Event: "early"})
		}
		for range n {
			path := pages[rng.IntN(len(pages))]
			hits = append(hits, reporting.Hit{At: at, Day: "2026-06-01", Visitor: visitor, Path: path, Title: "T" + path, Source: "Direct", Device: "desktop"})
			if rng.IntN(4) == 0 {
				hits = append(hits, reporting.Hit{At: at.Add(time.Duration(rng.IntN(90)) * time.Second), Day: "2026-06-01", Visitor: visitor, Event: "click"})
			}
			// Mostly close together; now and then a gap that ends the session.
			gaps := []time.Duration{20 * time.Second, 3 * time.Minute, 12 * time.Minute, 29 * time.Minute, 31 * time.Minute, 2 * time.Hour}
			at = at.Add(gaps[rng.IntN(len(gaps))])
			if at.Day() != day.Day() {
				break
			}
		}
	}

	// The expected figures, from the raw hits.
	type sess struct {
		first, last       time.Time
		entry, exit       string
		views, events     int
		visitor, lastPage string
	}
	byTime := slices.Clone(hits)
	slices.SortStableFunc(byTime, func(a, b reporting.Hit) int { return a.At.Compare(b.At) })
	open := map[string]*sess{}
	var all []*sess
	for _, h := range byTime {
		s := open[h.Visitor]
		if s != nil && h.At.Sub(s.last) > visits.Gap {
			s = nil
		}
		if h.Event != "" {
			if s != nil {
				s.events++
				s.last = h.At
			}
			continue
		}
		if s == nil {
			s = &sess{first: h.At, entry: h.Path, visitor: h.Visitor}
			open[h.Visitor] = s
			all = append(all, s)
		}
		s.views++
		s.last, s.exit = h.At, h.Path
	}
	var bounces, seconds int64
	entries, entryBounces, entrySeconds, exits := map[string]int64{}, map[string]int64{}, map[string]int64{}, map[string]int64{}
	entryVisitors := map[string]map[string]bool{}
	for _, s := range all {
		secs := int64(s.last.Sub(s.first) / time.Second)
		seconds += secs
		entries[s.entry]++
		entrySeconds[s.entry] += secs
		exits[s.exit]++
		if entryVisitors[s.entry] == nil {
			entryVisitors[s.entry] = map[string]bool{}
		}
		entryVisitors[s.entry][s.visitor] = true
		if s.views == 1 && s.events == 0 {
			bounces++
			entryBounces[s.entry]++
		}
	}
	require.Positive(t, bounces)
	require.Less(t, bounces, int64(len(all)))

	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		st := reportingsql.New(storetest.Open(t, d, reportingsql.Migrations))
		ctx := context.Background()
		// Batches as the collector cuts them: in arrival order, any size,
		// cut by this dialect's own source (the dialects run side by side).
		batch := rand.New(rand.NewPCG(35, 7))
		for rest := hits; len(rest) > 0; {
			n := min(len(rest), 1+batch.IntN(40))
			require.NoError(t, st.Record(ctx, rest[:n], nil))
			rest = rest[n:]
		}
		total, err := st.Daily(ctx, reporting.DimTotal, "2026-06-01", "2026-06-01", 0)
		require.NoError(t, err)
		require.Len(t, total, 1)
		require.Equal(t, int64(len(all)), total[0].Sessions, "sessions")
		require.Equal(t, bounces, total[0].Bounces, "bounces")
		require.Equal(t, seconds, total[0].Duration, "visit length")

		a, err := reporting.NewAnalytics(st, &reporting.AnalyticsOptions{Now: func() time.Time { return day.Add(23 * time.Hour) }})
		require.NoError(t, err)
		q := reporting.AnalyticsQuery{Days: 1, Limit: 100}
		over, err := a.Overview(ctx, q)
		require.NoError(t, err)
		require.NotNil(t, over.Totals.BounceRate)
		require.InDelta(t, float64(bounces)/float64(len(all)), *over.Totals.BounceRate, 1e-9)
		filtered, err := a.Overview(ctx, reporting.AnalyticsQuery{Days: 1, Filters: reporting.Filters{{Dim: reporting.DimPage, Value: "/"}}})
		require.NoError(t, err)
		require.NotNil(t, filtered.Totals.BounceRate, "from the views kept by visitor")
		require.InDelta(t, float64(entryBounces["/"])/float64(entries["/"]), *filtered.Totals.BounceRate, 1e-9)
		require.InDelta(t, float64(entrySeconds["/"])/float64(entries["/"]), filtered.Totals.AvgEngagementSeconds, 1e-9)

		in, err := a.EntryPages(ctx, q)
		require.NoError(t, err)
		require.Len(t, in.Rows, len(entries))
		for _, row := range in.Rows {
			n := float64(entries[row.Path])
			require.Equal(t, n, row.Entrances, row.Path)
			require.Equal(t, float64(len(entryVisitors[row.Path])), row.Users, row.Path)
			require.InDelta(t, float64(entryBounces[row.Path])/n, row.BounceRate, 1e-9, row.Path)
			require.InDelta(t, float64(entrySeconds[row.Path])/n, row.AvgSeconds, 1e-9, row.Path)
			require.Equal(t, "T"+row.Path, row.Title)
		}
		out, err := a.ExitPages(ctx, q)
		require.NoError(t, err)
		got := map[string]int64{}
		for _, row := range out.Rows {
			got[row.Path] = int64(row.Exits)
			require.Positive(t, row.Views)
			require.InDelta(t, row.Exits/row.Views, row.ExitRate, 1e-9)
		}
		require.Equal(t, exits, got)
		require.True(t, slices.IsSortedFunc(out.Rows, func(a, b reporting.ExitPage) int { return int(b.Exits - a.Exits) }), "by exits")
		// Every view was on a desktop: narrowed to it, the same pages.
		narrowed, err := a.EntryPages(ctx, reporting.AnalyticsQuery{Days: 1, Limit: 100, Filters: reporting.Filters{{Dim: reporting.DimDevice, Value: "desktop"}}})
		require.NoError(t, err)
		require.Equal(t, in, narrowed)
		none, err := a.EntryPages(ctx, reporting.AnalyticsQuery{Days: 1, Filters: reporting.Filters{{Dim: reporting.DimDevice, Value: "mobile"}}})
		require.NoError(t, err)
		require.Empty(t, none.Rows)
	})
}

// TestConcurrentBatchesDoNotDeadlock writes batches on two instances of
// one database at once, over the same pages and visitors in different
// orders: every batch is written (the writers take the rows' locks in one
// order, so they wait for each other instead of deadlocking), and the
// counts add up: the views, and the visitors, each counted once for the
// day and for each page whichever instance wrote their hits (on Postgres
// each batch holds its visitors' rows until it commits).
func TestConcurrentBatchesDoNotDeadlock(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		dsn := storetest.DSN(t, d)
		stores := []*reportingsql.Store{reportingsql.New(storetest.OpenDSN(t, dsn, reportingsql.Migrations)),
			reportingsql.New(storetest.OpenDSN(t, dsn, reportingsql.Migrations))}
		day := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
		batches, size := 12, 300
		if testkit.RaceEnabled {
			// Several times slower under the race detector, one instance's
			// run of batches would keep the other's SQLite writes waiting
			// past the busy timeout.
			batches, size = 4, 100
		}
		done := make(chan error, len(stores))
		written := make([][]reporting.Hit, len(stores))
		for w, st := range stores {
			go func() {
				rng := rand.New(rand.NewPCG(uint64(w), 7))
				for b := range batches {
					hits := make([]reporting.Hit, size)
					for i := range hits {
						hits[i] = reporting.Hit{At: day.Add(time.Duration(b*size+i) * time.Millisecond), Day: "2026-06-01",
							Visitor: fmt.Sprintf("v%d", rng.IntN(400)), Path: fmt.Sprintf("/p/%d", rng.IntN(60)), Title: "Page",
							Source: fmt.Sprintf("s%d.example", rng.IntN(5)), Device: "desktop", Browser: "Firefox", OS: "Linux"}
					}
					if err := st.Record(context.Background(), hits, nil); err != nil {
						done <- err
						return
					}
					written[w] = append(written[w], hits...)
				}
				done <- nil
			}()
		}
		for range stores {
			require.NoError(t, <-done)
		}
		total, err := stores[0].Daily(context.Background(), reporting.DimTotal, "2026-06-01", "2026-06-01", 0)
		require.NoError(t, err)
		require.Equal(t, int64(len(stores)*batches*size), total[0].Views)
		visitors, byPage := map[string]bool{}, map[string]map[string]bool{}
		for _, h := range slices.Concat(written...) {
			visitors[h.Visitor] = true
			if byPage[h.Path] == nil {
				byPage[h.Path] = map[string]bool{}
			}
			byPage[h.Path][h.Visitor] = true
		}
		require.Equal(t, int64(len(visitors)), total[0].Visitors)
		pages, err := stores[1].Daily(context.Background(), reporting.DimPage, "2026-06-01", "2026-06-01", 0)
		require.NoError(t, err)
		require.Len(t, pages, len(byPage))
		for _, p := range pages {
			require.Equal(t, int64(len(byPage[p.Key])), p.Visitors, p.Key)
		}
	})
}
