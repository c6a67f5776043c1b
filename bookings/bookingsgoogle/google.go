// Package bookingsgoogle reads providers' Google calendars for busy time
// and writes bookings to them: a calendars.Writer for
// calendars.Google connections, whose secret is the refresh token
// the provider's consent gave (see calendars.Consent; the
// bookings calendar page runs the consent flow).
//
// Busy time comes from Google's freeBusy call, which tells nothing but
// the busy spans. The destination calendar is read with events.list
// instead (recurrences expanded by Google), since the bookings written
// there must not come back as busy time and freeBusy carries no event
// identifiers. Each booking is written as the event whose id is its UID
// in base32hex, so writing it again replaces it.
package bookingsgoogle

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/oauth2"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/calendars"
	"github.com/groundwork-go/groundwork/bookings/slots"
	"github.com/groundwork-go/groundwork/internal/oauthflow"
	"github.com/groundwork-go/groundwork/internal/outbound"
)

// The scopes a connection asks for: reading calendars and their busy
// time, and writing the bookings' events.
const (
	ScopeCalendarRead = "https://www.googleapis.com/auth/calendar.readonly"
	ScopeEvents       = "https://www.googleapis.com/auth/calendar.events"
)

// Defaults.
const (
	// BaseURLDefault is the Calendar API.
	BaseURLDefault = "https://www.googleapis.com/calendar/v3"
	// SpanMax is the longest span one freeBusy call asks for; a longer
	// read is asked in parts.
	SpanMax = 60 * 24 * time.Hour
	// CalendarsPerCall is how many calendars one freeBusy call asks
	// about (Google's limit is 50).
	CalendarsPerCall = 50
)

// Options configures [New]; ClientID, ClientSecret and RedirectURL (the
// calendar page's callback, as registered with Google) are required.
type Options struct {
	ClientID, ClientSecret, RedirectURL string
	// Endpoint is Google's OAuth endpoint when zero; a test double's
	// otherwise. BaseURL is BaseURLDefault when empty.
	Endpoint oauth2.Endpoint
	BaseURL  string
	// HTTPClient sends every request (tokens and API); a client with
	// outbound's defaults when nil.
	HTTPClient *http.Client
	// Timeout bounds one call; outbound's default when zero.
	Timeout time.Duration
}

// maxTokenSources bounds the access tokens kept between calls.
const maxTokenSources = 10000

// Google is the Google Calendar source. Safe for concurrent use.
type Google struct {
	cfg    oauth2.Config
	api    *outbound.Client
	http   *http.Client
	mu     sync.Mutex
	tokens map[[32]byte]oauth2.TokenSource // by refresh token, so an access token is used until it expires
}

// New returns the Google Calendar source.
func New(o Options) (*Google, error) {
	if o.ClientID == "" || o.ClientSecret == "" || o.RedirectURL == "" {
		return nil, errors.New("bookingsgoogle: the client ID, the client secret and the redirect URL are required")
	}
	if o.Endpoint.AuthURL == "" {
		o.Endpoint = oauthflow.GoogleEndpoint
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	api, err := outbound.New(outbound.Options{Provider: "google calendar", BaseURL: cmp.Or(o.BaseURL, BaseURLDefault),
		HTTPClient: o.HTTPClient, Timeout: o.Timeout})
	if err != nil {
		return nil, fmt.Errorf("bookingsgoogle: %w", err)
	}
	return &Google{api: api, http: o.HTTPClient, tokens: map[[32]byte]oauth2.TokenSource{},
		cfg: oauth2.Config{ClientID: o.ClientID, ClientSecret: o.ClientSecret, RedirectURL: o.RedirectURL, Endpoint: o.Endpoint,
			Scopes: []string{ScopeCalendarRead, ScopeEvents}}}, nil
}

// OAuthConfig is the consent flow's configuration; it implements
// calendars.Consent.
func (g *Google) OAuthConfig() *oauth2.Config { return &g.cfg }

// client is an HTTP client authorized by a connection's refresh token,
// whose access token is fetched here first: a refused refresh token is
// an answer, not a failure to send that another try might mend.
func (g *Google) client(a calendars.Access) (*http.Client, error) {
	key := sha256.Sum256([]byte(a.Secret))
	g.mu.Lock()
	ts, ok := g.tokens[key]
	if !ok {
		if len(g.tokens) >= maxTokenSources {
			clear(g.tokens) // connections gone or renewed; the live ones refill it
		}
		ctx := context.WithValue(context.Background(), oauth2.HTTPClient, g.http)
		ts = oauth2.ReuseTokenSourceWithExpiry(nil, g.cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: a.Secret}), time.Minute)
		g.tokens[key] = ts
	}
	g.mu.Unlock()
	if _, err := ts.Token(); err != nil {
		return nil, reason("the connection", err)
	}
	return &http.Client{Transport: &oauth2.Transport{Source: ts, Base: g.http.Transport}, Timeout: g.http.Timeout}, nil
}

