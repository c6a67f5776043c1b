package reportingsql_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/reporting/reportingstore"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// TestKeptDaysFollowWrites reads narrowed reports from days kept in
// memory by one Store while another (a second instance) writes to those
// days, removes them and adds goals, and checks each answer against the
// same report read in SQL: a kept day written to again is read afresh, a
// pruned day is gone, a goal made after a day was kept is counted on it,
// and a memory too small for the range still answers rightly.
func TestKeptDaysFollowWrites(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		db := storetest.Open(t, d, reportingsql.Migrations)
		ctx := context.Background()
		writer, inSQL, kept, small := reportingsql.New(db), reportingsql.New(db), reportingsql.New(db), reportingsql.New(db)
		inSQL.SegmentMemory = -1
		// Every write has settled as far as these two know.
		later := func() time.Time { return time.Now().Add(time.Hour) }
		kept.Now, small.Now = later, later
		small.SegmentMemory = 1 // keeps one day at a time

		days := []string{"2026-06-01", "2026-06-02", "2026-06-03"}
		record := func(round int) {
			var hits []reporting.Hit
			for i, day := range days {
				at, err := time.Parse(time.DateOnly, day)
				require.NoError(t, err)
				for v := range 20 {
					h := reporting.Hit{At: at.Add(time.Duration(9*60+v+round*100) * time.Minute), Day: day, Visitor: fmt.Sprintf("v%d-%d", round, v),
						Path: fmt.Sprintf("/p/%d", (v+i)%4), Title: "Page", Source: []string{"Direct", "ref.example"}[v%2], Device: "desktop",
						Country: []string{"DE", "FR", "US"}[v%3], Browser: "Firefox", OS: "Linux"}
					hits = append(hits, h)
					if v%4 == 0 {
						hits = append(hits, reporting.Hit{At: h.At.Add(time.Second), Day: day, Visitor: h.Visitor, Event: "signup",
							Props: []reporting.Prop{{Name: "plan", Value: "pro"}}})
					}
				}
			}
			require.NoError(t, writer.Record(ctx, hits, nil))
		}
		read := func(st *reportingsql.Store, fs reporting.Filters, dim reporting.Dimension) []reportingstore.DailyRow {
			rows, err := st.Segment(ctx, fs, dim, days[0], days[2], 0)
			require.NoError(t, err)
			return rows
		}
		same := func(why string, fs reporting.Filters) {
			for _, dim := range []reporting.Dimension{reporting.DimTotal, reporting.DimPage, reporting.DimEntry, reporting.DimExit,
				reporting.DimCountry, reporting.DimEvent, reporting.DimProp, reporting.DimGoal} {
				want := read(inSQL, fs, dim)
				require.Equal(t, want, read(kept, fs, dim), "%s: %s by %v", why, dim, fs)
				require.Equal(t, want, read(small, fs, dim), "%s, one day kept at a time: %s by %v", why, dim, fs)
			}
		}
		de := reporting.Filters{{Dim: reporting.DimCountry, Value: "DE"}}
		pro := reporting.Filters{{Dim: reporting.DimProp, Value: reporting.PropFilter("plan", "pro")}}

		record(0)
		same("first read", de)
		same("first read", pro)
		before := read(kept, nil, reporting.DimTotal)

		record(1) // the other instance writes to every kept day
		same("after a write", de)
		after := read(kept, nil, reporting.DimTotal)
		require.Len(t, after, 3)
		for i := range after {
			require.Equal(t, 2*before[i].Views, after[i].Views, "the second write read afresh on %s", after[i].Key)
		}

		g, err := writer.AddGoal(ctx, reporting.Goal{Name: "Page one", Page: "/p/1"})
		require.NoError(t, err)
		byGoal := reporting.Filters{{Dim: reporting.DimGoal, Value: strconv.FormatInt(g.ID, 10)}}
		same("a goal made after the days were kept", byGoal)
		require.NotEmpty(t, read(kept, byGoal, reporting.DimTotal))

		_, err = writer.Forget(ctx, "", days[1])
		require.NoError(t, err)
		same("after the first day was pruned", de)
		total := read(kept, nil, reporting.DimTotal)
		require.Len(t, total, 2)
		require.Equal(t, days[1], total[0].Key)
	})
}

