package calendars

import (
	"context"
	"time"

	"github.com/groundwork-go/groundwork/bookings"
)

// ErrNotFound is bookings.ErrNotFound: no such connection (or provider).
var ErrNotFound = bookings.ErrNotFound

// Store keeps the providers' external calendars: their connections, the
// sync state, and the busy periods read from them. Implementation:
// calendarssql (SQLite and Postgres, in the bookings tables);
// calendarstest.RunStoreTests pins the contract below. Times are UTC to
// the microsecond.
//
// Store is this package's adapter seam, as bookings.Store is the
// domain's: the one interface a storage engine implements, and the only
// way the service reaches its data. Each method is atomic on its own.
type Store interface {
	// CreateConnection stores c and returns it with its ID, no sync
	// state, and its first sync due at c.NextSyncAt; ErrNotFound without
	// the provider.
	CreateConnection(ctx context.Context, c Connection) (Connection, error)
	// Connection returns a connection, or ErrNotFound.
	Connection(ctx context.Context, id int64) (Connection, error)
	// ListConnections returns a provider's connections, every provider's
	// with providerID 0, by ID.
	ListConnections(ctx context.Context, providerID int64) ([]Connection, error)
	// UpdateConnection writes c's name, endpoint, user name, sealed
	// secret, calendars, destination, BlockWhenStale and NextSyncAt (its
	// sync state stays); ErrNotFound.
	UpdateConnection(ctx context.Context, c Connection) (Connection, error)
	// DeleteConnection deletes a connection and its busy periods;
	// ErrNotFound.
	DeleteConnection(ctx context.Context, id int64) error
	// ClaimSync takes a connection's sync until until, when no claim holds
	// at now: on every instance, one sync of a connection runs at a time.
	// False when another holds it, or the connection is gone.
	ClaimSync(ctx context.Context, id int64, now, until time.Time) (bool, error)
	// DueSyncs returns up to limit connections whose next sync is due at
	// now and that no claim holds, the longest due first.
	DueSyncs(ctx context.Context, now time.Time, limit int) ([]int64, error)
	// FinishSync records a good read in one transaction: the connection's
	// busy periods overlapping [From, To) replaced by Periods (unless
	// NotModified), its ETag and LastModified, SyncedAt, SyncedUntil
	// (moved on to To, never back), the Warning as its last error
	// (NotModified keeps the last read's warning but clears a failure's
	// reason), no failures, the next sync, the claim let go. ErrNotFound.
	FinishSync(ctx context.Context, s Sync) error
	// FailSync records a failed read: its reason, one failure more, the
	// next sync, the claim let go; ErrNotFound.
	FailSync(ctx context.Context, id int64, reason string, next time.Time) error
	// BusyPeriods returns a connection's stored busy periods overlapping
	// [from, to), by start.
	BusyPeriods(ctx context.Context, connectionID int64, from, to time.Time) ([]bookings.Period, error)
	// Busy returns the busy time of every connection of the providers
	// overlapping [from, to), merged per provider and sorted by start
	// (what the booking rules read: a provider is busy whenever one of
	// their calendars is). Providers with none are left out.
	Busy(ctx context.Context, providerIDs []int64, from, to time.Time) (map[int64][]bookings.Period, error)
}
