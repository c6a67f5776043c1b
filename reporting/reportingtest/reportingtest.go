// Package reportingtest holds the conformance suite every
// [reporting.Store] must pass ([RunStoreTests]); reportingsql passes it on
// SQLite and Postgres.
package reportingtest

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingstore"
)

// RunConnectionStoreTests checks newStore's stores against the
// reporting.ConnectionStore contract.
func RunConnectionStoreTests(t *testing.T, newStore func(t *testing.T) reporting.ConnectionStore) {
	t.Run("Connections", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		_, err := s.GoogleConnection(ctx, "7")
		require.ErrorIs(t, err, reporting.ErrNoConnection)
		c := reportingstore.GoogleConnection{UserID: "7", SealedAccessToken: "sealed-a", SealedRefreshToken: "sealed-r", TokenType: "Bearer",
			ExpiresAt: at.Add(time.Hour), Scopes: []string{"openid", "x"}, Status: reportingstore.StatusConnected, UpdatedAt: at}
		require.NoError(t, s.SaveGoogleConnection(ctx, c))
		got, err := s.GoogleConnection(ctx, "7")
		require.NoError(t, err)
		require.Equal(t, c, got)
		c.Status, c.DisconnectionReason, c.ExpiresAt = reportingstore.StatusDisconnected, "invalid_grant", time.Time{}
		require.NoError(t, s.SaveGoogleConnection(ctx, c))
		got, err = s.GoogleConnection(ctx, "7")
		require.NoError(t, err)
		require.Equal(t, c, got)
	})
}

// ctx and at are every area's context and the hour their hits start.
var (
	ctx = context.Background()
	at  = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
)

// hit is a page view of path by visitor min minutes after at.
func hit(min int, visitor, path string) reporting.Hit {
	return reporting.Hit{At: at.Add(time.Duration(min) * time.Minute), Day: "2026-06-01", Visitor: visitor, Path: path,
		Title: "Title of " + path, Source: "Direct", Device: "desktop"}
}

// RunStoreTests checks newStore's stores against the reporting.Store
// contract. Each subtest gets a fresh store.
func RunStoreTests(t *testing.T, newStore func(t *testing.T) reporting.Store) {
	testkit.RunAreas(t, newStore, []testkit.Area[reporting.Store]{
		{Name: "Salt", Run: exerciseSalt},
		{Name: "Recent", Run: exerciseRecent},
		{Name: "Weeks", Run: exerciseWeeks},
		{Name: "Filtered", Run: exerciseFiltered},
		{Name: "RecordAndRead", Run: exerciseRecordAndRead},
		{Name: "SessionEntry", Run: exerciseSessionEntry},
		{Name: "Sites", Run: exerciseSites},
	})
}

// exerciseSessionEntry is the SessionEntry part of RunStoreTests, for a
// store that keeps views by visitor (reporting.SegmentStore): a visitor's
// entry is their latest session's first view, whatever came after it in
// the session or in later batches; an event alone is no session.
func exerciseSessionEntry(t *testing.T, newStore func(t *testing.T) reporting.Store) {
	t.Parallel()
	s := newStore(t)
	seg, ok := s.(reporting.SegmentStore)
	if !ok {
		t.Log("the store keeps no views by visitor: no session entries")
		return
	}
	landing := hit(0, "a", "/pricing")
	landing.Source, landing.Country, landing.Campaign = "newsletter", "DE", [4]string{"email", "november", "", ""}
	require.NoError(t, s.Record(ctx, []reporting.Hit{landing, hit(5, "a", "/contact"),
		{At: at.Add(6 * time.Minute), Day: "2026-06-01", Visitor: "e", Event: "signup"}}, nil))
	require.NoError(t, s.Record(ctx, []reporting.Hit{hit(8, "a", "/thanks")}, nil))
	got, found, err := seg.SessionEntry(ctx, "2026-06-01", "a")
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, reporting.Hit{Day: "2026-06-01", Visitor: "a", Path: "/pricing", Source: "newsletter", Country: "DE",
		Campaign: [4]string{"email", "november", "", ""}}, got)

	// Back an hour later, from a search: a session of its own.
	again := hit(70, "a", "/blog")
	again.Source = "google.com"
	require.NoError(t, s.Record(ctx, []reporting.Hit{again}, nil))
	got, found, err = seg.SessionEntry(ctx, "2026-06-01", "a")
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, "/blog", got.Path)
	require.Equal(t, "google.com", got.Source)
	require.Equal(t, [4]string{}, got.Campaign)

	for _, none := range []struct{ day, visitor string }{{"2026-06-01", "e"}, {"2026-06-01", "z"}, {"2026-06-02", "a"}} {
		_, found, err = seg.SessionEntry(ctx, none.day, none.visitor)
		require.NoError(t, err)
		require.False(t, found, "%s on %s", none.visitor, none.day)
	}
}

