package bookingsical_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-ical"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingsical"
	"github.com/groundwork-go/groundwork/bookings/calendars"
)

// hostileCalDAV is a CalDAV server that answers every calendar-query
// with body (and refuses free-busy queries, so the events are asked
// for); it counts the bytes it managed to send.
func hostileCalDAV(t *testing.T, body func(w io.Writer)) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := io.ReadAll(r.Body)
		if bytes.Contains(req, []byte("free-busy-query")) {
			http.Error(w, "no", http.StatusNotImplemented)
			return
		}
		w.Header().Set("Content-Type", "application/xml; charset=utf-8")
		w.WriteHeader(http.StatusMultiStatus)
		body(&countingWriter{w: w, n: &sent})
	}))
	t.Cleanup(srv.Close)
	return srv, &sent
}

type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// multistatus writes a calendar-query answer whose one object's
// calendar-data is what data writes.
func multistatus(data func(w io.Writer)) func(w io.Writer) {
	return func(w io.Writer) {
		io.WriteString(w, `<?xml version="1.0" encoding="utf-8"?><D:multistatus xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">`+
			`<D:response><D:href>/cal/a.ics</D:href><D:propstat><D:prop><D:getetag>"1"</D:getetag><C:calendar-data>`)
		data(w)
		io.WriteString(w, `</C:calendar-data></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response></D:multistatus>`)
	}
}

func repeat(line string, bytes int) func(w io.Writer) {
	return func(w io.Writer) {
		chunk := strings.Repeat(line, 64<<10/len(line))
		for n := 0; n < bytes; n += len(chunk) {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
	}
}

var hostileWindow = struct{ from, to time.Time }{time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC)}

func readCalDAV(t *testing.T, srv *httptest.Server) (calendars.BusyRead, error) {
	t.Helper()
	src := bookingsical.NewCalDAV(&bookingsical.Options{AllowPrivateHosts: true})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return src.Busy(ctx, calendars.Access{Connection: calendars.Connection{Endpoint: srv.URL + "/", Username: "ada",
		Calendars: []string{"/cal/"}}, Secret: "pw"}, hostileWindow.from, hostileWindow.to, time.UTC, nil)
}

// A CalDAV server cannot take the reader down or fill its memory: an
// answer of nested components (which made the parser recurse until the
// process died of a stack overflow), one that never ends, one past the
// byte bound and one of millions of tiny properties are each refused with
// a reason in words, having read no more than MaxCalendarBytes.
func TestCalDAVHostileAnswers(t *testing.T) {
	t.Parallel()
	deep := "This calendar's data is built in a way that cannot be read."
	large := fmt.Sprintf("This calendar is larger than %d MiB, more than can be read. Connect a calendar with fewer past events.", bookingsical.MaxCalendarBytes>>20)
	lines := fmt.Sprintf("This calendar has more than %d lines, more than can be read. Connect a calendar with fewer past events.", bookingsical.MaxCalendarLines)
	for _, tc := range []struct {
		name, reason string
		body         func(w io.Writer)
	}{
		{"24 MiB of BEGIN lines", large, multistatus(repeat("BEGIN:\r\n", 24<<20))},
		{"2 MiB of BEGIN lines", deep, multistatus(repeat("BEGIN:VEVENT\r\n", 2<<20))},
		{"nesting hidden in character references", deep, multistatus(repeat("BEGIN:X&#13;&#10;", 1<<20))},
		{"nesting folded over lines", deep, multistatus(repeat("BEG\r\n IN:X\r\n", 1<<20))},
		{"tiny properties", lines, multistatus(func(w io.Writer) {
			io.WriteString(w, "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\n")
			repeat("X:1\r\n", 8<<20)(w)
		})},
		{"an answer that never ends", large, multistatus(repeat("X-PAD:0123456789\r\n", 1<<40))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, sent := hostileCalDAV(t, tc.body)
			_, err := readCalDAV(t, srv)
			require.Error(t, err)
			require.Equal(t, tc.reason, calendars.Reason(err))
			srv.CloseClientConnections()
			require.Less(t, sent.Load(), int64(bookingsical.MaxCalendarBytes+8<<20), "read no more than the bound (and the buffers)")
		})
	}
}

// An ICS address is held to the same bounds, and a calendar the parser
// panics on (a line such as "0;0=") is refused in words, not with the
// panic's text.
func TestICSHostileAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body, reason string
	}{
		{"nested", "BEGIN:VCALENDAR\r\n" + strings.Repeat("BEGIN:VEVENT\r\n", 100_000), "This calendar's data is built in a way that cannot be read."},
		{"the parser panics", "BEGIN:VCALENDAR\r\n0;0=\r\nEND:VCALENDAR\r\n", "The calendar's data could not be read: it is not written as calendars are."},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, tc.body) }))
		t.Cleanup(srv.Close)
		_, err := bookingsical.NewICS(&bookingsical.Options{AllowPrivateHosts: true}).Calendars(context.Background(), access(srv.URL+"/c.ics"))
		require.Error(t, err, tc.name)
		reason := calendars.Reason(err)
		require.Equal(t, tc.reason, reason, tc.name)
		require.NotContains(t, reason, "runtime error", tc.name)
	}
}

