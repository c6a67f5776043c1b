package waitlist

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/hooks"
	"github.com/groundwork-go/groundwork/internal/seal"
	gwmail "github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/tenant"
)

// OfferWindowDefault is how long an offer holds the freed time for the
// customer it is mailed to before the next in line is offered it.
const OfferWindowDefault = 2 * time.Hour

// Options configures [New]; a zero duration takes its ...Default.
type Options struct {
	// OfferWindow is how long an offer holds the time (never past the
	// time itself).
	OfferWindow time.Duration
	// SecretKey seals each offer's token for its queued mail; give every
	// instance the same (bookings' manage-link key, in a module).
	// Required.
	SecretKey []byte
	// OfferURL is the offer's page mailed to the customer, "{token}" where
	// its token goes. Required with a Mailer.
	OfferURL string
	// Enqueuer queues the offer's mail in the transaction that makes it;
	// Mailer sends it from MailFrom (RegisterWorkers runs the job). No
	// mail is sent without both.
	Enqueuer store.Enqueuer
	Mailer   gwmail.Mailer
	MailFrom string
	// Now is the clock (time.Now when nil); Logger receives what the sweep
	// meets (nil discards).
	Now    func() time.Time
	Logger *slog.Logger
}

// Service keeps the waitlists of a bookings service's full times.
type Service struct {
	store  Store
	bk     *bookings.Service
	o      Options
	sealer *seal.Sealer
	events hooks.List[EventTxHook]
}

// Messages of the waitlist's refusals.
const (
	msgName       = "Enter your name."
	msgEmail      = "Enter an email address like name@example.com."
	msgTimeFree   = "That time is free: book it instead."
	msgNotATime   = "That is not a time this service offers. Choose one of the full times."
	msgChooseTime = "Choose the time to wait for."
	msgOfferGone  = "This offer has lapsed or was taken: the time has gone to the next in line."
)

// New returns the waitlists of bk's services, kept in st, and registers
// on bk the hook that offers a freed time to the first in line inside
// the transaction of the cancellation (or move) that freed it.
func New(st Store, bk *bookings.Service, opts *Options) (*Service, error) {
	if st == nil || bk == nil {
		return nil, errors.New("waitlist: new: no store or bookings service")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.OfferWindow <= 0 {
		o.OfferWindow = OfferWindowDefault
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if len(o.SecretKey) == 0 {
		return nil, errors.New("waitlist: new: a SecretKey is required")
	}
	if o.Mailer != nil && !strings.Contains(o.OfferURL, "{token}") {
		return nil, errors.New("waitlist: new: OfferURL must hold {token}")
	}
	sealer, err := seal.New(o.SecretKey)
	if err != nil {
		return nil, fmt.Errorf("waitlist: new: %w", err)
	}
	s := &Service{store: st, bk: bk, o: o, sealer: sealer}
	bk.OnEventTx(s.onBooking)
	return s, nil
}

// OnEventTx registers fn to run, inside the transaction that made it, for
// each of the waitlists' events.
func (s *Service) OnEventTx(fn EventTxHook) { s.events.Add(fn) }

// emit runs the event hooks in tx.
func (s *Service) emit(ctx context.Context, tx *sql.Tx, typ string, e Entry) error {
	for _, fn := range s.events.All() {
		if err := fn(ctx, tx, Event{Type: typ, Entry: e}); err != nil {
			return err
		}
	}
	return nil
}

// Join puts a customer in line for a full time of a service: the time
// must be one the service's rules offer (for the length asked) and full
// now. Joining again for the same time gives the entry already kept
// (false). It is a *ValidationError when the time is free or not one the
// service offers; ErrNotFound without the service.
func (s *Service) Join(ctx context.Context, ne NewEntry) (Entry, bool, error) {
	ve := &api.ValidationError{}
	checkCustomer(ve, ne.Name, ne.Email)
	svc, err := s.bk.ActiveService(ctx, ne.Service)
	if err != nil {
		return Entry{}, false, err
	}
	start := ne.Start.UTC().Truncate(time.Second)
	if msg, err := s.checkFull(ctx, svc, start, ne.Length); err != nil {
		return Entry{}, false, err
	} else if msg != "" {
		ve.Add("start_time", msg)
	}
	if !ve.Empty() {
		return Entry{}, false, ve.Err()
	}
	now := s.o.Now().UTC()
	e := Entry{ServiceID: svc.ID, Start: start, Length: ne.Length, Name: strings.TrimSpace(ne.Name), Email: strings.TrimSpace(ne.Email),
		TimeZone: ne.TimeZone, Status: StatusWaiting, CreatedAt: now, UpdatedAt: now}
	var added bool
	err = s.store.RunInTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		if e, added, err = s.store.Add(ctx, e); err != nil || !added {
			return err
		}
		return s.emit(ctx, tx, EventJoined, e)
	})
	if err != nil {
		return Entry{}, false, fmt.Errorf("waitlist: join: %w", err)
	}
	return e, added, nil
}

