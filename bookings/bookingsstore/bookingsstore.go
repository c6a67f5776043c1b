// Package bookingsstore holds types only an implementer of bookings.Store
// needs, off bookings' page (which is the host's): a reminder as the
// store claims it, and what the calendar feed's stamp is read from. The
// others its methods name (a reservation, a move, availability) carry the
// domain's own types and stay in bookings.
package bookingsstore

import "time"

// Notification is a message claimed for a booking: Kind (such as
// "reminder"), ScheduledFor (when it was due) and the Recipient it went
// to.
type Notification struct {
	BookingID    int64
	Kind         string
	ScheduledFor time.Time
	Recipient    string
	ClaimedAt    time.Time
}

// FeedStamp is what a provider feed's ETag is made of.
type FeedStamp struct {
	// LastUpdated is the latest updated_at (zero with no bookings).
	LastUpdated time.Time
	// ServicesUpdated is the latest updated_at of any service (their
	// names are in the events).
	ServicesUpdated time.Time
	// Count counts the bookings, Live those not cancelled.
	Count, Live int
}
