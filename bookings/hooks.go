package bookings

import (
	"context"
	"sync"
	"time"
)

// Event types, delivered after the change is committed.
const (
	EventCreated     = "booking.created" // a booking was made (requested)
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
)

// Actors of a change.
const (
	ActorCustomer = "customer"
	ActorAdmin    = "admin"
	ActorProvider = "provider"
	ActorSystem   = "system"
	ActorAPI      = "api"
)

// Event is a change to a booking.
type Event struct {
	Type    string
	Booking Booking
	// Actor made the change; Reason is a cancellation's.
	Actor  string
	Reason string
	// PreviousStart, PreviousEnd (rescheduled) and PreviousProviderID
	// (reassigned) are what the booking had before.
	PreviousStart, PreviousEnd time.Time
	PreviousProviderID         *int64
	// ManageToken is the booking's manage token, on booking.created (and
	// the booking.confirmed of a booking confirmed as it is made) and on
	// booking.manage_token_reissued only, for a host that sends its own
	// mail; never stored.
	ManageToken string
}

// Hook types.
type (
	// EventHook runs after a committed change to a booking.
	EventHook func(ctx context.Context, e Event)
	// SlotsHook filters the slots a customer is shown; it may drop slots,
	// not add them.
	SlotsHook func(ctx context.Context, svc Offering, slots []Slot) []Slot
	// ProvidersHook filters the providers a booking may go to, in the
	// order they are tried.
	ProvidersHook func(ctx context.Context, svc Offering, candidates []Offer) []Offer
)

// hooks are the callbacks a host registers.
type hooks struct {
	mu        sync.RWMutex
	events    []EventHook
	slots     []SlotsHook
	providers []ProvidersHook
}

// OnEvent registers fn to run after every committed change, in the order
// registered, on the goroutine that made the change.
func (s *Service) OnEvent(fn EventHook) {
	s.hooks.mu.Lock()
	s.hooks.events = append(s.hooks.events, fn)
	s.hooks.mu.Unlock()
}

// OnSlots registers a filter of the slot list a customer is shown
// (after the engine, before the answer); it may drop slots, not add them
// (a booking is checked against the engine, not the list).
func (s *Service) OnSlots(fn SlotsHook) {
	s.hooks.mu.Lock()
	s.hooks.slots = append(s.hooks.slots, fn)
	s.hooks.mu.Unlock()
}

// OnProviders registers a filter of the providers a booking may go to, in
// the order they are tried (after the named, default or round-robin
// choice).
func (s *Service) OnProviders(fn ProvidersHook) {
	s.hooks.mu.Lock()
	s.hooks.providers = append(s.hooks.providers, fn)
	s.hooks.mu.Unlock()
}

func (s *Service) emit(ctx context.Context, e Event) {
	s.hooks.mu.RLock()
	fns := s.hooks.events
	s.hooks.mu.RUnlock()
	for _, fn := range fns {
		fn(ctx, e)
	}
}

func (s *Service) filterSlots(ctx context.Context, svc Offering, slots []Slot) []Slot {
	s.hooks.mu.RLock()
	fns := s.hooks.slots
	s.hooks.mu.RUnlock()
	for _, fn := range fns {
		slots = fn(ctx, svc, slots)
	}
	return slots
}

func (s *Service) filterProviders(ctx context.Context, svc Offering, offers []Offer) []Offer {
	s.hooks.mu.RLock()
	fns := s.hooks.providers
	s.hooks.mu.RUnlock()
	for _, fn := range fns {
		offers = fn(ctx, svc, offers)
	}
	return offers
}
