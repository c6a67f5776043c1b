package bookingsical_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-ical"
	"github.com/emersion/go-webdav"
	"github.com/emersion/go-webdav/caldav"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingsical"
	"github.com/groundwork-go/groundwork/bookings/calendars"
	"github.com/groundwork-go/groundwork/internal/testkit"
)

// memoryCalDAV is a CalDAV server's storage in memory, for go-webdav's
// caldav.Handler: the user "ada", her calendars and their objects.
type memoryCalDAV struct {
	mu        sync.Mutex
	calendars map[string]caldav.Calendar
	objects   map[string]caldav.CalendarObject
}

func (m *memoryCalDAV) CurrentUserPrincipal(context.Context) (string, error) { return "/ada/", nil }
func (m *memoryCalDAV) CalendarHomeSetPath(context.Context) (string, error) {
	return "/ada/calendars/", nil
}

func (m *memoryCalDAV) CreateCalendar(_ context.Context, c *caldav.Calendar) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calendars[c.Path] = *c
	return nil
}

func (m *memoryCalDAV) ListCalendars(context.Context) ([]caldav.Calendar, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []caldav.Calendar
	for _, c := range m.calendars {
		out = append(out, c)
	}
	return out, nil
}

func (m *memoryCalDAV) GetCalendar(_ context.Context, path string) (*caldav.Calendar, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.calendars[path]
	if !ok {
		return nil, webdav.NewHTTPError(http.StatusNotFound, fmt.Errorf("no calendar %s", path))
	}
	return &c, nil
}

func (m *memoryCalDAV) GetCalendarObject(_ context.Context, path string, _ *caldav.CalendarCompRequest) (*caldav.CalendarObject, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objects[path]
	if !ok {
		return nil, webdav.NewHTTPError(http.StatusNotFound, fmt.Errorf("no object %s", path))
	}
	return &o, nil
}

func (m *memoryCalDAV) ListCalendarObjects(_ context.Context, path string, _ *caldav.CalendarCompRequest) ([]caldav.CalendarObject, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []caldav.CalendarObject
	for p, o := range m.objects {
		if strings.HasPrefix(p, path) {
			out = append(out, o)
		}
	}
	return out, nil
}

func (m *memoryCalDAV) QueryCalendarObjects(ctx context.Context, path string, q *caldav.CalendarQuery) ([]caldav.CalendarObject, error) {
	all, err := m.ListCalendarObjects(ctx, path, nil)
	if err != nil {
		return nil, err
	}
	return caldav.Filter(q, all)
}

func (m *memoryCalDAV) PutCalendarObject(_ context.Context, path string, cal *ical.Calendar, _ *caldav.PutCalendarObjectOptions) (*caldav.CalendarObject, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o := caldav.CalendarObject{Path: path, ModTime: time.Now(), ETag: fmt.Sprintf(`"%d"`, time.Now().UnixNano()), Data: cal}
	m.objects[path] = o
	return &o, nil
}

func (m *memoryCalDAV) DeleteCalendarObject(_ context.Context, path string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.objects[path]; !ok {
		return webdav.NewHTTPError(http.StatusNotFound, fmt.Errorf("no object %s", path))
	}
	delete(m.objects, path)
	return nil
}

