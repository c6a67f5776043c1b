package bookings_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// The rules through the admin API: each mistake named where it is, what
// is set answered back (the service's on the public API too), a place
// removed by an empty kind.
func TestAdminServiceRules(t *testing.T) {
	t.Parallel()
	a := setupAdmin(t, store.SQLite)
	for _, c := range []struct{ body, field string }{
		{`{"limits":[{"period":"year","bookings":3}]}`, "limits.0.period"},
		{`{"limits":[{"period":"day","bookings":3},{"period":"day","minutes":60}]}`, "limits.1.period"},
		{`{"limits":[{"period":"week"}]}`, "limits.0"},
		{`{"limits":[{"period":"week","bookings":-1}]}`, "limits.0.bookings"},
		{`{"lengths":[{"minutes":0}]}`, "lengths.0.minutes"},
		{`{"lengths":[{"minutes":30},{"minutes":30}]}`, "lengths.1.minutes"},
		{`{"lengths":[{"minutes":30,"price":"1.234"}]}`, "lengths.0.price"},
		{`{"location":{"kind":"moon","value":"x"}}`, "location.kind"},
		{`{"location":{"kind":"video","value":"http://meet.example.com/x"}}`, "location.value"},
		{`{"location":{"kind":"address","value":" "}}`, "location.value"},
		{`{"currency":"euro"}`, "currency"},
		{`{"confirm_within_hours":-1}`, "confirm_within_hours"},
	} {
		code, body := a.call(t, manager, "PATCH", "/services/consultation", c.body)
		require.Equal(t, 422, code, c.body)
		require.Contains(t, body, `"`+c.field+`"`, c.body)
	}
	code, body := a.call(t, manager, "PATCH", "/services/consultation", `{"requires_confirmation":true,"confirm_within_hours":48,
		"limits":[{"period":"day","bookings":3},{"period":"week","minutes":600}],"lengths":[{"minutes":60,"price":"45.00"},{"minutes":30}],
		"location":{"kind":"address","value":"1 Main Street, Springfield"},"currency":"eur"}`)
	require.Equal(t, 200, code, body)
	var got struct{ Data bookings.ServiceRules }
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	price := "45.00"
	require.Equal(t, bookings.ServiceRules{RequiresConfirmation: true, ConfirmWithinHours: 48,
		Limits:   []bookings.Limit{{Period: "day", Bookings: 3}, {Period: "week", Minutes: 600}},
		Lengths:  []bookings.LengthChoice{{Minutes: 30}, {Minutes: 60, Price: &price}}, // in order of length
		Location: &bookings.Location{Kind: "address", Value: "1 Main Street, Springfield"}, Currency: "EUR"}, got.Data)
	code, body = a.do(t, "GET", "/api/bookings/services", "")
	require.Equal(t, 200, code)
	require.Contains(t, body, `"location":{"kind":"address","value":"1 Main Street, Springfield"}`)
	require.Contains(t, body, `"currency":"EUR"`)
	code, body = a.call(t, manager, "PATCH", "/services/consultation", `{"location":{"kind":""}}`)
	require.Equal(t, 200, code, body)
	require.NotContains(t, body, `"location"`)
	require.Contains(t, body, `"limits"`, "the rest stands")

	code, body = a.call(t, manager, "PATCH", fmt.Sprintf("/providers/%d", a.provider.ID), `{"limits":[{"period":"month","bookings":0}]}`)
	require.Equal(t, 422, code, body)
	code, body = a.call(t, manager, "PATCH", fmt.Sprintf("/providers/%d", a.provider.ID),
		`{"limits":[{"period":"month","bookings":40}],"location":{"kind":"video","value":"https://meet.example.com/ada"}}`)
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `"limits":[{"period":"month","bookings":40}]`)
	require.Contains(t, body, `"location":{"kind":"video","value":"https://meet.example.com/ada"}`)
	code, body = a.do(t, "GET", "/api/bookings/services/consultation/providers", "")
	require.Equal(t, 200, code)
	require.NotContains(t, body, "limits", "a provider's limits are the admin's to see")
}