// exerciseSalt is the Salt part of RunStoreTests.
func exerciseSalt(t *testing.T, newStore func(t *testing.T) reporting.Store) {
	t.Parallel()
	s := newStore(t)
	first, err := s.Salt(ctx, "2026-06-01", []byte("one"))
	require.NoError(t, err)
	require.Equal(t, []byte("one"), first)
	again, err := s.Salt(ctx, "2026-06-01", []byte("two"))
	require.NoError(t, err)
	require.Equal(t, []byte("one"), again, "the first one stays")
	next, err := s.Salt(ctx, "2026-06-02", []byte("three"))
	require.NoError(t, err)
	require.Equal(t, []byte("three"), next)
	_, err = s.Forget(ctx, "2026-06-02", "")
	require.NoError(t, err)
	forgotten, err := s.Salt(ctx, "2026-06-01", []byte("four"))
	require.NoError(t, err)
	require.Equal(t, []byte("four"), forgotten, "yesterday's salt is gone")
}

// exerciseRecent is the Recent part of RunStoreTests.
// Recent counts each visitor once, by their last hit (an event counts
// only within a session, begun by a page view), on the days asked only.
func exerciseRecent(t *testing.T, newStore func(t *testing.T) reporting.Store) {
	t.Parallel()
	s := newStore(t)
	require.NoError(t, s.Record(ctx, []reporting.Hit{hit(0, "a", "/"), hit(10, "b", "/"), hit(40, "a", "/x"), hit(45, "c", "/"),
		{At: at.Add(50 * time.Minute), Day: "2026-06-01", Visitor: "d", Event: "signup"}}, nil))
	n, err := s.Recent(ctx, []string{"2026-05-31", "2026-06-01"}, at.Add(20*time.Minute))
	require.NoError(t, err)
	require.Equal(t, 2, n, "a (again at 40) and c; not b, nor the event's d")
	n, err = s.Recent(ctx, []string{"2026-06-01"}, at)
	require.NoError(t, err)
	require.Equal(t, 3, n)
	n, err = s.Recent(ctx, []string{"2026-06-02"}, at)
	require.NoError(t, err)
	require.Zero(t, n)
}

// exerciseWeeks is the Weeks part of RunStoreTests.
// Ranges over whole weeks (read from the weekly rollup) and their
// edges (from the daily one) count every day once.
func exerciseWeeks(t *testing.T, newStore func(t *testing.T) reporting.Store) {
	t.Parallel()
	s := newStore(t)
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC) // a Friday
	var hits []reporting.Hit
	for d := range 40 {
		day := start.AddDate(0, 0, d)
		for i := range d + 1 { // d+1 views on day d
			hits = append(hits, reporting.Hit{At: day.Add(time.Duration(i) * time.Minute), Day: day.Format(time.DateOnly),
				Visitor: "v" + strconv.Itoa(i), Path: "/p", Source: "Direct", Device: "desktop"})
		}
	}
	require.NoError(t, s.Record(ctx, hits, nil))
	sum := func(from, to int) int64 { // views on days from..to: (from+1)+...+(to+1)
		return int64((to+1)*(to+2)/2 - from*(from+1)/2)
	}
	for _, r := range [][2]int{{0, 39}, {3, 17}, {0, 0}, {5, 9}, {10, 16}, {2, 30}, {17, 39}} {
		from, to := start.AddDate(0, 0, r[0]).Format(time.DateOnly), start.AddDate(0, 0, r[1]).Format(time.DateOnly)
		rows, err := s.Daily(ctx, reporting.DimPage, from, to, 0)
		require.NoError(t, err)
		require.Len(t, rows, 1)
		require.Equal(t, sum(r[0], r[1]), rows[0].Views, "days %d..%d", r[0], r[1])
		totals, err := s.Daily(ctx, reporting.DimTotal, from, to, 0)
		require.NoError(t, err)
		var views int64
		for _, row := range totals {
			views += row.Views
		}
		require.Equal(t, sum(r[0], r[1]), views)
	}
}

