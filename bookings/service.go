package bookings

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/bookings/slots"
	"github.com/groundwork-go/groundwork/internal/seal"
	"github.com/groundwork-go/groundwork/internal/zone"
	"github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/store"
)

// Defaults of the booking window and the slot grid.
const (
	// SlotIntervalDefault is the grid of slot starts from local midnight.
	SlotIntervalDefault = 15 * time.Minute
	// MinAdvanceDefault is the notice a booking needs.
	MinAdvanceDefault = 60 * time.Minute
	// MaxAdvanceDefault is how far ahead a booking may be: 90 days.
	MaxAdvanceDefault = 90 * 24 * time.Hour
	// LockWaitDefault bounds the wait for a provider's day (then 503).
	LockWaitDefault = 5 * time.Second
	// TimeZoneDefault is the zone of a service or provider that names
	// none.
	TimeZoneDefault = "UTC"
	// ReminderHoursBeforeDefault is the one reminder: a day before.
	ReminderHoursBeforeDefault = 24
	// ReminderMaxCatchUpDefault: a reminder due longer ago is skipped.
	ReminderMaxCatchUpDefault = 2 * time.Hour
	// RetentionDefault keeps ended bookings three years.
	RetentionDefault = 3 * 365 * 24 * time.Hour
)

// Options configures [NewService]. Nil means the defaults.
type Options struct {
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Meter counts booking attempts by outcome (groundwork.MetricBookings); nil counts nothing.
	Meter groundwork.Meter
	// Rand is the source of booking numbers and manage tokens;
	// crypto/rand when nil.
	Rand io.Reader
	// SlotInterval, MinAdvance and MaxAdvance are the global defaults a
	// service may override; each its ...Default when zero. A negative
	// MinAdvance means no notice (a slot that has begun is never offered);
	// a negative MaxAdvance, no horizon.
	SlotInterval time.Duration
	MinAdvance   time.Duration
	MaxAdvance   time.Duration
	// LockWait: LockWaitDefault when zero.
	LockWait time.Duration
	// ManualConfirm leaves new bookings requested (an admin confirms
	// them); by default they are confirmed at once. A service may ask for
	// it alone (ServiceRules.RequiresConfirmation).
	ManualConfirm bool
	// WeekStart is the day weeks start on for week limits (Limit), in
	// each provider's zone; Sunday when zero.
	WeekStart time.Weekday
	// VideoLink makes the video link of a booking whose place is a video
	// meeting without a fixed link (Location{Kind: "video"}, no Value):
	// called in the booking's transaction, after its slot is checked and
	// before it is stored (b has no ID yet); an error refuses the booking
	// and is returned as it is. Without it, such a booking has no link.
	VideoLink func(ctx context.Context, tx *sql.Tx, b Booking) (string, error)
	// ChangeWindow: a customer may cancel or reschedule through the manage
	// link until this long before the start; ChangeWindowDefault when
	// zero, up to the start when negative.
	ChangeWindow time.Duration
	// DisableSelfCancel refuses cancelling through the manage link (403).
	DisableSelfCancel bool
	// FeedHost ends each calendar event's UID ("BK-…@host"): the host of
	// the site; FeedHostDefault when empty.
	FeedHost string
	// FeedPast and FeedFuture bound a provider feed around now;
	// FeedPastDefault and FeedFutureDefault when zero or negative.
	FeedPast, FeedFuture time.Duration
	// Enqueuer queues the mail jobs (a *store.Queue): confirmation,
	// cancellation, reschedule, reminders, provider notices. Without one,
	// no mail is queued.
	Enqueuer store.Enqueuer
	// Mailer sends the mail the jobs render ([RegisterWorkers] needs it).
	Mailer mail.Mailer
	// MailFrom is the sender; the mailer's default when empty.
	MailFrom string
	// ManageURL is the manage link mailed to the customer, "{token}"
	// replaced by the manage token, such as
	// "https://example.com/bookings/manage/{token}"; no link when empty.
	ManageURL string
	// PagesURL is where the booking pages are served, such as
	// "https://example.com/bookings", for the addresses PrefillURL makes.
	PagesURL string
	// SecretKey (32 bytes) seals the manage token inside the queued
	// mail, bound to its booking; required with ManageURL and an
	// Enqueuer. Give every instance the same.
	SecretKey []byte
	// ReminderHoursBefore are the reminders, in hours before the start
	// (ReminderHoursBeforeDefault when nil; none when empty but not nil).
	ReminderHoursBefore []int
	// ReminderMaxCatchUp skips a reminder due longer ago than this (after
	// downtime); ReminderMaxCatchUpDefault when zero, up to the start
	// when negative.
	ReminderMaxCatchUp time.Duration
	// Retention: bookings that ended longer ago than this are deleted by
	// the prune job; RetentionDefault when zero, kept for ever when
	// negative.
	Retention time.Duration
	// Payments takes the payment of a service that asks for one
	// (ServiceRules.RequiresPayment): its bookings are made awaiting
	// payment, holding their time for PaymentWindow, and the customer is
	// sent to the provider's payment page. It needs an Enqueuer (the
	// refunds are jobs) and a ManageURL (where the customer comes back
	// to). Without it, such a service is booked as any other.
	Payments Payments
	// PaymentWindow is how long a booking awaiting payment holds its time
	// (and its payment page stays open); 30 minutes, Stripe Checkout's
	// shortest, when zero.
	PaymentWindow time.Duration
	// Logger receives unexpected errors; nil discards.
	Logger *slog.Logger
}