// checkCustomer adds to ve what is wrong with a customer's name and email.
func checkCustomer(ve *api.ValidationError, name, email string) {
	if strings.TrimSpace(name) == "" {
		ve.Add("customer_name", msgName)
	}
	if a, err := mail.ParseAddress(email); err != nil || a.Address != strings.TrimSpace(email) {
		ve.Add("customer_email", msgEmail)
	}
}

// checkFull says why start is no time to wait for ("" when it is one):
// free, or not a time svc offers.
func (s *Service) checkFull(ctx context.Context, svc bookings.Offering, start time.Time, length int) (string, error) {
	// A slot is listed when it fits the span: a day holds the longest.
	q := bookings.SlotQuery{From: start, To: start.Add(25 * time.Hour), Length: length}
	full, err := s.bk.FullSlots(ctx, svc, q)
	if err != nil {
		return "", err
	}
	for _, f := range full {
		if f.Start.Equal(start) {
			return "", nil
		}
	}
	free, err := s.bk.Slots(ctx, svc, q)
	if err != nil {
		return "", err
	}
	for _, f := range free {
		if f.Start.Equal(start) {
			return msgTimeFree, nil
		}
	}
	return msgNotATime, nil
}

// fullSlots are the times of svc over q a customer may wait for (see
// bookings.Service.FullSlots).
func (s *Service) fullSlots(ctx context.Context, svc bookings.Offering, q bookings.SlotQuery) ([]bookings.Slot, error) {
	return s.bk.FullSlots(ctx, svc, q)
}

