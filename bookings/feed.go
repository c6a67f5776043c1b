package bookings

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	ics "github.com/arran4/golang-ical"
)

// Calendar-feed defaults: the window a provider feed covers and how long
// a client may keep an answer.
const (
	// FeedPastDefault and FeedFutureDefault bound a provider feed: the
	// bookings starting in [now − past, now + future).
	FeedPastDefault   = 30 * 24 * time.Hour
	FeedFutureDefault = 365 * 24 * time.Hour
	// FeedHostDefault ends every event's UID ("BK-…@host") when
	// Options.FeedHost is empty.
	FeedHostDefault = "groundwork-bookings"
	// feedProductID is the feeds' PRODID.
	feedProductID = "-//groundwork//Bookings//EN"

	msgNoCalendar = "No calendar was found for that address."
)

// errNoCalendar: a provider feed token that is unknown, rotated, revoked,
// or of an inactive provider. The cases are not told apart; it is
// ErrNotFound to a caller.
var errNoCalendar = fmt.Errorf("bookings: no calendar: %w", ErrNotFound)

// Feed is one calendar feed as served: its ETag (quoted) always, and
// unless NotModified, the iCalendar body and a file name for it.
type Feed struct {
	ETag        string
	NotModified bool
	FileName    string
	Body        []byte
}

// MintFeedToken gives a provider a new feed token and returns it (shown
// once; only its SHA-256 is kept): a subscription to the old address
// stops working. ErrNotFound without the provider.
func (s *Service) MintFeedToken(ctx context.Context, providerID int64) (string, error) {
	if _, err := s.Provider(ctx, providerID); err != nil {
		return "", fmt.Errorf("bookings: mint feed token: %w", err) // another tenant's is not found
	}
	token, hash, err := s.newManageToken()
	if err != nil {
		return "", fmt.Errorf("bookings: mint feed token: %w", err)
	}
	if err := s.store.SetProviderFeedHash(ctx, providerID, hash, s.o.Now()); err != nil {
		return "", fmt.Errorf("bookings: mint feed token of provider %d: %w", providerID, err)
	}
	return token, nil
}

// RevokeFeedToken ends a provider's feed (404 from then on) until a new
// token is minted. ErrNotFound without the provider.
func (s *Service) RevokeFeedToken(ctx context.Context, providerID int64) error {
	if _, err := s.Provider(ctx, providerID); err != nil {
		return fmt.Errorf("bookings: revoke feed token: %w", err) // another tenant's is not found
	}
	if err := s.store.SetProviderFeedHash(ctx, providerID, nil, s.o.Now()); err != nil {
		return fmt.Errorf("bookings: revoke feed token of provider %d: %w", providerID, err)
	}
	return nil
}

// feedWindow is the span of starts a provider feed holds now.
func (s *Service) feedWindow() (time.Time, time.Time) {
	now := s.o.Now().UTC()
	return now.Add(-s.o.FeedPast), now.Add(s.o.FeedFuture)
}

