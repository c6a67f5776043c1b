package bookingsical

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/emersion/go-ical"
	"github.com/emersion/go-webdav/caldav"

	"github.com/groundwork-go/groundwork/bookings/calendars"
)

// CalDAV reads and writes a CalDAV account (iCloud, Fastmail, Nextcloud,
// Radicale...) with a user name and an app password: a
// calendars.Writer for calendars.CalDAV connections, whose
// Endpoint is the server and whose secret is the password.
//
// Busy time is asked of each chosen calendar with a free-busy-query where
// the server answers one, else a time-range calendar-query whose events
// are expanded here (see [Busy]); the destination calendar is always
// read with a calendar-query, since a free-busy answer carries no UIDs
// and the bookings written there must not be read back as busy time.
type CalDAV struct{ requester }

// NewCalDAV returns the CalDAV reader and writer.
func NewCalDAV(opts *Options) *CalDAV { return &CalDAV{newRequester(opts)} }

// doer sends requests with the account's credentials and our user agent.
type doer struct {
	c          *http.Client
	user, pass string
	userAgent  string
}

// Do sends req with the account's credentials. Every answer is read
// here, within MaxCalendarBytes, and the iCalendar text in it checked
// against MaxCalendarLines and MaxCalendarDepth before the CalDAV
// client parses it: a server cannot make the parser recurse without
// end, or fill memory with an answer that never ends.
func (d doer) Do(req *http.Request) (*http.Response, error) {
	req.SetBasicAuth(d.user, d.pass)
	req.Header.Set("User-Agent", d.userAgent)
	res, err := d.c.Do(req)
	if err != nil {
		return nil, unreachable(err)
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden {
		return nil, refused(res)
	}
	var data []byte
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/calendar") {
		if data, err = readAll(res.Body); err == nil {
			err = new(shape).check(data)
		}
	} else {
		data, err = checkedMultistatus(res.Body)
	}
	if err != nil {
		return nil, err
	}
	res.Body = io.NopCloser(bytes.NewReader(data))
	res.ContentLength = int64(len(data))
	return res, nil
}

func (s *CalDAV) doer(a calendars.Access) doer {
	return doer{c: s.http, user: a.Connection.Username, pass: a.Secret, userAgent: s.userAgent}
}

func (s *CalDAV) client(a calendars.Access) (*caldav.Client, error) {
	c, err := caldav.NewClient(s.doer(a), a.Connection.Endpoint)
	if err != nil {
		return nil, calendarError("That server address cannot be used. Check it and try again.", err)
	}
	return c, nil
}

// Calendars finds the account's calendars that hold events: the current
// user's principal, its calendar home, the calendars in it.
func (s *CalDAV) Calendars(ctx context.Context, a calendars.Access) ([]calendars.Remote, error) {
	c, err := s.client(a)
	if err != nil {
		return nil, err
	}
	notCalDAV := "The server did not answer as a CalDAV server does. Check its address (your calendar provider's CalDAV address) and try again."
	principal, err := c.FindCurrentUserPrincipal(ctx)
	if err != nil {
		return nil, explained(notCalDAV, err)
	}
	home, err := c.FindCalendarHomeSet(ctx, principal)
	if err != nil {
		return nil, explained(notCalDAV, err)
	}
	cals, err := c.FindCalendars(ctx, home)
	if err != nil {
		return nil, explained(notCalDAV, err)
	}
	out := []calendars.Remote{}
	for _, cal := range cals {
		if len(cal.SupportedComponentSet) > 0 && !slices.Contains(cal.SupportedComponentSet, ical.CompEvent) {
			continue
		}
		name := cal.Name
		if name == "" || strings.Trim(name, "/") == strings.Trim(cal.Path, "/") {
			// A calendar without a display name (or one that is its path,
			// as some servers answer) is named by the last part of its
			// path ("/ada/work/": "work"), never the path.
			name = path.Base(strings.TrimSuffix(cal.Path, "/"))
			if name == "." || name == "/" {
				name = "Calendar"
			}
		}
		out = append(out, calendars.Remote{ID: cal.Path, Name: name})
	}
	return out, nil
}

// Busy reads each chosen calendar (every one the account lists when
// none is chosen) for [from, to).
func (s *CalDAV) Busy(ctx context.Context, a calendars.Access, from, to time.Time, loc *time.Location, skip func(string) bool) (calendars.BusyRead, error) {
	paths := a.Connection.Calendars
	if len(paths) == 0 {
		cals, err := s.Calendars(ctx, a)
		if err != nil {
			return calendars.BusyRead{}, err
		}
		for _, c := range cals {
			paths = append(paths, c.ID)
		}
	}
	c, err := s.client(a)
	if err != nil {
		return calendars.BusyRead{}, err
	}
	var all []*ical.Calendar
	for _, path := range paths {
		if path != a.Connection.Destination {
			if fb, ok := s.freeBusy(ctx, a, path, from, to); ok {
				all = append(all, fb)
				continue
			}
		}
		objs, err := unpanicked(func() ([]caldav.CalendarObject, error) {
			return c.QueryCalendar(ctx, path, &caldav.CalendarQuery{
				CompRequest: caldav.CalendarCompRequest{Name: ical.CompCalendar, AllProps: true, AllComps: true},
				CompFilter: caldav.CompFilter{Name: ical.CompCalendar, Comps: []caldav.CompFilter{
					{Name: ical.CompEvent, Start: from.UTC(), End: to.UTC()}}},
			})
		})
		if err != nil {
			return calendars.BusyRead{}, explained("One of the chosen calendars could not be read. Check that it still exists and try again.",
				fmt.Errorf("bookingsical: calendar %s: %w", path, err))
		}
		for _, o := range objs {
			if o.Data != nil {
				all = append(all, o.Data)
			}
		}
	}
	return expand(all, from, to, loc, skip), nil
}