// TestKeptRollupsAgainstSQL reads the unfiltered reports of pages, entry
// and exit pages over ranges of whole weeks and days either side from
// periods kept in memory, partly kept (the last days still written), and
// in SQL, and finds them the same; a later write to a kept week is read.
func TestKeptRollupsAgainstSQL(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		db := storetest.Open(t, d, reportingsql.Migrations)
		ctx := context.Background()
		writer, inSQL, kept, mixed := reportingsql.New(db), reportingsql.New(db), reportingsql.New(db), reportingsql.New(db)
		inSQL.SegmentMemory = -1
		kept.Now = func() time.Time { return time.Now().Add(time.Hour) }
		start := time.Date(2026, 6, 3, 0, 0, 0, 0, time.UTC) // a Wednesday
		record := func(round int) {
			var hits []reporting.Hit
			for day := range 24 {
				at := start.AddDate(0, 0, day).Add(9 * time.Hour)
				for v := range 6 {
					for n := range 1 + (day+v)%3 {
						hits = append(hits, reporting.Hit{At: at.Add(time.Duration(v*60+n+round*300) * time.Minute), Day: at.Format(time.DateOnly),
							Visitor: fmt.Sprintf("v%d-%d", round, v), Path: fmt.Sprintf("/p/%d", (day*v+n)%7), Title: fmt.Sprintf("Page %d", (v+n)%2),
							Source: "Direct", Device: "desktop"})
					}
				}
			}
			require.NoError(t, writer.Record(ctx, hits, nil))
		}
		record(0)
		// The mixed reader takes the days before the 20th as settled.
		_, err := db.ExecContext(ctx, db.Rebind(`UPDATE reporting_days SET changed_at = ? WHERE day < '2026-06-20'`), store.NewTime(time.Now().Add(-time.Hour)))
		require.NoError(t, err)
		check := func(why string) {
			for _, r := range [][2]string{{"2026-06-03", "2026-06-26"}, {"2026-06-08", "2026-06-21"}, {"2026-06-05", "2026-06-07"}, {"2026-06-01", "2026-06-30"}} {
				for _, dim := range []reporting.Dimension{reporting.DimPage, reporting.DimEntry, reporting.DimExit} {
					for _, limit := range []int{0, 3} {
						want, err := inSQL.Daily(ctx, dim, r[0], r[1], limit)
						require.NoError(t, err)
						require.NotEmpty(t, want)
						for name, st := range map[string]*reportingsql.Store{"kept": kept, "partly kept": mixed} {
							got, err := st.Daily(ctx, dim, r[0], r[1], limit)
							require.NoError(t, err)
							require.Equal(t, want, got, "%s: %s over %v, limit %d, %s", why, dim, r, limit, name)
						}
						// One page's own rows, as an exit page's views are read.
						for _, key := range []string{want[0].Key, "/none"} {
							if dim != reporting.DimPage {
								break // a filter names a page, not an entry or exit page
							}
							fs := reporting.Filters{{Dim: dim, Value: key}}
							want, err := inSQL.Filtered(ctx, fs, dim, r[0], r[1], limit)
							require.NoError(t, err)
							for name, st := range map[string]*reportingsql.Store{"kept": kept, "partly kept": mixed} {
								got, err := st.Filtered(ctx, fs, dim, r[0], r[1], limit)
								require.NoError(t, err)
								require.Equal(t, want, got, "%s: %s %q over %v, %s", why, dim, key, r, name)
							}
						}
					}
				}
			}
		}
		check("first read")
		record(1) // another instance writes to every kept period
		check("after a write")
	})
}