// ProviderFeed is the feed of the provider whose feed token this is: with
// ifNoneMatch (a request's If-None-Match) matching its ETag, NotModified
// after one aggregate query and nothing else read. ErrNotFound for a
// malformed, unknown or revoked token or an inactive provider.
func (s *Service) ProviderFeed(ctx context.Context, token, ifNoneMatch string) (Feed, error) {
	if !manageTokenPattern.MatchString(token) {
		return Feed{}, errNoCalendar
	}
	sum := sha256.Sum256([]byte(token))
	p, stored, err := s.store.ProviderByFeedHash(ctx, sum[:])
	if errors.Is(err, ErrNotFound) || err == nil && subtle.ConstantTimeCompare(sum[:], stored) != 1 {
		return Feed{}, errNoCalendar
	}
	if err != nil {
		return Feed{}, fmt.Errorf("bookings: provider feed: %w", err)
	}
	from, to := s.feedWindow()
	stamp, err := s.store.FeedStamp(ctx, p.ID, from, to)
	if err != nil {
		return Feed{}, fmt.Errorf("bookings: provider feed: %w", err)
	}
	f := Feed{ETag: etag(strconv.FormatInt(p.ID, 10), stampTime(p.UpdatedAt),
		stampTime(stamp.LastUpdated), strconv.Itoa(stamp.Count), strconv.Itoa(stamp.Live), stampTime(stamp.ServicesUpdated))}
	if etagMatches(ifNoneMatch, f.ETag) {
		f.NotModified = true
		return f, nil
	}
	if body, ok := s.feeds.get(p.ID, f.ETag); ok {
		f.FileName, f.Body = fileName(p.Slug), body
		return f, nil
	}
	list, err := s.store.FeedBookings(ctx, p.ID, from, to)
	if err != nil {
		return Feed{}, fmt.Errorf("bookings: provider feed: %w", err)
	}
	names, err := s.serviceNames(ctx)
	if err != nil {
		return Feed{}, err
	}
	// The calendar's head, then each event: the text kept from the last
	// build when nothing it shows changed, else written by the library.
	head := serialize(s.newCalendar(p.Name, zoneName(p.TimeZone)), 0)
	head = bytes.TrimSuffix(head, []byte(calendarEnd))
	kept := s.feeds.events(p.ID)
	events := make(map[int64]cachedEvent, len(list))
	body := bytes.NewBuffer(make([]byte, 0, len(head)+400*len(list)))
	body.Write(head)
	var scratch bytes.Buffer
	for _, b := range list {
		desc := "Reference: " + b.Number
		if b.CustomerName != "" {
			desc += "\nCustomer: " + b.CustomerName
		}
		if b.CustomerEmail != "" {
			desc += "\nEmail: " + b.CustomerEmail
		}
		summary := joinSummary(names[b.ServiceID], b.CustomerName)
		key := eventKey(b, summary, desc)
		e, ok := kept[b.ID]
		if !ok || e.key != key {
			scratch.Reset()
			_ = s.newEvent(b, summary, desc).SerializeTo(&scratch, serialization)
			e = cachedEvent{key: key, text: bytes.Clone(scratch.Bytes())}
		}
		events[b.ID] = e
		body.Write(e.text)
	}
	body.WriteString(calendarEnd)
	f.FileName, f.Body = fileName(p.Slug), body.Bytes()
	s.feeds.put(p.ID, f.ETag, f.Body, events)
	return f, nil
}

// eventKey is everything an event of the provider feed shows.
func eventKey(b Booking, summary, description string) string {
	return strings.Join([]string{b.Number, strconv.FormatInt(b.UpdatedAt.UnixMicro(), 10), strconv.FormatInt(b.CreatedAt.UnixMicro(), 10),
		strconv.FormatInt(b.Start.UnixMicro(), 10), strconv.FormatInt(b.End.UnixMicro(), 10), strconv.Itoa(b.Sequence), string(b.Status),
		summary, description}, "\x00")
}

// feedCacheSize bounds the provider feeds kept in memory (each about
// twice its body).
const feedCacheSize = 64

// feedCache keeps the last body of each provider feed with its ETag, so a
// client that asks again without If-None-Match costs the aggregate query
// alone while nothing changed, and the text of each event, so a feed
// rebuilt after a change writes only the events that changed. The tag
// comes from the database, so every instance agrees on when a body is
// stale; an event's text is reused only for the same inputs.
type feedCache struct {
	mu      sync.Mutex
	entries map[int64]cachedFeed
}

type cachedFeed struct {
	etag   string
	body   []byte
	events map[int64]cachedEvent
}

type cachedEvent struct {
	key  string
	text []byte
}

// events is the provider's kept events; read only.
func (c *feedCache) events(provider int64) map[int64]cachedEvent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[provider].events
}

func (c *feedCache) get(provider int64, etag string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[provider]
	return e.body, ok && e.etag == etag
}

