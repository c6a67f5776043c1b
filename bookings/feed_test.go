package bookings_test

import (
	"bytes"
	"context"
	"flag"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// feedBundle is setup's service with a fixed random source (so booking
// numbers are the same every run), UIDs ending in example.com, and the
// feeds served beside the API.
type feedBundle struct {
	*bundle
	feeds *httptest.Server
}

func setupFeeds(t *testing.T, d store.Dialect, opts *bookings.FeedHandlerOptions) *feedBundle {
	t.Helper()
	db := storetest.Open(t, d, bookingssql.Migrations)
	st := bookingssql.New(db)
	c := &clock{}
	c.Set(now)
	svc, err := bookings.NewService(st, &bookings.Options{Now: c.Now, Rand: rand.NewChaCha8([32]byte{7}), FeedHost: "example.com"})
	require.NoError(t, err)
	b := serveBundle(t, db, svc, c)
	b.service = newOffering(t, st, "consultation", 30)
	b.provider = newProvider(t, st, "ada", "America/New_York")
	require.NoError(t, st.LinkProvider(context.Background(), b.service.ID, b.provider.ID, nil, nil))
	weekdays(t, st, b.provider.ID, 9*60, 17*60)
	h, err := bookings.NewFeedHandler(svc, opts)
	require.NoError(t, err)
	feeds := httptest.NewServer(apitest.Of(t, h).Handler(h))
	t.Cleanup(feeds.Close)
	return &feedBundle{bundle: b, feeds: feeds}
}

type feedAnswer struct {
	code   int
	header http.Header
	body   []byte
}

func (f *feedBundle) get(t *testing.T, path string, ifNoneMatch ...string) feedAnswer {
	t.Helper()
	req, err := http.NewRequest("GET", f.feeds.URL+path, nil)
	require.NoError(t, err)
	for _, v := range ifNoneMatch {
		req.Header.Add("If-None-Match", v)
	}
	res, err := f.feeds.Client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return feedAnswer{res.StatusCode, res.Header, body}
}

func (f *feedBundle) advance(d time.Duration) { f.clock.Advance(d) }

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "%s differs; rerun with -update if the change is meant", path)
}

