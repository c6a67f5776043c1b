package bookings

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/riverqueue/river"
)

// Payments takes the payments of the services that ask for one
// (ServiceRules.RequiresPayment) through a provider's hosted payment page:
// bookingsstripe.Payments is Stripe Checkout's. Its calls are made outside
// every transaction, and each must be safe to repeat.
type Payments interface {
	// Provider names the provider as its webhooks arrive ("stripe"):
	// SettlePayment reads only the events of that provider.
	Provider() string
	// Checkout opens the payment of b (its Payment says the amount, the
	// currency and when the page must close; title names what is paid
	// for) and returns the page to send the customer to and the
	// provider's id of it. returnURL is where the customer comes back to,
	// paid or not. Called again for b it must open no second payment.
	Checkout(ctx context.Context, b Booking, title, returnURL string) (url, session string, err error)
	// Refund returns the payment b.Payment.Reference in full; called again
	// for b it must refund nothing more.
	Refund(ctx context.Context, b Booking) error
	// Paid asks the provider whether b's payment page (its
	// Payment.Session) was paid, and by which payment: what the sweep of
	// unpaid bookings asks before it releases one, in case the provider's
	// event was lost.
	Paid(ctx context.Context, b Booking) (reference string, paid bool, err error)
	// Settlement reads a verified event of the provider: the booking it
	// settles, as far as the event names it (its ID and Number, and its
	// Payment's Session and, once paid, Reference; ID 0 when it settles
	// none), and whether it was paid (false: it failed or its page
	// expired).
	Settlement(eventType string, payload map[string]any) (b Booking, paid bool)
}

// Payments' defaults.
const (
	// paymentWindowDefault is how long a booking awaiting payment holds
	// its time: the shortest a Stripe Checkout page may stay open.
	paymentWindowDefault = 30 * time.Minute
	// paymentGrace is how long after its due time a hold is kept for the
	// provider's word of a payment made at the last moment.
	paymentGrace = 5 * time.Minute
	// unreachableGrace is how long past its due time a hold waits for a
	// provider that cannot be asked before it is released all the same.
	unreachableGrace = 24 * time.Hour
)

// Texts of the payment answers and changes.
const (
	msgPaymentUnavailable = "Payment could not be started. Please try again in a moment."
	msgNotPaid            = "The payment was not completed in time."
	msgNoSeriesPayment    = "A weekly series cannot be booked for a service that takes payment."
	msgPaymentNeedsPrice  = "A service that takes payment needs a price above zero and a currency."
)

// takesPayment reports whether a booking of svc is paid for as it is made.
func (s *Service) takesPayment(svc Offering) bool {
	return s.o.Payments != nil && svc.RequiresPayment && svc.Price != nil && !svc.IsFree
}

// manageURL is the customer's manage page of token, "" without one.
func (s *Service) manageURL(token string) string {
	if s.o.ManageURL == "" || token == "" {
		return ""
	}
	return strings.ReplaceAll(s.o.ManageURL, "{token}", token)
}

// startPayment opens the payment page of b, a booking just made awaiting
// payment, and keeps it with the booking. When the provider cannot open
// one, the booking is released (its time freed) and the error wraps
// ErrPaymentUnavailable.
func (s *Service) startPayment(ctx context.Context, b Booking, token string) (Booking, error) {
	paying, err := s.checkout(ctx, b, token)
	if err == nil {
		return paying, nil
	}
	if _, rerr := s.release(ctx, b.ID, msgPaymentUnavailable); rerr != nil {
		err = errors.Join(err, rerr)
	}
	return Booking{}, fmt.Errorf("bookings: create: %w", err)
}

// checkout opens (again) the payment page of b, awaiting payment, and
// stores its address and session on the booking; a page the provider
// cannot open is logged and wraps ErrPaymentUnavailable.
func (s *Service) checkout(ctx context.Context, b Booking, token string) (Booking, error) {
	if b.Payment == nil {
		return Booking{}, errors.New("bookings: checkout: the booking owes nothing")
	}
	svc, err := s.serviceByID(ctx, b.ServiceID)
	if err != nil {
		return Booking{}, err
	}
	zone := cmp.Or(b.CustomerTimeZone, svc.TimeZone)
	title := svc.Name + ", " + b.Start.In(location(zone)).Format("Monday 2 January 2006, 15:04") + " (" + zone + ")"
	url, session, err := s.o.Payments.Checkout(ctx, b, title, s.manageURL(token))
	if err != nil {
		s.o.Logger.WarnContext(ctx, "bookings: the payment could not be started", "booking", b.ID, "error", err)
		return Booking{}, fmt.Errorf("bookings: checkout of booking %d: %w: %w", b.ID, ErrPaymentUnavailable, err)
	}
	pay := *b.Payment
	pay.CheckoutURL, pay.Session = url, session
	return s.store.SetStatus(ctx, b.ID, []Status{StatusAwaitingPayment}, StatusAwaitingPayment, s.o.Now(), &pay)
}

