package counting_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/counting"
	"github.com/groundwork-go/groundwork/reporting/visits"
)

// seen is a Seen in memory.
type seen map[string]bool

func (s seen) Claim(v string) bool {
	if s[v] {
		return false
	}
	s[v] = true
	return true
}

// counts is a hit's rows summed by dimension and key, as
// "views/visitors/sessions/bounces/duration".
func counts(c counting.Counted) map[string]string {
	sum := map[string]counting.Row{}
	for _, r := range c.Rows {
		k := string(r.Dim) + " " + r.Key
		s := sum[k]
		s.Views, s.Visitors, s.Sessions, s.Bounces, s.Duration = s.Views+r.Views, s.Visitors+r.Visitors, s.Sessions+r.Sessions, s.Bounces+r.Bounces, s.Duration+r.Duration
		sum[k] = s
	}
	out := map[string]string{}
	for k, s := range sum {
		out[k] = fmt.Sprintf("%d/%d/%d/%d/%d", s.Views, s.Visitors, s.Sessions, s.Bounces, s.Duration)
	}
	return out
}

func TestCountOneVisitorsDay(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	goals := []reporting.Goal{{ID: 7, Event: "signup"}, {ID: 8, Page: "/b*"}}
	view := func(at time.Duration, path string) reporting.Hit {
		return reporting.Hit{At: t0.Add(at), Day: "2026-11-30", Visitor: "v", Path: path, Title: "T" + path, Source: "ref.example",
			Device: "desktop", Browser: "Firefox", OS: "Linux", Country: "NL", Campaign: [4]string{"email"}}
	}
	event := reporting.Hit{At: t0.Add(5 * time.Minute), Day: "2026-11-30", Visitor: "v", Event: "signup",
		Props: []reporting.Prop{{Name: "plan", Value: "pro"}}}
	d := counting.Day{Seen: seen{}}
	var c counting.Counted
	for _, step := range []struct {
		name     string
		hit      reporting.Hit
		began    bool
		extended bool
		st       visits.Step
		want     map[string]string
	}{
		{name: "an event before any page view counts, and extends nothing", hit: reporting.Hit{At: t0.Add(-time.Minute), Day: "2026-11-30",
			Visitor: "v", Event: "scroll"},
			want: map[string]string{"event scroll": "1/1/0/0/0"}},
		{name: "the first page view begins a session", hit: view(0, "/a"), began: true, want: map[string]string{
			"total ": "1/1/1/1/0", "entry /a": "1/1/1/1/0", "exit /a": "1/0/0/0/0", "page /a": "1/1/1/0/0",
			"source ref.example": "1/1/1/0/0", "device desktop": "1/1/1/0/0", "browser Firefox": "1/1/1/0/0", "os Linux": "1/1/1/0/0",
			"medium email": "1/1/1/0/0", "country NL": "1/1/0/0/0"}},
		{name: "an event within the gap lengthens the session and takes its bounce off", hit: event, extended: true,
			st: visits.Step{Seconds: 300, Unbounced: true}, want: map[string]string{
				"goal 7": "1/1/0/0/0", "event signup": "1/1/0/0/0", "prop signup\x1fplan\x1fpro": "1/1/0/0/0",
				"total ": "0/0/0/-1/300", "entry /a": "0/0/0/-1/300"}},
		{name: "a second page moves the exit; the visitor is no new visitor of the day", hit: view(6*time.Minute, "/b"), extended: true,
			st: visits.Step{Seconds: 60}, want: map[string]string{
				"goal 8": "1/1/0/0/0", "total ": "1/0/0/0/60", "entry /a": "0/0/0/0/60", "exit /a": "-1/0/0/0/0", "exit /b": "1/0/0/0/0",
				"page /b": "1/1/0/0/0", "source ref.example": "1/0/0/0/0", "device desktop": "1/0/0/0/0", "browser Firefox": "1/0/0/0/0",
				"os Linux": "1/0/0/0/0", "medium email": "1/0/0/0/0", "country NL": "1/0/0/0/0"}},
		{name: "the same page again within the gap moves nothing", hit: view(7*time.Minute, "/b"), extended: true,
			st: visits.Step{Seconds: 60}, want: map[string]string{
				"goal 8": "1/0/0/0/0", "total ": "1/0/0/0/60", "entry /a": "0/0/0/0/60",
				"page /b": "1/0/0/0/0", "source ref.example": "1/0/0/0/0", "device desktop": "1/0/0/0/0", "browser Firefox": "1/0/0/0/0",
				"os Linux": "1/0/0/0/0", "medium email": "1/0/0/0/0", "country NL": "1/0/0/0/0"}},
		{name: "a page view after the gap begins a second session; its entrance's visitor is counted once a day",
			hit: view(7*time.Minute+visits.Gap+time.Second, "/a"), began: true, want: map[string]string{
				"total ": "1/0/1/1/0", "entry /a": "1/0/1/1/0", "exit /a": "1/0/0/0/0", "page /a": "1/0/1/0/0",
				"source ref.example": "1/0/1/0/0", "device desktop": "1/0/1/0/0", "browser Firefox": "1/0/1/0/0", "os Linux": "1/0/1/0/0",
				"medium email": "1/0/1/0/0", "country NL": "1/0/0/0/0"}},
	} {
		counting.Count(&c, step.hit, &d, goals)
		require.Equal(t, step.want, counts(c), step.name)
		require.Equal(t, step.began, c.Began, step.name)
		require.Equal(t, step.extended, c.Extended, step.name)
		require.Equal(t, step.st, c.Step, step.name)
	}
	require.Equal(t, "/a", d.Session.Entry)
	require.Equal(t, int64(1), d.Session.Hits)
}