func TestFeedContent(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		f := setupFeeds(t, d, nil)
		ctx := context.Background()
		// A name that needs escaping and, with the service, folding.
		first, firstToken, err := f.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-03T14:00:00Z"),
			CustomerName: "Hopper, Grace; Rear Admiral \\ COBOL — 海軍少将 and a long tail of titles", CustomerEmail: "grace@example.com",
			CustomerTimeZone: "Europe/Paris"})
		require.NoError(t, err)
		f.advance(time.Minute)
		second, _, err := f.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-04T15:00:00Z"),
			CustomerName: "Ada\r\nLovelace", CustomerEmail: "ada@example.com"})
		require.NoError(t, err)
		f.advance(time.Minute)
		third, thirdToken, err := f.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-05T15:00:00Z"),
			CustomerName: "Alan", CustomerEmail: "alan@example.com"})
		require.NoError(t, err)
		f.advance(time.Minute)
		_, err = f.svc.Reschedule(ctx, second.ID, mustTime("2026-06-04T16:00:00Z"), bookings.ActorAdmin)
		require.NoError(t, err)
		_, err = f.svc.Cancel(ctx, third.ID, bookings.ActorCustomer, "")
		require.NoError(t, err)

		token, err := f.svc.MintFeedToken(ctx, f.provider.ID)
		require.NoError(t, err)
		a := f.get(t, "/bookings/ical/providers/"+token+".ics")
		require.Equal(t, 200, a.code, string(a.body))
		require.Equal(t, "text/calendar; charset=utf-8", a.header.Get("Content-Type"))
		require.Equal(t, `inline; filename="ada.ics"`, a.header.Get("Content-Disposition"))
		require.Equal(t, "private, max-age=300", a.header.Get("Cache-Control"))
		require.Regexp(t, `^"[0-9a-f]{40}"$`, a.header.Get("ETag"))
		golden(t, "provider.ics", a.body)
		for line := range strings.SplitSeq(strings.TrimSuffix(string(a.body), "\r\n"), "\r\n") {
			require.LessOrEqual(t, len(line), 75, "folded at 75 octets: %q", line)
			require.NotContains(t, line, "\n")
			require.NotContains(t, line, "\r")
		}

		// Parsed back, the provider feed has the two live bookings with
		// their texts intact, the cancelled one left out.
		cal, err := ics.ParseCalendar(bytes.NewReader(a.body))
		require.NoError(t, err)
		events := cal.Events()
		require.Len(t, events, 2)
		require.Equal(t, first.Number+"@example.com", events[0].Id())
		require.Equal(t, "Consultation consultation — "+first.CustomerName, ics.FromText(events[0].GetProperty(ics.ComponentPropertySummary).Value))
		require.Equal(t, "Reference: "+second.Number+"\nCustomer: Ada\nLovelace\nEmail: ada@example.com",
			ics.FromText(events[1].GetProperty(ics.ComponentPropertyDescription).Value))
		require.Equal(t, "1", events[1].GetProperty(ics.ComponentPropertySequence).Value, "rescheduled once")
		start, err := events[1].GetStartAt()
		require.NoError(t, err)
		require.Equal(t, mustTime("2026-06-04T16:00:00Z"), start)
		require.Equal(t, "CONFIRMED", events[0].GetProperty(ics.ComponentPropertyStatus).Value)

		// The customer feed: that one booking, cancelled or not.
		c := f.get(t, "/bookings/ical/customers/"+thirdToken+".ics")
		require.Equal(t, 200, c.code, string(c.body))
		require.Equal(t, `inline; filename="`+third.Number+`.ics"`, c.header.Get("Content-Disposition"))
		golden(t, "customer.ics", c.body)
		cal, err = ics.ParseCalendar(bytes.NewReader(c.body))
		require.NoError(t, err)
		require.Len(t, cal.Events(), 1)
		ev := cal.Events()[0]
		require.Equal(t, "CANCELLED", ev.GetProperty(ics.ComponentPropertyStatus).Value)
		require.Equal(t, "1", ev.GetProperty(ics.ComponentPropertySequence).Value)
		require.Equal(t, "Consultation consultation — Ada", ics.FromText(ev.GetProperty(ics.ComponentPropertySummary).Value))
		c = f.get(t, "/bookings/ical/customers/"+firstToken+".ics")
		require.Contains(t, string(c.body), "X-WR-TIMEZONE:Europe/Paris\r\n")

		// Unchanged: byte-identical, whatever the clock says.
		f.advance(time.Hour)
		again := f.get(t, "/bookings/ical/providers/"+token+".ics")
		require.Equal(t, a.body, again.body)
		require.Equal(t, a.header.Get("ETag"), again.header.Get("ETag"))
	})
}

