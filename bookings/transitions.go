package bookings

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/groundwork-go/groundwork/bookings/slots"
	"github.com/groundwork-go/groundwork/tenant"
)

// active are the statuses that hold a slot; kept, those a booking is
// completed or missed from.
var (
	active = []Status{StatusRequested, StatusConfirmed, StatusAwaitingPayment}
	kept   = []Status{StatusRequested, StatusConfirmed}
)

// errNotOffered: the new time of a move is not a slot the provider offers
// (checked before the lock; a slot taken inside it is ErrSlotTaken alone).
var errNotOffered = fmt.Errorf("bookings: not offered: %w", ErrSlotTaken)

// setStatus moves booking id from one of from to to, queueing the mail
// of kind in the change's transaction and emitting kind after it. A paid
// booking cancelled within its service's refund policy has its refund
// queued in that transaction too.
func (s *Service) setStatus(ctx context.Context, id int64, from []Status, to Status, action, kind string, actor Actor, reason string) (Booking, error) {
	hook := s.changeHook(func(b Booking) []Event { return []Event{{Type: kind, Booking: b, Actor: actor, Reason: reason}} })
	if to == StatusCancelled && hook != nil {
		events := hook
		hook = func(ctx context.Context, tx *sql.Tx, b Booking) error {
			if err := events(ctx, tx, b); err != nil || !b.Payment.paid() {
				return err
			}
			svc, err := s.serviceByID(ctx, b.ServiceID)
			if err != nil {
				return err
			}
			if refundable(b, svc, actor, s.o.Now()) {
				return s.queueRefund(ctx, tx, b)
			}
			return nil
		}
	}
	b, err := change(ctx, s, hook, 0, func(ctx context.Context) (Booking, error) {
		return s.store.SetStatus(ctx, id, from, to, s.o.Now(), nil)
	}, one)
	if errors.Is(err, ErrWrongStatus) {
		return b, fmt.Errorf("bookings: %s booking %d: %w", action, id, &statusError{Status: b.Status, Action: action})
	}
	if err != nil {
		return Booking{}, fmt.Errorf("bookings: %s booking %d: %w", action, id, err)
	}
	s.emit(ctx, Event{Type: kind, Booking: b, Actor: actor, Reason: reason})
	return b, nil
}

// Confirm moves a requested booking to confirmed.
func (s *Service) Confirm(ctx context.Context, id int64, actor Actor) (Booking, error) {
	return s.setStatus(ctx, id, []Status{StatusRequested}, StatusConfirmed, "confirmed", EventConfirmed, actor, "")
}

// cancelReasonMaxLength caps a cancellation's reason, in characters.
const cancelReasonMaxLength = 1000

// Cancel cancels an active booking; the reason travels on the event only.
func (s *Service) Cancel(ctx context.Context, id int64, actor Actor, reason string) (Booking, error) {
	if len([]rune(reason)) > cancelReasonMaxLength {
		return Booking{}, invalid("reason", fmt.Sprintf("The reason field must not be greater than %d characters.", cancelReasonMaxLength))
	}
	return s.setStatus(ctx, id, active, StatusCancelled, "cancelled", EventCancelled, actor, reason)
}

// Complete marks an active booking completed.
func (s *Service) Complete(ctx context.Context, id int64, actor Actor) (Booking, error) {
	return s.setStatus(ctx, id, kept, StatusCompleted, "completed", EventCompleted, actor, "")
}

// NoShow marks an active booking as a no-show.
func (s *Service) NoShow(ctx context.Context, id int64, actor Actor) (Booking, error) {
	return s.setStatus(ctx, id, kept, StatusNoShow, "marked as a no-show", EventNoShow, actor, "")
}