// exerciseFiltered is the Filtered part of RunStoreTests.
// Filtered counts only the views with one page, source or device, in
// both directions of each pair, over ranges of days and weeks, and
// each visitor once per day and pair; Prune drops the pairs' old days
// too.
func exerciseFiltered(t *testing.T, newStore func(t *testing.T) reporting.Store) {
	t.Parallel()
	s := newStore(t)
	view := func(day, min int, visitor, path, source, device string) reporting.Hit {
		d := at.AddDate(0, 0, day)
		return reporting.Hit{At: d.Add(time.Duration(min) * time.Minute), Day: d.Format(time.DateOnly), Visitor: visitor, Path: path,
			Title: "Title of " + path, Source: source, Device: device}
	}
	// Day 0 (Monday 1 June): a reads /, /pricing (news, mobile); b
	// reads /pricing twice (Direct, desktop); c reads / (news,
	// desktop). Day 8: a again on /pricing from news on mobile.
	// "/pricing\x1fx" is a page whose name starts like a key of
	// /pricing; "news" and "newsy" share a prefix.
	require.NoError(t, s.Record(ctx, []reporting.Hit{
		view(0, 0, "a", "/", "news", "mobile"), view(0, 1, "a", "/pricing", "news", "mobile"),
		view(0, 2, "b", "/pricing", "Direct", "desktop"), view(0, 3, "b", "/pricing", "Direct", "desktop"),
		view(0, 4, "c", "/", "news", "desktop"), view(0, 5, "d", "/pricingx", "newsy", "tablet"),
		{At: at, Day: "2026-06-01", Visitor: "e", Event: "signup", Path: "/pricing"},
	}, nil))
	require.NoError(t, s.Record(ctx, []reporting.Hit{view(8, 0, "a", "/pricing", "news", "mobile")}, nil))
	page := reporting.Filters{{Dim: reporting.DimPage, Value: "/pricing"}}
	for _, r := range [][2]string{{"2026-06-01", "2026-06-09"}, {"2026-05-25", "2026-06-14"}, {"2026-06-01", "2026-06-01"}} {
		sources, err := s.Filtered(ctx, page, reporting.DimSource, r[0], r[1], 0)
		require.NoError(t, err)
		want := []reportingstore.DailyRow{{Key: "Direct", Views: 2, Visitors: 1, Sessions: 1}, {Key: "news", Views: 2, Visitors: 2}}
		if r[1] == "2026-06-01" {
			want[1] = reportingstore.DailyRow{Key: "news", Views: 1, Visitors: 1}
			want = []reportingstore.DailyRow{want[0], want[1]}
		} else {
			want[1].Sessions = 1 // a's view on day 8 began a session
		}
		require.Equal(t, want, sources, "the sources of /pricing over %v", r)
	}
	devices, err := s.Filtered(ctx, page, reporting.DimDevice, "2026-06-01", "2026-06-01", 0)
	require.NoError(t, err)
	require.Equal(t, []reportingstore.DailyRow{{Key: "desktop", Views: 2, Visitors: 1, Sessions: 1}, {Key: "mobile", Views: 1, Visitors: 1}}, devices)
	itself, err := s.Filtered(ctx, page, reporting.DimPage, "2026-06-01", "2026-06-30", 0)
	require.NoError(t, err)
	require.Equal(t, []reportingstore.DailyRow{{Key: "/pricing", Label: "Title of /pricing", Views: 4, Visitors: 3, Sessions: 2}}, itself)
	trend, err := s.Filtered(ctx, page, reporting.DimTotal, "2026-06-01", "2026-06-30", 0)
	require.NoError(t, err)
	require.Equal(t, []reportingstore.DailyRow{{Key: "2026-06-01", Views: 3, Visitors: 2, Sessions: 1}, {Key: "2026-06-09", Views: 1, Visitors: 1, Sessions: 1}}, trend)

	news := reporting.Filters{{Dim: reporting.DimSource, Value: "news"}}
	pages, err := s.Filtered(ctx, news, reporting.DimPage, "2026-06-01", "2026-06-01", 0)
	require.NoError(t, err)
	require.Equal(t, []reportingstore.DailyRow{{Key: "/", Label: "Title of /", Views: 2, Visitors: 2, Sessions: 2},
		{Key: "/pricing", Label: "Title of /pricing", Views: 1, Visitors: 1}}, pages, "not newsy's page")
	top, err := s.Filtered(ctx, news, reporting.DimPage, "2026-06-01", "2026-06-01", 1)
	require.NoError(t, err)
	require.Len(t, top, 1)
	devices, err = s.Filtered(ctx, news, reporting.DimDevice, "2026-06-01", "2026-06-01", 0)
	require.NoError(t, err)
	require.Equal(t, []reportingstore.DailyRow{{Key: "mobile", Views: 2, Visitors: 1, Sessions: 1}, {Key: "desktop", Views: 1, Visitors: 1, Sessions: 1}}, devices)

	mobile := reporting.Filters{{Dim: reporting.DimDevice, Value: "mobile"}}
	sources, err := s.Filtered(ctx, mobile, reporting.DimSource, "2026-06-01", "2026-06-30", 0)
	require.NoError(t, err)
	require.Equal(t, []reportingstore.DailyRow{{Key: "news", Views: 3, Visitors: 2, Sessions: 2}}, sources, "a on two days is two visitors")
	none, err := s.Filtered(ctx, reporting.Filters{{Dim: reporting.DimPage, Value: "/nowhere"}}, reporting.DimSource, "2026-06-01", "2026-06-30", 0)
	require.NoError(t, err)
	require.Empty(t, none)
	_, err = s.Filtered(ctx, reporting.Filters{{Dim: reporting.DimCountry, Value: "DE"}}, reporting.DimPage, "2026-06-01", "2026-06-30", 0)
	require.Error(t, err, "not a filter")

	// Filters stack (AND): two give the third dimension from the
	// triples and the totals from their pair; three give the triple.
	newsMobile := reporting.Filters{{Dim: reporting.DimSource, Value: "news"}, {Dim: reporting.DimDevice, Value: "mobile"}}
	pages, err = s.Filtered(ctx, newsMobile, reporting.DimPage, "2026-06-01", "2026-06-30", 0)
	require.NoError(t, err)
	require.Equal(t, []reportingstore.DailyRow{{Key: "/pricing", Label: "Title of /pricing", Views: 2, Visitors: 2, Sessions: 1},
		{Key: "/", Label: "Title of /", Views: 1, Visitors: 1, Sessions: 1}}, pages, "a's views, not c's on desktop nor d's from newsy")
	top, err = s.Filtered(ctx, newsMobile, reporting.DimPage, "2026-06-01", "2026-06-30", 1)
	require.NoError(t, err)
	require.Len(t, top, 1)
	trend, err = s.Filtered(ctx, newsMobile, reporting.DimTotal, "2026-06-01", "2026-06-30", 0)
	require.NoError(t, err)
	require.Equal(t, []reportingstore.DailyRow{{Key: "2026-06-01", Views: 2, Visitors: 1, Sessions: 1}, {Key: "2026-06-09", Views: 1, Visitors: 1, Sessions: 1}}, trend)
	itself, err = s.Filtered(ctx, newsMobile, reporting.DimSource, "2026-06-01", "2026-06-30", 0)
	require.NoError(t, err)
	require.Equal(t, []reportingstore.DailyRow{{Key: "news", Views: 3, Visitors: 2, Sessions: 2}}, itself)
	pricingNews := reporting.Filters{{Dim: reporting.DimPage, Value: "/pricing"}, {Dim: reporting.DimSource, Value: "news"}}
	devices, err = s.Filtered(ctx, pricingNews, reporting.DimDevice, "2026-06-01", "2026-06-30", 0)
	require.NoError(t, err)
	require.Equal(t, []reportingstore.DailyRow{{Key: "mobile", Views: 2, Visitors: 2, Sessions: 1}}, devices)
	homeDesktop := reporting.Filters{{Dim: reporting.DimDevice, Value: "desktop"}, {Dim: reporting.DimPage, Value: "/"}}
	sources, err = s.Filtered(ctx, homeDesktop, reporting.DimSource, "2026-06-01", "2026-06-30", 0)
	require.NoError(t, err)
	require.Equal(t, []reportingstore.DailyRow{{Key: "news", Views: 1, Visitors: 1, Sessions: 1}}, sources, "in either order")
	all := append(slices.Clone(pricingNews), reporting.Filter{Dim: reporting.DimDevice, Value: "mobile"})
	trend, err = s.Filtered(ctx, all, reporting.DimTotal, "2026-06-01", "2026-06-30", 0)
	require.NoError(t, err)
	require.Equal(t, []reportingstore.DailyRow{{Key: "2026-06-01", Views: 1, Visitors: 1}, {Key: "2026-06-09", Views: 1, Visitors: 1, Sessions: 1}}, trend)
	itself, err = s.Filtered(ctx, all, reporting.DimPage, "2026-06-01", "2026-06-30", 0)
	require.NoError(t, err)
	require.Equal(t, []reportingstore.DailyRow{{Key: "/pricing", Label: "Title of /pricing", Views: 2, Visitors: 2, Sessions: 1}}, itself)
	none, err = s.Filtered(ctx, reporting.Filters{{Dim: reporting.DimSource, Value: "news"}, {Dim: reporting.DimDevice, Value: "tablet"}},
		reporting.DimPage, "2026-06-01", "2026-06-30", 0)
	require.NoError(t, err)
	require.Empty(t, none, "newsy's tablet is not news's")
	none, err = s.Filtered(ctx, reporting.Filters{{Dim: reporting.DimSource, Value: "news"}, {Dim: reporting.DimDevice, Value: "tablet"}},
		reporting.DimSource, "2026-06-01", "2026-06-30", 0)
	require.NoError(t, err)
	require.Empty(t, none, "no row for a combination nobody had")
	_, err = s.Filtered(ctx, reporting.Filters{{Dim: reporting.DimSource, Value: "news"}, {Dim: reporting.DimSource, Value: "Direct"}},
		reporting.DimPage, "2026-06-01", "2026-06-30", 0)
	require.Error(t, err, "one value a dimension")

	_, err = s.Forget(ctx, "", "2026-06-02")
	require.NoError(t, err)
	sources, err = s.Filtered(ctx, page, reporting.DimSource, "2026-05-01", "2026-06-30", 0)
	require.NoError(t, err)
	require.Equal(t, []reportingstore.DailyRow{{Key: "news", Views: 1, Visitors: 1, Sessions: 1}}, sources, "day 8 only")
	pages, err = s.Filtered(ctx, newsMobile, reporting.DimPage, "2026-05-01", "2026-06-30", 0)
	require.NoError(t, err)
	require.Equal(t, []reportingstore.DailyRow{{Key: "/pricing", Label: "Title of /pricing", Views: 1, Visitors: 1, Sessions: 1}}, pages, "the triples' old days too")
}