func (c *feedCache) put(provider int64, etag string, body []byte, events map[int64]cachedEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[int64]cachedFeed{}
	}
	if _, ok := c.entries[provider]; !ok && len(c.entries) >= feedCacheSize {
		for k := range c.entries { // drop any one
			delete(c.entries, k)
			break
		}
	}
	c.entries[provider] = cachedFeed{etag: etag, body: body, events: events}
}

// CustomerFeed is the one-booking feed of a manage link, whatever the
// booking's status (a cancelled one says CANCELLED). ErrBadManageToken
// as [Service.Managed].
func (s *Service) CustomerFeed(ctx context.Context, token, ifNoneMatch string) (Feed, error) {
	b, _, err := s.Managed(ctx, token)
	if err != nil {
		return Feed{}, err
	}
	// One event, cheap to make: the tag is the body's own, so it covers
	// everything the body shows (the service's and provider's names too).
	cal, err := s.bookingCalendar(ctx, b)
	if err != nil {
		return Feed{}, err
	}
	body := serialize(cal, 1)
	f := Feed{ETag: etag(string(body))}
	if etagMatches(ifNoneMatch, f.ETag) {
		f.NotModified = true
		return f, nil
	}
	f.FileName, f.Body = fileName(b.Number), body
	return f, nil
}

// ICS is a booking's one-event calendar as the customer sees it (the
// customer feed's body; the confirmation mail's attachment).
func (s *Service) ICS(ctx context.Context, b Booking) ([]byte, error) {
	cal, err := s.bookingCalendar(ctx, b)
	if err != nil {
		return nil, err
	}
	return serialize(cal, 1), nil
}

func (s *Service) bookingCalendar(ctx context.Context, b Booking) (*ics.Calendar, error) {
	svc, err := s.store.ServiceByID(ctx, b.ServiceID)
	if err != nil {
		return nil, fmt.Errorf("bookings: calendar of booking %d: %w", b.ID, err)
	}
	var provider string
	if b.ProviderID != nil {
		if p, err := s.store.Provider(ctx, *b.ProviderID); err == nil {
			provider = p.Name
		} else if !errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("bookings: calendar of booking %d: %w", b.ID, err)
		}
	}
	cal := s.newCalendar(svc.Name, zoneName(b.CustomerTimeZone))
	cal.AddVEvent(s.newEvent(b, joinSummary(svc.Name, provider), "Reference: "+b.Number))
	return cal, nil
}

func (s *Service) serviceNames(ctx context.Context) (map[int64]string, error) {
	list, err := s.store.ListServices(ctx, false)
	if err != nil {
		return nil, fmt.Errorf("bookings: service names: %w", err)
	}
	names := make(map[int64]string, len(list))
	for _, v := range list {
		names[v.ID] = v.Name
	}
	return names, nil
}

func (s *Service) newCalendar(name, zone string) *ics.Calendar {
	cal := ics.NewCalendar()
	cal.SetProductId(feedProductID)
	cal.SetCalscale("GREGORIAN")
	cal.SetMethod(ics.MethodPublish)
	cal.SetXWRCalName(icsText(name))
	cal.SetXWRTimezone(zone)
	return cal
}

// icsTime is the library's UTC date-time form.
const icsTime = "20060102T150405Z"

