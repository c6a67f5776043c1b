package link_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/bookings/waitlist"
	"github.com/groundwork-go/groundwork/bookings/waitlist/waitlistsql"
	"github.com/groundwork-go/groundwork/link"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

// BenchmarkWaitlistCancellation cancels bookings of a full one-place
// class on a site with ten subscriptions to every event, each op another
// booking (made, with its waitlist, outside the timer, at varied times
// across a fortnight): "plain" has no waitlist; "nobody" has one that no
// one joined (the hook's look for those waiting); "waiting" has three in
// line, so the cancellation's transaction also holds the time for the
// first, offers it to them, queues their mail and fans
// booking.waitlist_offered out to the ten subscriptions beside
// booking.cancelled. Interleaved, on both databases.
func BenchmarkWaitlistCancellation(b *testing.B) {
	for _, d := range storetest.Dialects() {
		for _, mode := range []string{"plain", "nobody", "waiting"} {
			b.Run(string(d)+"/"+mode, func(b *testing.B) { waitlistCancellation(b, d, mode) })
		}
	}
}

func waitlistCancellation(b *testing.B, d store.Dialect, mode string) {
	ctx := context.Background()
	env := benchEnv(b, d)
	bk, err := bookingssql.Join(env, nil)
	if err != nil {
		b.Fatal(err)
	}
	w, err := webhookssql.Join(env, &webhooks.ModuleOptions{Service: webhooks.Options{AllowInsecureURLs: true, AllowPrivateHosts: true}})
	if err != nil {
		b.Fatal(err)
	}
	m := link.Modules{Bookings: bk, Webhooks: w}
	if mode != "plain" {
		if m.Waitlist, err = waitlistsql.Join(env, bk.Service, nil); err != nil {
			b.Fatal(err)
		}
	}
	if err := link.Join(env, m); err != nil {
		b.Fatal(err)
	}
	if err := env.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	for i := range 10 {
		if _, err := w.Service.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: ptr(fmt.Sprint("endpoint ", i)),
			URL: ptr(fmt.Sprintf("http://127.0.0.1:9/hook/%d", i)), Events: []string{"*"}}); err != nil {
			b.Fatal(err)
		}
	}
	svc, err := bk.Service.CreateService(ctx, bookings.OfferingInput{Name: ptr("Class"), Slug: ptr("class"), Duration: ptr(15),
		TimeZone: ptr("UTC"), MaxBookingsPerSlot: ptr(1)})
	if err != nil {
		b.Fatal(err)
	}
	openProvider(b, bk.Service, svc.Slug, "sam", "Sam")
	first := time.Now().UTC().Truncate(24 * time.Hour).Add(48 * time.Hour)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		start := first.Add(time.Duration(i%14)*24*time.Hour + time.Duration(i/14%96)*15*time.Minute)
		i++
		booked, _, err := bk.Service.Create(ctx, bookings.NewBooking{ServiceSlug: "class", Start: start, CustomerName: "Ann",
			CustomerEmail: fmt.Sprintf("ann%d@example.com", i)})
		if err != nil {
			b.Fatal(err)
		}
		if mode == "waiting" {
			for n := range 3 {
				if _, _, err := m.Waitlist.Service.Join(ctx, waitlist.NewEntry{Service: "class", Start: start, Name: "W",
					Email: fmt.Sprintf("w%d-%d@example.com", i, n)}); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.StartTimer()
		if _, err := bk.Service.Cancel(ctx, booked.ID, bookings.ActorCustomer, ""); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if mode == "waiting" {
		var offered int
		if err := env.DB.Get(&offered, `SELECT COUNT(*) FROM bookings_waitlist WHERE status = 'offered'`); err != nil || offered != i {
			b.Fatalf("%d of %d offered (%v)", offered, i, err)
		}
	}
}
