package bookingsical

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/emersion/go-ical"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/internal/egress"
)

// MaxCalendarBytes bounds one calendar read (an ICS address's answer, or
// one CalDAV report).
const MaxCalendarBytes = 16 << 20

// Options configures [NewICS] and [NewCalDAV]. Nil means the defaults.
type Options struct {
	// HTTPClient sends the requests; nil makes one that connects only to
	// public addresses (see AllowPrivateHosts).
	HTTPClient *http.Client
	// AllowPrivateHosts lets the default client reach addresses on the
	// host's own network (a CalDAV server beside it, a test server).
	AllowPrivateHosts bool
	// UserAgent names the reader to the servers; "groundwork-bookings"
	// when empty.
	UserAgent string
}

func (o *Options) client() *http.Client {
	if o.HTTPClient != nil {
		return o.HTTPClient
	}
	return egress.Client(2*time.Minute, o.AllowPrivateHosts)
}

func (o *Options) userAgent() string {
	if o.UserAgent != "" {
		return o.UserAgent
	}
	return "groundwork-bookings"
}

// ICS reads a calendar's secret iCal address (what Google, Outlook and
// Apple publish for a calendar) with conditional GET: an unchanged
// calendar costs a 304. It is a bookings.CalendarSource for
// bookings.CalendarICS connections, whose secret is the address.
type ICS struct{ requester }

// NewICS returns the ICS address reader.
func NewICS(opts *Options) *ICS { return &ICS{newRequester(opts)} }

// requester is what the sources send requests with: an HTTP client that
// dials only the addresses Options allow, and the User-Agent.
type requester struct {
	http      *http.Client
	userAgent string
}

func newRequester(opts *Options) requester {
	var o Options
	if opts != nil {
		o = *opts
	}
	return requester{http: o.client(), userAgent: o.userAgent()}
}

// Calendars reads the address once and answers its one calendar (named
// by X-WR-CALNAME when it has one).
func (s *ICS) Calendars(ctx context.Context, a bookings.CalendarAccess) ([]bookings.RemoteCalendar, error) {
	cal, _, err := s.fetch(ctx, a.Secret, "", "")
	if err != nil {
		return nil, err
	}
	name := a.Connection.Name
	if p := cal.Props.Get("X-WR-CALNAME"); p != nil && p.Value != "" {
		name = p.Value
	}
	return []bookings.RemoteCalendar{{ID: "", Name: name}}, nil
}

// Busy reads the address (conditionally on the connection's ETag and
// Last-Modified) and answers the busy time in [from, to).
func (s *ICS) Busy(ctx context.Context, a bookings.CalendarAccess, from, to time.Time, loc *time.Location, skip func(string) bool) (bookings.BusyRead, error) {
	cal, res, err := s.fetch(ctx, a.Secret, a.Connection.ETag, a.Connection.LastModified)
	if err != nil {
		return bookings.BusyRead{}, err
	}
	read := bookings.BusyRead{ETag: res.Header.Get("ETag"), LastModified: res.Header.Get("Last-Modified")}
	if cal == nil {
		read.NotModified = true
		read.ETag, read.LastModified = a.Connection.ETag, a.Connection.LastModified
		return read, nil
	}
	read.Periods, read.Unreadable = Busy([]*ical.Calendar{cal}, from, to, loc, skip)
	return read, nil
}

// fetch GETs address (webcal:// read as https://); a nil calendar and no
// error is a 304.
func (s *ICS) fetch(ctx context.Context, address, etag, lastModified string) (*ical.Calendar, *http.Response, error) {
	if rest, ok := strings.CutPrefix(address, "webcal://"); ok {
		address = "https://" + rest
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, address, nil)
	if err != nil {
		return nil, nil, errors.New("the address is not a URL")
	}
	req.Header.Set("Accept", "text/calendar")
	req.Header.Set("User-Agent", s.userAgent)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	if lastModified != "" {
		req.Header.Set("If-Modified-Since", lastModified)
	}
	res, err := s.http.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("the address cannot be reached: %w", unwrapURL(err))
	}
	defer res.Body.Close()
	switch {
	case res.StatusCode == http.StatusNotModified && (etag != "" || lastModified != ""):
		return nil, res, nil
	case res.StatusCode != http.StatusOK:
		_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
		return nil, nil, fmt.Errorf("the address answered %s", res.Status)
	}
	cal, err := decode(res.Body)
	if err != nil {
		return nil, nil, err
	}
	return cal, res, nil
}

// decode reads one iCalendar object of at most MaxCalendarBytes.
func decode(r io.Reader) (*ical.Calendar, error) {
	lr := &io.LimitedReader{R: r, N: MaxCalendarBytes + 1}
	cal, err := unpanicked(func() (*ical.Calendar, error) { return ical.NewDecoder(lr).Decode() })
	if lr.N <= 0 {
		return nil, fmt.Errorf("the calendar is larger than %d MiB", MaxCalendarBytes>>20)
	}
	if err != nil {
		return nil, fmt.Errorf("the answer is not an iCalendar file: %w", err)
	}
	return cal, nil
}

// unpanicked runs a calendar parser on what a server sent, turning a
// panic of the parser (go-ical's decoder panics on some malformed lines,
// such as "0;0=") into an error, so a broken or hostile calendar fails
// its read instead of the request or job that read it.
func unpanicked[T any](parse func() (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the calendar data could not be parsed (%v)", p)
		}
	}()
	return parse()
}

// unwrapURL drops net/http's "Get <url>:" prefix, which would put the
// secret address in the reason kept on the connection.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