// exerciseRecordAndRead is the RecordAndRead part of RunStoreTests.
func exerciseRecordAndRead(t *testing.T, newStore func(t *testing.T) reporting.Store) {
	t.Parallel()
	s := newStore(t)
	// Visitor a: /, /about (5 min later), / again after 40 minutes
	// (a new session); visitor b: /about; an event from a.
	signup := hit(6, "a", "")
	signup.Event, signup.Path, signup.Title = "signup", "", ""
	require.NoError(t, s.Record(ctx, []reporting.Hit{hit(0, "a", "/"), hit(5, "a", "/about"), signup}, nil))
	b := hit(10, "b", "/about")
	b.Source, b.Device, b.Country = "news.example", "mobile", "DE"
	require.NoError(t, s.Record(ctx, []reporting.Hit{hit(45, "a", "/"), b}, nil), "a second batch")

	totals, err := s.Daily(ctx, reporting.DimTotal, "2026-06-01", "2026-06-01", 0)
	require.NoError(t, err)
	require.Equal(t, []reportingstore.DailyRow{{Key: "2026-06-01", Views: 4, Visitors: 2, Sessions: 3, Duration: 6 * 60, Bounces: 2}}, totals,
		"4 views, a and b, a's two sessions and b's, a's first 6 minutes (to the event), a's second and b's one view each")
	pages, err := s.Daily(ctx, reporting.DimPage, "2026-06-01", "2026-06-01", 0)
	require.NoError(t, err)
	require.Equal(t, []reportingstore.DailyRow{{Key: "/", Label: "Title of /", Views: 2, Visitors: 1, Sessions: 2},
		{Key: "/about", Label: "Title of /about", Views: 2, Visitors: 2, Sessions: 1}}, pages,
		"by views, then key; a's two sessions began on /, b's on /about")
	top, err := s.Daily(ctx, reporting.DimPage, "2026-06-01", "2026-06-01", 1)
	require.NoError(t, err)
	require.Len(t, top, 1)
	events, err := s.Daily(ctx, reporting.DimEvent, "2026-06-01", "2026-06-01", 0)
	require.NoError(t, err)
	require.Equal(t, []reportingstore.DailyRow{{Key: "signup", Views: 1, Visitors: 1}}, events)
	sources, err := s.Daily(ctx, reporting.DimSource, "2026-06-01", "2026-06-01", 0)
	require.NoError(t, err)
	require.Equal(t, "Direct", sources[0].Key)
	require.Equal(t, int64(3), sources[0].Views)
	countries, err := s.Daily(ctx, reporting.DimCountry, "2026-06-01", "2026-06-01", 0)
	require.NoError(t, err)
	require.Equal(t, []reportingstore.DailyRow{{Key: "DE", Views: 1, Visitors: 1}}, countries)
	entries, err := s.Daily(ctx, reporting.DimEntry, "2026-06-01", "2026-06-01", 0)
	require.NoError(t, err)
	require.Equal(t, []reportingstore.DailyRow{{Key: "/", Label: "Title of /", Views: 2, Visitors: 1, Sessions: 2, Duration: 6 * 60, Bounces: 1},
		{Key: "/about", Label: "Title of /about", Views: 1, Visitors: 1, Sessions: 1, Bounces: 1}}, entries,
		"a entered twice on / (the second a bounce), b on /about (a bounce)")
	exits, err := s.Daily(ctx, reporting.DimExit, "2026-06-01", "2026-06-01", 0)
	require.NoError(t, err)
	require.Equal(t, []reportingstore.DailyRow{{Key: "/about", Label: "Title of /about", Views: 2}, {Key: "/", Label: "Title of /", Views: 1}}, exits,
		"a's first session left from /about (its exit moved there from /), the second from /; b's from /about")
	none, err := s.Daily(ctx, reporting.DimPage, "2026-06-02", "2026-06-30", 0)
	require.NoError(t, err)
	require.Empty(t, none)

	// The same visitor hash on another day is another visitor.
	next := hit(24*60, "a", "/")
	next.Day = "2026-06-02"
	require.NoError(t, s.Record(ctx, []reporting.Hit{next}, nil))
	totals, err = s.Daily(ctx, reporting.DimTotal, "2026-06-01", "2026-06-02", 0)
	require.NoError(t, err)
	require.Len(t, totals, 2)
	require.Equal(t, int64(1), totals[1].Visitors)
	require.Equal(t, int64(1), totals[1].Sessions)

	n, err := s.Forget(ctx, "", "2026-06-02")
	require.NoError(t, err)
	require.Positive(t, n)
	totals, err = s.Daily(ctx, reporting.DimTotal, "2026-06-01", "2026-06-02", 0)
	require.NoError(t, err)
	require.Len(t, totals, 1)
	require.NoError(t, s.Record(ctx, nil, nil))
}
