package bookings

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/internal/api"
)

// ErrCalendarUnreadable: a calendar connection could not be read (the
// server refused the credentials, could not be reached, or answered
// something that is not a calendar); the message says which. It answers
// 422 when a connection is made, and is recorded on the connection when
// a sync fails.
var ErrCalendarUnreadable = errors.New("bookings: calendar unreadable")

// CalendarError is why a calendar could not be read: Reason in words the
// provider can act on ("We could not reach that address. Check it and
// try again."), with nothing of the server that read it (no addresses,
// no error chains), and Err the cause, for the log. Calendar sources
// return it; [CalendarReason] finds it in an error's chain.
type CalendarError struct {
	Reason string
	Err    error
}

// Error is the reason and the cause, for logs.
func (e *CalendarError) Error() string {
	if e.Err == nil {
		return e.Reason
	}
	return e.Reason + " (" + e.Err.Error() + ")"
}

// Unwrap is the cause.
func (e *CalendarError) Unwrap() error { return e.Err }

// calendarReasonDefault is the reason of a failure no source explained.
const calendarReasonDefault = "The calendar could not be read. Check its address and try again later."

// calendarSecretContext binds sealed calendar secrets to their use.
var calendarSecretContext = []byte("bookings calendar connection secret")

// CalendarInput is a calendar connection to make: its kind, a name to
// show, and what the kind needs (a CalDAV server with a user name and an
// app password; an ICS address; a Google refresh token).
type CalendarInput struct {
	ProviderID int64        `json:"provider_id"`
	Kind       CalendarKind `json:"kind"`
	Name       string       `json:"name"`
	// URL is the CalDAV server's address, or the ICS address.
	URL      string `json:"url"`
	Username string `json:"username"`
	// Password is the CalDAV app password, or Google's refresh token.
	Password string `json:"password"`
	// Calendars chosen; every calendar the connection lists when empty.
	Calendars []string `json:"calendars"`
	// Destination is the calendar bookings are written to; none when "".
	Destination    string `json:"destination"`
	BlockWhenStale bool   `json:"block_when_stale"`
}

// CalendarChoice changes which calendars a connection reads and writes.
type CalendarChoice struct {
	Name           *string  `json:"name"`
	Calendars      []string `json:"calendars"`
	Destination    *string  `json:"destination"`
	BlockWhenStale *bool    `json:"block_when_stale"`
}

// source is the CalendarSource of kind, or a 422 on "kind".
func (s *Service) source(kind CalendarKind) (CalendarSource, error) {
	src, ok := s.o.CalendarSources[kind]
	if !ok {
		kinds := make([]string, 0, len(s.o.CalendarSources))
		for k := range s.o.CalendarSources {
			kinds = append(kinds, string(k))
		}
		slices.Sort(kinds)
		if len(kinds) == 0 {
			return nil, invalid("kind", "This site reads no calendars.")
		}
		return nil, invalid("kind", "The selected kind is invalid: it is one of "+strings.Join(kinds, ", ")+".")
	}
	return src, nil
}

// access is c with its secret unsealed.
func (s *Service) access(c CalendarConnection) (CalendarAccess, error) {
	if s.sealer == nil {
		return CalendarAccess{}, errors.New("bookings: calendar connections need Options.SecretKey")
	}
	secret, err := s.sealer.Open(c.SealedSecret, calendarSecretContext)
	if err != nil {
		return CalendarAccess{}, fmt.Errorf("bookings: calendar connection %d: the secret cannot be opened: %w", c.ID, err)
	}
	return CalendarAccess{Connection: c, Secret: secret}, nil
}

