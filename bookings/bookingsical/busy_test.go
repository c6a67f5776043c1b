package bookingsical_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-ical"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingsical"
)

func decode(t *testing.T, text string) *ical.Calendar {
	t.Helper()
	cal, err := ical.NewDecoder(strings.NewReader(text)).Decode()
	require.NoError(t, err)
	return cal
}

func fixture(t *testing.T, name string) *ical.Calendar {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	return decode(t, string(b))
}

func zone(t *testing.T, name string) *time.Location {
	loc, err := time.LoadLocation(name)
	require.NoError(t, err)
	return loc
}

// p is a period between two UTC times written "2006-01-02T15:04".
func p(start, end string) bookings.Period {
	s, _ := time.Parse("2006-01-02T15:04", start)
	e, _ := time.Parse("2006-01-02T15:04", end)
	return bookings.Period{Start: s, End: e}
}

// Google's export: a weekly meeting with an EXDATE and one occurrence
// moved by RECURRENCE-ID, an all-day day off (the provider's whole day),
// a transparent birthday and a cancelled lunch (not busy), a plain lunch,
// and a booking of ours (left out by its UID).
func TestBusyGoogleExport(t *testing.T) {
	t.Parallel()
	london := zone(t, "Europe/London")
	from, to := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	got, unreadable := bookingsical.Busy([]*ical.Calendar{fixture(t, "google.ics")}, from, to, london,
		func(uid string) bool { return strings.HasPrefix(uid, "booking-") })
	require.Zero(t, unreadable)
	require.Equal(t, []bookings.Period{
		p("2026-01-05T09:00", "2026-01-05T10:00"),
		p("2026-01-07T12:00", "2026-01-07T13:00"),
		p("2026-01-12T09:00", "2026-01-12T10:00"),
		p("2026-01-14T00:00", "2026-01-15T00:00"),
		// 19 January is an EXDATE; 26 January moved to the afternoon.
		p("2026-01-26T14:00", "2026-01-26T15:00"),
		p("2026-02-02T09:00", "2026-02-02T10:00"),
		p("2026-02-09T09:00", "2026-02-09T10:00"),
		p("2026-02-16T09:00", "2026-02-16T10:00"),
		p("2026-02-23T09:00", "2026-02-23T10:00"),
	}, got)
}

// Outlook's: Windows zone names in TZID; a weekly call in New York across
// the American change to summer time (two weeks before London's), so it
// moves an hour earlier for a London provider; an event marked free is
// not busy, one out of office is.
func TestBusyOutlookExport(t *testing.T) {
	t.Parallel()
	london := zone(t, "Europe/London")
	from, to := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	got, unreadable := bookingsical.Busy([]*ical.Calendar{fixture(t, "outlook.ics")}, from, to, london, nil)
	require.Zero(t, unreadable)
	require.Equal(t, []bookings.Period{
		p("2026-03-02T14:00", "2026-03-02T14:30"), // 09:00 EST
		p("2026-03-05T13:00", "2026-03-05T18:00"),
		p("2026-03-09T13:00", "2026-03-09T13:30"), // 09:00 EDT
		p("2026-03-16T13:00", "2026-03-16T13:30"),
		p("2026-03-23T13:00", "2026-03-23T13:30"),
	}, got)
}

// Apple's: an IANA zone other than the provider's, DURATION instead of
// DTEND, an RDATE beside the RRULE, a floating time and a three-day
// all-day event, both read in the provider's zone (New York).
func TestBusyAppleExport(t *testing.T) {
	t.Parallel()
	ny := zone(t, "America/New_York")
	from, to := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	got, unreadable := bookingsical.Busy([]*ical.Calendar{fixture(t, "apple.ics")}, from, to, ny, nil)
	require.Zero(t, unreadable)
	require.Equal(t, []bookings.Period{
		p("2026-03-10T14:45", "2026-03-10T15:30"), // 07:45 PDT
		p("2026-03-11T14:45", "2026-03-11T15:30"),
		p("2026-03-12T16:00", "2026-03-12T16:45"), // 12:00 floating, in New York
		p("2026-03-16T04:00", "2026-03-19T04:00"), // three days from midnight EDT
		p("2026-03-20T14:00", "2026-03-20T14:45"), // the RDATE
	}, got)
}

// The range clips, overlapping events merge, a VFREEBUSY (what a CalDAV
// free-busy-query answers) gives its busy periods but not the free ones,
// an unreadable event is counted and the rest kept, and a rule that
// steps every second for years is given up on, not walked.
func TestBusyEdges(t *testing.T) {
	t.Parallel()
	london := zone(t, "Europe/London")
	cal := decode(t, strings.Join([]string{"BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:test",
		"BEGIN:VEVENT", "UID:a", "DTSTART:20260601T090000Z", "DTEND:20260601T110000Z", "END:VEVENT",
		"BEGIN:VEVENT", "UID:b", "DTSTART:20260601T100000Z", "DTEND:20260601T120000Z", "END:VEVENT",
		"BEGIN:VEVENT", "UID:c", "DTSTART:20260531T230000Z", "DTEND:20260601T010000Z", "END:VEVENT",
		"BEGIN:VEVENT", "UID:d", "DTSTART;TZID=Europe/London:not-a-time", "END:VEVENT",
		"BEGIN:VEVENT", "UID:e", "DTSTART:20000101T000000Z", "DTEND:20000101T000001Z", "RRULE:FREQ=SECONDLY", "END:VEVENT",
		"BEGIN:VEVENT", "UID:f", "DTSTART;TZID=/mozilla.org/20050126_1/Europe/London:20260602T090000", "DURATION:PT1H", "END:VEVENT",
		"BEGIN:VFREEBUSY", "UID:fb", "DTSTART:20260601T000000Z", "DTEND:20260603T000000Z",
		"FREEBUSY;FBTYPE=BUSY:20260602T140000Z/20260602T150000Z,20260602T160000Z/PT30M",
		"FREEBUSY;FBTYPE=FREE:20260602T180000Z/20260602T190000Z", "END:VFREEBUSY",
		"END:VCALENDAR", ""}, "\r\n"))
	from, to := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 6, 3, 0, 0, 0, 0, time.UTC)
	got, unreadable := bookingsical.Busy([]*ical.Calendar{cal}, from, to, london, nil)
	require.Equal(t, 2, unreadable, "d's time and e's rule")
	require.Equal(t, []bookings.Period{
		p("2026-06-01T00:00", "2026-06-01T01:00"),
		p("2026-06-01T09:00", "2026-06-01T12:00"),
		p("2026-06-02T08:00", "2026-06-02T09:00"), // 09:00 BST, behind a Mozilla prefix
		p("2026-06-02T14:00", "2026-06-02T15:00"),
		p("2026-06-02T16:00", "2026-06-02T16:30"),
	}, got)
}
