package reportingtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingstore"
	"github.com/groundwork-go/groundwork/tenant"
)

// siteHits are one site's traffic of a day: three visitors over two
// pages, two sources and two devices, a second session, an event with a
// property; the visitors' hashes are the same on every site (a store
// counts each site's apart).
func siteHits(site, page string) []reporting.Hit {
	h := func(min int, visitor, path, source, device string) reporting.Hit {
		x := hit(min, visitor, path)
		x.Site, x.Source, x.Device, x.Country = site, source, device, "DE"
		return x
	}
	signup := h(7, "a", "", "", "")
	signup.Event, signup.Title, signup.Props = "signup", "", []reporting.Prop{{Name: "plan", Value: page}}
	return []reporting.Hit{h(0, "a", "/", "Direct", "desktop"), h(5, "a", page, "Direct", "desktop"), signup,
		h(9, "b", page, "news.example", "mobile"), h(50, "a", "/", "Direct", "desktop"), h(12, "c", "/", "news.example", "desktop")}
}

// exerciseSites is the sites part of RunStoreTests: what one batch
// records for two sites reads, under each site's context, exactly as a
// store that recorded that site's hits alone; the context of a third
// site and one acting for every tenant (site "") find none of it. Goals,
// shared links and email reports are their site's too, where the store
// keeps them.
func exerciseSites(t *testing.T, newStore func(t *testing.T) reporting.Store) {
	t.Parallel()
	both, alone := newStore(t), newStore(t)
	acme, globex := tenant.With(ctx, "org:1"), tenant.With(ctx, "org:2")
	a, g := siteHits("org:1", "/pricing"), siteHits("org:2", "/globex")
	require.NoError(t, both.Record(ctx, append(append([]reporting.Hit{}, a...), g...), nil), "one batch, both sites")
	require.NoError(t, alone.Record(ctx, a, nil))

	day := "2026-06-01"
	reads := func(s reporting.Store, ctx context.Context) map[string][]reportingstore.DailyRow {
		out := map[string][]reportingstore.DailyRow{}
		for _, dim := range []reporting.Dimension{reporting.DimTotal, reporting.DimPage, reporting.DimEvent, reporting.DimSource, reporting.DimDevice,
			reporting.DimCountry, reporting.DimProp, reporting.DimEntry, reporting.DimExit} {
			rows, err := s.Daily(ctx, dim, day, day, 0)
			require.NoError(t, err)
			out["daily "+string(dim)] = rows
		}
		for _, fs := range []reporting.Filters{{{Dim: reporting.DimSource, Value: "Direct"}},
			{{Dim: reporting.DimSource, Value: "news.example"}, {Dim: reporting.DimDevice, Value: "desktop"}}} {
			for _, dim := range []reporting.Dimension{reporting.DimTotal, reporting.DimPage} {
				rows, err := s.Filtered(ctx, fs, dim, day, day, 0)
				require.NoError(t, err)
				out[fmt.Sprint("filtered ", fs, dim)] = rows
			}
		}
		if seg, ok := s.(reporting.SegmentStore); ok {
			for _, dim := range []reporting.Dimension{reporting.DimTotal, reporting.DimPage, reporting.DimEvent, reporting.DimCountry} {
				rows, err := seg.Segment(ctx, reporting.Filters{{Dim: reporting.DimDevice, Value: "desktop"}}, dim, day, day, 0)
				require.NoError(t, err)
				out["segment "+string(dim)] = rows
			}
		}
		n, err := s.Recent(ctx, []string{day}, at)
		require.NoError(t, err)
		out["recent"] = []reportingstore.DailyRow{{Views: int64(n)}}
		return out
	}
	want := reads(alone, acme)
	require.NotEmpty(t, want["daily page"])
	require.Equal(t, want, reads(both, acme), "Acme's reports are its own hits' alone")
	globexReads := reads(both, globex)
	require.Contains(t, fmt.Sprint(globexReads["daily page"]), "/globex")
	require.NotContains(t, fmt.Sprint(globexReads), "/pricing", "Globex's reports hold none of Acme's")
	empty := reads(alone, tenant.With(ctx, "org:3"))
	for _, other := range []context.Context{tenant.With(ctx, "org:3"), ctx} {
		require.Equal(t, empty, reads(both, other), "another site's context, and the host's own, read none of theirs")
	}
	for name, rows := range empty {
		if name != "recent" {
			require.Empty(t, rows, name)
		}
	}
	if seg, ok := both.(reporting.SegmentStore); ok {
		h, found, err := seg.SessionEntry(globex, day, "b")
		require.NoError(t, err)
		require.True(t, found)
		require.Equal(t, "/globex", h.Path, "b's entry on Globex's site")
		_, found, err = seg.SessionEntry(tenant.With(ctx, "org:3"), day, "b")
		require.NoError(t, err)
		require.False(t, found)
	}

	if gs, ok := both.(reporting.GoalStore); ok {
		goal, err := gs.AddGoal(acme, reporting.Goal{Name: "Pricing", Page: "/pricing"})
		require.NoError(t, err)
		require.Equal(t, "org:1", goal.Site)
		mine, err := gs.Goals(acme)
		require.NoError(t, err)
		require.Len(t, mine, 1)
		theirs, err := gs.Goals(globex)
		require.NoError(t, err)
		require.Empty(t, theirs)
		rows, err := both.Daily(acme, reporting.DimGoal, day, day, 0)
		require.NoError(t, err)
		require.Equal(t, []reportingstore.DailyRow{{Key: fmt.Sprint(goal.ID), Views: 2, Visitors: 2}}, rows, "counted over Acme's views alone")
		rows, err = both.Daily(globex, reporting.DimGoal, day, day, 0)
		require.NoError(t, err)
		require.Empty(t, rows)
		// A Globex hit on a page Acme's goal names counts for no goal.
		later := siteHits("org:2", "/pricing")[1]
		later.At, later.Visitor = later.At.Add(time.Hour), "z"
		require.NoError(t, both.Record(ctx, []reporting.Hit{later}, nil))
		rows, err = both.Daily(acme, reporting.DimGoal, day, day, 0)
		require.NoError(t, err)
		require.Equal(t, int64(2), rows[0].Views)
		require.ErrorIs(t, gs.DeleteGoal(globex, goal.ID), reporting.ErrGoalNotFound, "Globex cannot remove Acme's goal")
		require.NoError(t, gs.DeleteGoal(acme, goal.ID))
	}
	if ls, ok := both.(reporting.SharedLinkStore); ok {
		l, err := ls.CreateSharedLink(acme, reporting.SharedLink{Name: "Board", CreatedAt: at}, []byte("acme-token-hash-0123456789abcdef"), "")
		require.NoError(t, err)
		theirs, err := ls.SharedLinks(globex)
		require.NoError(t, err)
		require.Empty(t, theirs)
		got, _, err := ls.SharedLinkByToken(ctx, []byte("acme-token-hash-0123456789abcdef"))
		require.NoError(t, err)
		require.Equal(t, "org:1", got.Site, "a link shows its own site's reports")
		require.ErrorIs(t, ls.RevokeSharedLink(globex, l.ID), reporting.ErrSharedLinkNotFound)
		require.NoError(t, ls.RevokeSharedLink(acme, l.ID))
	}
	if es, ok := both.(reporting.EmailReportStore); ok {
		r, err := es.AddEmailReport(acme, reporting.EmailReport{Email: "ann@example.com", Period: reporting.Weekly, CreatedAt: at})
		require.NoError(t, err)
		_, err = es.AddEmailReport(globex, reporting.EmailReport{Email: "ann@example.com", Period: reporting.Weekly, CreatedAt: at})
		require.NoError(t, err, "the same address may get each site's report")
		mine, err := es.EmailReports(acme)
		require.NoError(t, err)
		require.Len(t, mine, 1)
		require.Equal(t, "org:1", mine[0].Site)
		require.ErrorIs(t, es.DeleteEmailReport(globex, r.ID), reporting.ErrEmailReportNotFound)
		require.NoError(t, es.DeleteEmailReport(acme, r.ID))
	}
}
