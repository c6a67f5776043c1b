package calendars

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/seal"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/tenant"
)

// Options configures [New]; a zero duration takes its ...Default.
type Options struct {
	// Sources read the providers' calendars, by kind (CalDAV, ICS,
	// Google; bookingsical and bookingsgoogle make them); no calendar is
	// read without one.
	Sources map[Kind]Source
	// SecretKey seals the connections' secrets and signs the calendar
	// page's links; give every instance the same (bookings' manage-link
	// key, in a module). Required.
	SecretKey []byte
	// Enqueuer queues, in the transaction of each change of a booking,
	// the job that writes it to its provider's destination calendars
	// (RegisterWorkers runs it); without one no booking is written.
	Enqueuer store.Enqueuer
	// SyncInterval is how often each connection is read.
	SyncInterval time.Duration
	// Freshness: a booking on a provider whose calendars were read longer
	// ago than this reads that day again first.
	Freshness time.Duration
	// ReadTimeout bounds one read of a connection.
	ReadTimeout time.Duration
	// RefreshTimeout bounds that read before a booking (past it the
	// stored busy time stands).
	RefreshTimeout time.Duration
	// ConnectWait is how long making a connection (or reading it right
	// after) waits for the calendar's server; past it the connection is
	// saved and read by the calendar sweep.
	ConnectWait time.Duration
	// Now is the clock (time.Now when nil); Logger receives what a read
	// met (nil discards).
	Now    func() time.Time
	Logger *slog.Logger
}

// Service manages the providers' calendar connections, reads them, and
// writes bookings to them.
type Service struct {
	store  Store
	bk     *bookings.Service
	o      Options
	sealer *seal.Sealer
}