func TestFeedETags(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		f := setupFeeds(t, d, nil)
		ctx := context.Background()
		token, err := f.svc.MintFeedToken(ctx, f.provider.ID)
		require.NoError(t, err)
		path := "/bookings/ical/providers/" + token + ".ics"
		tag := func() string {
			t.Helper()
			a := f.get(t, path)
			require.Equal(t, 200, a.code)
			return a.header.Get("ETag")
		}
		empty := tag()
		f.advance(time.Second)
		bk, manage, err := f.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-03T14:00:00Z"),
			CustomerName: "Grace", CustomerEmail: "grace@example.com"})
		require.NoError(t, err)
		created := tag()
		require.NotEqual(t, empty, created, "create")

		// 304 for the tag, "*", a list, a weak tag; the headers repeated.
		for _, h := range [][]string{{created}, {"*"}, {`"nope", ` + created}, {"W/" + created}, {`"a"`, created}} {
			a := f.get(t, path, h...)
			require.Equal(t, 304, a.code, h)
			require.Empty(t, a.body)
			require.Equal(t, created, a.header.Get("ETag"))
			require.Equal(t, "private, max-age=300", a.header.Get("Cache-Control"))
		}
		require.Equal(t, 200, f.get(t, path, `"nope"`, "W/"+empty).code)

		// Not otherwise: another provider's booking, reading, time.
		other := newProvider(t, f.svc.Store(), "bob", "America/New_York")
		require.NoError(t, f.svc.Store().LinkProvider(ctx, f.service.ID, other.ID, nil, nil))
		weekdays(t, f.svc.Store(), other.ID, 9*60, 17*60)
		f.advance(time.Second)
		_, _, err = f.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", ProviderID: other.ID, Start: mustTime("2026-06-03T14:00:00Z"),
			CustomerName: "Alan", CustomerEmail: "alan@example.com"})
		require.NoError(t, err)
		_, _, err = f.svc.Managed(ctx, manage)
		require.NoError(t, err)
		f.advance(time.Hour)
		require.Equal(t, created, tag(), "unchanged")

		// A service renamed: its name is in every event.
		f.advance(time.Second)
		renamed := "Consultation (renamed)"
		_, err = f.svc.UpdateService(ctx, "consultation", bookings.OfferingInput{Name: &renamed})
		require.NoError(t, err)
		afterRename := tag()
		require.NotEqual(t, created, afterRename, "rename")
		require.Contains(t, string(f.get(t, path).body), "SUMMARY:Consultation (renamed) — Grace")
		created = afterRename

		f.advance(time.Second)
		_, err = f.svc.Reschedule(ctx, bk.ID, mustTime("2026-06-03T15:00:00Z"), bookings.ActorAdmin)
		require.NoError(t, err)
		rescheduled := tag()
		require.NotEqual(t, created, rescheduled, "reschedule")
		moved := f.get(t, path).body
		require.Contains(t, string(moved), "DTSTART:20260603T150000Z\r\n", "not the body kept before the move")
		fresh, err := bookings.NewService(f.svc.Store(), &bookings.Options{Now: f.clock.Now, FeedHost: "example.com"})
		require.NoError(t, err)
		cold, err := fresh.ProviderFeed(ctx, token, "")
		require.NoError(t, err)
		require.Equal(t, string(cold.Body), string(moved), "a feed rebuilt from kept events is the feed built afresh")
		f.advance(time.Second)
		_, err = f.svc.Cancel(ctx, bk.ID, bookings.ActorAdmin, "")
		require.NoError(t, err)
		cancelled := tag()
		require.NotEqual(t, rescheduled, cancelled, "cancel")
		// Deleted: retention removes a booking that ended within the
		// feed's 30 past days (a short retention, for the test).
		f.advance(5 * 24 * time.Hour)
		require.Equal(t, cancelled, tag(), "still in the window")
		n, err := f.svc.Store().PruneBookings(ctx, f.clock.Now().Add(-24*time.Hour))
		require.NoError(t, err)
		require.Equal(t, 2, n, "this provider's and the other's")
		require.NotEqual(t, cancelled, tag(), "delete")

		// The customer feed's tag moves with its booking.
		f.advance(time.Second)
		bk2, manage2, err := f.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-10T14:00:00Z"),
			CustomerName: "Grace", CustomerEmail: "grace@example.com"})
		require.NoError(t, err)
		cpath := "/bookings/ical/customers/" + manage2 + ".ics"
		c1 := f.get(t, cpath).header.Get("ETag")
		require.Equal(t, 304, f.get(t, cpath, c1).code)
		f.advance(time.Second)
		_, err = f.svc.Reschedule(ctx, bk2.ID, mustTime("2026-06-10T15:00:00Z"), bookings.ActorAdmin)
		require.NoError(t, err)
		require.Equal(t, 200, f.get(t, cpath, c1).code)

		// And with the names it shows: the service's, the provider's.
		c2 := f.get(t, cpath).header.Get("ETag")
		require.Equal(t, 304, f.get(t, cpath, c2).code)
		_, err = f.svc.UpdateService(ctx, "consultation", bookings.OfferingInput{Name: bookings.Given("Consultation, renamed")})
		require.NoError(t, err)
		after := f.get(t, cpath, c2)
		require.Equal(t, 200, after.code, "a renamed service moves the tag")
		require.Contains(t, string(after.body), `Consultation\, renamed`)
		c3 := after.header.Get("ETag")
		_, err = f.svc.UpdateProvider(ctx, f.provider.ID, bookings.ProviderInput{Name: bookings.Given("Sam, renamed")})
		require.NoError(t, err)
		require.Equal(t, 200, f.get(t, cpath, c3).code, "a renamed provider moves the tag")
	})
}