// A service that asks for approval only when booked less than 48 hours
// ahead: sooner is requested, later confirmed at once.
func TestApprovalPerService(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	ctx := context.Background()
	yes, within := true, 48
	_, err := b.svc.UpdateService(ctx, "consultation", bookings.OfferingInput{RequiresConfirmation: &yes, ConfirmWithinHours: &within})
	require.NoError(t, err)
	soon, _, err := b.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-02T15:00:00Z"),
		CustomerName: "Grace", CustomerEmail: "grace@example.com"})
	require.NoError(t, err)
	require.Equal(t, bookings.StatusRequested, soon.Status)
	later, _, err := b.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-05T15:00:00Z"),
		CustomerName: "Ada", CustomerEmail: "ada@example.com"})
	require.NoError(t, err)
	require.Equal(t, bookings.StatusConfirmed, later.Status)
	within = 0
	_, err = b.svc.UpdateService(ctx, "consultation", bookings.OfferingInput{ConfirmWithinHours: &within})
	require.NoError(t, err)
	always, _, err := b.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-08T15:00:00Z"),
		CustomerName: "Alan", CustomerEmail: "alan@example.com"})
	require.NoError(t, err)
	require.Equal(t, bookings.StatusRequested, always.Status, "without a bound, every booking asks")
}

// startsOn are the slot starts of b's service on date, as "15:04" UTC.
func startsOn(t *testing.T, b *bundle, svc bookings.Offering, date string) []string {
	t.Helper()
	from := mustTime(date + "T00:00:00Z")
	slots, err := b.svc.Slots(context.Background(), svc, bookings.SlotQuery{From: from, To: from.Add(24 * time.Hour)})
	require.NoError(t, err)
	out := []string{}
	for _, s := range slots {
		out = append(out, s.Start.UTC().Format("15:04"))
	}
	return out
}

// Limits: a provider's bookings a day and a service's booked minutes a
// week; slots a limit closes are not offered and cannot be booked or
// moved into; cancelling gives the place back.
func TestBookingLimits(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	ctx := context.Background()
	book := func(start string) (bookings.Booking, string, error) {
		return b.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime(start), CustomerName: "G", CustomerEmail: "g@example.com"})
	}
	limits := []bookings.Limit{{Period: bookings.PeriodDay, Bookings: 2}}
	_, err := b.svc.UpdateProvider(ctx, b.provider.ID, bookings.ProviderInput{Limits: &limits})
	require.NoError(t, err)
	svc, err := b.svc.ActiveService(ctx, "consultation")
	require.NoError(t, err)
	_, _, err = book("2026-06-02T14:00:00Z")
	require.NoError(t, err)
	require.Contains(t, startsOn(t, b, svc, "2026-06-02"), "16:00")
	second, token, err := book("2026-06-02T15:00:00Z")
	require.NoError(t, err)
	require.Empty(t, startsOn(t, b, svc, "2026-06-02"), "two a day: the day is closed")
	require.NotEmpty(t, startsOn(t, b, svc, "2026-06-03"), "the next day is not")
	_, _, err = book("2026-06-02T16:00:00Z")
	require.ErrorIs(t, err, bookings.ErrSlotTaken)
	_, err = b.svc.Reschedule(ctx, second.ID, mustTime("2026-06-02T17:00:00Z"), bookings.ActorAdmin)
	require.NoError(t, err, "moving within the day keeps the count")
	third, _, err := book("2026-06-03T14:00:00Z")
	require.NoError(t, err)
	_, err = b.svc.Reschedule(ctx, third.ID, mustTime("2026-06-02T18:00:00Z"), bookings.ActorAdmin)
	require.Error(t, err, "moving into a full day is refused")
	_, _, err = b.svc.CancelManaged(ctx, token, "")
	require.NoError(t, err)
	require.Contains(t, startsOn(t, b, svc, "2026-06-02"), "16:00", "a cancelled booking gives its place back")

	// A week of 90 booked minutes of this service (30-minute bookings):
	// the third of the week closes it, in any day of the week.
	week := []bookings.Limit{{Period: bookings.PeriodWeek, Minutes: 90}}
	_, err = b.svc.UpdateService(ctx, "consultation", bookings.OfferingInput{Limits: &week})
	require.NoError(t, err)
	svc, err = b.svc.ActiveService(ctx, "consultation")
	require.NoError(t, err)
	_, _, err = book("2026-06-09T14:00:00Z") // the week of 7 June (weeks start on Sunday by default)
	require.NoError(t, err)
	_, _, err = book("2026-06-10T14:00:00Z")
	require.NoError(t, err)
	require.NotEmpty(t, startsOn(t, b, svc, "2026-06-12"))
	_, _, err = book("2026-06-11T14:00:00Z")
	require.NoError(t, err)
	for _, day := range []string{"2026-06-08", "2026-06-12"} {
		require.Empty(t, startsOn(t, b, svc, day), day)
	}
	require.NotEmpty(t, startsOn(t, b, svc, "2026-06-15"), "next week is open")
	_, _, err = book("2026-06-12T14:00:00Z")
	require.ErrorIs(t, err, bookings.ErrSlotTaken)
}

