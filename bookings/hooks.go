package bookings

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/internal/hooks"
	"github.com/groundwork-go/groundwork/store"
)

// Event types. Each change records its events inside its own transaction
// (OnEventTx), and delivers them again once committed (OnEvent).
const (
	// EventCreated: a booking was made, with the status it was made with
	// (confirmed, or requested when bookings wait for confirmation). A
	// booking confirmed as it is made has this event alone.
	EventCreated = "booking.created"
	// EventConfirmed: a requested booking was confirmed, or one awaiting
	// payment was paid.
	EventConfirmed   = "booking.confirmed"
	EventRescheduled = "booking.rescheduled"
	EventReassigned  = "booking.reassigned"
	EventCancelled   = "booking.cancelled"
	EventCompleted   = "booking.completed"
	EventNoShow      = "booking.no_show"
	// EventManageTokenReissued carries a booking's new manage token
	// (Event.ManageToken) for the host to send the customer; the
	// reference server does not deliver it as a webhook.
	EventManageTokenReissued = "booking.manage_token_reissued"
	// EventErased: a booking's customer data was erased (the booking as
	// it is now, without it), one for each booking of the customer.
	EventErased = "booking.erased"
	// EventRefunded: the payment of a cancelled booking was refunded in
	// full (the booking's Payment.RefundedAt says when).
	EventRefunded = "booking.refunded"
)

// EventTypes are every event a Service emits, for a host's catalogue of
// webhook events.
var EventTypes = []string{EventCreated, EventConfirmed, EventRescheduled, EventReassigned, EventCancelled, EventCompleted,
	EventNoShow, EventManageTokenReissued, EventErased, EventRefunded}

// Actor is who made a change to a booking.
type Actor string

// Actors of a change.
const (
	ActorCustomer Actor = "customer"
	ActorAdmin    Actor = "admin"
	ActorProvider Actor = "provider"
	ActorSystem   Actor = "system"
	ActorAPI      Actor = "api"
	// ActorOwner is the site's owner, acting from the bookings list.
	ActorOwner Actor = "owner"
)

// Event is a change to a booking.
type Event struct {
	Type    string
	Booking Booking
	// Actor made the change; Reason is a cancellation's.
	Actor  Actor
	Reason string
	// PreviousStart, PreviousEnd (rescheduled) and PreviousProviderID
	// (reassigned) are what the booking had before.
	PreviousStart, PreviousEnd time.Time
	PreviousProviderID         *int64
	// ManageToken is the booking's manage token, on booking.created and
	// booking.manage_token_reissued only, for a host that sends its own
	// mail; never stored.
	ManageToken string
}

// EventData is a booking event as another system is told of it (a
// booking.* webhook): the booking as it is, who made the change and why,
// and what a move changed. CustomerID stands for the customer's email
// (see CustomerID), so that what was sent about a customer can be found
// again to erase it, without the address in an index.
type EventData struct {
	ID               int64      `json:"id"`
	Number           string     `json:"booking_number"`
	Status           Status     `json:"status"`
	ServiceID        int64      `json:"service_id"`
	ProviderID       *int64     `json:"provider_id"`
	StartTime        time.Time  `json:"start_time"`
	EndTime          time.Time  `json:"end_time"`
	CustomerID       string     `json:"customer_id"`
	CustomerName     string     `json:"customer_name"`
	CustomerEmail    string     `json:"customer_email"`
	CustomerTimeZone string     `json:"customer_timezone"`
	Actor            Actor      `json:"actor"`
	Reason           string     `json:"reason,omitempty"`
	PreviousStart    *time.Time `json:"previous_start_time,omitempty"`
	PreviousEnd      *time.Time `json:"previous_end_time,omitempty"`
	PreviousProvider *int64     `json:"previous_provider_id,omitempty"`
	// Payment is a paid booking's payment (its checkout page left out).
	Payment *Payment `json:"payment,omitempty"`
}

// Data is e as another system is told of it. It never carries the manage
// token.
func (e Event) Data() EventData {
	b := e.Booking
	d := EventData{ID: b.ID, Number: b.Number, Status: b.Status, ServiceID: b.ServiceID, ProviderID: b.ProviderID,
		StartTime: b.Start, EndTime: b.End, CustomerID: CustomerID(b.CustomerEmail), CustomerName: b.CustomerName,
		CustomerEmail: b.CustomerEmail, CustomerTimeZone: b.CustomerTimeZone, Actor: e.Actor, Reason: e.Reason,
		PreviousProvider: e.PreviousProviderID}
	if !e.PreviousStart.IsZero() {
		d.PreviousStart, d.PreviousEnd = &e.PreviousStart, &e.PreviousEnd
	}
	if b.Payment != nil {
		p := *b.Payment
		p.CheckoutURL = ""
		d.Payment = &p
	}
	return d
}

// CustomerID stands for a customer's email in what is sent about them: a
// hash of the address in lower case ("booking-customer-" and 24 hex
// digits), "" for none.
func CustomerID(email string) string {
	email = strings.ToLower(strings.TrimSpace(email))
	if email == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(email))
	return "booking-customer-" + hex.EncodeToString(sum[:12])
}