// Entries returns the entries of a service (every service's with 0)
// whose time is at or after from, by start then ID: of the tenant's
// services when ctx acts for one (see package tenant; another's service
// has none).
func (s *Service) Entries(ctx context.Context, serviceID int64, from time.Time) ([]Entry, error) {
	list, err := s.store.Entries(ctx, serviceID, from)
	if _, scoped := tenant.Of(ctx); !scoped || err != nil {
		return list, err
	}
	own, err := s.bk.Services(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(list, func(e Entry) bool {
		return !slices.ContainsFunc(own, func(o bookings.Offering) bool { return o.ID == e.ServiceID })
	}), nil
}

// EraseCustomer deletes every entry of a customer (by email, in any case)
// and returns how many: their name and email are kept nowhere else by the
// waitlist (its webhooks name them by bookings.CustomerID, for
// webhooks.Service.RedactCustomer). An offer's hold is left to lapse.
func (s *Service) EraseCustomer(ctx context.Context, email string) (int, error) {
	if strings.TrimSpace(email) == "" {
		return 0, api.Invalid("email", "The email field is required.")
	}
	n, err := s.store.Erase(ctx, email)
	if err != nil {
		return 0, fmt.Errorf("waitlist: erase customer: %w", err)
	}
	return n, nil
}

// hashOf is the stored hash of an offer's token.
func hashOf(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// Offer returns the entry offered by token, which its page shows: it is
// ErrNotFound for a token that names no offer, and an entry no longer
// offered (or past its time) is returned as it stands.
func (s *Service) Offer(ctx context.Context, token string) (Entry, error) {
	if len(token) != 64 {
		return Entry{}, ErrNotFound
	}
	return s.store.ByOffer(ctx, hashOf(token))
}

// offerKey carries, in the context of a booking made from an offer, the
// offer's hash, so the booking's transaction marks the entry booked.
type offerKey struct{}

// Take books the time an offer holds for its customer, with the name,
// email and zone they joined with: the booking is made from the offer's
// hold, and the entry marked booked in the booking's transaction
// (booking.created and booking.waitlist_booked commit together). An offer
// lapsed or taken is a *ValidationError; ErrNotFound for no offer. It
// returns the booking and its manage token, as bookings.Service.Create.
func (s *Service) Take(ctx context.Context, token string) (bookings.Booking, string, error) {
	e, err := s.Offer(ctx, token)
	if err != nil {
		return bookings.Booking{}, "", err
	}
	if e.Status != StatusOffered || e.OfferExpires == nil || !s.o.Now().Before(*e.OfferExpires) {
		return bookings.Booking{}, "", api.Invalid("offer", msgOfferGone)
	}
	svc, err := s.service(ctx, e.ServiceID)
	if err != nil {
		return bookings.Booking{}, "", err
	}
	ctx = context.WithValue(ctx, offerKey{}, e.OfferHash)
	b, manage, err := s.bk.Create(ctx, bookings.NewBooking{ServiceSlug: svc.Slug, Start: e.Start, Length: e.Length, CustomerName: e.Name,
		CustomerEmail: e.Email, CustomerTimeZone: e.TimeZone, HoldToken: token})
	var ve *api.ValidationError
	if errors.As(err, &ve) && ve.Has("hold_token") || errors.Is(err, ErrNotFound) {
		return bookings.Booking{}, "", api.Invalid("offer", msgOfferGone)
	}
	return b, manage, err
}

// service is the service with id, active or not, whatever tenant ctx
// acts for (an offer is its customer's).
func (s *Service) service(ctx context.Context, id int64) (bookings.Offering, error) {
	all, err := s.bk.Services(tenant.All(ctx))
	if err != nil {
		return bookings.Offering{}, err
	}
	for _, svc := range all {
		if svc.ID == id {
			return svc, nil
		}
	}
	return bookings.Offering{}, ErrNotFound
}

// onBooking is the hook on the bookings service: a cancellation or a move
// frees its time for the first in line; a booking made from an offer
// marks its entry booked.
func (s *Service) onBooking(ctx context.Context, tx *sql.Tx, e bookings.Event) error {
	b := e.Booking
	if b.ProviderID == nil {
		return nil
	}
	switch e.Type {
	case bookings.EventCancelled:
		return s.promote(ctx, tx, b.ServiceID, *b.ProviderID, bookings.Period{Start: b.Start, End: b.End})
	case bookings.EventRescheduled:
		return s.promote(ctx, tx, b.ServiceID, *b.ProviderID, bookings.Period{Start: e.PreviousStart, End: e.PreviousEnd})
	case bookings.EventCreated:
		if hash, ok := ctx.Value(offerKey{}).([]byte); ok {
			return s.booked(ctx, tx, hash, b)
		}
	}
	return nil
}

// booked marks the entry offered by hash booked as b, in b's transaction.
func (s *Service) booked(ctx context.Context, tx *sql.Tx, hash []byte, b bookings.Booking) error {
	e, err := s.store.ByOffer(ctx, hash)
	if err != nil {
		return err
	}
	e.Status, e.BookingID, e.UpdatedAt = StatusBooked, &b.ID, s.o.Now().UTC()
	if e, err = s.store.Update(ctx, e, StatusOffered); err != nil {
		return err
	}
	return s.emit(ctx, tx, EventBooked, e)
}

// candidates is the most entries one freed period is tried for; a time
// that cannot be held is tried once, however many wait for it.
const candidates = 500

// promote offers what freeing period of the service on provider made
// free to those in line, inside tx (the transaction that freed it): each
// entry waiting for a time the period (with the service's buffers)
// touched, in line, is offered its time when it can be held for
// OfferWindow (the entry offered, its mail queued,
// booking.waitlist_offered); each hold takes the time from those after.
// An entry whose time cannot be held (still taken, taken by the hold of
// one before them, too near to book) waits on.
func (s *Service) promote(ctx context.Context, tx *sql.Tx, serviceID, providerID int64, period bookings.Period) error {
	svc, err := s.service(ctx, serviceID)
	if errors.Is(err, ErrNotFound) {
		return nil
	} else if err != nil {
		return fmt.Errorf("waitlist: offer: %w", err)
	}
	// A time t of length L touches the period when t - before < end +
	// after and t + L + after > start - before.
	longest := svc.Duration
	for _, l := range svc.Lengths {
		longest = max(longest, l.Minutes)
	}
	pad := time.Duration(svc.BufferBefore+svc.BufferAfter) * time.Minute
	from := period.Start.Add(-pad - time.Duration(longest)*time.Minute + time.Nanosecond)
	if now := s.o.Now(); from.Before(now) {
		from = now
	}
	line, err := s.store.Waiting(ctx, serviceID, from, period.End.Add(pad), candidates)
	if err != nil {
		return fmt.Errorf("waitlist: offer: %w", err)
	}
	full := map[string]bool{} // the times found taken
	for _, e := range line {
		key := e.Start.String() + "/" + strconv.Itoa(e.Length)
		if full[key] {
			continue
		}
		offered, err := s.offer(ctx, tx, svc.Slug, providerID, e)
		if err != nil {
			return err
		}
		full[key] = !offered
	}
	return nil
}

// offer holds e's time on provider for OfferWindow (never past the time
// itself) and offers it to e, in tx; false when the time cannot be held.
func (s *Service) offer(ctx context.Context, tx *sql.Tx, slug string, providerID int64, e Entry) (bool, error) {
	window := min(s.o.OfferWindow, e.Start.Sub(s.o.Now()))
	if window <= 0 {
		return false, nil
	}
	hold, token, err := s.bk.Hold(ctx, bookings.NewBooking{ServiceSlug: slug, ProviderID: providerID, Start: e.Start, Length: e.Length,
		HoldFor: window})
	var ve *api.ValidationError
	if errors.As(err, &ve) || errors.Is(err, bookings.ErrSlotTaken) || errors.Is(err, bookings.ErrBusy) || errors.Is(err, ErrNotFound) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("waitlist: offer: %w", err)
	}
	now := s.o.Now().UTC()
	e.Status, e.ProviderID, e.OfferedAt, e.OfferExpires, e.UpdatedAt = StatusOffered, &providerID, &now, &hold.ExpiresAt, now
	e.OfferHash = hashOf(token)
	e.OfferSealed = s.sealer.Seal(token, sealContext(e.OfferHash))
	if e, err = s.store.Update(ctx, e, StatusWaiting); err != nil {
		return false, fmt.Errorf("waitlist: offer: %w", err)
	}
	if s.mails() {
		if err := s.o.Enqueuer.EnqueueTx(ctx, tx, offerMailArgs{Offer: hex.EncodeToString(e.OfferHash)}, nil); err != nil {
			return false, fmt.Errorf("waitlist: offer: %w", err)
		}
	}
	return true, s.emit(ctx, tx, EventOffered, e)
}

// sealContext binds a sealed offer token to its hash.
func sealContext(hash []byte) []byte { return append([]byte("waitlist offer "), hash...) }

// mails reports whether offers are mailed.
func (s *Service) mails() bool { return s.o.Enqueuer != nil && s.o.Mailer != nil }

// keepFor is how long entries are kept after their time, for the admin
// list; then Sweep deletes them.
const keepFor = 30 * 24 * time.Hour

// Sweep lapses what is due at now, up to limit entries: an offer not taken
// in time (its time offered to the next in line, in the same
// transaction) and a wait whose time has passed; each is
// booking.waitlist_expired. It returns how many lapsed. Entries another
// instance lapsed first are left to it. Entries 30 days past their time
// are deleted.
func (s *Service) Sweep(ctx context.Context, limit int) (int, error) {
	due, err := s.store.Lapsed(ctx, s.o.Now(), limit)
	if err != nil {
		return 0, fmt.Errorf("waitlist: sweep: %w", err)
	}
	n := 0
	for _, e := range due {
		err := s.store.RunInTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
			from := e.Status
			e.Status, e.UpdatedAt = StatusExpired, s.o.Now().UTC()
			lapsed, err := s.store.Update(ctx, e, from)
			if err != nil {
				return err
			}
			if err := s.emit(ctx, tx, EventExpired, lapsed); err != nil {
				return err
			}
			if from == StatusOffered && lapsed.ProviderID != nil {
				// The hold has lapsed with the offer: its time is free for
				// the next in line.
				return s.promote(ctx, tx, lapsed.ServiceID, *lapsed.ProviderID, bookings.Period{Start: lapsed.Start, End: lapsed.Start})
			}
			return nil
		})
		switch {
		case err == nil:
			n++
		case errors.Is(err, ErrNotFound):
		default:
			return n, fmt.Errorf("waitlist: sweep entry %s: %w", strconv.FormatInt(e.ID, 10), err)
		}
	}
	if _, err := s.store.Prune(ctx, s.o.Now().Add(-keepFor)); err != nil {
		return n, fmt.Errorf("waitlist: sweep: %w", err)
	}
	return n, nil
}
