package bookings_test

import (
	"context"
	"database/sql"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// The slot filter drops slots from the list; the provider filter changes
// who is tried.
func TestFilterHooks(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	st := bookingssql.New(b.db)
	bo := newProvider(t, st, "bo", "America/New_York")
	weekdays(t, st, bo.ID, 9*60, 17*60)
	require.NoError(t, st.LinkProvider(context.Background(), b.service.ID, bo.ID, nil, nil))
	b.svc.OnSlots(func(_ context.Context, _ bookings.Offering, slots []bookings.Slot) []bookings.Slot {
		var out []bookings.Slot
		for _, s := range slots {
			if s.Start.Minute() == 0 {
				out = append(out, s)
			}
		}
		return out
	})
	b.svc.OnProviders(func(_ context.Context, _ bookings.Offering, offers []bookings.Offer) []bookings.Offer {
		var out []bookings.Offer
		for _, o := range offers {
			if o.Slug == "bo" {
				out = append(out, o)
			}
		}
		return out
	})
	require.Len(t, daySlots(t, b, b.service, "2026-06-02", 0), 8, "on the hour only: 09:00 to 16:00")
	bk, _, err := b.svc.Create(context.Background(), bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-02T13:00:00Z"),
		CustomerName: "G", CustomerEmail: "g@example.com"})
	require.NoError(t, err)
	require.Equal(t, bo.ID, *bk.ProviderID, "the filter chose")
}

// Intake answers are checked against the service's current schema, and
// errors are keyed intake_data.<field>; unknown answers are dropped.
func TestIntake(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	svc := b.service
	svc.Slug = "intake"
	svc.IntakeSchema = &bookings.IntakeSchema{Fields: []bookings.IntakeField{
		{Name: "topic", Type: "select", Label: "Topic", Required: true, Options: []string{"tax", "law"}},
		{Name: "age", Type: "integer", Label: "Age"},
		{Name: "email2", Type: "email", Label: "Other email"},
		{Name: "tags", Type: "checkboxes", Label: "Tags", Options: []string{"a", "b"}},
		{Name: "ok", Type: "checkbox", Label: "OK"},
	}}
	st := bookingssql.New(b.db)
	svc, err := st.CreateService(context.Background(), svc)
	require.NoError(t, err)
	require.NoError(t, st.LinkProvider(context.Background(), svc.ID, b.provider.ID, nil, nil))
	code, body := b.do(t, "POST", "/api/bookings", `{"service":"intake","start_time":"2026-06-02T13:00:00Z","customer_name":"G","customer_email":"g@example.com",
		"intake_data":{"topic":"art","age":3.5,"email2":"nope","tags":["a","c"],"ok":"yes"}}`)
	require.Equal(t, 422, code)
	for _, f := range []string{"intake_data.topic", "intake_data.age", "intake_data.email2", "intake_data.tags", "intake_data.ok"} {
		require.Contains(t, body, `"`+f+`"`)
	}
	code, body = b.do(t, "POST", "/api/bookings", `{"service":"intake","start_time":"2026-06-02T13:00:00Z","customer_name":"G","customer_email":"g@example.com",
		"intake_data":{}}`)
	require.Equal(t, 422, code)
	require.Contains(t, body, "The Topic field is required.")
	many := `{`
	for i := range 101 {
		if i > 0 {
			many += ","
		}
		many += `"k` + itoa(int64(i)) + `":1`
	}
	code, body = b.do(t, "POST", "/api/bookings", `{"service":"intake","start_time":"2026-06-02T13:00:00Z","customer_name":"G","customer_email":"g@example.com",
		"intake_data":`+many+`}}`)
	require.Equal(t, 422, code)
	require.Contains(t, body, bookings.MsgTooManyAnswers)
	code, body = b.do(t, "POST", "/api/bookings", `{"service":"intake","start_time":"2026-06-02T13:00:00Z","customer_name":"G","customer_email":"g@example.com",
		"intake_data":{"topic":"law","age":42,"tags":["b"],"ok":true,"stray":"dropped"}}`)
	require.Equal(t, 201, code, body)
	got, err := b.svc.Booking(context.Background(), 1)
	require.NoError(t, err)
	require.Equal(t, map[string]any{"topic": "law", "age": float64(42), "tags": []any{"b"}, "ok": true}, got.IntakeData)
	require.Equal(t, 1, got.IntakeVersion)
}

// Every change records its events inside its own transaction: an
// OnEventTx hook that fails undoes the change, so an outbox written there
// holds an event for every change stored and none for a change undone.
func TestEventTxHooksRunInsideTheChange(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, d)
		ctx := context.Background()
		var fail atomic.Bool
		var recorded []string
		b.svc.OnEventTx(func(ctx context.Context, tx *sql.Tx, e bookings.Event) error {
			// The change is visible inside its own transaction.
			var status string
			require.NoError(t, tx.QueryRowContext(ctx, b.db.Rebind(`SELECT status FROM bookings_bookings WHERE id = ?`), e.Booking.ID).Scan(&status))
			require.Equal(t, string(e.Booking.Status), status)
			if fail.Load() {
				return errors.New("outbox down")
			}
			recorded = append(recorded, e.Type)
			return nil
		})
		nb := bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-02T14:00:00Z"), CustomerName: "Grace",
			CustomerEmail: "grace@example.com"}

		fail.Store(true)
		_, _, err := b.svc.Create(ctx, nb)
		require.ErrorContains(t, err, "outbox down")
		list, total, err := b.svc.ListBookings(ctx, bookings.BookingFilter{})
		require.NoError(t, err)
		require.Zero(t, total, "the booking was undone with its event: %v", list)

		fail.Store(false)
		bk, _, err := b.svc.Create(ctx, nb)
		require.NoError(t, err)
		fail.Store(true)
		for name, change := range map[string]func() error{
			"cancel": func() error { _, err := b.svc.Cancel(ctx, bk.ID, bookings.ActorAdmin, ""); return err },
			"reschedule": func() error {
				_, err := b.svc.Reschedule(ctx, bk.ID, mustTime("2026-06-02T15:00:00Z"), bookings.ActorAdmin)
				return err
			},
			"reissue": func() error { _, err := b.svc.ReissueManageToken(ctx, bk.ID); return err },
			"erase":   func() error { _, err := b.svc.EraseCustomer(ctx, "grace@example.com"); return err },
		} {
			require.ErrorContains(t, change(), "outbox down", name)
		}
		still, err := b.svc.Booking(ctx, bk.ID)
		require.NoError(t, err)
		require.Equal(t, bk, still, "every failed change was undone")

		fail.Store(false)
		_, err = b.svc.Reschedule(ctx, bk.ID, mustTime("2026-06-02T15:00:00Z"), bookings.ActorAdmin)
		require.NoError(t, err)
		_, err = b.svc.ReissueManageToken(ctx, bk.ID)
		require.NoError(t, err)
		b.clock.Set(mustTime("2026-06-03T00:00:00Z"))
		n, err := b.svc.CompletePast(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		numbers, err := b.svc.EraseCustomer(ctx, "grace@example.com")
		require.NoError(t, err)
		require.Equal(t, []string{bk.Number}, numbers)
		require.Equal(t, []string{bookings.EventCreated, bookings.EventRescheduled, bookings.EventManageTokenReissued,
			bookings.EventCompleted, bookings.EventErased}, recorded)
	})
}