// reason turns a failed call into the words a provider's admin reads: no
// token, address or Google message in it.
func reason(what string, err error) error {
	var re *oauth2.RetrieveError
	switch {
	case errors.As(err, &re):
		return fmt.Errorf("Google refused the connection (%s); connect the calendar again", cmp.Or(re.ErrorCode, "the token was not renewed"))
	case errors.Is(err, outbound.ErrAuth):
		return errors.New("Google refused the access; connect the calendar again and allow the calendar")
	case errors.Is(err, outbound.ErrNotFound):
		return fmt.Errorf("Google does not know %s", what)
	case errors.Is(err, outbound.ErrRateLimited):
		return errors.New("Google asked us to wait (rate limited)")
	case errors.Is(err, outbound.ErrTransport):
		return errors.New("Google could not be reached")
	}
	return fmt.Errorf("Google could not answer for %s", what)
}

type calendarList struct {
	Items []struct {
		ID              string `json:"id"`
		Summary         string `json:"summary"`
		SummaryOverride string `json:"summaryOverride"`
		AccessRole      string `json:"accessRole"`
		Primary         bool   `json:"primary"`
	} `json:"items"`
	NextPageToken string `json:"nextPageToken"`
}

// Calendars lists the account's own calendars (those it owns or may
// write), the primary one first.
func (g *Google) Calendars(ctx context.Context, a calendars.Access) ([]calendars.Remote, error) {
	hc, err := g.client(a)
	if err != nil {
		return nil, err
	}
	out := []calendars.Remote{}
	q := url.Values{"minAccessRole": {"writer"}, "maxResults": {"250"}}
	for {
		var page calendarList
		if err := g.api.DoDecode(ctx, &outbound.Request{Path: "/users/me/calendarList", Query: q, HTTPClient: hc}, &page); err != nil {
			return nil, reason("the list of calendars", err)
		}
		for _, c := range page.Items {
			rc := calendars.Remote{ID: c.ID, Name: cmp.Or(c.SummaryOverride, c.Summary, c.ID)}
			if c.Primary {
				out = append([]calendars.Remote{rc}, out...)
			} else {
				out = append(out, rc)
			}
		}
		if page.NextPageToken == "" {
			return out, nil
		}
		q.Set("pageToken", page.NextPageToken)
	}
}

// Busy reads each chosen calendar (the account's own when none is
// chosen) for [from, to).
func (g *Google) Busy(ctx context.Context, a calendars.Access, from, to time.Time, loc *time.Location, skip func(string) bool) (calendars.BusyRead, error) {
	ids := a.Connection.Calendars
	if len(ids) == 0 {
		cals, err := g.Calendars(ctx, a)
		if err != nil {
			return calendars.BusyRead{}, err
		}
		for _, c := range cals {
			ids = append(ids, c.ID)
		}
	}
	hc, err := g.client(a)
	if err != nil {
		return calendars.BusyRead{}, err
	}
	var read calendars.BusyRead
	var free []string
	for _, id := range ids {
		if id != a.Connection.Destination {
			free = append(free, id)
			continue
		}
		ps, unreadable, err := g.events(ctx, hc, id, from, to, loc, skip)
		if err != nil {
			return calendars.BusyRead{}, err
		}
		read.Periods = append(read.Periods, ps...)
		read.Unreadable += unreadable
	}
	for i := 0; i < len(free); i += CalendarsPerCall {
		for start := from; start.Before(to); start = start.Add(SpanMax) {
			end := start.Add(SpanMax)
			if end.After(to) {
				end = to
			}
			ps, err := g.freeBusy(ctx, hc, free[i:min(i+CalendarsPerCall, len(free))], start, end)
			if err != nil {
				return calendars.BusyRead{}, err
			}
			read.Periods = append(read.Periods, ps...)
		}
	}
	read.Periods = slots.MergePeriods(read.Periods)
	return read, nil
}

