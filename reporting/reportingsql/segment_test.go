package reportingsql_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/reporting/visits"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// rawView is a page view of made-up traffic with what the test works out
// for it from the raw hits: its session, and whether it began or ended
// that session.
type rawView struct {
	hit         reporting.Hit
	sess        *rawSession
	entry, exit bool
}

type rawSession struct {
	first, last   time.Time
	views, events int
}

// TestSegmentsAgainstRawHits records two days of made-up traffic with
// every dimension, events with properties and goals, in batches cut at
// random, and checks each report narrowed by stacked filters (views'
// values, a goal, a property) against the same figures computed here from
// the raw hits by the documented rules: a value filter keeps the views
// with that value; a goal or property filter keeps the views of the
// visitors who reached it that day; events, properties and goals are
// those of the visitors with a view the filters keep that day; sessions,
// bounces and length are those of the sessions that began on a kept
// view, exits those whose last view is kept.
func TestSegmentsAgainstRawHits(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(35, 8))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	var hits []reporting.Hit
	for _, day := range []time.Time{time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 6, 2, 0, 0, 0, 0, time.UTC)} {
		for v := range 150 {
			// The same visitor hashes on both days: two visitors.
			visitor := fmt.Sprintf("v%03d", v)
			at := day.Add(time.Duration(rng.IntN(20*60)) * time.Minute)
			// A visitor's browser, system, device and country hold for the
			// day; the source and campaign may change from view to view.
			device, country := pick("desktop", "mobile", "tablet"), pick("DE", "FR", "US", "")
			browser, os := pick("Firefox", "Chrome", "Safari"), pick("Linux", "Windows", "iOS")
			for range 1 + rng.IntN(6) {
				path := pick("/", "/pricing", "/blog/a", "/blog/b", "/thanks")
				h := reporting.Hit{At: at, Day: day.Format(time.DateOnly), Visitor: visitor, Path: path, Title: "T" + path,
					Source: pick("Direct", "google.com", "news.example"), Device: device, Country: country, Browser: browser, OS: os}
				if rng.IntN(3) == 0 {
					h.Campaign = [4]string{pick("cpc", "email"), pick("spring", "autumn"), "", pick("", "a")}
				}
				hits = append(hits, h)
				if rng.IntN(3) == 0 {
					e := reporting.Hit{At: at.Add(time.Duration(rng.IntN(90)) * time.Second), Day: h.Day, Visitor: visitor, Event: pick("signup", "click")}
					if e.Event == "signup" {
						e.Props = []reporting.Prop{{Name: "plan", Value: pick("pro", "free")}}
					}
					hits = append(hits, e)
				}
				at = at.Add([]time.Duration{20 * time.Second, 3 * time.Minute, 29 * time.Minute, 31 * time.Minute, 2 * time.Hour}[rng.IntN(5)])
				if at.Day() != day.Day() {
					break
				}
			}
		}
	}

	// Sessions, entries and exits from the raw hits.
	byTime := slices.Clone(hits)
	slices.SortStableFunc(byTime, func(a, b reporting.Hit) int { return a.At.Compare(b.At) })
	var views []*rawView
	open, lastView := map[[2]string]*rawSession{}, map[*rawSession]*rawView{}
	for _, h := range byTime {
		k := [2]string{h.Day, h.Visitor}
		s := open[k]
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
		v := &rawView{hit: h}
		if s == nil {
			s = &rawSession{first: h.At}
			open[k] = s
			v.entry = true
		}
		s.views++
		s.last = h.At
		v.sess = s
		if prev := lastView[s]; prev != nil {
			prev.exit = false
		}
		v.exit = true
		lastView[s] = v
		views = append(views, v)
	}

	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		db := storetest.Open(t, d, reportingsql.Migrations)
		st := reportingsql.New(db)
		ctx := context.Background()
		blog, err := st.AddGoal(ctx, reporting.Goal{Name: "Blog", Page: "/blog/*"})
		require.NoError(t, err)
		pro, err := st.AddGoal(ctx, reporting.Goal{Name: "Pro", Event: "signup", Property: "plan", Value: "pro"})
		require.NoError(t, err)
		clicks, err := st.AddGoal(ctx, reporting.Goal{Name: "Clicks", Event: "click"})
		require.NoError(t, err)
		goals := []reporting.Goal{blog, pro, clicks}
		batch := rand.New(rand.NewPCG(35, 9)) // this dialect's own: they run side by side
		// live reads as the batches come, so its copies of the days (being
		// written) are brought up to date batch by batch, and read anew
		// whenever their overlays outgrow a fifth of them.
		live := reportingsql.New(db)
		reportingsql.SetOverlayFloor(live)
		for rest := hits; len(rest) > 0; {
			n := min(len(rest), 1+batch.IntN(60))
			require.NoError(t, st.Record(ctx, rest[:n], nil))
			rest = rest[n:]
			_, err := live.Segment(ctx, reporting.Filters{{Dim: reporting.DimCountry, Value: "DE"}}, reporting.DimTotal, "2026-06-01", "2026-06-02", 0)
			require.NoError(t, err)
		}

		// reached reports whether the visitor of day reached f (a goal or
		// property filter) that day.
		reached := func(day, visitor string, f reporting.Filter) bool {
			for _, h := range hits {
				if h.Day != day || h.Visitor != visitor {
					continue
				}
				switch f.Dim {
				case reporting.DimGoal:
					id, _ := strconv.ParseInt(f.Value, 10, 64)
					for _, g := range goals {
						if g.ID == id && g.Matches(h) {
							return true
						}
					}
				case reporting.DimProp:
					name, value, _ := reporting.SplitPropFilter(f.Value)
					if slices.Contains(h.Props, reporting.Prop{Name: name, Value: value}) {
						return true
					}
				}
			}
			return false
		}
		value := func(h reporting.Hit, dim reporting.Dimension) string {
			switch dim {
			case reporting.DimPage:
				return h.Path
			case reporting.DimSource:
				return h.Source
			case reporting.DimDevice:
				return h.Device
			case reporting.DimCountry:
				return h.Country
			case reporting.DimBrowser:
				return h.Browser
			case reporting.DimOS:
				return h.OS
			}
			return h.Campaign[slices.Index(reporting.CampaignDims, dim)]
		}
		// kept reports whether fs keep the view h; ofVisitor asks only
		// whether its visitor is kept (any view of theirs that day).
		var kept func(h reporting.Hit, fs reporting.Filters, ofVisitor bool) bool
		kept = func(h reporting.Hit, fs reporting.Filters, ofVisitor bool) bool {
			for _, f := range fs {
				switch f.Dim {
				case reporting.DimGoal, reporting.DimProp:
					if !reached(h.Day, h.Visitor, f) {
						return false
					}
				default:
					if ofVisitor {
						if !slices.ContainsFunc(views, func(v *rawView) bool {
							return v.hit.Day == h.Day && v.hit.Visitor == h.Visitor && kept(v.hit, fs, false)
						}) {
							return false
						}
					} else if value(h, f.Dim) != f.Value {
						return false
					}
				}
			}
			return true
		}
		type figures struct{ Views, Visitors, Sessions, Duration, Bounces int64 }
		sum := func(m map[string]*figures, key string, v *rawView, seen map[string]bool) {
			f := m[key]
			if f == nil {
				f = &figures{}
				m[key] = f
			}
			f.Views++
			if id := key + "|" + v.hit.Day + v.hit.Visitor; !seen[id] {
				seen[id] = true
				f.Visitors++
			}
			if v.entry {
				f.Sessions++
				f.Duration += int64(v.sess.last.Sub(v.sess.first) / time.Second)
				if v.sess.views == 1 && v.sess.events == 0 {
					f.Bounces++
				}
			}
		}
		// Each report is read four ways, which must agree: in SQL; with
		// both days kept in memory; with the first kept and the second
		// (written a moment ago as far as the store knows) read whole into
		// a copy of a day still written; and from the copies live brought
		// up to date as the batches came.
		inSQL, inMemory := reportingsql.New(db), reportingsql.New(db)
		inSQL.SegmentMemory = -1
		inMemory.Now = func() time.Time { return time.Now().Add(time.Hour) }
		_, err = db.ExecContext(ctx, db.Rebind(`UPDATE reporting_days SET changed_at = ? WHERE day = '2026-06-01'`),
			store.NewTime(time.Now().Add(-time.Hour)))
		require.NoError(t, err)
		mixed := reportingsql.New(db)
		got := func(fs reporting.Filters, dim reporting.Dimension) map[string]figures {
			var out map[string]figures
			for i, st := range []*reportingsql.Store{inSQL, inMemory, mixed, live} {
				rows, err := st.Segment(ctx, fs, dim, "2026-06-01", "2026-06-02", 0)
				require.NoError(t, err, "%s by %v", dim, fs)
				byKey := map[string]figures{}
				for _, r := range rows {
					byKey[r.Key] = figures{r.Views, r.Visitors, r.Sessions, r.Duration, r.Bounces}
				}
				if i > 0 {
					require.Equal(t, out, byKey, "%s by %v read %s", dim, fs, []string{"", "from memory", "partly from memory", "from copies kept up to date"}[i])
				}
				out = byKey
			}
			return out
		}
		deref := func(m map[string]*figures) map[string]figures {
			out := map[string]figures{}
			for k, f := range m {
				out[k] = *f
			}
			return out
		}

		for _, fs := range []reporting.Filters{
			nil,
			{{Dim: reporting.DimCountry, Value: "DE"}},
			{{Dim: reporting.DimBrowser, Value: "Firefox"}, {Dim: reporting.DimOS, Value: "Linux"}},
			{{Dim: reporting.DimCampaign, Value: "spring"}, {Dim: reporting.DimDevice, Value: "mobile"}},
			{{Dim: reporting.DimGoal, Value: strconv.FormatInt(blog.ID, 10)}},
			{{Dim: reporting.DimProp, Value: reporting.PropFilter("plan", "pro")}},
			{{Dim: reporting.DimPage, Value: "/pricing"}, {Dim: reporting.DimGoal, Value: strconv.FormatInt(clicks.ID, 10)}},
			{{Dim: reporting.DimSource, Value: "google.com"}, {Dim: reporting.DimMedium, Value: "cpc"}, {Dim: reporting.DimCountry, Value: "FR"},
				{Dim: reporting.DimProp, Value: reporting.PropFilter("plan", "free")}},
		} {
			// Views by each of their values, by day, entries and exits.
			for _, dim := range []reporting.Dimension{reporting.DimTotal, reporting.DimPage, reporting.DimSource, reporting.DimDevice, reporting.DimCountry,
				reporting.DimBrowser, reporting.DimOS, reporting.DimMedium, reporting.DimCampaign, reporting.DimTerm, reporting.DimContent,
				reporting.DimEntry, reporting.DimExit} {
				want, seen := map[string]*figures{}, map[string]bool{}
				for _, v := range views {
					if !kept(v.hit, fs, false) {
						continue
					}
					switch dim {
					case reporting.DimTotal:
						sum(want, v.hit.Day, v, seen)
					case reporting.DimEntry:
						if v.entry {
							sum(want, v.hit.Path, v, seen)
						}
					case reporting.DimExit:
						if v.exit {
							f := want[v.hit.Path]
							if f == nil {
								f = &figures{}
								want[v.hit.Path] = f
							}
							f.Views++
						}
					default:
						key := value(v.hit, dim)
						if key == "" && dim != reporting.DimPage && dim != reporting.DimSource && dim != reporting.DimDevice {
							continue
						}
						sum(want, key, v, seen)
					}
				}
				if dim == reporting.DimEntry {
					for _, f := range want { // entrances are its views
						f.Views = f.Sessions
					}
				}
				require.Equal(t, deref(want), got(fs, dim), "%s by %v", dim, fs)
			}
			// Events, properties and goals of the visitors kept.
			events, props, conv := map[string]*figures{}, map[string]*figures{}, map[string]*figures{}
			seenE, seenP, seenG := map[string]bool{}, map[string]bool{}, map[string]bool{}
			add := func(m map[string]*figures, key string, h reporting.Hit, seen map[string]bool) {
				f := m[key]
				if f == nil {
					f = &figures{}
					m[key] = f
				}
				f.Views++
				if id := key + "|" + h.Day + h.Visitor; !seen[id] {
					seen[id] = true
					f.Visitors++
				}
			}
			for _, h := range hits {
				if !kept(h, fs, true) {
					continue
				}
				for _, g := range goals {
					if g.Matches(h) {
						add(conv, strconv.FormatInt(g.ID, 10), h, seenG)
					}
				}
				if h.Event == "" {
					continue
				}
				add(events, h.Event, h, seenE)
				for _, p := range h.Props {
					add(props, reporting.PropKey(h.Event, p.Name, p.Value), h, seenP)
				}
			}
			require.Equal(t, deref(events), got(fs, reporting.DimEvent), "events by %v", fs)
			require.Equal(t, deref(props), got(fs, reporting.DimProp), "properties by %v", fs)
			require.Equal(t, deref(conv), got(fs, reporting.DimGoal), "goals by %v", fs)
		}

		// Unfiltered, the views kept by visitor agree with the rollups.
		total, err := st.Daily(ctx, reporting.DimTotal, "2026-06-01", "2026-06-02", 0)
		require.NoError(t, err)
		seg, err := st.Segment(ctx, nil, reporting.DimTotal, "2026-06-01", "2026-06-02", 0)
		require.NoError(t, err)
		require.Equal(t, total, seg)
		_, err = st.Segment(ctx, reporting.Filters{{Dim: reporting.DimGoal, Value: "999"}}, reporting.DimTotal, "2026-06-01", "2026-06-02", 0)
		require.ErrorIs(t, err, reporting.ErrBadFilter, "no such goal")

		// Through the reports: the bounce rate under filters, and a
		// table of a new dimension by others.
		a, err := reporting.NewAnalytics(st, &reporting.AnalyticsOptions{Now: func() time.Time { return time.Date(2026, 6, 2, 23, 0, 0, 0, time.UTC) }})
		require.NoError(t, err)
		fs := reporting.Filters{{Dim: reporting.DimCountry, Value: "DE"}, {Dim: reporting.DimDevice, Value: "mobile"}}
		over, err := a.Overview(ctx, reporting.AnalyticsQuery{Days: 2, Filters: fs})
		require.NoError(t, err)
		var sessions, bounces int
		for _, v := range views {
			if v.entry && kept(v.hit, fs, false) {
				sessions++
				if v.sess.views == 1 && v.sess.events == 0 {
					bounces++
				}
			}
		}
		require.Positive(t, sessions)
		require.Equal(t, float64(sessions), over.Totals.Sessions)
		require.NotNil(t, over.Totals.BounceRate)
		require.InDelta(t, float64(bounces)/float64(sessions), *over.Totals.BounceRate, 1e-9)
		browsers, err := a.Breakdown(ctx, reporting.DimBrowser, reporting.AnalyticsQuery{Days: 2, Filters: fs})
		require.NoError(t, err)
		require.NotEmpty(t, browsers.Rows)
		conversions, err := a.GoalConversions(ctx, reporting.AnalyticsQuery{Days: 2, Filters: fs})
		require.NoError(t, err)
		require.Equal(t, over.Totals.Users, conversions.Visitors, "the rate is out of the visitors kept")
	})
}