func TestFeedTokensAndLimits(t *testing.T) {
	t.Parallel()
	f := setupFeeds(t, store.SQLite, nil)
	ctx := context.Background()
	token, err := f.svc.MintFeedToken(ctx, f.provider.ID)
	require.NoError(t, err)
	require.Regexp(t, `^[0-9a-f]{64}$`, token)

	// Malformed: the router's plain 404; unknown: the feed's own.
	a := f.get(t, "/bookings/ical/providers/"+strings.ToUpper(token)+".ics")
	require.Equal(t, 404, a.code)
	require.Equal(t, "404 page not found\n", string(a.body))
	a = f.get(t, "/bookings/ical/providers/"+strings.Repeat("a", 64)+".ics")
	require.Equal(t, 404, a.code)
	require.JSONEq(t, `{"message":"No calendar was found for that address."}`, string(a.body))
	a = f.get(t, "/bookings/ical/customers/"+strings.Repeat("a", 64)+".ics")
	require.JSONEq(t, `{"message":"That booking link is no longer valid. Please check your confirmation email."}`, string(a.body))
	require.Equal(t, "30", a.header.Get("X-RateLimit-Limit"), "the tightest bucket's headers")

	// Three a minute per IP across both feeds, then 429.
	f2 := setupFeeds(t, store.SQLite, &bookings.FeedHandlerOptions{ICalLimit: 3})
	token2, err := f2.svc.MintFeedToken(ctx, f2.provider.ID)
	require.NoError(t, err)
	for range 3 {
		require.Equal(t, 200, f2.get(t, "/bookings/ical/providers/"+token2+".ics").code)
	}
	a = f2.get(t, "/bookings/ical/providers/"+token2+".ics")
	require.Equal(t, 429, a.code)
	require.Equal(t, "3", a.header.Get("X-RateLimit-Limit"))
	require.NotEmpty(t, a.header.Get("Retry-After"))
	require.JSONEq(t, `{"message":"Too many requests. Please wait a moment and try again."}`, string(a.body))

	// Rotation kills the old address; revocation every address; an
	// inactive provider has none.
	rotated, err := f.svc.MintFeedToken(ctx, f.provider.ID)
	require.NoError(t, err)
	require.Equal(t, 404, f.get(t, "/bookings/ical/providers/"+token+".ics").code, "rotated")
	require.Equal(t, 200, f.get(t, "/bookings/ical/providers/"+rotated+".ics").code)
	require.NoError(t, f.svc.RevokeFeedToken(ctx, f.provider.ID))
	require.Equal(t, 404, f.get(t, "/bookings/ical/providers/"+rotated+".ics").code, "revoked")
	_, err = f.svc.MintFeedToken(ctx, 999)
	require.ErrorIs(t, err, bookings.ErrNotFound)
}

// The per-token bucket counts one token across IPs: 30 a minute.
func TestFeedTokenBucket(t *testing.T) {
	t.Parallel()
	f := setupFeeds(t, store.SQLite, &bookings.FeedHandlerOptions{ICalLimit: -1})
	token, err := f.svc.MintFeedToken(context.Background(), f.provider.ID)
	require.NoError(t, err)
	for range bookings.ICalTokenLimitDefault {
		require.Equal(t, 200, f.get(t, "/bookings/ical/providers/"+token+".ics").code)
	}
	require.Equal(t, 429, f.get(t, "/bookings/ical/providers/"+token+".ics").code)
}