type freeBusyRequest struct {
	TimeMin  string         `json:"timeMin"`
	TimeMax  string         `json:"timeMax"`
	TimeZone string         `json:"timeZone"`
	Items    []freeBusyItem `json:"items"`
}

type freeBusyItem struct {
	ID string `json:"id"`
}

type freeBusyAnswer struct {
	Calendars map[string]struct {
		Busy []struct {
			Start time.Time `json:"start"`
			End   time.Time `json:"end"`
		} `json:"busy"`
		Errors []struct {
			Domain string `json:"domain"`
			Reason string `json:"reason"`
		} `json:"errors"`
	} `json:"calendars"`
}

// freeBusy asks Google for the busy time of ids in [from, to).
func (g *Google) freeBusy(ctx context.Context, hc *http.Client, ids []string, from, to time.Time) ([]bookings.Period, error) {
	in := freeBusyRequest{TimeMin: from.UTC().Format(time.RFC3339), TimeMax: to.UTC().Format(time.RFC3339), TimeZone: "UTC"}
	for _, id := range ids {
		in.Items = append(in.Items, freeBusyItem{ID: id})
	}
	var out freeBusyAnswer
	// freeBusy changes nothing, so it may be sent again.
	if err := g.api.DoJSON(ctx, &outbound.Request{Method: http.MethodPost, Path: "/freeBusy", Idempotent: true, HTTPClient: hc}, in, &out); err != nil {
		return nil, reason("the busy time", err)
	}
	var ps []bookings.Period
	for _, id := range ids {
		c, ok := out.Calendars[id]
		if !ok {
			return nil, fmt.Errorf("Google did not answer for the calendar %s", id)
		}
		if len(c.Errors) > 0 {
			return nil, fmt.Errorf("Google could not read the calendar %s (%s)", id, c.Errors[0].Reason)
		}
		for _, b := range c.Busy {
			if b.End.After(b.Start) {
				ps = append(ps, bookings.Period{Start: b.Start.UTC(), End: b.End.UTC()})
			}
		}
	}
	return ps, nil
}

// when is an event's start or end: a time, or a date for an all-day
// event.
type when struct {
	Date     string    `json:"date,omitempty"`
	DateTime time.Time `json:"dateTime,omitzero"`
	TimeZone string    `json:"timeZone,omitempty"`
}

// at is the instant w stands for, a date read as midnight in loc.
func (w when) at(loc *time.Location) (time.Time, bool) {
	if !w.DateTime.IsZero() {
		return w.DateTime.UTC(), true
	}
	d, err := time.ParseInLocation(time.DateOnly, w.Date, loc)
	return d.UTC(), err == nil
}

type event struct {
	ID           string `json:"id,omitempty"`
	ICalUID      string `json:"iCalUID,omitempty"`
	Status       string `json:"status,omitempty"`
	Transparency string `json:"transparency,omitempty"`
	Summary      string `json:"summary,omitempty"`
	Location     string `json:"location,omitempty"`
	Start        when   `json:"start"`
	End          when   `json:"end"`
	Sequence     int    `json:"sequence,omitempty"`
}

type eventList struct {
	Items         []event `json:"items"`
	NextPageToken string  `json:"nextPageToken"`
}