// A goal's page pattern matches its own characters only: "_" and "%"
// (Postgres's LIKE) and "[" and "?" (SQLite's GLOB) are themselves.
func TestSegmentGoalPatternEscapes(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		db := storetest.Open(t, d, reportingsql.Migrations)
		st := reportingsql.New(db)
		// The day read from memory, too.
		inMemory := reportingsql.New(db)
		inMemory.Now = func() time.Time { return time.Now().Add(time.Hour) }
		ctx := context.Background()
		at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
		var hits []reporting.Hit
		for i, path := range []string{"/a_b/1", "/axb/2", "/[x]/3", "/x/4", "/50%/5", "/500/6", "/q?/7", "/qq/8"} {
			hits = append(hits, reporting.Hit{At: at, Day: "2026-06-01", Visitor: fmt.Sprint("v", i), Path: path, Source: "Direct", Device: "desktop"})
		}
		require.NoError(t, st.Record(ctx, hits, nil))
		for pattern, want := range map[string]string{"/a_b/*": "/a_b/1", "/[x]/*": "/[x]/3", "/50%/*": "/50%/5", "/q?/*": "/q?/7"} {
			g, err := st.AddGoal(ctx, reporting.Goal{Page: pattern})
			require.NoError(t, err)
			for _, st := range []*reportingsql.Store{st, inMemory} {
				rows, err := st.Segment(ctx, reporting.Filters{{Dim: reporting.DimGoal, Value: strconv.FormatInt(g.ID, 10)}}, reporting.DimPage,
					"2026-06-01", "2026-06-01", 0)
				require.NoError(t, err)
				require.Len(t, rows, 1, pattern)
				require.Equal(t, want, rows[0].Key, pattern)
			}
		}
	})
}
