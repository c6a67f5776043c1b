package waitlist_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/bookings/waitlist"
	"github.com/groundwork-go/groundwork/bookings/waitlist/waitlistsql"
	"github.com/groundwork-go/groundwork/store"
)

// A full class's waitlist: when a booking is cancelled, the first in line
// is offered the place in the cancellation's own transaction, held for
// them; the link mailed to them (its token) books it.
func ExampleNew() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "groundwork-example")
	defer os.RemoveAll(dir)
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(dir, "app.db"))
	if err != nil {
		panic(err)
	}
	defer db.Close()
	if err := store.Migrate(ctx, db, bookingssql.Migrations); err != nil {
		panic(err)
	}
	now := func() time.Time { return time.Date(2026, 5, 30, 8, 0, 0, 0, time.UTC) }
	key := []byte("32 bytes of key, kept somewhere!")
	svc, _ := bookings.NewService(bookingssql.New(db), &bookings.Options{Now: now, SecretKey: key})
	wl, err := waitlist.New(waitlistsql.New(db), svc, &waitlist.Options{Now: now, SecretKey: key})
	if err != nil {
		panic(err)
	}
	wl.OnEventTx(func(_ context.Context, _ *sql.Tx, e waitlist.Event) error {
		fmt.Println(e.Type, e.Entry.Name)
		return nil
	})

	dur, places := 60, 1
	yoga, _ := svc.CreateService(ctx, bookings.OfferingInput{Name: ptr("Yoga"), Duration: &dur, MaxBookingsPerSlot: &places, TimeZone: ptr("UTC")})
	sam, _ := svc.CreateProvider(ctx, bookings.ProviderInput{Name: ptr("Sam"), TimeZone: ptr("UTC")})
	_ = svc.Link(ctx, yoga.Slug, sam.ID, bookings.LinkInput{})
	monday := 1
	_, _ = svc.AddHours(ctx, sam.ID, bookings.HoursInput{DayOfWeek: &monday, Start: ptr("09:00"), End: ptr("12:00")})
	ten := time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)
	ann, _, err := svc.Create(ctx, bookings.NewBooking{ServiceSlug: yoga.Slug, Start: ten, CustomerName: "Ann", CustomerEmail: "ann@example.com"})
	if err != nil {
		panic(err)
	}

	// The class is full: Bob joins its waitlist.
	if _, _, err := wl.Join(ctx, waitlist.NewEntry{Service: yoga.Slug, Start: ten, Name: "Bob", Email: "bob@example.com"}); err != nil {
		panic(err)
	}
	// Ann cancels: Bob is offered her place, held for him for two hours.
	if _, err := svc.Cancel(ctx, ann.ID, bookings.ActorCustomer, ""); err != nil {
		panic(err)
	}
	entries, _ := wl.Entries(ctx, 0, ten)
	fmt.Println(entries[0].Status, "until", entries[0].OfferExpires.Format("Mon 15:04"))
	// Output:
	// booking.waitlist_joined Bob
	// booking.waitlist_offered Bob
	// offered until Sat 10:00
}
