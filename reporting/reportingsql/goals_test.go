package reportingsql_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
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

var goalDays = []string{"2026-05-30", "2026-05-31", "2026-06-01"}

// goalTraffic is three days of made-up hits over pages whose names test
// the patterns (case, LIKE's wildcards) and events with a property.
func goalTraffic(seed uint64, from int) []reporting.Hit {
	rng := rand.New(rand.NewPCG(seed, 35))
	pages := []string{"/", "/thanks", "/blog/a", "/blog/b/c", "/Blog/X", "/a_b", "/axb", "/50%"}
	var hits []reporting.Hit
	for d, day := range goalDays {
		base, _ := time.Parse(time.DateOnly, day)
		for v := range 60 {
			visitor := fmt.Sprintf("v%d", from+v)
			at := base.Add(time.Duration(rng.IntN(20*60)) * time.Minute)
			for range 1 + rng.IntN(5) {
				h := reporting.Hit{At: at, Day: goalDays[d], Visitor: visitor, Source: "Direct", Device: "desktop"}
				if rng.IntN(4) == 0 {
					h.Event = "signup"
					h.Props = []reporting.Prop{{Name: "plan", Value: []string{"pro", "free"}[rng.IntN(2)]}}
				} else {
					h.Path = pages[rng.IntN(len(pages))]
				}
				hits = append(hits, h)
				at = at.Add(time.Duration(1+rng.IntN(20)) * time.Minute)
			}
		}
	}
	return hits
}

var testGoals = []reporting.Goal{
	{Page: "/thanks"}, {Page: "/blog/*"}, {Event: "signup"}, {Event: "signup", Property: "plan", Value: "pro"},
	{Page: "/a_*"}, {Page: "/50%"}, {Page: "*b*"},
}

// expected is a goal's conversions and visitors per day, from raw hits.
func expected(g reporting.Goal, hits []reporting.Hit) (conv, visitors map[string]int64) {
	conv, visitors = map[string]int64{}, map[string]int64{}
	seen := map[[2]string]bool{}
	for _, h := range hits {
		if !g.Matches(h) {
			continue
		}
		conv[h.Day]++
		if k := [2]string{h.Day, h.Visitor}; !seen[k] {
			seen[k] = true
			visitors[h.Day]++
		}
	}
	return conv, visitors
}

func goalDaily(t *testing.T, st *reportingsql.Store, id int64, day string) (int64, int64) {
	t.Helper()
	rows, err := st.Daily(context.Background(), reporting.DimGoal, day, day, 0)
	require.NoError(t, err)
	for _, r := range rows {
		if r.Key == strconv.FormatInt(id, 10) {
			return r.Views, r.Visitors
		}
	}
	return 0, 0
}

func record(t *testing.T, st *reportingsql.Store, hits []reporting.Hit, rng *rand.Rand) {
	t.Helper()
	for rest := hits; len(rest) > 0; {
		n := min(len(rest), 1+rng.IntN(50))
		require.NoError(t, st.Record(context.Background(), rest[:n], nil))
		rest = rest[n:]
	}
}