// Hook types.
type (
	// EventHook runs after a committed change to a booking.
	EventHook func(ctx context.Context, e Event)
	// EventTxHook runs inside the transaction of a change to a booking,
	// so what it records (a webhook, a job) commits with the change or not
	// at all; its error undoes the change. tx is never nil.
	EventTxHook func(ctx context.Context, tx *sql.Tx, e Event) error
	// SlotsHook filters the slots a customer is shown; it may drop slots,
	// not add them.
	SlotsHook func(ctx context.Context, svc Offering, slots []Slot) []Slot
	// ProvidersHook filters the providers a booking may go to, in the
	// order they are tried.
	ProvidersHook func(ctx context.Context, svc Offering, candidates []Offer) []Offer
)

// registered are the callbacks a host registers.
type registered struct {
	events    hooks.List[EventHook]
	eventsTx  hooks.List[EventTxHook]
	slots     hooks.List[SlotsHook]
	providers hooks.List[ProvidersHook]
}

// OnEvent registers fn to run after every committed change, in the order
// registered, on the goroutine that made the change.
func (s *Service) OnEvent(fn EventHook) {
	s.hooks.events.Add(fn)
}

// OnEventTx registers fn to run inside the transaction of every change
// (creations, status moves, reschedules and reassignments, reissued
// manage links, erasures, completions), in the order registered: the
// outbox a host records a webhook or a job in, so a crash between the
// commit and the delivery loses nothing. An error from fn undoes the
// change and is the change's error.
func (s *Service) OnEventTx(fn EventTxHook) {
	s.hooks.eventsTx.Add(fn)
}

// OnSlots registers a filter of the slot list a customer is shown
// (after the engine, before the answer); it may drop slots, not add them
// (a booking is checked against the engine, not the list).
func (s *Service) OnSlots(fn SlotsHook) {
	s.hooks.slots.Add(fn)
}

// OnProviders registers a filter of the providers a booking may go to, in
// the order they are tried (after the named, default or round-robin
// choice).
func (s *Service) OnProviders(fn ProvidersHook) {
	s.hooks.providers.Add(fn)
}

// txHook runs inside the transaction of a change, with the booking as
// written (to queue the jobs the change causes with it); its error undoes
// the change. tx is never nil.
type txHook func(ctx context.Context, tx *sql.Tx, b Booking) error

// change runs write, then hook on each booking it wrote (written picks
// them out of what write returns), in one transaction: the change and the
// mail jobs and hooks it sets off commit together, or none of them. With
// no hook (no queue, no OnEventTx hooks) write runs alone, in the store's
// own transaction. wait, when not zero, bounds the wait to begin (on
// SQLite the provider's lock is the one writer), past which the change is
// ErrBusy.
func change[T any](ctx context.Context, s *Service, hook txHook, wait time.Duration,
	write func(ctx context.Context) (T, error), written func(T) []Booking) (T, error) {
	if hook == nil {
		return write(ctx)
	}
	if wait > 0 {
		ctx = store.WithBeginWait(ctx, wait)
	}
	var out T
	err := s.store.RunInTx(ctx, func(ctx context.Context, tx *sql.Tx) (err error) {
		if out, err = write(ctx); err != nil {
			return err
		}
		for _, b := range written(out) {
			if err := hook(ctx, tx, b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, ErrBusy) {
		err = fmt.Errorf("%w: %w", ErrBusy, err)
	}
	return out, err
}

// one is the booking a change of one wrote.
func one(b Booking) []Booking { return []Booking{b} }

// all are the bookings a change of several wrote.
func all(bs []Booking) []Booking { return bs }

// changeHook is what a change does inside its transaction with the events
// it makes of the booking as written: their mail queued (with an
// Enqueuer) and the OnEventTx hooks run; an error undoes the change. Nil
// when there is nothing to do, which lets a store skip the work.
func (s *Service) changeHook(events func(b Booking) []Event) txHook {
	txHooks := s.hooks.eventsTx.All()
	if s.o.Enqueuer == nil && len(txHooks) == 0 {
		return nil
	}
	return func(ctx context.Context, tx *sql.Tx, b Booking) error {
		for _, e := range events(b) {
			if s.o.Enqueuer != nil {
				if err := s.queueMails(ctx, tx, e); err != nil {
					return err
				}
			}
			for _, fn := range txHooks {
				if err := fn(ctx, tx, e); err != nil {
					return fmt.Errorf("bookings: %s hook: %w", e.Type, err)
				}
			}
		}
		return nil
	}
}

func (s *Service) emit(ctx context.Context, e Event) {
	fns := s.hooks.events.All()
	for _, fn := range fns {
		fn(ctx, e)
	}
}

func (s *Service) filterSlots(ctx context.Context, svc Offering, slots []Slot) []Slot {
	fns := s.hooks.slots.All()
	for _, fn := range fns {
		slots = fn(ctx, svc, slots)
	}
	return slots
}

func (s *Service) filterProviders(ctx context.Context, svc Offering, offers []Offer) []Offer {
	fns := s.hooks.providers.All()
	for _, fn := range fns {
		offers = fn(ctx, svc, offers)
	}
	return offers
}