// EnvRequireICal, when set (CI sets it once both are installed), turns a
// missing ical.js or python-icalendar into a failure instead of a skip.
const envRequireICal = "GROUNDWORK_REQUIRE_ICAL"

// A weekly series in a provider's feed is one event per occurrence, and
// the two calendar libraries people parse feeds with read each at its
// time: ical.js (npm, in .ci/node_modules) and python-icalendar (Debian's
// python3-icalendar).
func TestSeriesFeedReadByICalLibraries(t *testing.T) {
	t.Parallel()
	f := setupFeeds(t, store.SQLite, nil)
	ctx := context.Background()
	_, err := f.svc.UpdateService(ctx, "consultation", bookings.OfferingInput{Series: &bookings.SeriesRule{MaxCount: 6}})
	require.NoError(t, err)
	// Across the change to winter time in New York (1 November).
	f.clock.Set(mustTime("2026-10-01T08:00:00Z"))
	series, err := f.svc.CreateSeries(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-10-20T14:00:00Z"),
		CustomerName: "Grace", CustomerEmail: "grace@example.com", Repeat: &bookings.Repeat{Count: 4, EveryWeeks: 1}})
	require.NoError(t, err)
	want := []string{}
	for _, b := range series.Bookings {
		want = append(want, b.Start.UTC().Format("2006-01-02T15:04:05Z"))
	}
	require.Equal(t, []string{"2026-10-20T14:00:00Z", "2026-10-27T14:00:00Z", "2026-11-03T15:00:00Z", "2026-11-10T15:00:00Z"}, want,
		"the same local time each week")
	token, err := f.svc.MintFeedToken(ctx, f.provider.ID)
	require.NoError(t, err)
	a := f.get(t, "/bookings/ical/providers/"+token+".ics")
	require.Equal(t, 200, a.code)
	file := filepath.Join(t.TempDir(), "feed.ics")
	require.NoError(t, os.WriteFile(file, a.body, 0o644))
	missing := func(what string) {
		t.Helper()
		if os.Getenv(envRequireICal) != "" {
			t.Fatalf("%s is not installed (%s is set)", what, envRequireICal)
		}
		t.Logf("%s is not installed: not checked", what)
	}

	icaljs, _ := filepath.Abs("../.ci/node_modules/ical.js/dist/ical.js")
	if _, err := os.Stat(icaljs); err != nil || !hasCommand("node") {
		missing("ical.js (npm install --prefix .ci ical.js) with node")
	} else {
		script := `import ICAL from "` + icaljs + `"; import fs from "fs";
const comp = new ICAL.Component(ICAL.parse(fs.readFileSync(process.argv[1], "utf8")));
for (const v of comp.getAllSubcomponents("vevent")) console.log(new ICAL.Event(v).startDate.toJSDate().toISOString().replace(".000Z", "Z"));`
		out, err := exec.Command("node", "--input-type=module", "-e", script, file).CombinedOutput()
		require.NoError(t, err, string(out))
		require.Equal(t, want, strings.Fields(string(out)), "ical.js")
	}
	if !hasCommand("/usr/bin/python3") || exec.Command("/usr/bin/python3", "-c", "import icalendar").Run() != nil {
		missing("python-icalendar (apt-get install python3-icalendar)")
	} else {
		script := `import sys, icalendar, datetime
cal = icalendar.Calendar.from_ical(open(sys.argv[1], "rb").read())
for e in cal.walk("VEVENT"):
    print(e.decoded("DTSTART").astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))`
		out, err := exec.Command("/usr/bin/python3", "-c", script, file).CombinedOutput()
		require.NoError(t, err, string(out))
		require.Equal(t, want, strings.Fields(string(out)), "python-icalendar")
	}
}

func hasCommand(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}