// TestGoalsAgainstRawHits: goals made before the traffic count exactly
// what the raw hits say; goals made after it are counted over what was
// kept (exactly for pages and events; a pattern's visitors exactly on
// the days whose uniques are kept and as its most visited page's before),
// and hits after that add to them without counting a visitor twice.
func TestGoalsAgainstRawHits(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		rng := rand.New(rand.NewPCG(1, 2))
		hits := goalTraffic(7, 0)

		t.Run("Before", func(t *testing.T) {
			st := reportingsql.New(storetest.Open(t, d, reportingsql.Migrations))
			var goals []reporting.Goal
			for _, g := range testGoals {
				made, err := st.AddGoal(ctx, g)
				require.NoError(t, err)
				goals = append(goals, made)
			}
			record(t, st, hits, rng)
			for _, g := range goals {
				conv, vis := expected(g, hits)
				for _, day := range goalDays {
					gotConv, gotVis := goalDaily(t, st, g.ID, day)
					require.Equal(t, conv[day], gotConv, "%s on %s: conversions", g.Name, day)
					require.Equal(t, vis[day], gotVis, "%s on %s: visitors", g.Name, day)
				}
			}
		})

		t.Run("After", func(t *testing.T) {
			st := reportingsql.New(storetest.Open(t, d, reportingsql.Migrations))
			record(t, st, hits, rng)
			// The first day's uniques are forgotten, as at the turn of a day.
			_, err := st.Forget(ctx, goalDays[2], "")
			require.NoError(t, err)
			var goals []reporting.Goal
			for _, g := range testGoals {
				made, err := st.AddGoal(ctx, g)
				require.NoError(t, err)
				goals = append(goals, made)
			}
			later := goalTraffic(8, 30) // visitors v30..v89: half of them seen before
			var today []reporting.Hit
			for _, h := range later {
				if h.Day == goalDays[2] {
					h.At = h.At.Add(time.Minute)
					today = append(today, h)
				}
			}
			record(t, st, today, rng)
			all := append(append([]reporting.Hit{}, hits...), today...)
			for _, g := range goals {
				conv, vis := expected(g, all)
				for i, day := range goalDays {
					gotConv, gotVis := goalDaily(t, st, g.ID, day)
					require.Equal(t, conv[day], gotConv, "%s on %s: conversions", g.Name, day)
					if g.Exact() || i > 0 {
						require.Equal(t, vis[day], gotVis, "%s on %s: visitors", g.Name, day)
						continue
					}
					// The most visited matching page's visitors that day.
					var most int64
					for _, page := range []string{"/", "/thanks", "/blog/a", "/blog/b/c", "/Blog/X", "/a_b", "/axb", "/50%"} {
						if reporting.Glob(g.Page, page) {
							_, v := expected(reporting.Goal{Page: page}, hits)
							most = max(most, v[day])
						}
					}
					require.Equal(t, most, gotVis, "%s on %s: the estimate", g.Name, day)
					require.LessOrEqual(t, gotVis, vis[day])
				}
			}
			// The weeks agree with the days.
			for _, g := range goals {
				rows, err := st.Daily(ctx, reporting.DimGoal, "2026-05-25", "2026-06-07", 0)
				require.NoError(t, err)
				var week reportingstore.DailyRow
				for _, r := range rows {
					if r.Key == strconv.FormatInt(g.ID, 10) {
						week = r
					}
				}
				var conv, vis int64
				for _, day := range goalDays {
					c, v := goalDaily(t, st, g.ID, day)
					conv, vis = conv+c, vis+v
				}
				require.Equal(t, conv, week.Views, g.Name)
				require.Equal(t, vis, week.Visitors, g.Name)
			}

			require.NoError(t, st.DeleteGoal(ctx, goals[0].ID))
			c, v := goalDaily(t, st, goals[0].ID, goalDays[2])
			require.Zero(t, c+v, "a removed goal's counts go with it")
			require.ErrorIs(t, st.DeleteGoal(ctx, goals[0].ID), reporting.ErrGoalNotFound)
			left, err := st.Goals(ctx)
			require.NoError(t, err)
			require.Len(t, left, len(testGoals)-1)
		})

		t.Run("Limits", func(t *testing.T) {
			st := reportingsql.New(storetest.Open(t, d, reportingsql.Migrations))
			for i := range reporting.MaxGoals {
				_, err := st.AddGoal(ctx, reporting.Goal{Page: "/p" + strconv.Itoa(i)})
				require.NoError(t, err)
			}
			_, err := st.AddGoal(ctx, reporting.Goal{Page: "/one-more"})
			require.ErrorIs(t, err, reporting.ErrBadGoal)
			_, err = st.AddGoal(ctx, reporting.Goal{Page: "thanks"})
			require.True(t, errors.Is(err, reporting.ErrBadGoal))
		})
	})
}