// TestLagKeepsTheLiveDay reads a day still being written with Lag: the
// first report reads it whole; within Lag a later write is not in the
// copy (the documented trade); past Lag the next report brings the copy
// up to date and has the write. Without Lag every report is exact.
func TestLagKeepsTheLiveDay(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		db := storetest.Open(t, d, reportingsql.Migrations)
		ctx := context.Background()
		writer, exact, hour, brief := reportingsql.New(db), reportingsql.New(db), reportingsql.New(db), reportingsql.New(db)
		hour.Lag, brief.Lag = time.Hour, time.Nanosecond
		at := time.Now().UTC()
		day := at.Format(time.DateOnly)
		round := 0
		record := func() {
			var hits []reporting.Hit
			for v := range 10 {
				hits = append(hits, reporting.Hit{At: at, Day: day, Visitor: fmt.Sprintf("v%d-%d", round, v), Path: "/", Source: "Direct",
					Device: "desktop", Country: "DE"})
			}
			round++
			require.NoError(t, writer.Record(ctx, hits, nil))
		}
		de := reporting.Filters{{Dim: reporting.DimCountry, Value: "DE"}}
		views := func(st *reportingsql.Store) int64 {
			rows, err := st.Segment(ctx, de, reporting.DimTotal, day, day, 0)
			require.NoError(t, err)
			require.Len(t, rows, 1)
			return rows[0].Views
		}
		record()
		require.EqualValues(t, 10, views(exact))
		require.EqualValues(t, 10, views(hour))
		require.EqualValues(t, 10, views(brief))
		record()
		require.EqualValues(t, 20, views(exact), "without Lag, the last write")
		require.EqualValues(t, 10, views(hour), "within Lag, the copy")
		require.Eventually(t, func() bool { return views(brief) == 20 }, 10*time.Second, 10*time.Millisecond,
			"past Lag, read again in the background")
	})
}

// TestLiveDayExact reads narrowed reports of a day while two instances
// write to it, visitors coming back batch after batch, and finds every
// answer the SQL's: the reader's copy is brought up to date by the
// visitors each batch wrote, read anew when its overlay outgrows it, and
// read whole again when the notes of the batches since it were deleted
// (a writer's clock an hour on deletes them all while it is not reading).
func TestLiveDayExact(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		db := storetest.Open(t, d, reportingsql.Migrations)
		ctx := context.Background()
		one, two, inSQL, exact := reportingsql.New(db), reportingsql.New(db), reportingsql.New(db), reportingsql.New(db)
		inSQL.SegmentMemory = -1
		reportingsql.SetOverlayFloor(exact)
		goal, err := one.AddGoal(ctx, reporting.Goal{Name: "Pro", Event: "signup", Property: "plan", Value: "pro"})
		require.NoError(t, err)
		day := "2026-06-10"
		start := time.Date(2026, 6, 10, 8, 0, 0, 0, time.UTC)
		record := func(round int) {
			writer := []*reportingsql.Store{one, two}[round%2]
			var hits []reporting.Hit
			for v := range 12 {
				visitor := (round*5 + v*7) % 40 // most come back
				at := start.Add(time.Duration(round*20+v) * time.Minute)
				h := reporting.Hit{At: at, Day: day, Visitor: fmt.Sprintf("v%d", visitor), Path: fmt.Sprintf("/p/%d", (visitor+round)%5),
					Title: "Page", Source: []string{"Direct", "ref.example"}[visitor%2], Device: "desktop", Country: []string{"DE", "FR"}[visitor%2],
					Browser: "Firefox", OS: "Linux"}
				hits = append(hits, h)
				if (visitor+round)%3 == 0 {
					hits = append(hits, reporting.Hit{At: at.Add(time.Second), Day: day, Visitor: h.Visitor, Event: "signup",
						Props: []reporting.Prop{{Name: "plan", Value: []string{"pro", "free"}[round%2]}}})
				}
			}
			require.NoError(t, writer.Record(ctx, hits, nil))
		}
		fss := []reporting.Filters{nil, {{Dim: reporting.DimCountry, Value: "DE"}},
			{{Dim: reporting.DimProp, Value: reporting.PropFilter("plan", "pro")}},
			{{Dim: reporting.DimGoal, Value: strconv.FormatInt(goal.ID, 10)}, {Dim: reporting.DimSource, Value: "Direct"}}}
		for round := range 14 {
			if round == 9 {
				two.Now = func() time.Time { return time.Now().Add(time.Hour) }
			}
			record(round)
			if round == 7 || round == 8 {
				continue // the reader is away while the notes are deleted
			}
			for _, fs := range fss {
				for _, dim := range []reporting.Dimension{reporting.DimTotal, reporting.DimPage, reporting.DimEntry, reporting.DimExit,
					reporting.DimCountry, reporting.DimEvent, reporting.DimProp, reporting.DimGoal} {
					want, err := inSQL.Segment(ctx, fs, dim, day, day, 0)
					require.NoError(t, err)
					got, err := exact.Segment(ctx, fs, dim, day, day, 0)
					require.NoError(t, err)
					require.Equal(t, want, got, "round %d: %s by %v", round, dim, fs)
				}
			}
		}
		var notes int
		require.NoError(t, db.GetContext(ctx, &notes, `SELECT COUNT(*) FROM reporting_day_changes`))
		require.Less(t, notes, 14, "the notes older than the clock allows were deleted")
	})
}