// newEvent is b as a VEVENT: UID stable across reschedules, times in
// UTC, DTSTAMP from the row so an unchanged feed is byte-identical. The
// properties are made in one slice, without parameters (what the
// library's setters do costs a map and a search per property, which
// shows in a feed of thousands); the library still escapes, folds and
// writes them.
func (s *Service) newEvent(b Booking, summary, description string) *ics.VEvent {
	status := ics.ObjectStatusConfirmed
	switch b.Status {
	case StatusRequested, StatusAwaitingPayment:
		status = ics.ObjectStatusTentative
	case StatusCancelled:
		status = ics.ObjectStatusCancelled
	}
	prop := func(name ics.ComponentProperty, value string) ics.IANAProperty {
		return ics.IANAProperty{BaseProperty: ics.BaseProperty{IANAToken: string(name), Value: value}}
	}
	updated := b.UpdatedAt.UTC().Format(icsTime)
	ev := &ics.VEvent{ComponentBase: ics.ComponentBase{Properties: []ics.IANAProperty{
		prop(ics.ComponentPropertyUniqueId, s.EventUID(b)),
		prop(ics.ComponentPropertyDtstamp, updated),
		prop(ics.ComponentPropertyCreated, b.CreatedAt.UTC().Format(icsTime)),
		prop(ics.ComponentPropertyLastModified, updated),
		prop(ics.ComponentPropertyDtStart, b.Start.UTC().Format(icsTime)),
		prop(ics.ComponentPropertyDtEnd, b.End.UTC().Format(icsTime)),
		prop(ics.ComponentPropertySequence, strconv.Itoa(b.Sequence)),
		prop(ics.ComponentPropertyStatus, string(status)),
		prop(ics.ComponentPropertySummary, icsText(summary)),
		prop(ics.ComponentPropertyDescription, icsText(description)),
	}}}
	if l := b.Location; l != nil && l.Value != "" {
		ev.Properties = append(ev.Properties, prop(ics.ComponentPropertyLocation, icsText(l.Text())))
		if l.Kind == LocationVideo && oneURI(l.Value) { // a link from Options.VideoLink is the host's, unchecked
			ev.Properties = append(ev.Properties, prop(ics.ComponentPropertyUrl, l.Value))
		}
	}
	return ev
}

// serialization: lines end in CRLF and fold at 75 octets (RFC 5545
// §3.1).
var serialization = &ics.SerializationConfiguration{MaxLength: 75, PropertyMaxLength: 75, NewLine: string(ics.WithNewLineWindows)}

// calendarEnd is a calendar's last line.
const calendarEnd = "END:VCALENDAR\r\n"

// serialize writes cal, sized for events.
func serialize(cal *ics.Calendar, events int) []byte {
	var buf bytes.Buffer
	buf.Grow(256 + 400*events)
	_ = cal.SerializeTo(&buf, serialization)
	return buf.Bytes()
}

// icsText makes a value safe for an iCalendar TEXT property, which the
// library escapes (backslash, semicolon, comma, LF): a CR alone or in
// CRLF becomes LF, other control characters go.
func icsText(v string) string {
	clean := true
	for i := 0; i < len(v) && clean; i++ {
		clean = v[i] >= 0x20 && v[i] != 0x7f || v[i] == '\n' || v[i] == '\t'
	}
	if clean {
		return v
	}
	v = strings.ReplaceAll(v, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\r':
			return '\n'
		case r == '\n' || r == '\t':
			return r
		case r < 0x20 || r == 0x7f:
			return -1
		}
		return r
	}, v)
}

func joinSummary(a, b string) string {
	if b == "" {
		return a
	}
	return a + " — " + b
}

func zoneName(tz string) string {
	if tz == "" {
		return TimeZoneDefault
	}
	return tz
}

func stampTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// etag is the quoted SHA-1 of the parts joined by "|".
func etag(parts ...string) string {
	sum := sha1.Sum([]byte(strings.Join(parts, "|")))
	return `"` + hex.EncodeToString(sum[:]) + `"`
}

// etagMatches reports whether an If-None-Match header value matches the
// quoted tag: "*", or any entry of a comma-separated list, weak (W/) or
// strong.
func etagMatches(header, tag string) bool {
	for part := range strings.SplitSeq(header, ",") {
		part = strings.TrimSpace(part)
		if part == "*" || strings.TrimPrefix(part, "W/") == tag {
			return true
		}
	}
	return false
}

// fileName reduces name to [A-Za-z0-9._-] for a Content-Disposition, and
// adds ".ics"; "calendar" when nothing is left.
func fileName(name string) string {
	name = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return -1
	}, name)
	if strings.Trim(name, ".") == "" {
		name = "calendar"
	}
	return name + ".ics"
}