// The values a visitor's day keeps are stored: a scope's code never
// changes.
func TestScopesAreStable(t *testing.T) {
	for dim, want := range map[reporting.Dimension]string{
		reporting.DimTotal: "t:", reporting.DimPage: "p:/x", reporting.DimSource: "s:/x", reporting.DimDevice: "d:/x",
		reporting.DimEntry: "a:/x", reporting.DimCountry: "c:/x", reporting.DimEvent: "e:/x", reporting.DimProp: "v:/x",
		reporting.DimGoal: "g:/x", reporting.DimMedium: "m:/x", reporting.DimCampaign: "n:/x", reporting.DimTerm: "k:/x",
		reporting.DimContent: "o:/x", reporting.DimExit: "", reporting.DimBrowser: "", reporting.DimOS: "",
	} {
		key := "/x"
		if dim == reporting.DimTotal {
			key = ""
		}
		require.Equal(t, want, counting.Scope(dim, key), dim)
	}
}

// A store keeps each visitor's Day, calls Count for each of their hits
// in time order, and adds the rows it returns to its rollups.
func ExampleCount() {
	seen := seen{}
	day := counting.Day{Seen: seen}
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	var c counting.Counted
	for i, path := range []string{"/", "/pricing"} {
		h := reporting.Hit{At: at.Add(time.Duration(i) * time.Minute), Day: "2026-11-30", Visitor: "v", Path: path}
		counting.Count(&c, h, &day, nil)
		for _, r := range c.Rows {
			if r.Dim == reporting.DimTotal || r.Dim == reporting.DimPage {
				fmt.Printf("%s %q: views %+d, visitors %+d, sessions %+d, bounces %+d, seconds %+d\n",
					r.Dim, r.Key, r.Views, r.Visitors, r.Sessions, r.Bounces, r.Duration)
			}
		}
	}
	// Output:
	// total "": views +1, visitors +1, sessions +1, bounces +1, seconds +0
	// page "/": views +1, visitors +1, sessions +1, bounces +0, seconds +0
	// total "": views +1, visitors +0, sessions +0, bounces +0, seconds +0
	// total "": views +0, visitors +0, sessions +0, bounces -1, seconds +60
	// page "/pricing": views +1, visitors +1, sessions +0, bounces +0, seconds +0
}

// BenchmarkCount counts a day of varied page views and events: 2,000
// visitors, each with a few hits over 200 pages, 20 sources and three
// goals. Reported per hit (the rules alone, no store).
func BenchmarkCount(b *testing.B) {
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	goals := []reporting.Goal{{ID: 1, Page: "/pricing"}, {ID: 2, Page: "/blog/*"}, {ID: 3, Event: "signup", Property: "plan", Value: "pro"}}
	var hits []reporting.Hit
	for i := range 10_000 {
		h := reporting.Hit{At: t0.Add(time.Duration(i) * 8 * time.Second), Day: "2026-11-30", Visitor: strconv.Itoa(i % 2000),
			Path: "/blog/" + strconv.Itoa(i%200), Title: "Post", Source: "ref" + strconv.Itoa(i%20) + ".example",
			Device: "desktop", Browser: "Firefox", OS: "Linux", Country: "NL"}
		if i%10 == 0 {
			h.Event, h.Props = "signup", []reporting.Prop{{Name: "plan", Value: "pro"}}
		}
		hits = append(hits, h)
	}
	var c counting.Counted
	for b.Loop() {
		days := map[string]*counting.Day{}
		for _, h := range hits {
			d := days[h.Visitor]
			if d == nil {
				d = &counting.Day{Seen: seen{}}
				days[h.Visitor] = d
			}
			counting.Count(&c, h, d, goals)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(hits)), "ns/hit")
}