// move re-books an active booking with provider o at start, under that
// provider's day lock, checking the slot against the provider's busy time
// without the booking itself (so a move never collides with its own old
// time).
func (s *Service) move(ctx context.Context, b Booking, svc Offering, o Offer, start time.Time, length time.Duration, action string,
	then txHook) (Booking, error) {
	if !b.Active() {
		return Booking{}, &statusError{Status: b.Status, Action: action}
	}
	loc := location(o.TimeZone)
	start = start.UTC()
	date := slots.DateOf(start.In(loc))
	// A collective booking's hosts move with it: each must be free too.
	hosts := make([]Offer, 0, len(b.Hosts))
	for _, id := range b.Hosts {
		h, err := s.offerOf(ctx, svc, id)
		if err != nil {
			return Booking{}, err
		}
		hosts = append(hosts, h)
	}
	ids := []int64{o.ID}
	for _, h := range hosts {
		ids = append(ids, h.ID)
	}
	f, t, bf, bt := calendarSpan(start, start.Add(24*time.Hour))
	reach := limitReach(svc, append([]Offer{o}, hosts...))
	cal, err := s.readAvailability(ctx, AvailabilityQuery{ServiceID: svc.ID, ProviderIDs: ids, From: f, To: t, BusyFrom: bf.Add(-reach),
		BusyTo: bt.Add(reach), Now: s.o.Now(), ExceptBooking: b.ID})
	if err != nil {
		return Booking{}, err
	}
	// busy is a provider's as the store read it: inside the lock, the
	// bookings alone, so their calendar busy time is added.
	offeredBy := func(o Offer, busy []Busy) bool {
		p := host(svc, o, cal, busy)
		p.Length = length
		return s.engine(svc).Offers(p, start)
	}
	offered := func(busy []Busy) bool { return offeredBy(o, cal.withCalendars(o.ID, busy)) }
	if !offeredBy(o, cal.Busy[o.ID]) {
		return Booking{}, errNotOffered
	}
	byID := map[int64]Offer{}
	var locks []string
	for _, h := range hosts {
		if !offeredBy(h, cal.Busy[h.ID]) {
			return Booking{}, errNotOffered
		}
		byID[h.ID] = h
		locks = append(locks, strconv.FormatInt(h.ID, 10)+"|"+slots.DateOf(start.In(location(h.TimeZone))).String())
		locks = append(locks, s.limitLocks(svc, h, start)...)
	}
	dayStart, dayEnd := date.In(loc), date.AddDays(1).In(loc)
	m := Move{BookingID: b.ID, ProviderID: o.ID, Period: Period{Start: start, End: start.Add(length)},
		Lock: strconv.FormatInt(o.ID, 10) + "|" + date.String(), Locks: append(s.limitLocks(svc, o, start), locks...), LockWait: s.o.LockWait,
		BusyFrom: dayStart.Add(-24*time.Hour - reach), BusyTo: dayEnd.Add(24*time.Hour + reach), Check: offered, At: s.o.Now(),
		Hosts: b.Hosts, CheckHost: func(id int64, busy []Busy) bool { return offeredBy(byID[id], cal.withCalendars(id, busy)) }}
	moved, err := change(ctx, s, then, s.o.LockWait, func(ctx context.Context) (Booking, error) { return s.store.Move(ctx, m) }, one)
	if errors.Is(err, ErrWrongStatus) {
		// Its status changed since it was read.
		return Booking{}, &statusError{Status: moved.Status, Action: action}
	}
	return moved, err
}

// bookingAndService reads a booking and its service.
func (s *Service) bookingAndService(ctx context.Context, id int64) (Booking, Offering, error) {
	b, err := s.store.Booking(ctx, id)
	if err != nil {
		return Booking{}, Offering{}, err
	}
	svc, err := s.serviceByID(ctx, b.ServiceID)
	return b, svc, err
}

func (s *Service) serviceByID(ctx context.Context, id int64) (Offering, error) {
	return s.store.ServiceByID(ctx, id)
}

// offerOf is the provider's offer of svc, active or not.
func (s *Service) offerOf(ctx context.Context, svc Offering, providerID int64) (Offer, error) {
	offers, err := s.store.Offers(ctx, svc.ID)
	if err != nil {
		return Offer{}, err
	}
	if i := slices.IndexFunc(offers, func(o Offer) bool { return o.ID == providerID }); i >= 0 {
		return offers[i], nil
	}
	p, err := s.store.Provider(ctx, providerID)
	if err != nil {
		return Offer{}, err
	}
	return Offer{Provider: p}, nil
}