// release cancels booking id while it awaits payment, freeing its time
// (booking.cancelled, and the customer told why).
func (s *Service) release(ctx context.Context, id int64, reason string) (Booking, error) {
	return s.setStatus(ctx, id, []Status{StatusAwaitingPayment}, StatusCancelled, "cancelled", EventCancelled, ActorSystem, reason)
}

// payManaged returns the payment page of the booking whose manage token
// this is, while it awaits payment: the one already open, or one opened
// now (a booking made inside a host's transaction has none yet).
func (s *Service) payManaged(ctx context.Context, token string) (string, error) {
	b, _, err := s.Managed(ctx, token)
	if err != nil {
		return "", err
	}
	if b.Status != StatusAwaitingPayment || b.Payment == nil || s.o.Payments == nil {
		return "", &statusError{Status: b.Status, Action: "paid for"}
	}
	if b.Payment.CheckoutURL != "" {
		return b.Payment.CheckoutURL, nil
	}
	paying, err := s.checkout(ctx, b, token)
	if err != nil {
		return "", err
	}
	return paying.Payment.CheckoutURL, nil
}

// SettlePayment settles the booking a payment provider's verified event
// is about, in the transaction ctx carries (the inbound event's: the
// webhooks' received hooks are given it), so the event is recorded, the
// booking changed, its webhooks and mail queued, or none of it. An event
// of another provider, or one that settles no booking, changes nothing
// (settled false).
//
// Paid, a booking awaiting payment is confirmed (booking.confirmed, and
// the confirmation mail); one no longer holding its time (cancelled, or
// unpaid past its due time and cancelled by then) keeps the payment on
// record and is refunded. An event settled already changes nothing: a
// provider's redelivery, or the periodic reconciliation after the webhook.
// Unpaid (failed, or the page expired), a booking awaiting payment is
// cancelled and its time freed. The OnEvent hooks of a change made inside
// a caller's transaction run once the change is made, before that
// transaction commits; the OnEventTx hooks and the mail commit with it.
func (s *Service) SettlePayment(ctx context.Context, provider, eventType string, payload map[string]any) (Booking, bool, error) {
	if s.o.Payments == nil || provider != s.o.Payments.Provider() {
		return Booking{}, false, nil
	}
	told, paid := s.o.Payments.Settlement(eventType, payload)
	if told.ID == 0 || told.Payment == nil {
		return Booking{}, false, nil
	}
	b, err := s.store.Booking(ctx, told.ID)
	if errors.Is(err, ErrNotFound) {
		return Booking{}, false, nil // pruned, or not made here
	}
	if err != nil {
		return Booking{}, false, fmt.Errorf("bookings: settle payment: %w", err)
	}
	// Another site's booking of the same ID on the same account, or an
	// earlier page of this one, settles nothing.
	p := told.Payment
	if b.Payment == nil || told.Number != b.Number || p.Session != "" && b.Payment.Session != "" && p.Session != b.Payment.Session {
		return b, false, nil
	}
	return s.settle(ctx, b, p, paid)
}

// settle settles b, as the provider told of its payment p (its Session
// and, paid, its Reference): see SettlePayment.
func (s *Service) settle(ctx context.Context, b Booking, p *Payment, paid bool) (Booking, bool, error) {
	id := b.ID
	var err error
	if !paid {
		if b.Status != StatusAwaitingPayment {
			return b, false, nil
		}
		b, err = s.release(ctx, id, msgNotPaid)
		return b, err == nil, err
	}
	if b.Payment.PaidAt != nil {
		return b, false, nil // settled already
	}
	now := s.o.Now().UTC()
	pay := *b.Payment
	pay.Reference, pay.PaidAt = p.Reference, &now
	if pay.Session == "" {
		pay.Session = p.Session
	}
	if b.Status == StatusAwaitingPayment {
		b, err = s.paymentChange(ctx, id, StatusAwaitingPayment, StatusConfirmed, &pay, EventConfirmed, false)
		// Unless it changed meanwhile (then as it is now, below).
		if !errors.Is(err, ErrWrongStatus) || b.Status == StatusAwaitingPayment {
			return b, err == nil, err
		}
	}
	// Paid for a time no longer held: the payment is kept on record and
	// returned.
	b, err = s.paymentChange(ctx, id, b.Status, b.Status, &pay, "", true)
	return b, err == nil, err
}