// freeBusy asks path for its busy time with a free-busy-query REPORT; ok
// is false when the server does not answer one (then the events are
// read instead).
func (s *CalDAV) freeBusy(ctx context.Context, a calendars.Access, path string, from, to time.Time) (*ical.Calendar, bool) {
	u, err := url.Parse(a.Connection.Endpoint)
	if err != nil {
		return nil, false
	}
	u = u.ResolveReference(&url.URL{Path: path})
	body := `<?xml version="1.0" encoding="utf-8"?>` +
		`<C:free-busy-query xmlns:C="urn:ietf:params:xml:ns:caldav"><C:time-range start="` +
		from.UTC().Format("20060102T150405Z") + `" end="` + to.UTC().Format("20060102T150405Z") + `"/></C:free-busy-query>`
	req, err := http.NewRequestWithContext(ctx, "REPORT", u.String(), strings.NewReader(body))
	if err != nil {
		return nil, false
	}
	req.Header.Set("Content-Type", "application/xml; charset=utf-8")
	req.Header.Set("Depth", "1")
	res, err := s.doer(a).Do(req)
	if err != nil {
		return nil, false
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/calendar") {
		_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
		return nil, false
	}
	cal, err := decode(res.Body)
	if err != nil {
		return nil, false
	}
	return cal, true
}

// eventPath is where a booking's event lives in the destination.
func eventPath(destination, uid string) string {
	return strings.TrimSuffix(destination, "/") + "/" + uid + ".ics"
}

// PutEvent writes a booking to the connection's destination calendar,
// replacing the event of the same UID.
func (s *CalDAV) PutEvent(ctx context.Context, a calendars.Access, ev calendars.Event) error {
	if a.Connection.Destination == "" {
		return errors.New("the connection has no destination calendar")
	}
	c, err := s.client(a)
	if err != nil {
		return err
	}
	if _, err := c.PutCalendarObject(ctx, eventPath(a.Connection.Destination, ev.UID), eventCalendar(ev, time.Now())); err != nil {
		return explained("The booking could not be written to the calendar. It will be tried again.", err)
	}
	return nil
}

// DeleteEvent removes a booking's event from the destination calendar;
// one that is not there is not an error.
func (s *CalDAV) DeleteEvent(ctx context.Context, a calendars.Access, uid string) error {
	if a.Connection.Destination == "" {
		return errors.New("the connection has no destination calendar")
	}
	u, err := url.Parse(a.Connection.Endpoint)
	if err != nil {
		return fmt.Errorf("the server address is not usable: %w", err)
	}
	u = u.ResolveReference(&url.URL{Path: eventPath(a.Connection.Destination, uid)})
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, u.String(), nil)
	if err != nil {
		return err
	}
	res, err := s.doer(a).Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	if res.StatusCode >= 300 && res.StatusCode != http.StatusNotFound {
		return calendarError("The booking could not be removed from the calendar. It will be tried again.",
			fmt.Errorf("bookingsical: the server answered %s", res.Status))
	}
	return nil
}

// eventCalendar is the iCalendar object of a booking's event.
func eventCalendar(ev calendars.Event, now time.Time) *ical.Calendar {
	cal := ical.NewCalendar()
	cal.Props.SetText(ical.PropProductID, "-//groundwork//bookings//EN")
	cal.Props.SetText(ical.PropVersion, "2.0")
	e := ical.NewEvent()
	e.Props.SetText(ical.PropUID, ev.UID)
	e.Props.SetDateTime(ical.PropDateTimeStamp, now.UTC())
	e.Props.SetDateTime(ical.PropDateTimeStart, ev.Start.UTC())
	e.Props.SetDateTime(ical.PropDateTimeEnd, ev.End.UTC())
	e.Props.SetText(ical.PropSummary, ev.Summary)
	if ev.Location != "" {
		e.Props.SetText(ical.PropLocation, ev.Location)
	}
	seq := ical.NewProp(ical.PropSequence)
	seq.Value = fmt.Sprint(ev.Sequence)
	e.Props.Set(seq)
	status := "CONFIRMED"
	if ev.Cancelled {
		status = "CANCELLED"
	}
	e.Props.SetText(ical.PropStatus, status)
	e.Props.SetText(ical.PropTransparency, "OPAQUE")
	cal.Children = append(cal.Children, e.Component)
	return cal
}