// inProcessCalDAV serves a memory CalDAV server that wants ada's password.
func inProcessCalDAV(t *testing.T) string {
	t.Helper()
	backend := &memoryCalDAV{calendars: map[string]caldav.Calendar{}, objects: map[string]caldav.CalendarObject{}}
	h := &caldav.Handler{Backend: backend}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user, pass, ok := r.BasicAuth(); !ok || user != "ada" || pass != "app-password" {
			w.Header().Set("WWW-Authenticate", `Basic realm="caldav"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if r.Method == "MKCALENDAR" {
			name := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/ada/calendars/"), "/")
			require.NoError(t, backend.CreateCalendar(r.Context(), &caldav.Calendar{Path: r.URL.Path, Name: strings.ToUpper(name[:1]) + name[1:],
				SupportedComponentSet: []string{ical.CompEvent}}))
			w.WriteHeader(http.StatusCreated)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// caldavRequest sends one request as ada and checks its status.
func caldavRequest(t *testing.T, method, url, contentType, body string, want ...int) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	req.SetBasicAuth("ada", "app-password")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	text, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Contains(t, want, res.StatusCode, "%s %s: %s", method, url, text)
}

// ics is a calendar object around VEVENT lines.
func ics(lines ...string) string {
	return strings.Join(append(append([]string{"BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN"}, lines...), "END:VCALENDAR", ""), "\r\n")
}

// exerciseCalDAV runs the CalDAV source against a server at base: a
// weekly meeting with an EXDATE and a moved occurrence, an all-day day
// off, a transparent birthday, a call in New York across the American
// change to summer time, and a booking written, moved and deleted, never
// read back as busy time.
func exerciseCalDAV(t *testing.T, base, home string) {
	ctx := context.Background()
	work, personal := home+"work/", home+"home/"
	for _, c := range []string{work, personal} {
		caldavRequest(t, "MKCALENDAR", base+c, "", "", http.StatusCreated)
	}
	put := func(path string, lines ...string) {
		caldavRequest(t, http.MethodPut, base+path, "text/calendar", ics(lines...), http.StatusCreated, http.StatusNoContent, http.StatusOK)
	}
	put(work+"weekly.ics",
		"BEGIN:VEVENT", "UID:weekly", "DTSTAMP:20260101T120000Z", "DTSTART;TZID=Europe/London:20260105T090000",
		"DTEND;TZID=Europe/London:20260105T100000", "RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20260223T235959Z",
		"EXDATE;TZID=Europe/London:20260119T090000", "SUMMARY:Team meeting", "END:VEVENT",
		"BEGIN:VEVENT", "UID:weekly", "DTSTAMP:20260101T120000Z", "RECURRENCE-ID;TZID=Europe/London:20260126T090000",
		"DTSTART;TZID=Europe/London:20260126T140000", "DTEND;TZID=Europe/London:20260126T150000", "SUMMARY:Team meeting, moved", "END:VEVENT")
	put(work+"nycall.ics",
		"BEGIN:VEVENT", "UID:nycall", "DTSTAMP:20260101T120000Z", "DTSTART;TZID=America/New_York:20260302T090000",
		"DTEND;TZID=America/New_York:20260302T093000", "RRULE:FREQ=WEEKLY;COUNT=4", "SUMMARY:Call with New York", "END:VEVENT")
	put(personal+"dayoff.ics",
		"BEGIN:VEVENT", "UID:dayoff", "DTSTAMP:20260101T120000Z", "DTSTART;VALUE=DATE:20260114", "DTEND;VALUE=DATE:20260115",
		"SUMMARY:Day off", "END:VEVENT")
	put(personal+"birthday.ics",
		"BEGIN:VEVENT", "UID:birthday", "DTSTAMP:20260101T120000Z", "DTSTART;VALUE=DATE:20260116", "DTEND;VALUE=DATE:20260117",
		"TRANSP:TRANSPARENT", "SUMMARY:Birthday", "END:VEVENT")

	src := bookingsical.NewCalDAV(&bookingsical.Options{AllowPrivateHosts: true})
	a := calendars.Access{Connection: calendars.Connection{Kind: calendars.CalDAV, Endpoint: base + "/", Username: "ada",
		Calendars: []string{work, personal}, Destination: work}, Secret: "app-password"}
	cals, err := src.Calendars(ctx, a)
	require.NoError(t, err)
	ids := []string{}
	for _, c := range cals {
		ids = append(ids, c.ID)
	}
	require.ElementsMatch(t, []string{work, personal}, ids)

	london, _ := time.LoadLocation("Europe/London")
	from, to := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	own := func(uid string) bool { return strings.HasPrefix(uid, "BK-") }
	want := []bookings.Period{
		p("2026-01-05T09:00", "2026-01-05T10:00"), p("2026-01-12T09:00", "2026-01-12T10:00"),
		p("2026-01-14T00:00", "2026-01-15T00:00"), p("2026-01-26T14:00", "2026-01-26T15:00"),
		p("2026-02-02T09:00", "2026-02-02T10:00"), p("2026-02-09T09:00", "2026-02-09T10:00"),
		p("2026-02-16T09:00", "2026-02-16T10:00"), p("2026-02-23T09:00", "2026-02-23T10:00"),
		p("2026-03-02T14:00", "2026-03-02T14:30"), p("2026-03-09T13:00", "2026-03-09T13:30"),
		p("2026-03-16T13:00", "2026-03-16T13:30"), p("2026-03-23T13:00", "2026-03-23T13:30"),
	}
	read, err := src.Busy(ctx, a, from, to, london, own)
	require.NoError(t, err)
	require.Zero(t, read.Unreadable)
	require.Equal(t, want, read.Periods)

	// A booking written to the destination is the provider's to see, and
	// not read back as busy time; moved, it moves; deleted, it goes.
	ev := calendars.Event{UID: "BK-7@bookings.test", Summary: "Consultation: Grace", Start: mustUTC("2026-03-10T10:00"),
		End: mustUTC("2026-03-10T10:30")}
	require.NoError(t, src.PutEvent(ctx, a, ev))
	read, err = src.Busy(ctx, a, from, to, london, own)
	require.NoError(t, err)
	require.Equal(t, want, read.Periods, "our own booking is not busy time")
	read, err = src.Busy(ctx, a, from, to, london, nil)
	require.NoError(t, err)
	require.Contains(t, read.Periods, p("2026-03-10T10:00", "2026-03-10T10:30"), "it is in the calendar")
	ev.Start, ev.End, ev.Sequence = mustUTC("2026-03-11T10:00"), mustUTC("2026-03-11T10:30"), 1
	require.NoError(t, src.PutEvent(ctx, a, ev))
	read, err = src.Busy(ctx, a, from, to, london, nil)
	require.NoError(t, err)
	require.Contains(t, read.Periods, p("2026-03-11T10:00", "2026-03-11T10:30"))
	require.NotContains(t, read.Periods, p("2026-03-10T10:00", "2026-03-10T10:30"), "moved, not copied")
	require.NoError(t, src.DeleteEvent(ctx, a, ev.UID))
	require.NoError(t, src.DeleteEvent(ctx, a, ev.UID), "deleting twice is deleting once")
	read, err = src.Busy(ctx, a, from, to, london, nil)
	require.NoError(t, err)
	require.Equal(t, want, read.Periods)
}

func mustUTC(s string) time.Time {
	t, err := time.Parse("2006-01-02T15:04", s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestCalDAVInProcess(t *testing.T) {
	t.Parallel()
	base := inProcessCalDAV(t)
	exerciseCalDAV(t, base, "/ada/calendars/")
	// A wrong password is said to be one.
	src := bookingsical.NewCalDAV(&bookingsical.Options{AllowPrivateHosts: true})
	_, err := src.Calendars(context.Background(), calendars.Access{Connection: calendars.Connection{Endpoint: base + "/", Username: "ada"},
		Secret: "wrong"})
	require.Equal(t, "The calendar's server refused access. Check the user name and app password, or that the address is still shared, and try again.",
		calendars.Reason(err))
	require.ErrorContains(t, err, "401 Unauthorized", "the cause, for the log")
}

func TestCalDAVRadicale(t *testing.T) {
	t.Parallel()
	exerciseCalDAV(t, testkit.Radicale(t), "/ada/")
}
