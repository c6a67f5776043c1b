package bookings_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// everyValue is every column of every row of the tables, as text.
func everyValue(t *testing.T, db *store.DB, tables ...string) []string {
	t.Helper()
	var out []string
	for _, table := range tables {
		rows, err := db.Queryx("SELECT * FROM " + table)
		require.NoError(t, err)
		for rows.Next() {
			cols, err := rows.SliceScan()
			require.NoError(t, err)
			for _, c := range cols {
				if b, ok := c.([]byte); ok {
					c = string(b)
				}
				out = append(out, fmt.Sprint(c))
			}
		}
		require.NoError(t, rows.Err())
		rows.Close()
	}
	return out
}

func TestEraseCustomer(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		db := storetest.Open(t, d, bookingssql.Migrations)
		m := setupMail(t, db, nil)
		ctx := context.Background()
		st := m.svc.Store()
		svc, err := st.ServiceBySlug(ctx, "consultation")
		require.NoError(t, err)
		svc.IntakeSchema = &bookings.IntakeSchema{Fields: []bookings.IntakeField{{Name: "allergy", Type: "text", Label: "Allergies"}}}
		svc.IntakeSchemaVersion = 2
		_, err = st.UpdateService(ctx, svc)
		require.NoError(t, err)
		secrets := []string{"Grace Brewster Hopper", "grace.hopper@example.com", "+1 555 0100", "Pacific/Auckland", "Penicillin-XYZ", "Parks at the back"}
		var tokens []string
		seen := 0
		for i, start := range []string{"2026-06-02T14:00:00Z", "2026-06-03T14:00:00Z"} {
			email := secrets[1]
			if i == 1 {
				email = "Grace.Hopper@Example.com" // the same customer in other case
			}
			_, token, err := m.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime(start), CustomerName: secrets[0],
				CustomerEmail: email, CustomerPhone: secrets[2], CustomerTimeZone: secrets[3], IntakeData: map[string]any{"allergy": secrets[4]},
				Notes: secrets[5]})
			require.NoError(t, err)
			tokens = append(tokens, token)
			m.next(t, &seen, 2) // the provider's and the confirmation
		}
		other, _, err := m.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-04T14:00:00Z"),
			CustomerName: "Alan", CustomerEmail: "alan@example.com"})
		require.NoError(t, err)
		m.next(t, &seen, 2)
		m.clock.Set(mustTime("2026-06-01T14:00:00Z")) // reminders due for the first
		n, err := m.svc.SendReminders(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		m.next(t, &seen, 1)
		tables := []string{"bookings_bookings", "bookings_notification_log", "bookings_holds", "river_job"}
		joined := strings.Join(everyValue(t, db, tables...), "\n")
		for _, s := range secrets {
			require.Contains(t, joined, s, "stored before")
		}

		numbers, err := m.svc.EraseCustomer(ctx, " GRACE.HOPPER@example.com ")
		require.NoError(t, err)
		require.Len(t, numbers, 2)
		joined = strings.ToLower(strings.Join(everyValue(t, db, tables...), "\n"))
		for _, s := range secrets {
			require.NotContains(t, joined, strings.ToLower(s), "nothing survives")
		}
		require.Contains(t, joined, "alan@example.com", "other customers are kept")
		for _, token := range tokens {
			_, _, err := m.svc.Managed(ctx, token)
			require.ErrorIs(t, err, bookings.ErrBadManageToken)
			_, err = m.svc.CustomerFeed(ctx, token, "")
			require.ErrorIs(t, err, bookings.ErrBadManageToken)
		}
		list, total, err := m.svc.ListBookings(ctx, bookings.BookingFilter{})
		require.NoError(t, err)
		require.Equal(t, 3, total, "the rows stay")
		require.Equal(t, other.ID, list[2].ID)
		_, err = m.svc.EraseCustomer(ctx, " ")
		var v *bookings.ValidationError
		require.ErrorAs(t, err, &v)
	})
}

func TestCompletePastAndPrune(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, d)
		ctx := context.Background()
		var completed []int64
		b.svc.OnEvent(func(_ context.Context, e bookings.Event) {
			if e.Type == bookings.EventCompleted {
				completed = append(completed, e.Booking.ID)
			}
		})
		past, _ := bookWithToken(t, b, "2026-06-02T14:00:00Z")
		later, _ := bookWithToken(t, b, "2026-06-03T14:00:00Z")
		cancelled, _ := bookWithToken(t, b, "2026-06-02T15:00:00Z")
		_, err := b.svc.Cancel(ctx, cancelled.ID, bookings.ActorAdmin, "")
		require.NoError(t, err)
		b.clock.Set(mustTime("2026-06-02T14:30:00Z")) // past has just ended
		n, err := b.svc.CompletePast(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		require.Equal(t, []int64{past.ID}, completed)
		got, err := b.svc.Booking(ctx, past.ID)
		require.NoError(t, err)
		require.Equal(t, bookings.StatusCompleted, got.Status)
		got, err = b.svc.Booking(ctx, later.ID)
		require.NoError(t, err)
		require.Equal(t, bookings.StatusConfirmed, got.Status)

		// Kept three years after they end, then deleted.
		b.clock.Set(past.End.Add(bookings.RetentionDefault - time.Second))
		n, err = b.svc.PruneBookings(ctx)
		require.NoError(t, err)
		require.Zero(t, n)
		b.clock.Set(cancelled.End.Add(bookings.RetentionDefault + time.Second))
		n, err = b.svc.PruneBookings(ctx)
		require.NoError(t, err)
		require.Equal(t, 2, n, "the completed and the cancelled one")
		_, total, err := b.svc.ListBookings(ctx, bookings.BookingFilter{})
		require.NoError(t, err)
		require.Equal(t, 1, total)

		keep, err := bookings.NewService(b.svc.Store(), &bookings.Options{Now: b.clock.Now, Retention: -1})
		require.NoError(t, err)
		b.clock.Set(mustTime("2040-01-01T00:00:00Z"))
		n, err = keep.PruneBookings(ctx)
		require.NoError(t, err)
		require.Zero(t, n, "kept for ever")
	})
}