// calendarOf is a calendar of events, each its own VEVENT lines.
func calendarOf(events ...string) []*ical.Calendar {
	var b strings.Builder
	b.WriteString("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n")
	for i, e := range events {
		fmt.Fprintf(&b, "BEGIN:VEVENT\r\nUID:e%d\r\nDTSTAMP:20261126T000000Z\r\n%sEND:VEVENT\r\n", i, e)
	}
	b.WriteString("END:VCALENDAR\r\n")
	cal, err := ical.NewDecoder(strings.NewReader(b.String())).Decode()
	if err != nil {
		panic(err)
	}
	return []*ical.Calendar{cal}
}

// Expansion is bounded whatever the events say: 300 events repeating
// every second with no end are walked within the read's budget and left
// out with a warning in words, an event with 300,000 EXDATEs is left out
// without comparing each occurrence to each, and events the other events
// repeat beside are still read.
func TestExpansionIsBounded(t *testing.T) {
	t.Parallel()
	var events []string
	for i := range 300 {
		events = append(events, fmt.Sprintf("DTSTART:20261201T%02d%02d00Z\r\nDURATION:PT1S\r\nRRULE:FREQ=SECONDLY\r\n", i/60, i%60))
	}
	var ex strings.Builder
	for i := range 300_000 {
		if i > 0 {
			ex.WriteByte(',')
		}
		fmt.Fprintf(&ex, "20261201T%02d%02d%02dZ", i/3600%24, i/60%60, i%60)
	}
	events = append(events, "DTSTART:20261201T000000Z\r\nDURATION:PT1H\r\nRRULE:FREQ=DAILY\r\nEXDATE:"+ex.String()+"\r\n",
		"DTSTART:20261215T090000Z\r\nDTEND:20261215T100000Z\r\n",
		"DTSTART:20261201T120000Z\r\nDURATION:PT1H\r\nRRULE:FREQ=WEEKLY;COUNT=3\r\n")
	periods, unreadable := bookingsical.Busy(calendarOf(events...), hostileWindow.from, hostileWindow.to, time.UTC, nil)
	require.Equal(t, 301, unreadable, "the 300 secondly events and the one with too many dates")
	require.Equal(t, []bookings.Period{
		{Start: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), End: time.Date(2026, 12, 1, 13, 0, 0, 0, time.UTC)},
		{Start: time.Date(2026, 12, 8, 12, 0, 0, 0, time.UTC), End: time.Date(2026, 12, 8, 13, 0, 0, 0, time.UTC)},
		{Start: time.Date(2026, 12, 15, 9, 0, 0, 0, time.UTC), End: time.Date(2026, 12, 15, 10, 0, 0, 0, time.UTC)},
		{Start: time.Date(2026, 12, 15, 12, 0, 0, 0, time.UTC), End: time.Date(2026, 12, 15, 13, 0, 0, 0, time.UTC)},
	}, periods)

	// The read's warning, through a source.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		require.NoError(t, ical.NewEncoder(&b).Encode(calendarOf(events[:300]...)[0]))
		w.Write(b.Bytes())
	}))
	t.Cleanup(srv.Close)
	read, err := bookingsical.NewICS(&bookingsical.Options{AllowPrivateHosts: true}).Busy(context.Background(), access(srv.URL+"/c.ics"),
		hostileWindow.from, hostileWindow.to, time.UTC, nil)
	require.NoError(t, err)
	require.Equal(t, 300, read.Unreadable)
	require.Equal(t, "300 repeating events were left out: together the calendar's events repeat more often than can be read. "+
		"Their times do not keep you from being booked.", read.Warning)
}

// Rules that never produce an occurrence make the rule library search
// for a long while each; the read stops expanding after MaxExpandTime and
// says what it left out.
func TestExpansionStopsInTime(t *testing.T) {
	t.Parallel()
	var events []string
	for range 300 {
		events = append(events, "DTSTART:20261201T000000Z\r\nDURATION:PT1H\r\nRRULE:FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=30\r\n")
	}
	periods, unreadable := bookingsical.Busy(calendarOf(events...), hostileWindow.from, hostileWindow.to, time.UTC, nil)
	require.Empty(t, periods)
	require.Positive(t, unreadable, "some left out once the time was spent")
}