// events reads a calendar's events in [from, to), each recurrence
// expanded, leaving out the free, the cancelled and our own.
func (g *Google) events(ctx context.Context, hc *http.Client, id string, from, to time.Time, loc *time.Location, skip func(string) bool) ([]bookings.Period, int, error) {
	q := url.Values{"timeMin": {from.UTC().Format(time.RFC3339)}, "timeMax": {to.UTC().Format(time.RFC3339)},
		"singleEvents": {"true"}, "maxResults": {"2500"}, "fields": {"items(id,iCalUID,status,transparency,start,end),nextPageToken"}}
	var ps []bookings.Period
	unreadable := 0
	for {
		var page eventList
		if err := g.api.DoDecode(ctx, &outbound.Request{Path: "/calendars/" + url.PathEscape(id) + "/events", Query: q, HTTPClient: hc}, &page); err != nil {
			return nil, 0, reason("the calendar "+id, err)
		}
		for _, e := range page.Items {
			if e.Status == "cancelled" || e.Transparency == "transparent" || skip != nil && (skip(e.ICalUID) || skip(UIDOf(e.ID))) {
				continue
			}
			start, ok1 := e.Start.at(loc)
			end, ok2 := e.End.at(loc)
			if !ok1 || !ok2 || !end.After(start) {
				unreadable++
				continue
			}
			ps = append(ps, bookings.Period{Start: start, End: end})
		}
		if page.NextPageToken == "" {
			return ps, unreadable, nil
		}
		q.Set("pageToken", page.NextPageToken)
	}
}

// eventIDs are Google event ids: base32hex, lower case, no padding.
var eventIDs = base32.HexEncoding.WithPadding(base32.NoPadding)

// EventID is the Google event id of a booking's UID.
func EventID(uid string) string { return strings.ToLower(eventIDs.EncodeToString([]byte(uid))) }

// UIDOf is the UID an event id was made from by EventID; "" for an id
// that does not decode to text (an id Google made may decode to other
// text, which matches none of our UIDs).
func UIDOf(id string) string {
	b, err := eventIDs.DecodeString(strings.ToUpper(id))
	if err != nil || !utf8.Valid(b) {
		return ""
	}
	return string(b)
}

func eventPath(a calendars.Access, uid string) string {
	return "/calendars/" + url.PathEscape(a.Connection.Destination) + "/events/" + EventID(uid)
}

// PutEvent writes a booking to the destination calendar: an update of
// the event with its id, or an insert when there is none yet.
func (g *Google) PutEvent(ctx context.Context, a calendars.Access, ev calendars.Event) error {
	if a.Connection.Destination == "" {
		return errors.New("the connection has no destination calendar")
	}
	hc, err := g.client(a)
	if err != nil {
		return err
	}
	body := event{ID: EventID(ev.UID), Status: "confirmed", Transparency: "opaque", Summary: ev.Summary, Location: ev.Location, Sequence: ev.Sequence,
		Start: when{DateTime: ev.Start.UTC(), TimeZone: "UTC"}, End: when{DateTime: ev.End.UTC(), TimeZone: "UTC"}}
	err = g.api.DoJSON(ctx, &outbound.Request{Method: http.MethodPut, Path: eventPath(a, ev.UID), HTTPClient: hc}, body, nil)
	if errors.Is(err, outbound.ErrNotFound) {
		// An insert with our id is one event however often it is sent: a
		// second is refused as a duplicate, which is success here.
		err = g.api.DoJSON(ctx, &outbound.Request{Method: http.MethodPost, Path: "/calendars/" + url.PathEscape(a.Connection.Destination) + "/events",
			Idempotent: true, HTTPClient: hc}, body, nil)
		var oe *outbound.Error
		if errors.As(err, &oe) && oe.Status == http.StatusConflict {
			err = nil
		}
	}
	if err != nil {
		return reason("the destination calendar", err)
	}
	return nil
}

// DeleteEvent removes a booking's event from the destination calendar;
// one that is not there (or is already gone) is not an error.
func (g *Google) DeleteEvent(ctx context.Context, a calendars.Access, uid string) error {
	if a.Connection.Destination == "" {
		return errors.New("the connection has no destination calendar")
	}
	hc, err := g.client(a)
	if err != nil {
		return err
	}
	_, err = g.api.Do(ctx, &outbound.Request{Method: http.MethodDelete, Path: eventPath(a, uid), HTTPClient: hc})
	if err != nil && !errors.Is(err, outbound.ErrNotFound) {
		return reason("the destination calendar", err)
	}
	return nil
}