// Racing creates on two instances: three a day, and three a week spread
// over different days (so different day locks), are three stored, on
// SQLite and on one Postgres database.
func TestBookingLimitsUnderRacingCreates(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		dsn := storetest.DSN(t, d)
		one := setupOn(t, storetest.OpenDSN(t, dsn, bookingssql.Migrations))
		targets := []*bundle{one}
		if d == store.Postgres {
			targets = append(targets, setupOnShared(t, storetest.OpenDSN(t, dsn, bookingssql.Migrations)))
		}
		ctx := context.Background()
		day := []bookings.Limit{{Period: bookings.PeriodDay, Bookings: 3}}
		_, err := one.svc.UpdateService(ctx, "consultation", bookings.OfferingInput{Limits: &day})
		require.NoError(t, err)
		counts := race(t, targets, 24, func(i int) string {
			return bookBody("consultation", mustTime("2026-06-02T13:00:00Z").Add(time.Duration(i%16)*15*time.Minute).Format(time.RFC3339))
		})
		require.Equal(t, 3, counts[201], "%v", counts)
		require.Equal(t, 21, counts[409], "%v", counts)

		week := []bookings.Limit{{Period: bookings.PeriodWeek, Bookings: 3}}
		_, err = one.svc.UpdateService(ctx, "consultation", bookings.OfferingInput{Limits: &week})
		require.NoError(t, err)
		counts = race(t, targets, 20, func(i int) string {
			// Monday 15 June to Friday 19 June, four times a day.
			return bookBody("consultation", mustTime("2026-06-15T14:00:00Z").AddDate(0, 0, i%5).Add(time.Duration(i/5)*30*time.Minute).Format(time.RFC3339))
		})
		require.Equal(t, 3, counts[201], "%v", counts)
		require.Equal(t, 17, counts[409], "%v", counts)
		list, _, err := one.svc.Store().ListBookings(ctx, bookings.BookingFilter{From: mustTime("2026-06-14T00:00:00Z"), To: mustTime("2026-06-21T00:00:00Z"), Limit: 100})
		require.NoError(t, err)
		require.Len(t, list, 3)
	})
}

