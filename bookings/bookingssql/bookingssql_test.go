package bookingssql_test

import (
	"context"
	"database/sql"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/bookings/bookingstest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

func TestStore(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		bookingstest.RunStoreTests(t, func(t *testing.T) bookings.Store {
			return bookingssql.New(storetest.Open(t, d, bookingssql.Migrations))
		})
	})
}

// In a caller's transaction on Postgres, Reserve takes its locks under
// its own lock_timeout and sets the caller's back after: the rest of the
// caller's work waits as long as the caller chose.
func TestReserveRestoresLockTimeout(t *testing.T) {
	t.Parallel()
	if !slices.Contains(storetest.Dialects(), store.Postgres) {
		t.Skip("Postgres only: set TEST_DATABASE_URL")
	}
	ctx := context.Background()
	db := storetest.Open(t, store.Postgres, bookingssql.Migrations)
	st := bookingssql.New(db)
	at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	v, err := st.CreateService(ctx, bookings.Offering{Slug: "cut", Name: "Cut", Duration: 45, TimeZone: "UTC",
		AssignmentStrategy: bookings.AssignRoundRobin, MaxBookingsPerSlot: 1, IsActive: true, CreatedAt: at, UpdatedAt: at})
	require.NoError(t, err)
	p, err := st.CreateProvider(ctx, bookings.Provider{Slug: "al", Name: "Al", TimeZone: "UTC", IsActive: true, CreatedAt: at, UpdatedAt: at})
	require.NoError(t, err)
	reservation := func(number string, start time.Time) bookings.Reservation {
		pid := p.ID
		return bookings.Reservation{Booking: bookings.Booking{Number: number, ServiceID: v.ID, ProviderID: &pid, Status: bookings.StatusConfirmed,
			Start: start, End: start.Add(45 * time.Minute), CreatedAt: at, UpdatedAt: at}, ManageTokenHash: []byte(number),
			Lock: "al|2026-06-02", Locks: []string{"al|week"}, LockWait: 200 * time.Millisecond, BusyFrom: start, BusyTo: start}
	}
	timeout := func(tx *sql.Tx) string {
		var v string
		require.NoError(t, tx.QueryRowContext(ctx, `SELECT current_setting('lock_timeout')`).Scan(&v))
		return v
	}
	start := time.Date(2026, 6, 2, 9, 0, 0, 0, time.UTC)
	// Joined through the context, and handed over.
	require.NoError(t, st.RunInTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `SET LOCAL lock_timeout = '7s'`)
		require.NoError(t, err)
		_, err = st.Reserve(ctx, nil, reservation("BK-1", start))
		require.NoError(t, err)
		require.Equal(t, "7s", timeout(tx))
		_, err = st.Reserve(context.Background(), tx, reservation("BK-2", start.Add(time.Hour)))
		require.NoError(t, err)
		require.Equal(t, "7s", timeout(tx))
		return nil
	}))
}
