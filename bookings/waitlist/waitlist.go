package waitlist

import (
	"context"
	"database/sql"
	"time"
)

// Status is where an Entry stands.
type Status string

// Statuses of an entry.
const (
	// StatusWaiting: in line for the time.
	StatusWaiting Status = "waiting"
	// StatusOffered: a cancellation freed the time and a hold keeps it for
	// the customer until OfferExpires.
	StatusOffered Status = "offered"
	// StatusBooked: the customer took the offer (BookingID is the booking).
	StatusBooked Status = "booked"
	// StatusExpired: the offer lapsed, or the time passed while waiting.
	StatusExpired Status = "expired"
)

// Entry is one customer waiting for one time of a service.
type Entry struct {
	ID        int64     `json:"id"`
	ServiceID int64     `json:"service_id"`
	Start     time.Time `json:"start_time"`
	// Length is the minutes asked for among the service's lengths; 0 for
	// its own.
	Length   int    `json:"length,omitempty"`
	Name     string `json:"customer_name"`
	Email    string `json:"customer_email"`
	TimeZone string `json:"customer_timezone,omitempty"`
	Status   Status `json:"status"`
	// ProviderID is the provider whose freed seat is offered.
	ProviderID   *int64     `json:"provider_id,omitempty"`
	OfferedAt    *time.Time `json:"offered_at,omitempty"`
	OfferExpires *time.Time `json:"offer_expires_at,omitempty"`
	BookingID    *int64     `json:"booking_id,omitempty"`
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`
	// OfferHash is the SHA-256 of the offer's token (the hold's, in the
	// mailed link), and OfferSealed the token sealed for the mail job; the
	// token itself is never stored.
	OfferHash   []byte `json:"-"`
	OfferSealed string `json:"-"`
}

// NewEntry is a customer's request to wait for a time.
type NewEntry struct {
	// Service is the service's slug.
	Service string `json:"service"`
	// Start is a start the service's rules offer that is full now.
	Start    time.Time `json:"start_time"`
	Length   int       `json:"length,omitempty"`
	Name     string    `json:"customer_name"`
	Email    string    `json:"customer_email"`
	TimeZone string    `json:"customer_timezone,omitempty"`
}

// The events of a waitlist, each sent as a webhook of its name by
// link.Join.
const (
	EventJoined  = "booking.waitlist_joined"
	EventOffered = "booking.waitlist_offered"
	EventBooked  = "booking.waitlist_booked"
	EventExpired = "booking.waitlist_expired"
)

// EventTypes are every event a Service emits.
var EventTypes = []string{EventJoined, EventOffered, EventBooked, EventExpired}

// Event is a change to an entry: Type one of EventTypes, Entry as written.
type Event struct {
	Type  string
	Entry Entry
}

// EventTxHook runs inside the transaction that made an event (the
// cancellation's, for an offer); its error undoes the change.
type EventTxHook func(ctx context.Context, tx *sql.Tx, e Event) error