// Reschedule moves an active booking to start, keeping its provider,
// length and status; start must be a slot the provider offers once the
// booking's own time is left out (ErrSlotTaken otherwise).
func (s *Service) Reschedule(ctx context.Context, id int64, start time.Time, actor Actor) (Booking, error) {
	b, svc, err := s.bookingAndService(ctx, id)
	if err != nil {
		return Booking{}, fmt.Errorf("bookings: reschedule booking %d: %w", id, err)
	}
	if b.ProviderID == nil {
		return Booking{}, fmt.Errorf("bookings: reschedule booking %d: %w", id, ErrSlotTaken)
	}
	o, err := s.offerOf(ctx, svc, *b.ProviderID)
	if err != nil {
		return Booking{}, fmt.Errorf("bookings: reschedule booking %d: %w", id, err)
	}
	moved, err := s.move(ctx, b, svc, o, start, b.End.Sub(b.Start), "rescheduled", s.changeHook(func(m Booking) []Event {
		return []Event{{Type: EventRescheduled, Booking: m, Actor: actor, PreviousStart: b.Start, PreviousEnd: b.End}}
	}))
	if err != nil {
		return Booking{}, fmt.Errorf("bookings: reschedule booking %d: %w", id, err)
	}
	s.emit(ctx, Event{Type: EventRescheduled, Booking: moved, Actor: actor, PreviousStart: b.Start, PreviousEnd: b.End})
	return moved, nil
}

// Reassign gives an active booking to another bookable provider of its
// service at the same time, if that provider offers the slot.
func (s *Service) Reassign(ctx context.Context, id, providerID int64, actor Actor) (Booking, error) {
	b, svc, err := s.bookingAndService(ctx, id)
	if err != nil {
		return Booking{}, fmt.Errorf("bookings: reassign booking %d: %w", id, err)
	}
	if len(b.Hosts) > 0 {
		return Booking{}, invalid("provider_id", "A booking of a collective service holds every one of its providers; it is not reassigned.")
	}
	offers, err := s.bookable(ctx, svc)
	if err != nil {
		return Booking{}, err
	}
	i := slices.IndexFunc(offers, func(o Offer) bool { return o.ID == providerID })
	if i < 0 {
		return Booking{}, invalid("provider_id", msgProviderNotHere)
	}
	// The booking keeps its length, unless the new provider has their own.
	keep := b.End.Sub(b.Start)
	if c := offers[i].CustomDuration; c != nil && *c > 0 {
		keep = minutes(*c)
	}
	moved, err := s.move(ctx, b, svc, offers[i], b.Start, keep, "reassigned", s.changeHook(func(m Booking) []Event {
		return []Event{{Type: EventReassigned, Booking: m, Actor: actor, PreviousProviderID: b.ProviderID}}
	}))
	if err != nil {
		return Booking{}, fmt.Errorf("bookings: reassign booking %d: %w", id, err)
	}
	s.emit(ctx, Event{Type: EventReassigned, Booking: moved, Actor: actor, PreviousProviderID: b.ProviderID})
	return moved, nil
}

// Booking returns a booking, or ErrNotFound (also when its service is
// another tenant's than the one ctx acts for: see package tenant).
func (s *Service) Booking(ctx context.Context, id int64) (Booking, error) {
	b, err := s.store.Booking(ctx, id)
	if _, scoped := tenant.Of(ctx); err == nil && scoped {
		var svc Offering
		if svc, err = s.store.ServiceByID(ctx, b.ServiceID); err == nil && !tenant.Sees(ctx, svc.Tenant) {
			err = ErrNotFound
		}
	}
	if err != nil {
		return Booking{}, fmt.Errorf("bookings: booking %d: %w", id, err)
	}
	return b, nil
}

// ListBookings returns a page of bookings and the total: of the tenant's
// services when ctx acts for one.
func (s *Service) ListBookings(ctx context.Context, f BookingFilter) ([]Booking, int, error) {
	if t, ok := tenant.Of(ctx); ok {
		f.Tenant = &t
	}
	list, total, err := s.store.ListBookings(ctx, f)
	if err != nil {
		return nil, 0, fmt.Errorf("bookings: list bookings: %w", err)
	}
	return list, total, nil
}