// ConnectCalendar makes a calendar connection for a provider after
// reading it once: the calendars it lists are answered beside it (to
// choose from), and a connection that cannot be read is refused with
// ErrCalendarUnreadable, its reason in the message. A server that has not
// answered within Options.CalendarConnectWait is slow, not refusing: the
// connection (when it chose no calendars) is saved unread and answered
// with nil calendars, and the calendar sweep reads it. The secret is
// sealed with Options.SecretKey; the first sync is due at once.
func (s *Service) ConnectCalendar(ctx context.Context, in CalendarInput) (CalendarConnection, []RemoteCalendar, error) {
	v := &api.Validator{}
	src, err := s.source(in.Kind)
	if err != nil {
		return CalendarConnection{}, nil, err
	}
	if _, err := s.store.Provider(ctx, in.ProviderID); err != nil {
		return CalendarConnection{}, nil, err
	}
	name := strings.TrimSpace(in.Name)
	if name == "" {
		v.Add("name", api.MsgRequired("name"))
	} else if len([]rune(name)) > NameMaxLength {
		v.Add("name", api.MsgMaxChars("name", NameMaxLength))
	}
	u, err := url.Parse(strings.TrimSpace(in.URL))
	switch {
	case in.Kind == CalendarGoogle:
	case in.URL == "":
		v.Add("url", api.MsgRequired("url"))
	case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
		v.Add("url", api.MsgURL("url"))
	}
	if (in.Kind == CalendarCalDAV || in.Kind == CalendarGoogle) && in.Password == "" {
		v.Add("password", api.MsgRequired("password"))
	}
	if err := v.Err(); err != nil {
		return CalendarConnection{}, nil, err
	}
	if s.sealer == nil {
		return CalendarConnection{}, nil, errors.New("bookings: connect calendar: Options.SecretKey is needed to seal the secret")
	}
	now := s.o.Now()
	c := CalendarConnection{ProviderID: in.ProviderID, Kind: in.Kind, Name: name, Username: in.Username, Calendars: in.Calendars,
		Destination: in.Destination, BlockWhenStale: in.BlockWhenStale, NextSyncAt: now, CreatedAt: now, UpdatedAt: now}
	secret := in.Password
	switch in.Kind {
	case CalendarICS:
		// The address is the secret; only its scheme and host are shown.
		secret, c.Endpoint = u.String(), u.Scheme+"://"+u.Host
	case CalendarCalDAV:
		c.Endpoint = u.String()
	}
	c.SealedSecret = s.sealer.Seal(secret, calendarSecretContext)
	wait, cancel := context.WithTimeout(ctx, s.o.CalendarConnectWait)
	cals, err := s.listCalendars(wait, src, CalendarAccess{Connection: c, Secret: secret})
	slow := errors.Is(wait.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	cancel()
	switch {
	case slow && len(c.Calendars) == 0 && c.Destination == "":
		// The server is slow, not refusing: saved unread, and read by the
		// calendar sweep (due at once), its outcome kept on it.
		if c, err = s.store.CreateCalendarConnection(ctx, c); err != nil {
			return CalendarConnection{}, nil, fmt.Errorf("bookings: connect calendar: %w", err)
		}
		return c, nil, nil
	case err != nil:
		return CalendarConnection{}, nil, err
	}
	if err := checkChoice(cals, c.Calendars, c.Destination); err != nil {
		return CalendarConnection{}, nil, err
	}
	if _, ok := src.(CalendarWriter); c.Destination != "" && !ok {
		return CalendarConnection{}, nil, invalid("destination", "This kind of calendar cannot be written to.")
	}
	c, err = s.store.CreateCalendarConnection(ctx, c)
	if err != nil {
		return CalendarConnection{}, nil, fmt.Errorf("bookings: connect calendar: %w", err)
	}
	return c, cals, nil
}

// listCalendars asks src for a connection's calendars, within the read
// timeout; a failure is ErrCalendarUnreadable with its reason.
func (s *Service) listCalendars(ctx context.Context, src CalendarSource, a CalendarAccess) ([]RemoteCalendar, error) {
	ctx, cancel := context.WithTimeout(ctx, s.o.CalendarReadTimeout)
	defer cancel()
	cals, err := src.Calendars(ctx, a)
	if err != nil {
		s.o.Logger.InfoContext(ctx, "bookings: a calendar could not be listed", "kind", a.Connection.Kind, "error", err)
		return nil, &api.Error{Status: 422, Message: "The calendar could not be read. " + CalendarReason(err), Err: errors.Join(ErrCalendarUnreadable, err)}
	}
	return cals, nil
}

// checkChoice refuses chosen or destination calendars the connection
// does not list.
func checkChoice(cals []RemoteCalendar, chosen []string, destination string) error {
	known := func(id string) bool {
		return slices.ContainsFunc(cals, func(c RemoteCalendar) bool { return c.ID == id })
	}
	v := &api.Validator{}
	for i, id := range chosen {
		if !known(id) {
			v.Add(fmt.Sprintf("calendars.%d", i), "The calendar "+id+" is not one this connection lists.")
		}
	}
	if destination != "" && !known(destination) {
		v.Add("destination", "The calendar "+destination+" is not one this connection lists.")
	}
	return v.Err()
}

// CalendarConnections returns a provider's calendar connections (every
// provider's with providerID 0).
func (s *Service) CalendarConnections(ctx context.Context, providerID int64) ([]CalendarConnection, error) {
	return s.store.ListCalendarConnections(ctx, providerID)
}

// CalendarConnection returns one calendar connection, or ErrNotFound.
func (s *Service) CalendarConnection(ctx context.Context, id int64) (CalendarConnection, error) {
	return s.store.CalendarConnection(ctx, id)
}

// ChooseCalendars changes a connection's name, the calendars it reads,
// the one it writes to, and whether a stale read stops bookings; the
// calendars are checked against what the connection lists now. The next
// sync is due at once.
func (s *Service) ChooseCalendars(ctx context.Context, id int64, ch CalendarChoice) (CalendarConnection, error) {
	c, err := s.store.CalendarConnection(ctx, id)
	if err != nil {
		return c, err
	}
	if ch.Name != nil {
		if c.Name = strings.TrimSpace(*ch.Name); c.Name == "" {
			return c, invalid("name", api.MsgRequired("name"))
		}
	}
	if ch.Calendars != nil {
		c.Calendars = ch.Calendars
	}
	if ch.Destination != nil {
		c.Destination = *ch.Destination
	}
	if ch.BlockWhenStale != nil {
		c.BlockWhenStale = *ch.BlockWhenStale
	}
	src, err := s.source(c.Kind)
	if err != nil {
		return c, err
	}
	if _, ok := src.(CalendarWriter); c.Destination != "" && !ok {
		return c, invalid("destination", "This kind of calendar cannot be written to.")
	}
	a, err := s.access(c)
	if err != nil {
		return c, err
	}
	cals, err := s.listCalendars(ctx, src, a)
	if err != nil {
		return c, err
	}
	if err := checkChoice(cals, c.Calendars, c.Destination); err != nil {
		return c, err
	}
	c.NextSyncAt, c.UpdatedAt = s.o.Now(), s.o.Now()
	return s.store.UpdateCalendarConnection(ctx, c)
}

// RemoteCalendars lists the calendars connection id can read, asking
// its server (the choice ChooseCalendars takes).
func (s *Service) RemoteCalendars(ctx context.Context, id int64) ([]RemoteCalendar, error) {
	c, err := s.store.CalendarConnection(ctx, id)
	if err != nil {
		return nil, err
	}
	src, err := s.source(c.Kind)
	if err != nil {
		return nil, err
	}
	a, err := s.access(c)
	if err != nil {
		return nil, err
	}
	return s.listCalendars(ctx, src, a)
}

// DisconnectCalendar deletes a connection and the busy time read from it.
func (s *Service) DisconnectCalendar(ctx context.Context, id int64) error {
	return s.store.DeleteCalendarConnection(ctx, id)
}

// calendarSpan is what a sync reads: from the start of yesterday (UTC)
// to the booking horizon.
func (s *Service) calendarSpan(now time.Time) (time.Time, time.Time) {
	from := now.UTC().Truncate(24 * time.Hour).Add(-24 * time.Hour)
	horizon := s.o.MaxAdvance
	if horizon <= 0 {
		horizon = MaxAdvanceDefault
	}
	return from, now.Add(horizon + 48*time.Hour)
}

// SyncCalendar reads one connection now for the whole booking horizon
// and stores its busy periods, unless another instance is reading it
// (then it returns false and nil). A failed read is recorded on the
// connection (its reason, and the next try after a backoff that doubles
// with each failure) and returned.
func (s *Service) SyncCalendar(ctx context.Context, id int64) (bool, error) {
	from, to := s.calendarSpan(s.o.Now())
	return s.syncSpan(ctx, id, from, to, true)
}

// syncSpan claims a connection's sync, reads [from, to), and records the
// outcome; full syncs move the next sync on, a day's refresh leaves it.
func (s *Service) syncSpan(ctx context.Context, id int64, from, to time.Time, full bool) (bool, error) {
	now := s.o.Now()
	ok, err := s.store.ClaimCalendarSync(ctx, id, now, now.Add(2*s.o.CalendarReadTimeout))
	if err != nil || !ok {
		return false, err
	}
	c, err := s.store.CalendarConnection(ctx, id)
	if err != nil {
		return false, err
	}
	// The outcome is recorded even when the read ran out of time.
	record := context.WithoutCancel(ctx)
	read, err := s.readBusy(ctx, c, from, to)
	if err != nil {
		next := c.NextSyncAt
		if full {
			next = s.o.Now().Add(s.backoff(c.Failures + 1))
		}
		if ferr := s.store.FailCalendarSync(record, id, CalendarReason(err), next); ferr != nil {
			return true, errors.Join(err, ferr)
		}
		return true, err
	}
	next := c.NextSyncAt
	if full {
		next = s.o.Now().Add(s.o.CalendarSyncInterval)
	}
	if read.Unreadable > 0 || read.Warning != "" {
		s.o.Logger.WarnContext(ctx, "bookings: calendar events left out", "connection", id, "unreadable", read.Unreadable, "warning", read.Warning)
	}
	return true, s.store.FinishCalendarSync(record, CalendarSync{ConnectionID: id, From: from, To: to, Periods: read.Periods,
		NotModified: read.NotModified, ETag: read.ETag, LastModified: read.LastModified, At: s.o.Now(), Next: next, Warning: read.Warning})
}

// readBusy reads a connection's busy time within the read timeout,
// leaving out the bookings written to it.
func (s *Service) readBusy(ctx context.Context, c CalendarConnection, from, to time.Time) (BusyRead, error) {
	src, err := s.source(c.Kind)
	if err != nil {
		return BusyRead{}, fmt.Errorf("%w: no source reads %q calendars", ErrCalendarUnreadable, c.Kind)
	}
	a, err := s.access(c)
	if err != nil {
		return BusyRead{}, err
	}
	p, err := s.store.Provider(ctx, c.ProviderID)
	if err != nil {
		return BusyRead{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.o.CalendarReadTimeout)
	defer cancel()
	read, err := src.Busy(ctx, a, from, to, location(p.TimeZone), s.ownEvent)
	if err != nil {
		return BusyRead{}, fmt.Errorf("%w: %w", ErrCalendarUnreadable, err)
	}
	return read, nil
}

// CalendarReason is why a calendar could not be read, in words for the
// provider: the Reason of the first CalendarError in err's chain, else a
// general sentence. Nothing of the server that read it is in it; log err
// for the cause.
func CalendarReason(err error) string {
	var ce *CalendarError
	if errors.As(err, &ce) && ce.Reason != "" {
		return ce.Reason
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "The calendar's server took too long to answer. It will be read again shortly."
	}
	return calendarReasonDefault
}

// ownEvent reports whether uid is one of the bookings written to a
// provider's calendar, which is never read back as busy time.
func (s *Service) ownEvent(uid string) bool {
	return strings.HasPrefix(uid, "BK-") && strings.HasSuffix(uid, "@"+s.o.FeedHost)
}

// backoff is the wait after n failed reads in a row: the sync interval
// doubled for each, up to calendarBackoffMax.
func (s *Service) backoff(n int) time.Duration {
	d := s.o.CalendarSyncInterval
	for i := 1; i < n && d < calendarBackoffMax; i++ {
		d *= 2
	}
	return min(d, calendarBackoffMax)
}

// SyncDueCalendars syncs the connections whose next sync is due, up to
// limit of them, and reports how many it read; a connection another
// instance is reading is left to it. Failed reads are recorded on their
// connections and logged, not returned: one account's bad password does
// not hold the others.
func (s *Service) SyncDueCalendars(ctx context.Context, limit int) (int, error) {
	ids, err := s.store.DueCalendarSyncs(ctx, s.o.Now(), limit)
	if err != nil {
		return 0, fmt.Errorf("bookings: sync calendars: %w", err)
	}
	n := 0
	for _, id := range ids {
		ok, err := s.SyncCalendar(ctx, id)
		if ok {
			n++
		}
		if err != nil && ctx.Err() == nil {
			s.o.Logger.WarnContext(ctx, "bookings: calendar sync failed", "connection", id, "error", err)
		}
	}
	return n, nil
}

// refreshDay reads the provider's connections again for the day around
// start when their last read is older than the freshness bound, before a
// booking is taken there. A failure leaves the stored busy time in place
// and is logged: the booking goes ahead on what is known.
func (s *Service) refreshDay(ctx context.Context, providerID int64, start time.Time) {
	if len(s.o.CalendarSources) == 0 {
		return
	}
	conns, err := s.store.ListCalendarConnections(ctx, providerID)
	if err != nil {
		s.o.Logger.WarnContext(ctx, "bookings: calendar refresh", "provider", providerID, "error", err)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, s.o.CalendarRefreshTimeout)
	defer cancel()
	now := s.o.Now()
	from := start.Add(-24 * time.Hour)
	for _, c := range conns {
		if c.SyncedAt != nil && now.Sub(*c.SyncedAt) < s.o.CalendarFreshness {
			continue
		}
		if _, err := s.syncSpan(ctx, c.ID, from, from.Add(48*time.Hour), false); err != nil && ctx.Err() == nil {
			s.o.Logger.WarnContext(ctx, "bookings: calendar refresh before booking failed; the stored busy time stands",
				"connection", c.ID, "error", err)
		}
	}
}

// CalendarStaleAfter is how long a connection may go unread before it
// counts as stale: its provider is shown a warning, and with
// BlockWhenStale is not bookable until it is read again.
const CalendarStaleAfter = 24 * time.Hour

// Stale reports whether c has gone unread (since it was made, or since
// its last good read) for longer than CalendarStaleAfter at now.
func (c CalendarConnection) Stale(now time.Time) bool {
	last := c.CreatedAt
	if c.SyncedAt != nil {
		last = *c.SyncedAt
	}
	return now.Sub(last) > CalendarStaleAfter
}

// blockedByCalendars are the providers one of whose BlockWhenStale
// connections is stale.
func (s *Service) blockedByCalendars(ctx context.Context) (map[int64]bool, error) {
	if len(s.o.CalendarSources) == 0 {
		return nil, nil
	}
	conns, err := s.store.ListCalendarConnections(ctx, 0)
	if err != nil {
		return nil, err
	}
	var blocked map[int64]bool
	now := s.o.Now()
	for _, c := range conns {
		if c.BlockWhenStale && c.Stale(now) {
			if blocked == nil {
				blocked = map[int64]bool{}
			}
			blocked[c.ProviderID] = true
		}
	}
	return blocked, nil
}
