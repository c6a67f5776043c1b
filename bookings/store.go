package bookings

import (
	"context"
	"time"
)

// Store keeps services, providers, their hours and bookings.
// Implementations: bookingssql (SQLite and Postgres);
// bookingstest.RunStoreTests pins the contract below. Times are UTC to the
// microsecond.
type Store interface {
	// CreateService stores s and returns it with its ID; ErrSlugTaken
	// when another service has the slug.
	CreateService(ctx context.Context, s Offering) (Offering, error)
	// ServiceBySlug returns the service with this slug, active or not, or
	// ErrNotFound.
	ServiceBySlug(ctx context.Context, slug string) (Offering, error)
	// ListServices returns the services in name order, only the active
	// ones when activeOnly.
	ListServices(ctx context.Context, activeOnly bool) ([]Offering, error)
	// CreateProvider stores p and returns it with its ID; ErrSlugTaken
	// when another provider has the slug.
	CreateProvider(ctx context.Context, p Provider) (Provider, error)
	// Provider returns a provider, or ErrNotFound.
	Provider(ctx context.Context, id int64) (Provider, error)
	// LinkProvider offers a service through a provider (again: updates
	// the custom duration and price); ErrNotFound when either is missing.
	LinkProvider(ctx context.Context, serviceID, providerID int64, customDuration *int, customPrice *string) error
	// Offers returns the providers linked to a service, active or not, in
	// sort order then ID.
	Offers(ctx context.Context, serviceID int64) ([]Offer, error)
	// AddWeeklyHours, AddOverride and AddBlackout store a rule and return
	// it with its ID.
	AddWeeklyHours(ctx context.Context, h WeeklyHours) (WeeklyHours, error)
	AddOverride(ctx context.Context, o Override) (Override, error)
	AddBlackout(ctx context.Context, b Blackout) (Blackout, error)
	// Calendar returns what the slot engine needs for some providers of a
	// service: their weekly hours, their overrides dated from..to, the
	// blackouts of the service (and of all services) touching from..to,
	// and their active bookings overlapping [busyFrom, busyTo) with each
	// booking's service buffers.
	Calendar(ctx context.Context, serviceID int64, providerIDs []int64, from, to Date, busyFrom, busyTo time.Time) (Calendar, error)
	// Reserve books r.Booking for its provider in one transaction that
	// holds the provider's lock r.Lock (waiting at most r.LockWait, then
	// ErrBusy): it reads the provider's active bookings overlapping
	// [r.BusyFrom, r.BusyTo), asks r.Check whether the slot is still free
	// of them (ErrSlotTaken if not), inserts the booking with its number
	// and manage-token hash (ErrSlotTaken when another active booking of
	// the provider has that start) and moves the provider's round-robin
	// cursor to the booking's creation time.
	Reserve(ctx context.Context, r Reservation) (Booking, error)
	// Booking returns a booking, or ErrNotFound.
	Booking(ctx context.Context, id int64) (Booking, error)
}

// Calendar is a provider's rules and busy time over some days.
type Calendar struct {
	Hours     []WeeklyHours
	Overrides []Override
	Blackouts []Blackout
	// Busy holds each provider's active bookings.
	Busy map[int64][]Busy
}

// Reservation is what [Store.Reserve] books.
type Reservation struct {
	Booking         Booking
	ManageTokenHash []byte
	// Lock names the provider's local day; every Reserve of one name runs
	// one at a time, on every instance.
	Lock     string
	LockWait time.Duration
	// BusyFrom and BusyTo are the span whose bookings Check is shown.
	BusyFrom, BusyTo time.Time
	Check            func(busy []Busy) bool
}