// TestGoalsMadeWhileAnotherInstanceWrites: goals made on one instance
// while another writes batches of hits count every hit exactly once, as
// the hits and the goal's count over what was kept never miss each other.
func TestGoalsMadeWhileAnotherInstanceWrites(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		dsn := storetest.DSN(t, d)
		writer := reportingsql.New(storetest.OpenDSN(t, dsn, reportingsql.Migrations))
		admin := reportingsql.New(storetest.OpenDSN(t, dsn, reportingsql.Migrations))
		hits := goalTraffic(9, 0)
		done := make(chan error, 1)
		go func() {
			for rest := hits; len(rest) > 0; {
				n := min(len(rest), 7)
				if err := writer.Record(ctx, rest[:n], nil); err != nil {
					done <- err
					return
				}
				rest = rest[n:]
			}
			done <- nil
		}()
		var goals []reporting.Goal
		for _, g := range testGoals {
			made, err := admin.AddGoal(ctx, g)
			require.NoError(t, err)
			goals = append(goals, made)
			time.Sleep(time.Millisecond)
		}
		require.NoError(t, <-done)
		for _, g := range goals {
			conv, vis := expected(g, hits)
			for _, day := range goalDays {
				gotConv, gotVis := goalDaily(t, admin, g.ID, day)
				require.Equal(t, conv[day], gotConv, "%s on %s: conversions", g.Name, day)
				require.Equal(t, vis[day], gotVis, "%s on %s: visitors", g.Name, day)
			}
		}
	})
}

// The goals reached are told inside the batch's transaction, once a
// visitor a day a goal (each goal's visitors, counted from the raw hits),
// in the order of the hits, across batches; a hook that fails undoes the
// batch, counts and all.
func TestGoalsReachedInTheBatch(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d, reportingsql.Migrations)
		st := reportingsql.New(db)
		var goals []reporting.Goal
		for _, g := range testGoals {
			made, err := st.AddGoal(ctx, g)
			require.NoError(t, err)
			goals = append(goals, made)
		}
		hits := goalTraffic(11, 0)
		_, err := db.ExecContext(ctx, `CREATE TABLE host_reached (goal BIGINT NOT NULL, visitor TEXT NOT NULL, day TEXT NOT NULL)`)
		require.NoError(t, err)
		got := map[int64]map[string]int64{} // goal → day → visitors told
		var order []time.Time
		record := func(ctx context.Context, tx *sql.Tx, rs []reporting.GoalReached) error {
			if !slices.IsSortedFunc(rs, func(a, b reporting.GoalReached) int { return a.Hit.At.Compare(b.Hit.At) }) {
				return errors.New("told out of the hits' order")
			}
			for _, r := range rs {
				if _, err := tx.ExecContext(ctx, db.Rebind(`INSERT INTO host_reached (goal, visitor, day) VALUES (?, ?, ?)`),
					r.Goal.ID, r.Hit.Visitor, r.Hit.Day); err != nil {
					return err
				}
				if got[r.Goal.ID] == nil {
					got[r.Goal.ID] = map[string]int64{}
				}
				got[r.Goal.ID][r.Hit.Day]++
				order = append(order, r.Hit.At)
			}
			return nil
		}
		// A failing hook: nothing of the batch is kept.
		err = st.Record(ctx, hits[:50], func(context.Context, *sql.Tx, []reporting.GoalReached) error { return errors.New("refused") })
		require.ErrorContains(t, err, "refused")
		rows, err := st.Daily(ctx, reporting.DimTotal, goalDays[0], goalDays[2], 0)
		require.NoError(t, err)
		require.Empty(t, rows, "the batch went with the hook")

		for chunk := range slices.Chunk(hits, 97) {
			require.NoError(t, st.Record(ctx, chunk, record))
		}
		for _, g := range goals {
			_, visitors := expected(g, hits)
			for day, n := range visitors {
				require.Equal(t, n, got[g.ID][day], "goal %d on %s", g.ID, day)
			}
			require.Len(t, got[g.ID], len(visitors), "goal %d: no day without visitors", g.ID)
		}
		var stored int
		require.NoError(t, db.GetContext(ctx, &stored, `SELECT COUNT(*) FROM host_reached`))
		require.Equal(t, len(order), stored, "written in the batch's transaction")
		require.NoError(t, st.Record(ctx, hits[:200], record))
		require.Equal(t, stored, len(order), "a visitor's goal is told once a day")
	})
}
