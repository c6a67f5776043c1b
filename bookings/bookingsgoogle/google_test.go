package bookingsgoogle_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingsgoogle"
	"github.com/groundwork-go/groundwork/bookings/calendars"
	"github.com/groundwork-go/groundwork/bookings/calendars/calendarstest"
)

var ctx = context.Background()

func newSource(t *testing.T, g *calendarstest.Google) *bookingsgoogle.Google {
	src, err := bookingsgoogle.New(bookingsgoogle.Options{ClientID: "client.apps.googleusercontent.com", ClientSecret: "GOCSPX-secret",
		RedirectURL: "https://example.com/bookings/calendar/google/callback", Endpoint: g.Endpoint(), BaseURL: g.APIBase()})
	require.NoError(t, err)
	return src
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func timed(id, start, end string) calendarstest.GoogleEvent {
	return calendarstest.GoogleEvent{ID: id, Start: map[string]any{"dateTime": start}, End: map[string]any{"dateTime": end}}
}

func TestNewRequiresTheClient(t *testing.T) {
	_, err := bookingsgoogle.New(bookingsgoogle.Options{ClientID: "x"})
	require.ErrorContains(t, err, "required")
}

func TestCalendarsListsTheAccountsOwn(t *testing.T) {
	g := calendarstest.NewGoogle(t)
	g.AddCalendar("en.uk#holiday@group.v.calendar.google.com", "Holidays in the United Kingdom", false, "reader")
	g.AddCalendar("work@group.calendar.google.com", "Work", false, "writer")
	src := newSource(t, g)
	cals, err := src.Calendars(ctx, calendars.Access{Secret: g.RefreshToken})
	require.NoError(t, err)
	require.Equal(t, []calendars.Remote{{ID: "primary@example.com", Name: "Ada Lovelace"},
		{ID: "work@group.calendar.google.com", Name: "Work"}}, cals, "the primary first, calendars only read left out")
}

func TestBusyReadsFreeBusyAndTheDestinationsEvents(t *testing.T) {
	g := calendarstest.NewGoogle(t)
	g.AddCalendar("work@group.calendar.google.com", "Work", false, "writer")
	g.Put("primary@example.com", timed("lunch", "2026-06-02T12:00:00+01:00", "2026-06-02T13:00:00+01:00"))
	free := timed("focus", "2026-06-02T15:00:00Z", "2026-06-02T16:00:00Z")
	free.Transparency = "transparent"
	g.Put("primary@example.com", free)
	g.Put("primary@example.com", calendarstest.GoogleEvent{ID: "holiday", Start: map[string]any{"date": "2026-06-05"},
		End: map[string]any{"date": "2026-06-06"}})
	own := timed(bookingsgoogle.EventID("BK-1@bookings.example"), "2026-06-03T09:00:00Z", "2026-06-03T10:00:00Z")
	g.Put("work@group.calendar.google.com", own)
	g.Put("work@group.calendar.google.com", calendarstest.GoogleEvent{ID: "offsite", Start: map[string]any{"date": "2026-06-04"},
		End: map[string]any{"date": "2026-06-05"}})
	gone := timed("moved", "2026-06-03T11:00:00Z", "2026-06-03T12:00:00Z")
	gone.Status = "cancelled"
	g.Put("work@group.calendar.google.com", gone)
	g.Put("work@group.calendar.google.com", timed("standup", "2026-06-03T08:00:00Z", "2026-06-03T08:15:00Z"))

	src := newSource(t, g)
	london, _ := time.LoadLocation("Europe/London")
	a := calendars.Access{Secret: g.RefreshToken, Connection: calendars.Connection{
		Calendars: []string{"primary@example.com", "work@group.calendar.google.com"}, Destination: "work@group.calendar.google.com"}}
	read, err := src.Busy(ctx, a, at("2026-06-01T00:00:00Z"), at("2026-09-01T00:00:00Z"), london,
		func(uid string) bool { return uid == "BK-1@bookings.example" })
	require.NoError(t, err)
	require.Equal(t, []bookings.Period{
		{Start: at("2026-06-02T11:00:00Z"), End: at("2026-06-02T12:00:00Z")},
		{Start: at("2026-06-03T08:00:00Z"), End: at("2026-06-03T08:15:00Z")},
		// The destination's all-day event is the provider's whole day; the
		// other calendar's is as Google's freeBusy gives it.
		{Start: at("2026-06-03T23:00:00Z"), End: at("2026-06-04T23:00:00Z")},
		{Start: at("2026-06-05T00:00:00Z"), End: at("2026-06-06T00:00:00Z")},
	}, read.Periods, "the transparent, the cancelled and our own left out")
	calls := g.Calls()
	require.Equal(t, 2, count(calls, "POST /calendar/v3/freeBusy"), "a span over 60 days is asked in two parts")
	require.Equal(t, 4, count(calls, "GET /calendar/v3/calendars/work@group.calendar.google.com/events"),
		"the destination's events are read page by page")
	require.Equal(t, 1, g.Refreshes(), "one access token for every call while it lasts")

	read, err = src.Busy(ctx, calendars.Access{Secret: g.RefreshToken}, at("2026-06-01T00:00:00Z"), at("2026-06-10T00:00:00Z"), london, nil)
	require.NoError(t, err)
	require.Len(t, read.Periods, 4, "no calendar chosen: the account's own, by freeBusy, nothing skipped")
}

func count(calls []string, call string) int {
	n := 0
	for _, c := range calls {
		if c == call {
			n++
		}
	}
	return n
}

func TestBookingsWrittenByTheirUID(t *testing.T) {
	g := calendarstest.NewGoogle(t)
	src := newSource(t, g)
	a := calendars.Access{Secret: g.RefreshToken, Connection: calendars.Connection{Destination: "primary@example.com"}}
	ev := calendars.Event{UID: "BK-7@bookings.example", Summary: "Consultation: Grace Hopper",
		Start: at("2026-06-02T16:00:00Z"), End: at("2026-06-02T16:30:00Z")}
	require.NoError(t, src.PutEvent(ctx, a, ev))
	id := bookingsgoogle.EventID(ev.UID)
	require.Equal(t, ev.UID, bookingsgoogle.UIDOf(id))
	require.Empty(t, bookingsgoogle.UIDOf("lunch"), "an id we did not make has no UID")
	require.Empty(t, bookingsgoogle.UIDOf("xyz"), "nor one outside base32hex")
	got, ok := g.Event("primary@example.com", id)
	require.True(t, ok)
	require.Equal(t, "2026-06-02T16:00:00Z", got.Start["dateTime"])
	require.Equal(t, "Consultation: Grace Hopper", got.Summary)

	ev.Start, ev.End = at("2026-06-03T09:00:00Z"), at("2026-06-03T09:30:00Z")
	require.NoError(t, src.PutEvent(ctx, a, ev), "moved: the same event")
	got, _ = g.Event("primary@example.com", id)
	require.Equal(t, "2026-06-03T09:00:00Z", got.Start["dateTime"])
	require.NoError(t, src.DeleteEvent(ctx, a, ev.UID))
	got, _ = g.Event("primary@example.com", id)
	require.Equal(t, "cancelled", got.Status)
	require.NoError(t, src.DeleteEvent(ctx, a, ev.UID), "deleting again (410 Gone) is done")
	require.NoError(t, src.PutEvent(ctx, a, ev), "a booking written again after a delete comes back")
	got, _ = g.Event("primary@example.com", id)
	require.Equal(t, "confirmed", got.Status)
	require.Equal(t, []string{"PUT", "POST", "PUT", "DELETE", "DELETE", "PUT"}, methods(g.Calls()))

	require.ErrorContains(t, src.PutEvent(ctx, calendars.Access{Secret: g.RefreshToken}, ev), "no destination")
}

func methods(calls []string) []string {
	out := []string{}
	for _, c := range calls {
		m, _, _ := cutSpace(c)
		out = append(out, m)
	}
	return out
}

func cutSpace(s string) (string, string, bool) {
	i := slices.Index([]byte(s), ' ')
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}

func TestRefusedTokenSaysConnectAgain(t *testing.T) {
	g := calendarstest.NewGoogle(t)
	src := newSource(t, g)
	_, err := src.Calendars(ctx, calendars.Access{Secret: "1//revoked-token"})
	require.EqualError(t, err, "Google refused the connection (invalid_grant); connect the calendar again")
	_, err = src.Busy(ctx, calendars.Access{Secret: g.RefreshToken, Connection: calendars.Connection{Calendars: []string{"nobody@example.com"}}},
		at("2026-06-01T00:00:00Z"), at("2026-06-02T00:00:00Z"), time.UTC, nil)
	require.EqualError(t, err, "Google could not read the calendar nobody@example.com (notFound)")
	err = src.DeleteEvent(ctx, calendars.Access{Secret: g.RefreshToken, Connection: calendars.Connection{Destination: "nobody@example.com"}}, "BK-1@x")
	require.NoError(t, err, "nothing to delete in a calendar that is gone")
}
