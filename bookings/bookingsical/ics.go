package bookingsical

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/emersion/go-ical"

	"github.com/groundwork-go/groundwork/bookings/calendars"
	"github.com/groundwork-go/groundwork/internal/egress"
)

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
// calendar costs a 304. It is a calendars.Source for
// calendars.ICS connections, whose secret is the address.
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
func (s *ICS) Calendars(ctx context.Context, a calendars.Access) ([]calendars.Remote, error) {
	cal, _, err := s.fetch(ctx, a.Secret, "", "")
	if err != nil {
		return nil, err
	}
	name := a.Connection.Name
	if p := cal.Props.Get("X-WR-CALNAME"); p != nil && p.Value != "" {
		name = p.Value
	}
	return []calendars.Remote{{ID: "", Name: name}}, nil
}

// Busy reads the address (conditionally on the connection's ETag and
// Last-Modified) and answers the busy time in [from, to).
func (s *ICS) Busy(ctx context.Context, a calendars.Access, from, to time.Time, loc *time.Location, skip func(string) bool) (calendars.BusyRead, error) {
	cal, res, err := s.fetch(ctx, a.Secret, a.Connection.ETag, a.Connection.LastModified)
	if err != nil {
		return calendars.BusyRead{}, err
	}
	read := calendars.BusyRead{ETag: res.Header.Get("ETag"), LastModified: res.Header.Get("Last-Modified")}
	if cal == nil {
		read.NotModified = true
		read.ETag, read.LastModified = a.Connection.ETag, a.Connection.LastModified
		return read, nil
	}
	found := expand([]*ical.Calendar{cal}, from, to, loc, skip)
	found.ETag, found.LastModified = read.ETag, read.LastModified
	return found, nil
}

// fetch GETs address (webcal:// read as https://); a nil calendar and no
// error is a 304.
func (s *ICS) fetch(ctx context.Context, address, etag, lastModified string) (*ical.Calendar, *http.Response, error) {
	if rest, ok := strings.CutPrefix(address, "webcal://"); ok {
		address = "https://" + rest
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, address, nil)
	if err != nil {
		return nil, nil, calendarError("That address is not a web address. Check it and try again.", errors.New("bookingsical: not a URL"))
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
		return nil, nil, unreachable(err)
	}
	defer res.Body.Close()
	switch {
	case res.StatusCode == http.StatusNotModified && (etag != "" || lastModified != ""):
		return nil, res, nil
	case res.StatusCode != http.StatusOK:
		_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
		return nil, nil, refused(res)
	}
	cal, err := decode(res.Body)
	if err != nil {
		return nil, nil, err
	}
	return cal, res, nil
}

// decode reads one iCalendar object within the read's bounds
// (MaxCalendarBytes, MaxCalendarLines, MaxCalendarDepth).
func decode(r io.Reader) (*ical.Calendar, error) {
	data, err := readAll(r)
	if err != nil {
		return nil, err
	}
	if err := new(shape).check(data); err != nil {
		return nil, err
	}
	cal, err := unpanicked(func() (*ical.Calendar, error) { return ical.NewDecoder(bytes.NewReader(data)).Decode() })
	if err != nil {
		return nil, explained("The address answered something that is not a calendar. Check that it is the calendar's iCal address.", err)
	}
	return cal, nil
}

// unpanicked runs a calendar parser on what a server sent, turning a
// panic of the parser (go-ical's decoder panics on some malformed lines,
// such as "0;0=") into an error, so a broken or hostile calendar fails
// its read instead of the request or job that read it. The panic's text
// is the cause, for the log, never the reason shown.
func unpanicked[T any](parse func() (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = calendarError("The calendar's data could not be read: it is not written as calendars are.",
				fmt.Errorf("bookingsical: the parser panicked: %v", p))
		}
	}()
	return parse()
}

// unreachable is the failure of a request that got no answer, in words:
// the address unknown, private, slow, untrusted or not reachable. The
// cause (resolver, addresses, TLS) is kept for the log only.
func unreachable(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // net/http's "Get <url>:" would put the secret address in the log
	}
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var timeout interface{ Timeout() bool }
	switch {
	case errors.Is(err, egress.ErrNotPublic):
		return calendarError("That address is on a private network, which this site does not read calendars from. Use the calendar's public address.", err)
	case errors.As(err, &dns) && dns.IsNotFound:
		return calendarError("We could not find that address. Check it and try again.", err)
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &timeout) && timeout.Timeout():
		return calendarError("The calendar's server took too long to answer. It will be read again shortly.", err)
	case errors.As(err, &cert):
		return calendarError("The calendar's server could not prove who it is (its certificate is not valid). Check the address and try again.", err)
	default:
		return calendarError("We could not reach that address. Check it and try again.", err)
	}
}

// refused is the failure of an answer other than the calendar, in words
// by its status; the status itself is kept for the log.
func refused(res *http.Response) error {
	cause := fmt.Errorf("bookingsical: the server answered %s", res.Status)
	switch code := res.StatusCode; {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return calendarError("The calendar's server refused access. Check the user name and app password, or that the address is still shared, and try again.", cause)
	case code == http.StatusNotFound || code == http.StatusGone:
		return calendarError("There is no calendar at that address. Check it and try again.", cause)
	case code == http.StatusTooManyRequests || code >= 500:
		return calendarError("The calendar's server is not answering properly just now. It will be read again shortly.", cause)
	default:
		return calendarError("The calendar's server refused to send the calendar. Check the address and try again.", cause)
	}
}

// explained is err when it already says why in words, else err with
// reason.
func explained(reason string, err error) error {
	var ce *calendars.Error
	if errors.As(err, &ce) {
		return err
	}
	return calendarError(reason, err)
}