// TestLiveDayReadersWhileWritten has four readers narrow reports of a day
// on one store while a writer records to it (their copy brought up to
// date, read anew in the background, by whichever comes first), then
// finds the store's next answers the SQL's once the writer stops. Run with
// -race it checks the copy's locking.
func TestLiveDayReadersWhileWritten(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		db := storetest.Open(t, d, reportingsql.Migrations)
		ctx := context.Background()
		writer, inSQL, shared := reportingsql.New(db), reportingsql.New(db), reportingsql.New(db)
		inSQL.SegmentMemory = -1
		reportingsql.SetOverlayFloor(shared)
		day := "2026-06-11"
		start := time.Date(2026, 6, 11, 8, 0, 0, 0, time.UTC)
		fss := []reporting.Filters{{{Dim: reporting.DimCountry, Value: "DE"}}, {{Dim: reporting.DimProp, Value: reporting.PropFilter("plan", "pro")}}}
		dims := []reporting.Dimension{reporting.DimTotal, reporting.DimPage, reporting.DimExit, reporting.DimEvent}
		done := make(chan struct{})
		errs := make(chan error, 4)
		for r := range 4 {
			go func() {
				for i := 0; ; i++ {
					select {
					case <-done:
						errs <- nil
						return
					default:
					}
					if _, err := shared.Segment(ctx, fss[(r+i)%2], dims[(r+i)%4], day, day, 0); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		for round := range 30 {
			var hits []reporting.Hit
			for v := range 8 {
				visitor := (round*3 + v*5) % 50
				at := start.Add(time.Duration(round*7+v) * time.Minute)
				hits = append(hits, reporting.Hit{At: at, Day: day, Visitor: fmt.Sprintf("v%d", visitor), Path: fmt.Sprintf("/p/%d", visitor%6),
					Source: "Direct", Device: "desktop", Country: []string{"DE", "FR"}[visitor%2]},
					reporting.Hit{At: at.Add(time.Second), Day: day, Visitor: fmt.Sprintf("v%d", visitor), Event: "signup",
						Props: []reporting.Prop{{Name: "plan", Value: []string{"pro", "free"}[(visitor+round)%2]}}})
			}
			require.NoError(t, writer.Record(ctx, hits, nil))
		}
		close(done)
		for range 4 {
			require.NoError(t, <-errs)
		}
		for _, fs := range fss {
			for _, dim := range dims {
				want, err := inSQL.Segment(ctx, fs, dim, day, day, 0)
				require.NoError(t, err)
				got, err := shared.Segment(ctx, fs, dim, day, day, 0)
				require.NoError(t, err)
				require.Equal(t, want, got, "%s by %v", dim, fs)
			}
		}
	})
}