// Service is the bookings domain. Safe for concurrent use.
type Service struct {
	store  Store
	o      Options
	hooks  registered
	sealer *seal.Sealer
	feeds  feedCache
	cal    ProviderCalendars // nil without the providers' calendars
}

// NewService returns the service on store.
func NewService(store Store, opts *Options) (*Service, error) {
	if store == nil {
		return nil, errors.New("bookings: new service: store is nil")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rand == nil {
		o.Rand = rand.Reader
	}
	if o.SlotInterval < 0 || o.LockWait < 0 {
		return nil, errors.New("bookings: new service: negative interval or lock wait")
	}
	if o.SlotInterval == 0 {
		o.SlotInterval = SlotIntervalDefault
	}
	if o.MinAdvance == 0 {
		o.MinAdvance = MinAdvanceDefault
	}
	if o.MaxAdvance == 0 {
		o.MaxAdvance = MaxAdvanceDefault
	}
	if o.LockWait == 0 {
		o.LockWait = LockWaitDefault
	}
	if o.ChangeWindow == 0 {
		o.ChangeWindow = ChangeWindowDefault
	}
	if o.ReminderHoursBefore == nil {
		o.ReminderHoursBefore = []int{ReminderHoursBeforeDefault}
	}
	for _, h := range o.ReminderHoursBefore {
		if h <= 0 {
			return nil, fmt.Errorf("bookings: new service: a reminder %d hours before is not before", h)
		}
	}
	if o.ReminderMaxCatchUp == 0 {
		o.ReminderMaxCatchUp = ReminderMaxCatchUpDefault
	}
	if o.Retention == 0 {
		o.Retention = RetentionDefault
	}
	var sealer *seal.Sealer
	if o.SecretKey != nil {
		var err error
		if sealer, err = seal.New(o.SecretKey); err != nil {
			return nil, fmt.Errorf("bookings: new service: SecretKey: %w", err)
		}
	} else if o.ManageURL != "" && o.Enqueuer != nil {
		return nil, errors.New("bookings: new service: ManageURL needs a SecretKey to seal the token in the queued mail")
	}
	if o.ManageURL != "" && !strings.Contains(o.ManageURL, "{token}") {
		return nil, errors.New("bookings: new service: ManageURL must hold {token}")
	}
	if o.Payments != nil && (o.Enqueuer == nil || o.ManageURL == "") {
		return nil, errors.New("bookings: new service: Payments needs an Enqueuer (refunds are jobs) and a ManageURL (the customer's way back)")
	}
	if o.PaymentWindow < 0 {
		return nil, errors.New("bookings: new service: negative PaymentWindow")
	}
	o.PaymentWindow = cmp.Or(o.PaymentWindow, paymentWindowDefault)
	if o.FeedHost == "" {
		o.FeedHost = FeedHostDefault
	}
	if o.FeedPast <= 0 {
		o.FeedPast = FeedPastDefault
	}
	if o.FeedFuture <= 0 {
		o.FeedFuture = FeedFutureDefault
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, o: o, sealer: sealer}, nil
}

// Store is the service's store, for what the service's methods do not
// cover (seeding, say); the admin API and the Service methods check what
// they store, the Store does not.
func (s *Service) Store() Store { return s.store }

func minutes(m int) time.Duration { return time.Duration(m) * time.Minute }

// rules are a service's effective grid and window.
func (s *Service) rules(svc Offering) (interval, minAdvance, maxAdvance time.Duration) {
	interval, minAdvance, maxAdvance = s.o.SlotInterval, s.o.MinAdvance, s.o.MaxAdvance
	if svc.SlotInterval != nil && *svc.SlotInterval > 0 {
		interval = minutes(*svc.SlotInterval)
	}
	if svc.MinAdvance != nil {
		minAdvance = minutes(*svc.MinAdvance)
	}
	if svc.MaxAdvance != nil {
		maxAdvance = minutes(*svc.MaxAdvance)
	}
	return interval, minAdvance, maxAdvance
}

// window clips [from, to) to the booking window measured from now; ok is
// false when nothing remains.
func (s *Service) window(svc Offering, from, to time.Time) (time.Time, time.Time, bool) {
	_, minAdvance, maxAdvance := s.rules(svc)
	// Never a slot that has begun, whatever the notice.
	now := s.o.Now()
	if earliest := now.Add(max(minAdvance, 0)); from.Before(earliest) {
		from = earliest
	}
	if maxAdvance > 0 && to.After(now.Add(maxAdvance)) {
		to = now.Add(maxAdvance)
	}
	return from, to, from.Before(to)
}

// ActiveService returns the active service with this slug; ErrNotFound
// for an unknown or inactive one.
func (s *Service) ActiveService(ctx context.Context, slug string) (Offering, error) {
	svc, err := s.store.ServiceBySlug(ctx, slug)
	if err == nil && !svc.IsActive {
		err = ErrNotFound
	}
	if err != nil {
		return Offering{}, fmt.Errorf("bookings: service %q: %w", slug, err)
	}
	if svc.TimeZone == "" {
		svc.TimeZone = TimeZoneDefault
	}
	return svc, nil
}

// ListServices returns the active services: the tenant's when ctx acts
// for one (see package tenant).
func (s *Service) ListServices(ctx context.Context) ([]Offering, error) {
	list, err := s.store.ListServices(ctx, true)
	list, err = seen(ctx, list, err, func(o Offering) string { return o.Tenant })
	if err != nil {
		return nil, fmt.Errorf("bookings: list services: %w", err)
	}
	return list, nil
}

// bookable returns the providers who take bookings for svc: the linked
// active ones; with none linked at all, the active default provider; with
// links but none active, nobody.
func (s *Service) bookable(ctx context.Context, svc Offering) ([]Offer, error) {
	offers, err := s.store.Offers(ctx, svc.ID)
	if err != nil {
		return nil, fmt.Errorf("bookings: providers of %q: %w", svc.Slug, err)
	}
	if len(offers) == 0 {
		if svc.DefaultProviderID == nil {
			return nil, nil
		}
		p, err := s.store.Provider(ctx, *svc.DefaultProviderID)
		if errors.Is(err, ErrNotFound) || err == nil && !p.IsActive {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("bookings: providers of %q: %w", svc.Slug, err)
		}
		return []Offer{{Provider: p}}, nil
	}
	var blocked map[int64]bool
	if s.cal != nil {
		if blocked, err = s.cal.Unbookable(ctx); err != nil {
			return nil, fmt.Errorf("bookings: providers of %q: %w", svc.Slug, err)
		}
	}
	active := 0
	for _, o := range offers {
		if o.IsActive {
			active++
		}
	}
	offers = slices.DeleteFunc(offers, func(o Offer) bool { return !o.IsActive || blocked[o.ID] })
	if svc.AssignmentStrategy == AssignCollective && len(offers) < active {
		return nil, nil // the meeting needs every one of them
	}
	return offers, nil
}

// length is the booked length of svc with this provider.
func length(svc Offering, o Offer) time.Duration {
	if o.CustomDuration != nil && *o.CustomDuration > 0 {
		return minutes(*o.CustomDuration)
	}
	return minutes(svc.Duration)
}

// location is the zone named name; UTC for "" or an unknown name (zones
// are checked when written).
func location(name string) *time.Location { return zone.Location(name) }

// calendarSpan is the span of local dates and busy time a computation
// over [from, to) needs: a day either side covers every zone.
func calendarSpan(from, to time.Time) (Date, Date, time.Time, time.Time) {
	return slots.DateOf(from.UTC()).AddDays(-1), slots.DateOf(to.UTC()).AddDays(1), from.Add(-48 * time.Hour), to.Add(48 * time.Hour)
}

// slots computes the slots of offers over [from, to), unclipped.
func (s *Service) slots(ctx context.Context, svc Offering, offers []Offer, from, to time.Time) ([]Slot, error) {
	out, _, err := s.slotsAndAvailability(ctx, svc, offers, from, to, 0)
	return out, err
}

// availability reads the rules and busy time of offers around [from, to); hold
// exceptHold (the caller's own) does not take its slot.
func (s *Service) availability(ctx context.Context, svc Offering, offers []Offer, from, to time.Time, exceptHold int64) (Availability, error) {
	ids := make([]int64, len(offers))
	for i, o := range offers {
		ids[i] = o.ID
	}
	f, t, bf, bt := calendarSpan(from, to)
	reach := limitReach(svc, offers) // the limits' periods reaching out of the span
	cal, err := s.readAvailability(ctx, AvailabilityQuery{ServiceID: svc.ID, ProviderIDs: ids, From: f, To: t, BusyFrom: bf.Add(-reach),
		BusyTo: bt.Add(reach), Now: s.o.Now(), ExceptHold: exceptHold})
	if err != nil {
		return cal, fmt.Errorf("bookings: calendar of %q: %w", svc.Slug, err)
	}
	return cal, nil
}

// slotsAndAvailability is slots, and the calendar it read; hold exceptHold
// (the caller's own) does not take its slot.
func (s *Service) slotsAndAvailability(ctx context.Context, svc Offering, offers []Offer, from, to time.Time, exceptHold int64) ([]Slot, Availability, error) {
	if len(offers) == 0 {
		return nil, Availability{}, nil
	}
	cal, err := s.availability(ctx, svc, offers, from, to, exceptHold)
	if err != nil {
		return nil, cal, err
	}
	r := s.engine(svc)
	var out []Slot
	for _, o := range offers {
		out = r.Range(out, host(svc, o, cal, cal.Busy[o.ID]), from, to)
	}
	return out, cal, nil
}

// SlotQuery asks for a service's slots over [From, To), of one provider
// or (ProviderID 0) of all, merged.
type SlotQuery struct {
	From, To   time.Time
	ProviderID int64
	// Length is the minutes chosen among the service's Lengths; 0 for
	// its Duration.
	Length int
	// Providers, when set, narrow the slots to these providers' (a
	// routing form's choice, from a signed Prefill).
	Providers []int64
}

// Slots returns the slots a service offers over q, clipped to the
// booking window: with a provider, theirs; without, the distinct periods
// any bookable provider offers (ProviderID 0). A provider who does not
// offer the service is a *ValidationError on provider_id.
func (s *Service) Slots(ctx context.Context, svc Offering, q SlotQuery) ([]Slot, error) {
	svc, err := svc.withLength(q.Length)
	if err != nil {
		return nil, err
	}
	offers, err := s.bookable(ctx, svc)
	if err != nil {
		return nil, err
	}
	if q.ProviderID != 0 {
		i := slices.IndexFunc(offers, func(o Offer) bool { return o.ID == q.ProviderID })
		if i < 0 {
			return nil, invalid("provider_id", "That provider does not offer this service.")
		}
		offers = offers[i : i+1]
	}
	offers = onlyProviders(offers, q.Providers)
	from, to, ok := s.window(svc, q.From, q.To)
	if !ok || len(offers) == 0 {
		return []Slot{}, nil
	}
	found, err := s.slots(ctx, svc, offers, from, to)
	if err != nil {
		return nil, err
	}
	if svc.AssignmentStrategy == AssignCollective && q.ProviderID == 0 {
		return s.filterSlots(ctx, svc, slots.Common(found, len(offers))), nil
	}
	return s.filterSlots(ctx, svc, slots.Merge(found, q.ProviderID == 0)), nil
}

// FullSlots returns the slots the service's rules offer over q (as Slots
// reads it) that no provider has free now: taken by bookings, holds, the
// providers' calendars or a limit. They are the times a waitlist may be
// joined for; a cancellation may free one.
func (s *Service) FullSlots(ctx context.Context, svc Offering, q SlotQuery) ([]Slot, error) {
	free, err := s.Slots(ctx, svc, q)
	if err != nil {
		return nil, err
	}
	return s.fullSlots(ctx, svc, q, free)
}

// fullSlots is FullSlots given the free slots over q (Slots' answer, or
// the starts a page has already drawn).
func (s *Service) fullSlots(ctx context.Context, svc Offering, q SlotQuery, free []Slot) ([]Slot, error) {
	svc, err := svc.withLength(q.Length)
	if err != nil {
		return nil, err
	}
	offers, err := s.bookable(ctx, svc)
	if err != nil {
		return nil, err
	}
	if q.ProviderID != 0 {
		offers = slices.DeleteFunc(offers, func(o Offer) bool { return o.ID != q.ProviderID })
	}
	offers = onlyProviders(offers, q.Providers)
	from, to, ok := s.window(svc, q.From, q.To)
	if !ok || len(offers) == 0 {
		return []Slot{}, nil
	}
	cal, err := s.availability(ctx, svc, offers, from, to, 0)
	if err != nil {
		return nil, err
	}
	r := s.engine(svc)
	var open []Slot
	for _, o := range offers {
		open = r.Range(open, host(svc, o, cal, nil), from, to) // as if no one had booked
	}
	if svc.AssignmentStrategy == AssignCollective && q.ProviderID == 0 {
		open = slots.Common(open, len(offers))
	} else {
		open = slots.Merge(open, q.ProviderID == 0)
	}
	isFree := make(map[int64]bool, len(free)) // by instant: the same time in any zone
	for _, f := range free {
		isFree[f.Start.UnixNano()] = true
	}
	out := []Slot{}
	for _, o := range s.filterSlots(ctx, svc, open) {
		if !isFree[o.Start.UnixNano()] {
			out = append(out, o)
		}
	}
	return out, nil
}

// monthSpan is [local first of month 00:00, next first) in loc, made in
// local time so a DST change inside the month does not shift its end.
func monthSpan(year int, month time.Month, loc *time.Location) (time.Time, time.Time) {
	first := Date{Year: year, Month: month, Day: 1}
	next := slots.DateOf(time.Date(year, month+1, 1, 12, 0, 0, 0, time.UTC))
	return first.In(loc), next.In(loc)
}

const numberAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// newNumber is "BK-" and 12 random characters.
func (s *Service) newNumber() (string, error) {
	b := make([]byte, 12)
	if _, err := io.ReadFull(s.o.Rand, b); err != nil {
		return "", err
	}
	for i := range b {
		b[i] = numberAlphabet[int(b[i])%len(numberAlphabet)]
	}
	return "BK-" + string(b), nil
}

// newManageToken is 32 random bytes as 64 lower-case hex, and its hash.
func (s *Service) newManageToken() (string, []byte, error) {
	b := make([]byte, 32)
	if _, err := io.ReadFull(s.o.Rand, b); err != nil {
		return "", nil, err
	}
	token := hex.EncodeToString(b)
	sum := sha256.Sum256([]byte(token))
	return token, sum[:], nil
}
