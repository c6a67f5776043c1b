package waitlist

import (
	"context"
	"time"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/store"
)

// ErrNotFound is bookings.ErrNotFound: no such entry, service or offer.
var ErrNotFound = bookings.ErrNotFound

// Store keeps the waitlists. Implementation: waitlistsql (SQLite and
// Postgres, in the bookings tables); waitlisttest.RunStoreTests pins the
// contract below. Times are UTC to the microsecond. A method called with
// the context RunInTx gives joins that transaction.
type Store interface {
	store.Transactor
	// Add stores e (waiting) and returns it with its ID and true; when the
	// customer (by email, in any case) already waits for, or has been
	// offered, that time of that service, it returns that entry and false.
	// ErrNotFound without the service.
	Add(ctx context.Context, e Entry) (Entry, bool, error)
	// Waiting returns up to limit entries waiting for a time of the
	// service in [from, to), in line (by ID), locked for the caller's
	// transaction: another transaction asking for them waits until it
	// ends, and is then given those still waiting (on SQLite the one
	// writer makes them take turns).
	Waiting(ctx context.Context, serviceID int64, from, to time.Time, limit int) ([]Entry, error)
	// Update writes e's status, provider, offer (hash, sealed token,
	// times), booking and UpdatedAt, if it is still from; ErrNotFound when
	// it is not (another instance moved it first) or is gone.
	Update(ctx context.Context, e Entry, from Status) (Entry, error)
	// ByOffer returns the entry whose offer token hashes to hash, or
	// ErrNotFound.
	ByOffer(ctx context.Context, hash []byte) (Entry, error)
	// Entries returns the entries of a service (every service's with 0)
	// whose time is at or after from, by start then ID.
	Entries(ctx context.Context, serviceID int64, from time.Time) ([]Entry, error)
	// Lapsed returns up to limit entries that are offered with an offer
	// expired at now, or waiting for a time before now, the oldest first.
	Lapsed(ctx context.Context, now time.Time, limit int) ([]Entry, error)
	// Prune deletes the entries whose time is before before, whatever
	// their status, and returns how many.
	Prune(ctx context.Context, before time.Time) (int, error)
	// Erase deletes every entry of a customer's email (in any case), and
	// returns how many.
	Erase(ctx context.Context, email string) (int, error)
}