// paymentChange moves booking id from from to to with pay written on it,
// in one transaction with the event of kind ("" for none) — its mail and
// hooks — and, with refund, the refund's job; the event is emitted once
// that commits. A booking in another status is ErrWrongStatus, with the
// booking as it is.
func (s *Service) paymentChange(ctx context.Context, id int64, from, to Status, pay *Payment, kind string, refund bool) (Booking, error) {
	events := func(b Booking) []Event {
		if kind == "" {
			return nil
		}
		return []Event{{Type: kind, Booking: b, Actor: ActorSystem}}
	}
	hook := s.changeHook(events)
	b, err := change(ctx, s, func(ctx context.Context, tx *sql.Tx, b Booking) error {
		if hook != nil {
			if err := hook(ctx, tx, b); err != nil {
				return err
			}
		}
		if refund {
			return s.queueRefund(ctx, tx, b)
		}
		return nil
	}, 0, func(ctx context.Context) (Booking, error) {
		return s.store.SetStatus(ctx, id, []Status{from}, to, s.o.Now(), pay)
	}, one)
	switch {
	case err == nil:
		for _, e := range events(b) {
			s.emit(ctx, e)
		}
	case !errors.Is(err, ErrWrongStatus):
		err = fmt.Errorf("bookings: the payment of booking %d: %w", id, err)
	}
	return b, err
}

// refundable reports whether cancelling b, a paid booking, by actor at
// now returns its payment: always when the site cancels it, and when the
// customer does, as long as the service's RefundCutoffHours allow.
func refundable(b Booking, svc Offering, actor Actor, now time.Time) bool {
	if !b.Payment.paid() {
		return false
	}
	if actor != ActorCustomer {
		return true
	}
	return now.Before(b.Start.Add(-time.Duration(svc.RefundCutoffHours) * time.Hour))
}

// refundArgs is the job that refunds a booking's payment.
type refundArgs struct {
	BookingID int64 `json:"booking_id"`
}

// Kind implements river.JobArgs.
func (refundArgs) Kind() string { return "bookings_refund" }

// InsertOpts: one refund job a booking at a time; a provider's answer
// is retried for a day.
func (refundArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 20, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// queueRefund queues the refund of b in tx.
func (s *Service) queueRefund(ctx context.Context, tx *sql.Tx, b Booking) error {
	if s.o.Enqueuer == nil {
		return errors.New("bookings: refund: no Enqueuer")
	}
	if err := s.o.Enqueuer.EnqueueTx(ctx, tx, refundArgs{BookingID: b.ID}, nil); err != nil {
		return fmt.Errorf("bookings: queue the refund of booking %d: %w", b.ID, err)
	}
	return nil
}

// refund is the refund job's work: the provider refunds the payment, and
// the booking records it (booking.refunded). A booking gone, or refunded
// already, refunds nothing.
func (s *Service) refund(ctx context.Context, id int64) error {
	b, err := s.store.Booking(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if !b.Payment.paid() || s.o.Payments == nil {
		return nil
	}
	if err := s.o.Payments.Refund(ctx, b); err != nil {
		return fmt.Errorf("bookings: refund booking %d: %w", id, err)
	}
	now := s.o.Now().UTC()
	pay := *b.Payment
	pay.RefundedAt = &now
	_, err = s.paymentChange(ctx, id, b.Status, b.Status, &pay, EventRefunded, false)
	return err
}

// expireUnpaid cancels the bookings still awaiting payment past their
// due time (and a grace for the provider's last word), freeing their
// time, and returns how many. The provider's event of an expired page
// does it sooner; this catches the ones whose event never came. Each is
// asked of the provider first: one it says was paid is settled instead;
// one it cannot answer for is left to the next sweep, for a day at most.
func (s *Service) expireUnpaid(ctx context.Context) (int, error) {
	now := s.o.Now().UTC()
	list, err := s.store.BookingsStarting(ctx, []Status{StatusAwaitingPayment}, time.Unix(0, 0).UTC(), now.AddDate(20, 0, 0))
	if err != nil {
		return 0, fmt.Errorf("bookings: expire unpaid bookings: %w", err)
	}
	n := 0
	for _, b := range list {
		if b.Payment != nil && now.Before(b.Payment.DueAt.Add(paymentGrace)) {
			continue
		}
		if b.Payment != nil && b.Payment.Session != "" {
			// The provider's word first: a payment whose event was lost
			// is settled, not released.
			reference, paid, err := s.o.Payments.Paid(ctx, b)
			switch {
			case err != nil && now.Before(b.Payment.DueAt.Add(unreachableGrace)):
				s.o.Logger.WarnContext(ctx, "bookings: the payment provider could not say whether a booking was paid", "booking", b.ID,
					"error", err)
				continue // asked again at the next sweep
			case err == nil && paid:
				if _, _, err := s.settle(ctx, b, &Payment{Session: b.Payment.Session, Reference: reference}, true); err != nil {
					return n, err
				}
				continue
			}
		}
		_, err := s.release(ctx, b.ID, msgNotPaid)
		switch {
		case err == nil:
			n++
		case !errors.Is(err, ErrWrongStatus): // settled meanwhile: left as it is
			return n, err
		}
	}
	return n, nil
}