// New returns the calendars of bk's providers, kept in st, and attaches
// them to bk (call it before bk serves): the busy time read joins bk's
// slots and the check inside each booking's lock, a stale calendar that
// must be read makes its provider unbookable, and, with an Enqueuer and a
// source that writes, every change of a booking queues its write in the
// change's transaction (as a bookings.Service.OnEventTx hook).
func New(st Store, bk *bookings.Service, opts *Options) (*Service, error) {
	if st == nil || bk == nil {
		return nil, errors.New("calendars: new: a store and a bookings service are required")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	sealer, err := seal.New(o.SecretKey)
	if err != nil {
		return nil, fmt.Errorf("calendars: new: the SecretKey seals the connections' secrets: %w", err)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	o.Logger = cmp.Or(o.Logger, slog.New(slog.DiscardHandler))
	o.SyncInterval = cmp.Or(o.SyncInterval, SyncIntervalDefault)
	o.Freshness = cmp.Or(o.Freshness, FreshnessDefault)
	o.ReadTimeout = cmp.Or(o.ReadTimeout, ReadTimeoutDefault)
	o.RefreshTimeout = cmp.Or(o.RefreshTimeout, RefreshTimeoutDefault)
	o.ConnectWait = cmp.Or(o.ConnectWait, ConnectWaitDefault)
	s := &Service{store: st, bk: bk, o: o, sealer: sealer}
	bk.UseCalendars(s)
	if o.Enqueuer != nil && s.writes() {
		bk.OnEventTx(s.queueWrite)
	}
	return s, nil
}

// Store is the store the service was made with.
func (s *Service) Store() Store { return s.store }

// ErrUnreadable: a calendar connection could not be read (the
// server refused the credentials, could not be reached, or answered
// something that is not a calendar); the message says which. It answers
// 422 when a connection is made, and is recorded on the connection when
// a sync fails.
var ErrUnreadable = errors.New("calendars: calendar unreadable")

// Error is why a calendar could not be read: Reason in words the
// provider can act on ("We could not reach that address. Check it and
// try again."), with nothing of the server that read it (no addresses,
// no error chains), and Err the cause, for the log. Calendar sources
// return it; [Reason] finds it in an error's chain.
type Error struct {
	Reason string
	Err    error
}

// Error is the reason and the cause, for logs.
func (e *Error) Error() string {
	if e.Err == nil {
		return e.Reason
	}
	return e.Reason + " (" + e.Err.Error() + ")"
}

// Unwrap is the cause.
func (e *Error) Unwrap() error { return e.Err }

// calendarReasonDefault is the reason of a failure no source explained.
const calendarReasonDefault = "The calendar could not be read. Check its address and try again later."

// calendarSecretContext binds sealed calendar secrets to their use. It
// is the words the secrets were sealed with when the calendars were part
// of bookings, so those secrets still open.
var calendarSecretContext = []byte("bookings calendar connection secret")

// Input is a calendar connection to make: its kind, a name to
// show, and what the kind needs (a CalDAV server with a user name and an
// app password; an ICS address; a Google refresh token).
type Input struct {
	ProviderID int64  `json:"provider_id"`
	Kind       Kind   `json:"kind"`
	Name       string `json:"name"`
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

// Choice changes which calendars a connection reads and writes.
type Choice struct {
	Name           *string  `json:"name"`
	Calendars      []string `json:"calendars"`
	Destination    *string  `json:"destination"`
	BlockWhenStale *bool    `json:"block_when_stale"`
}

// source is the Source of kind, or a 422 on "kind".
func (s *Service) source(kind Kind) (Source, error) {
	src, ok := s.o.Sources[kind]
	if !ok {
		kinds := make([]string, 0, len(s.o.Sources))
		for k := range s.o.Sources {
			kinds = append(kinds, string(k))
		}
		slices.Sort(kinds)
		if len(kinds) == 0 {
			return nil, api.Invalid("kind", "This site reads no calendars.")
		}
		return nil, api.Invalid("kind", "The selected kind is invalid: it is one of "+strings.Join(kinds, ", ")+".")
	}
	return src, nil
}

// access is c with its secret unsealed.
func (s *Service) access(c Connection) (Access, error) {
	secret, err := s.sealer.Open(c.SealedSecret, calendarSecretContext)
	if err != nil {
		return Access{}, fmt.Errorf("calendars: calendar connection %d: the secret cannot be opened: %w", c.ID, err)
	}
	return Access{Connection: c, Secret: secret}, nil
}

// Connect makes a calendar connection for a provider after
// reading it once: the calendars it lists are answered beside it (to
// choose from), and a connection that cannot be read is refused with
// ErrUnreadable, its reason in the message. A server that has not
// answered within Options.ConnectWait is slow, not refusing: the
// connection (when it chose no calendars) is saved unread and answered
// with nil calendars, and the calendar sweep reads it. The secret is
// sealed with Options.SecretKey; the first sync is due at once.
func (s *Service) Connect(ctx context.Context, in Input) (Connection, []Remote, error) {
	v := &api.Validator{}
	src, err := s.source(in.Kind)
	if err != nil {
		return Connection{}, nil, err
	}
	if _, err := s.bk.Provider(ctx, in.ProviderID); err != nil {
		return Connection{}, nil, err
	}
	name := strings.TrimSpace(in.Name)
	if name == "" {
		v.Add("name", api.MsgRequired("name"))
	} else if len([]rune(name)) > bookings.NameMaxLength {
		v.Add("name", api.MsgMaxChars("name", bookings.NameMaxLength))
	}
	u, err := url.Parse(strings.TrimSpace(in.URL))
	switch {
	case in.Kind == Google:
	case in.URL == "":
		v.Add("url", api.MsgRequired("url"))
	case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
		v.Add("url", api.MsgURL("url"))
	}
	if (in.Kind == CalDAV || in.Kind == Google) && in.Password == "" {
		v.Add("password", api.MsgRequired("password"))
	}
	if err := v.Err(); err != nil {
		return Connection{}, nil, err
	}
	now := s.o.Now()
	c := Connection{ProviderID: in.ProviderID, Kind: in.Kind, Name: name, Username: in.Username, Calendars: in.Calendars,
		Destination: in.Destination, BlockWhenStale: in.BlockWhenStale, NextSyncAt: now, CreatedAt: now, UpdatedAt: now}
	secret := in.Password
	switch in.Kind {
	case ICS:
		// The address is the secret; only its scheme and host are shown.
		secret, c.Endpoint = u.String(), u.Scheme+"://"+u.Host
	case CalDAV:
		c.Endpoint = u.String()
	}
	c.SealedSecret = s.sealer.Seal(secret, calendarSecretContext)
	wait, cancel := context.WithTimeout(ctx, s.o.ConnectWait)
	cals, err := s.listCalendars(wait, src, Access{Connection: c, Secret: secret})
	slow := errors.Is(wait.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	cancel()
	switch {
	case slow && len(c.Calendars) == 0 && c.Destination == "":
		// The server is slow, not refusing: saved unread, and read by the
		// calendar sweep (due at once), its outcome kept on it.
		if c, err = s.store.CreateConnection(ctx, c); err != nil {
			return Connection{}, nil, fmt.Errorf("calendars: connect calendar: %w", err)
		}
		return c, nil, nil
	case err != nil:
		return Connection{}, nil, err
	}
	if err := checkChoice(cals, c.Calendars, c.Destination); err != nil {
		return Connection{}, nil, err
	}
	if _, ok := src.(Writer); c.Destination != "" && !ok {
		return Connection{}, nil, api.Invalid("destination", "This kind of calendar cannot be written to.")
	}
	c.CalendarNames = remoteNames(cals)
	c, err = s.store.CreateConnection(ctx, c)
	if err != nil {
		return Connection{}, nil, fmt.Errorf("calendars: connect calendar: %w", err)
	}
	return c, cals, nil
}

// listCalendars asks src for a connection's calendars, within the read
// timeout; a failure is ErrUnreadable with its reason.
func (s *Service) listCalendars(ctx context.Context, src Source, a Access) ([]Remote, error) {
	ctx, cancel := context.WithTimeout(ctx, s.o.ReadTimeout)
	defer cancel()
	cals, err := src.Calendars(ctx, a)
	if err != nil {
		s.o.Logger.InfoContext(ctx, "calendars: a calendar could not be listed", "kind", a.Connection.Kind, "error", err)
		return nil, &api.Error{Status: 422, Message: "The calendar could not be read. " + Reason(err), Err: errors.Join(ErrUnreadable, err)}
	}
	return cals, nil
}

// remoteNames are the names of cals by path or ID.
func remoteNames(cals []Remote) map[string]string {
	out := make(map[string]string, len(cals))
	for _, c := range cals {
		out[c.ID] = c.Name
	}
	return out
}

// checkChoice refuses chosen or destination calendars the connection
// does not list.
func checkChoice(cals []Remote, chosen []string, destination string) error {
	known := func(id string) bool {
		return slices.ContainsFunc(cals, func(c Remote) bool { return c.ID == id })
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

// Connections returns a provider's calendar connections (every
// provider's with providerID 0): of the tenant's providers when ctx acts
// for one (see package tenant; another's provider is ErrNotFound).
func (s *Service) Connections(ctx context.Context, providerID int64) ([]Connection, error) {
	if _, scoped := tenant.Of(ctx); !scoped {
		return s.store.ListConnections(ctx, providerID)
	}
	if providerID != 0 {
		if _, err := s.bk.Provider(ctx, providerID); err != nil {
			return nil, err
		}
		return s.store.ListConnections(ctx, providerID)
	}
	own, err := s.bk.Providers(ctx)
	if err != nil {
		return nil, err
	}
	list, err := s.store.ListConnections(ctx, 0)
	return slices.DeleteFunc(list, func(c Connection) bool {
		return !slices.ContainsFunc(own, func(p bookings.Provider) bool { return p.ID == c.ProviderID })
	}), err
}

// Connection returns one calendar connection, or ErrNotFound (also when
// its provider is another tenant's than the one ctx acts for).
func (s *Service) Connection(ctx context.Context, id int64) (Connection, error) {
	c, err := s.store.Connection(ctx, id)
	if _, scoped := tenant.Of(ctx); err == nil && scoped {
		if _, err = s.bk.Provider(ctx, c.ProviderID); err != nil {
			return Connection{}, err
		}
	}
	return c, err
}

// Choose changes a connection's name, the calendars it reads,
// the one it writes to, and whether a stale read stops bookings; the
// calendars are checked against what the connection lists now. The next
// sync is due at once.
func (s *Service) Choose(ctx context.Context, id int64, ch Choice) (Connection, error) {
	c, err := s.Connection(ctx, id)
	if err != nil {
		return c, err
	}
	if ch.Name != nil {
		if c.Name = strings.TrimSpace(*ch.Name); c.Name == "" {
			return c, api.Invalid("name", api.MsgRequired("name"))
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
	if _, ok := src.(Writer); c.Destination != "" && !ok {
		return c, api.Invalid("destination", "This kind of calendar cannot be written to.")
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
	c.CalendarNames = remoteNames(cals)
	c.NextSyncAt, c.UpdatedAt = s.o.Now(), s.o.Now()
	return s.store.UpdateConnection(ctx, c)
}

// Remote lists the calendars connection id can read, asking
// its server (the choice Choose takes).
func (s *Service) Remote(ctx context.Context, id int64) ([]Remote, error) {
	c, err := s.Connection(ctx, id)
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

// Disconnect deletes a connection and the busy time read from it.
func (s *Service) Disconnect(ctx context.Context, id int64) error {
	if _, err := s.Connection(ctx, id); err != nil {
		return err
	}
	return s.store.DeleteConnection(ctx, id)
}

// calendarSpan is what a sync reads: from the start of yesterday (UTC)
// to the booking horizon.
func (s *Service) calendarSpan(now time.Time) (time.Time, time.Time) {
	from := now.UTC().Truncate(24 * time.Hour).Add(-24 * time.Hour)
	horizon := s.bk.Horizon()
	if horizon <= 0 {
		horizon = bookings.MaxAdvanceDefault
	}
	return from, now.Add(horizon + 48*time.Hour)
}

// Sync reads one connection now for the whole booking horizon
// and stores its busy periods, unless another instance is reading it
// (then it returns false and nil). A failed read is recorded on the
// connection (its reason, and the next try after a backoff that doubles
// with each failure) and returned.
func (s *Service) Sync(ctx context.Context, id int64) (bool, error) {
	if _, err := s.Connection(ctx, id); err != nil {
		return false, err
	}
	from, to := s.calendarSpan(s.o.Now())
	return s.syncSpan(ctx, id, from, to, true)
}

// syncSpan claims a connection's sync, reads [from, to), and records the
// outcome; full syncs move the next sync on, a day's refresh leaves it.
func (s *Service) syncSpan(ctx context.Context, id int64, from, to time.Time, full bool) (bool, error) {
	now := s.o.Now()
	ok, err := s.store.ClaimSync(ctx, id, now, now.Add(2*s.o.ReadTimeout))
	if err != nil || !ok {
		return false, err
	}
	c, err := s.store.Connection(ctx, id)
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
		if ferr := s.store.FailSync(record, id, Reason(err), next); ferr != nil {
			return true, errors.Join(err, ferr)
		}
		return true, err
	}
	next := c.NextSyncAt
	if full {
		next = s.o.Now().Add(s.o.SyncInterval)
	}
	if read.Unreadable > 0 || read.Warning != "" {
		s.o.Logger.WarnContext(ctx, "calendars: calendar events left out", "connection", id, "unreadable", read.Unreadable, "warning", read.Warning)
	}
	return true, s.store.FinishSync(record, Sync{ConnectionID: id, From: from, To: to, Periods: read.Periods,
		NotModified: read.NotModified, ETag: read.ETag, LastModified: read.LastModified, At: s.o.Now(), Next: next, Warning: read.Warning})
}

// readBusy reads a connection's busy time within the read timeout,
// leaving out the bookings written to it.
func (s *Service) readBusy(ctx context.Context, c Connection, from, to time.Time) (BusyRead, error) {
	src, err := s.source(c.Kind)
	if err != nil {
		return BusyRead{}, fmt.Errorf("%w: no source reads %q calendars", ErrUnreadable, c.Kind)
	}
	a, err := s.access(c)
	if err != nil {
		return BusyRead{}, err
	}
	p, err := s.bk.Provider(ctx, c.ProviderID)
	if err != nil {
		return BusyRead{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.o.ReadTimeout)
	defer cancel()
	read, err := src.Busy(ctx, a, from, to, p.Zone(), s.bk.IsEventUID)
	if err != nil {
		return BusyRead{}, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	return read, nil
}

// Reason is why a calendar could not be read, in words for the
// provider: the Reason of the first Error in err's chain, else a
// general sentence. Nothing of the server that read it is in it; log err
// for the cause.
func Reason(err error) string {
	var ce *Error
	if errors.As(err, &ce) && ce.Reason != "" {
		return ce.Reason
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "The calendar's server took too long to answer. It will be read again shortly."
	}
	return calendarReasonDefault
}

// backoff is the wait after n failed reads in a row: the sync interval
// doubled for each, up to backoffMax.
func (s *Service) backoff(n int) time.Duration {
	d := s.o.SyncInterval
	for i := 1; i < n && d < backoffMax; i++ {
		d *= 2
	}
	return min(d, backoffMax)
}

// SyncDue syncs the connections whose next sync is due, up to
// limit of them, and reports how many it read; a connection another
// instance is reading is left to it. Failed reads are recorded on their
// connections and logged, not returned: one account's bad password does
// not hold the others.
func (s *Service) SyncDue(ctx context.Context, limit int) (int, error) {
	ids, err := s.store.DueSyncs(ctx, s.o.Now(), limit)
	if err != nil {
		return 0, fmt.Errorf("calendars: sync calendars: %w", err)
	}
	n := 0
	for _, id := range ids {
		ok, err := s.Sync(ctx, id)
		if ok {
			n++
		}
		if err != nil && ctx.Err() == nil {
			s.o.Logger.WarnContext(ctx, "calendars: calendar sync failed", "connection", id, "error", err)
		}
	}
	return n, nil
}

// Refresh reads the provider's connections again for the day around
// start when their last read is older than Options.Freshness, before a
// booking is taken there (bookings calls it). A failure leaves the stored
// busy time in place and is logged: the booking goes ahead on what is
// known.
func (s *Service) Refresh(ctx context.Context, providerID int64, start time.Time) {
	if len(s.o.Sources) == 0 {
		return
	}
	conns, err := s.store.ListConnections(ctx, providerID)
	if err != nil {
		s.o.Logger.WarnContext(ctx, "calendars: calendar refresh", "provider", providerID, "error", err)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, s.o.RefreshTimeout)
	defer cancel()
	now := s.o.Now()
	from := start.Add(-24 * time.Hour)
	for _, c := range conns {
		if c.SyncedAt != nil && now.Sub(*c.SyncedAt) < s.o.Freshness {
			continue
		}
		if _, err := s.syncSpan(ctx, c.ID, from, from.Add(48*time.Hour), false); err != nil && ctx.Err() == nil {
			s.o.Logger.WarnContext(ctx, "calendars: calendar refresh before booking failed; the stored busy time stands",
				"connection", c.ID, "error", err)
		}
	}
}

// StaleAfter is how long a connection may go unread before it
// counts as stale: its provider is shown a warning, and with
// BlockWhenStale is not bookable until it is read again.
const StaleAfter = 24 * time.Hour

// Stale reports whether c has gone unread (since it was made, or since
// its last good read) for longer than StaleAfter at now.
func (c Connection) Stale(now time.Time) bool {
	last := c.CreatedAt
	if c.SyncedAt != nil {
		last = *c.SyncedAt
	}
	return now.Sub(last) > StaleAfter
}

// Unbookable are the providers one of whose BlockWhenStale connections
// is stale (bookings leaves them out of every slot and booking).
func (s *Service) Unbookable(ctx context.Context) (map[int64]bool, error) {
	if len(s.o.Sources) == 0 {
		return nil, nil
	}
	conns, err := s.store.ListConnections(ctx, 0)
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

// Busy is the providers' busy time from their calendars overlapping
// [from, to), each provider's sorted by start (bookings adds it to their
// bookings in every slot list and inside each booking's lock).
func (s *Service) Busy(ctx context.Context, providerIDs []int64, from, to time.Time) (map[int64][]bookings.Period, error) {
	busy, err := s.store.Busy(ctx, providerIDs, from, to)
	if err != nil {
		return nil, fmt.Errorf("calendars: busy time: %w", err)
	}
	return busy, nil
}