// Lengths the customer picks: the slot list, holds, bookings and moves
// take the chosen length; a length not offered is named; a provider's own
// length still wins.
func TestChosenLengths(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	ctx := context.Background()
	lengths := []bookings.LengthChoice{{Minutes: 30}, {Minutes: 90, Price: ptr("60.00")}}
	_, err := b.svc.UpdateService(ctx, "consultation", bookings.OfferingInput{Lengths: &lengths})
	require.NoError(t, err)

	code, body := b.do(t, "GET", "/api/bookings/services/consultation/slots?from=2026-06-02&to=2026-06-02&length=90", "")
	require.Equal(t, 200, code, body)
	var slots struct{ Data []struct{ Start, End string } }
	require.NoError(t, json.Unmarshal([]byte(body), &slots))
	require.NotEmpty(t, slots.Data)
	last := slots.Data[len(slots.Data)-1]
	require.Equal(t, "2026-06-02T19:30:00+00:00", last.Start, "90 minutes fit until 17:00 New York")
	require.Equal(t, "2026-06-02T21:00:00+00:00", last.End)
	code, body = b.do(t, "GET", "/api/bookings/services/consultation/slots?from=2026-06-02&to=2026-06-02&length=45", "")
	require.Equal(t, 422, code)
	require.Contains(t, body, "The selected length is not offered for this service.")

	code, body = b.do(t, "POST", "/api/bookings/services/consultation/holds", `{"start_time":"2026-06-02T15:00:00Z","length":90}`)
	require.Equal(t, 201, code, body)
	require.Contains(t, body, `"end":"2026-06-02T16:30:00+00:00"`)
	var held struct {
		Data struct {
			HoldToken string `json:"hold_token"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(body), &held))
	code, body = b.do(t, "POST", "/api/bookings", `{"service":"consultation","start_time":"2026-06-02T15:00:00Z","customer_name":"Grace",
		"customer_email":"grace@example.com","hold_token":"`+held.Data.HoldToken+`"}`)
	require.Equal(t, 201, code, body)
	require.Contains(t, body, `"end_time":"2026-06-02T16:30:00+00:00"`, "the hold's length")
	code, body = b.do(t, "POST", "/api/bookings", `{"service":"consultation","start_time":"2026-06-03T15:00:00Z","customer_name":"Ada",
		"customer_email":"ada@example.com","length":30}`)
	require.Equal(t, 201, code, body)
	require.Contains(t, body, `"end_time":"2026-06-03T15:30:00+00:00"`)
	code, body = b.do(t, "POST", "/api/bookings", `{"service":"consultation","start_time":"2026-06-03T17:00:00Z","customer_name":"Ada",
		"customer_email":"ada@example.com","length":20}`)
	require.Equal(t, 422, code, body)

	long, token, err := b.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-04T15:00:00Z"), Length: 90,
		CustomerName: "Alan", CustomerEmail: "alan@example.com"})
	require.NoError(t, err)
	require.Equal(t, 90*time.Minute, long.End.Sub(long.Start))
	moved, _, err := b.svc.RescheduleManaged(ctx, token, "2026-06-05T14:00:00Z")
	require.NoError(t, err)
	require.Equal(t, 90*time.Minute, moved.End.Sub(moved.Start), "a move keeps the length")

	custom := 45
	require.NoError(t, b.svc.Store().LinkProvider(ctx, b.service.ID, b.provider.ID, &custom, nil))
	own, _, err := b.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-08T15:00:00Z"), Length: 90,
		CustomerName: "Edsger", CustomerEmail: "edsger@example.com"})
	require.NoError(t, err)
	require.Equal(t, 45*time.Minute, own.End.Sub(own.Start), "the provider's own length wins")
}

// Where: a provider's place wins over the service's; a video meeting
// without a fixed link gets one from the host's hook inside the booking's
// transaction; the place is on the booking, its page, its mail and its
// calendar file (LOCATION, and URL for a video link).
func TestBookingPlace(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite, bookingssql.Migrations)
	b := setupOn(t, db)
	ctx := context.Background()
	outbox := mail.NewOutbox(nil)
	var inTx bool
	q, err := store.NewQueue(db, &store.QueueOptions{TestOnly: true, FetchPollInterval: 50 * time.Millisecond})
	require.NoError(t, err)
	svc, err := bookings.NewService(bookingssql.New(db), &bookings.Options{Now: b.clock.Now, Mailer: outbox, MailFrom: "desk@example.test", SecretKey: calendarKey, Enqueuer: q,
		VideoLink: func(ctx context.Context, tx *sql.Tx, bk bookings.Booking) (string, error) {
			inTx = tx != nil
			return "https://meet.example.com/" + strings.ToLower(bk.Number), nil
		}})
	require.NoError(t, err)
	require.NoError(t, bookings.RegisterWorkers(q.Workers(), svc))
	require.NoError(t, q.Start(ctx))
	t.Cleanup(func() { require.NoError(t, q.Stop(context.Background())) })
	addr := bookings.Location{Kind: bookings.LocationAddress, Value: "1 Main Street, Springfield"}
	_, err = svc.UpdateService(ctx, "consultation", bookings.OfferingInput{Location: &addr})
	require.NoError(t, err)
	at, _, err := svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-02T15:00:00Z"),
		CustomerName: "Grace", CustomerEmail: "grace@example.com"})
	require.NoError(t, err)
	require.Equal(t, &addr, at.Location)
	ics, err := svc.ICS(ctx, at)
	require.NoError(t, err)
	require.Contains(t, string(ics), "LOCATION:1 Main Street\\, Springfield\r\n")
	require.NotContains(t, string(ics), "\r\nURL:")

	video := bookings.Location{Kind: bookings.LocationVideo}
	_, err = svc.UpdateProvider(ctx, b.provider.ID, bookings.ProviderInput{Location: &video})
	require.NoError(t, err)
	online, token, err := svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-03T15:00:00Z"),
		CustomerName: "Ada", CustomerEmail: "ada@example.com"})
	require.NoError(t, err)
	link := "https://meet.example.com/" + strings.ToLower(online.Number)
	require.Equal(t, &bookings.Location{Kind: bookings.LocationVideo, Value: link}, online.Location, "the provider's place wins")
	require.True(t, inTx, "the link is made inside the booking's transaction")
	stored, err := svc.Store().Booking(ctx, online.ID)
	require.NoError(t, err)
	require.Equal(t, online.Location, stored.Location)
	ics, err = svc.ICS(ctx, online)
	require.NoError(t, err)
	require.Contains(t, string(ics), "URL:"+link+"\r\n")

	pages, err := bookings.NewPageHandler(svc, nil)
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	pages.ServeHTTP(rec, httptest.NewRequest("GET", "/bookings/manage/"+token, nil))
	require.Equal(t, 200, rec.Code)
	require.Contains(t, rec.Body.String(), `<dt>Where</dt><dd><a href="`+link+`">Video meeting</a></dd>`)
	require.Eventually(t, func() bool {
		for _, m := range outbox.Messages() {
			if strings.Contains(m.Text, "Where: Video: "+link) {
				return true
			}
		}
		return false
	}, 10*time.Second, 20*time.Millisecond, "the confirmation mail says where")

	_, err = svc.UpdateProvider(ctx, b.provider.ID, bookings.ProviderInput{Location: &bookings.Location{}})
	require.NoError(t, err)
	failing, err := bookings.NewService(bookingssql.New(db), &bookings.Options{Now: b.clock.Now,
		VideoLink: func(context.Context, *sql.Tx, bookings.Booking) (string, error) {
			return "", errors.New("meeting service down")
		}})
	require.NoError(t, err)
	_, err = failing.UpdateService(ctx, "consultation", bookings.OfferingInput{Location: &video})
	require.NoError(t, err)
	_, _, err = failing.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-04T15:00:00Z"),
		CustomerName: "Alan", CustomerEmail: "alan@example.com"})
	require.ErrorContains(t, err, "meeting service down")
	list, _, err := svc.Store().ListBookings(ctx, bookings.BookingFilter{From: mustTime("2026-06-04T00:00:00Z"), To: mustTime("2026-06-05T00:00:00Z"), Limit: 10})
	require.NoError(t, err)
	require.Empty(t, list, "a refused link stores nothing")
}

// CreateTx books inside the host's transaction: the host's order and the
// booking commit together or not at all, and a refusal leaves the host's
// transaction usable; on SQLite and Postgres.
func TestCreateTxInTheHostsTransaction(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		db := storetest.Open(t, d, bookingssql.Migrations)
		b := setupOn(t, db)
		ctx := context.Background()
		_, err := db.ExecContext(ctx, `CREATE TABLE shop_orders (id INTEGER PRIMARY KEY, note TEXT NOT NULL)`)
		require.NoError(t, err)
		var inTx []bookings.Event
		b.svc.OnEventTx(func(_ context.Context, tx *sql.Tx, e bookings.Event) error {
			inTx = append(inTx, e)
			return nil
		})
		nb := func(start string) bookings.NewBooking {
			return bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime(start), CustomerName: "Grace", CustomerEmail: "grace@example.com"}
		}
		orders := func() int {
			var n int
			require.NoError(t, db.GetContext(ctx, &n, `SELECT COUNT(*) FROM shop_orders`))
			return n
		}
		booked := func() int {
			_, n, err := b.svc.Store().ListBookings(ctx, bookings.BookingFilter{Limit: 100})
			require.NoError(t, err)
			return n
		}

		err = db.InTx(ctx, func(tx *sqlx.Tx) error {
			if _, err := tx.ExecContext(ctx, db.Rebind(`INSERT INTO shop_orders (id, note) VALUES (?, ?)`), 1, "one session"); err != nil {
				return err
			}
			_, _, err := b.svc.CreateTx(ctx, tx.Tx, nb("2026-06-02T15:00:00Z"))
			return err
		})
		require.NoError(t, err)
		require.Equal(t, 1, orders())
		require.Equal(t, 1, booked())
		require.Len(t, inTx, 1, "booking.created recorded in the host's transaction")

		err = db.InTx(ctx, func(tx *sqlx.Tx) error {
			if _, err := tx.ExecContext(ctx, db.Rebind(`INSERT INTO shop_orders (id, note) VALUES (?, ?)`), 2, "rolled back"); err != nil {
				return err
			}
			if _, _, err := b.svc.CreateTx(ctx, tx.Tx, nb("2026-06-03T15:00:00Z")); err != nil {
				return err
			}
			return errors.New("the payment failed")
		})
		require.ErrorContains(t, err, "the payment failed")
		require.Equal(t, 1, orders())
		require.Equal(t, 1, booked(), "the host's rollback takes the booking with it")

		err = db.InTx(ctx, func(tx *sqlx.Tx) error {
			_, _, err := b.svc.CreateTx(ctx, tx.Tx, nb("2026-06-02T15:00:00Z"))
			require.ErrorIs(t, err, bookings.ErrSlotTaken)
			_, err = tx.ExecContext(ctx, db.Rebind(`INSERT INTO shop_orders (id, note) VALUES (?, ?)`), 3, "waiting list")
			return err
		})
		require.NoError(t, err, "a refusal leaves the transaction usable")
		require.Equal(t, 2, orders())
		require.Equal(t, 1, booked())
		_, _, err = b.svc.CreateTx(ctx, nil, nb("2026-06-04T15:00:00Z"))
		require.Error(t, err)
	})
}

// collectiveSite adds to b's site Bob (New York, weekdays 12:00-20:00),
// his own service "bob-call", and a collective service "panel" of Ada and
// Bob.
func collectiveSite(t *testing.T, b *bundle) (bookings.Provider, bookings.Offering) {
	t.Helper()
	ctx := context.Background()
	st := bookingssql.New(b.db)
	bob := newProvider(t, st, "bob", "America/New_York")
	weekdays(t, st, bob.ID, 12*60, 20*60)
	call := newOffering(t, st, "bob-call", 30)
	require.NoError(t, st.LinkProvider(ctx, call.ID, bob.ID, nil, nil))
	strategy := bookings.AssignCollective
	name, dur := "Panel", 30
	panel, err := b.svc.CreateService(ctx, bookings.OfferingInput{Name: &name, Duration: &dur, TimeZone: ptr("America/New_York"),
		AssignmentStrategy: &strategy})
	require.NoError(t, err)
	require.NoError(t, st.LinkProvider(ctx, panel.ID, b.provider.ID, nil, nil))
	require.NoError(t, st.LinkProvider(ctx, panel.ID, bob.ID, nil, nil))
	return bob, panel
}

// A collective service offers only the times all its providers have free,
// books them all, moves them all, and each sees the booking.
func TestCollectiveService(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	ctx := context.Background()
	bob, panel := collectiveSite(t, b)
	_, _, err := b.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "bob-call", Start: mustTime("2026-06-02T18:00:00Z"),
		CustomerName: "G", CustomerEmail: "g@example.com"})
	require.NoError(t, err)
	starts := startsOn(t, b, panel, "2026-06-02")
	// Ada works 13:00-21:00 UTC, Bob 16:00-24:00 UTC and is busy 18:00-18:30.
	require.Equal(t, "16:00", starts[0])
	require.Equal(t, "20:30", starts[len(starts)-1])
	require.NotContains(t, starts, "18:00", "Bob is busy")
	require.NotContains(t, starts, "17:45", "it would run into Bob's call")
	require.NotContains(t, starts, "15:45", "Bob has not started")

	panelBooking, token, err := b.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "panel", Start: mustTime("2026-06-02T17:00:00Z"),
		CustomerName: "Grace", CustomerEmail: "grace@example.com"})
	require.NoError(t, err)
	require.Equal(t, b.provider.ID, *panelBooking.ProviderID)
	require.Equal(t, []int64{bob.ID}, panelBooking.Hosts)
	stored, err := b.svc.Store().Booking(ctx, panelBooking.ID)
	require.NoError(t, err)
	require.Equal(t, []int64{bob.ID}, stored.Hosts)
	call, err := b.svc.ActiveService(ctx, "bob-call")
	require.NoError(t, err)
	require.NotContains(t, startsOn(t, b, call, "2026-06-02"), "17:00", "Bob is held by the panel")
	require.NotContains(t, startsOn(t, b, b.service, "2026-06-02"), "17:00", "and Ada")
	_, _, err = b.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "bob-call", Start: mustTime("2026-06-02T17:00:00Z"),
		CustomerName: "H", CustomerEmail: "h@example.com"})
	require.ErrorIs(t, err, bookings.ErrSlotTaken)
	feed, err := b.svc.Store().FeedBookings(ctx, bob.ID, mustTime("2026-06-01T00:00:00Z"), mustTime("2026-07-01T00:00:00Z"))
	require.NoError(t, err)
	require.Len(t, feed, 2, "Bob's feed has his call and the panel")

	free, err := b.svc.RescheduleSlots(ctx, stored, mustTime("2026-06-03T00:00:00Z"), mustTime("2026-06-04T00:00:00Z"))
	require.NoError(t, err)
	require.Equal(t, "16:00", free[0].Start.UTC().Format("15:04"), "moves only to times both have")
	_, _, err = b.svc.RescheduleManaged(ctx, token, "2026-06-03T14:00:00Z")
	require.Error(t, err, "Bob has not started at 14:00")
	moved, _, err := b.svc.RescheduleManaged(ctx, token, "2026-06-03T19:00:00Z")
	require.NoError(t, err)
	require.Equal(t, []int64{bob.ID}, moved.Hosts)
	require.Contains(t, startsOn(t, b, call, "2026-06-02"), "17:00", "Bob's old time is free again")
	require.NotContains(t, startsOn(t, b, call, "2026-06-03"), "19:00", "and his new one held")
	_, err = b.svc.Reassign(ctx, moved.ID, bob.ID, bookings.ActorAdmin)
	require.Error(t, err)
}

// Collective, round-robin and single-provider creates racing over the
// same two providers on two instances: none deadlocks or waits out its
// lock (only 201 and 409), and no provider is ever booked twice at once.
func TestCollectiveUnderRacingCreates(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		dsn := storetest.DSN(t, d)
		one := setupOn(t, storetest.OpenDSN(t, dsn, bookingssql.Migrations))
		bob, _ := collectiveSite(t, one)
		targets := []*bundle{one}
		if d == store.Postgres {
			targets = append(targets, setupOnShared(t, storetest.OpenDSN(t, dsn, bookingssql.Migrations)))
		}
		services := []string{"panel", "bob-call", "consultation"}
		counts := race(t, targets, 60, func(i int) string {
			at := mustTime("2026-06-02T16:00:00Z").Add(time.Duration(i%8) * 15 * time.Minute)
			return bookBody(services[i%3], at.Format(time.RFC3339))
		})
		require.Zero(t, counts[503], "%v", counts)
		require.Zero(t, counts[500], "%v", counts)
		require.Equal(t, 60, counts[201]+counts[409], "%v", counts)
		ctx := context.Background()
		list, _, err := one.svc.Store().ListBookings(ctx, bookings.BookingFilter{Limit: 100})
		require.NoError(t, err)
		held := map[int64][]bookings.Period{}
		for _, bk := range list {
			full, err := one.svc.Store().Booking(ctx, bk.ID)
			require.NoError(t, err)
			for _, p := range append([]int64{*full.ProviderID}, full.Hosts...) {
				for _, other := range held[p] {
					require.False(t, other.Start.Before(full.End) && full.Start.Before(other.End), "provider %d booked twice at %s", p, full.Start)
				}
				held[p] = append(held[p], bookings.Period{Start: full.Start, End: full.End})
			}
		}
		require.NotEmpty(t, held[bob.ID])
	})
}

// A weekly series of six with the fourth week taken: the answer names it;
// with free_only the five free ones are booked in one go, linked, with one
// mail; "this and following" from the second's link cancels it and the
// rest; the feed carries each occurrence.
func TestWeeklySeries(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	ctx := context.Background()
	series := &bookings.SeriesRule{MaxCount: 8, MaxEveryWeeks: 2}
	_, err := b.svc.UpdateService(ctx, "consultation", bookings.OfferingInput{Series: series})
	require.NoError(t, err)
	_, _, err = b.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-23T15:00:00Z"),
		CustomerName: "Other", CustomerEmail: "other@example.com"})
	require.NoError(t, err)

	body := func(extra string) string {
		return `{"service":"consultation","start_time":"2026-06-02T15:00:00Z","customer_name":"Grace","customer_email":"grace@example.com",
			"repeat":{"count":6,"every_weeks":1` + extra + `}}`
	}
	code, answer := b.do(t, "POST", "/api/bookings", body(""))
	require.Equal(t, 422, code, answer)
	require.Contains(t, answer, `"repeat.3":["Tuesday 23 June 2026, 11:00 is not free."]`)
	_, n, err := b.svc.Store().ListBookings(ctx, bookings.BookingFilter{Limit: 100})
	require.NoError(t, err)
	require.Equal(t, 1, n, "nothing booked")

	code, answer = b.do(t, "POST", "/api/bookings", body(`,"free_only":true`))
	require.Equal(t, 201, code, answer)
	var made struct {
		Data struct {
			ID     int64 `json:"id"`
			Series struct {
				ID          string
				Occurrences []struct{ ID int64 } `json:"occurrences"`
				Skipped     []string
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(answer), &made))
	require.Len(t, made.Data.Series.Occurrences, 5)
	require.Equal(t, []string{"2026-06-23T15:00:00+00:00"}, made.Data.Series.Skipped)
	all, err := b.svc.Store().SeriesBookings(ctx, made.Data.Series.ID)
	require.NoError(t, err)
	require.Len(t, all, 5)
	for i, o := range all {
		require.Equal(t, i, o.SeriesIndex)
	}
	require.Equal(t, "2026-06-30T15:00:00Z", all[3].Start.UTC().Format(time.RFC3339))

	for _, bad := range []string{`,"free_only":true,"count":9`, `,"every_weeks":3`} {
		code, answer = b.do(t, "POST", "/api/bookings", `{"service":"consultation","start_time":"2026-07-07T15:00:00Z","customer_name":"G",
			"customer_email":"g@example.com","repeat":{"count":3,"every_weeks":1`+bad+`}}`)
		require.Equal(t, 422, code, answer)
	}

	// The second occurrence's link: it and the three after it.
	token, err := b.svc.ReissueManageToken(ctx, all[1].ID)
	require.NoError(t, err)
	code, answer = b.do(t, "POST", "/api/bookings/manage/"+token+"/cancel", `{"scope":"following"}`)
	require.Equal(t, 200, code, answer)
	all, err = b.svc.Store().SeriesBookings(ctx, made.Data.Series.ID)
	require.NoError(t, err)
	statuses := []string{}
	for _, o := range all {
		statuses = append(statuses, string(o.Status))
	}
	require.Equal(t, []string{"confirmed", "cancelled", "cancelled", "cancelled", "cancelled"}, statuses)
	code, _ = b.do(t, "POST", "/api/bookings/manage/"+token+"/cancel", `{"scope":"everything"}`)
	require.NotEqual(t, 200, code)
}

// The manage page of a series' occurrence says which it is and cancels
// it alone, or it and the later ones.
func TestSeriesOnTheManagePage(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	ctx := context.Background()
	_, err := b.svc.UpdateService(ctx, "consultation", bookings.OfferingInput{Series: &bookings.SeriesRule{MaxCount: 4}})
	require.NoError(t, err)
	series, err := b.svc.CreateSeries(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-02T15:00:00Z"),
		CustomerName: "Grace", CustomerEmail: "grace@example.com", Repeat: &bookings.Repeat{Count: 4, EveryWeeks: 1}})
	require.NoError(t, err)
	require.Len(t, series.Bookings, 4)
	pages, err := bookings.NewPageHandler(b.svc, &bookings.PageOptions{PostLimit: -1})
	require.NoError(t, err)
	srv := httptest.NewServer(pages)
	t.Cleanup(srv.Close)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	page := "/bookings/manage/" + series.ManageToken
	res, err := client.Get(srv.URL + page + "?step=cancel")
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Contains(t, string(body), "This is booking 1 of 4 in a weekly series.")
	require.Contains(t, string(body), "This one and the 3 bookings after it")
	req, _ := http.NewRequest("POST", srv.URL+page+"/cancel", strings.NewReader("scope=following"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", srv.URL)
	res, err = client.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 303, res.StatusCode)
	all, err := b.svc.Store().SeriesBookings(ctx, series.ID)
	require.NoError(t, err)
	for _, o := range all {
		require.Equal(t, bookings.StatusCancelled, o.Status)
	}
}

// A video link never writes lines of its own into a calendar file: one
// with a line break or a space is refused when a service or provider is
// saved, and one a host's VideoLink makes with a line break is left out
// of the file's URL (its LOCATION, escaped, keeps the words).
func TestVideoLinkCannotWriteCalendarLines(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	ctx := context.Background()
	for _, bad := range []string{"https://meet.example/a\r\nATTENDEE:mailto:evil@example.com", "https://meet.example/a b"} {
		_, err := b.svc.UpdateService(ctx, "consultation", bookings.OfferingInput{Location: &bookings.Location{Kind: bookings.LocationVideo, Value: bad}})
		var ve *bookings.ValidationError
		require.ErrorAs(t, err, &ve, bad)
		require.Equal(t, []string{"A video link must be an https:// address, without spaces or line breaks."}, ve.Fields()["location.value"])
	}
	svc, err := bookings.NewService(bookingssql.New(b.db), &bookings.Options{Now: b.clock.Now,
		VideoLink: func(context.Context, *sql.Tx, bookings.Booking) (string, error) {
			return "https://meet.example/a\r\nATTENDEE:mailto:evil@example.com", nil
		}})
	require.NoError(t, err)
	_, err = svc.UpdateService(ctx, "consultation", bookings.OfferingInput{Location: &bookings.Location{Kind: bookings.LocationVideo}})
	require.NoError(t, err)
	bk, _, err := svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-02T15:00:00Z"),
		CustomerName: "Grace", CustomerEmail: "grace@example.com"})
	require.NoError(t, err)
	file, err := svc.ICS(ctx, bk)
	require.NoError(t, err)
	for _, line := range strings.Split(string(file), "\r\n") {
		require.False(t, strings.HasPrefix(line, "ATTENDEE"), "a line of the link's own: %q", line)
	}
	require.NotContains(t, string(file), "\r\nURL:")
	require.Contains(t, string(file), `LOCATION:Video: https://meet.example/a\nATTENDEE:mailto:evil@example.com`)
}
