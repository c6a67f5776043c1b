package link_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
)

// BenchmarkPaidSettlement posts Stripe's signed checkout.session.completed
// to the inbound endpoint of a site with ten subscriptions to every event,
// each op for another booking awaiting payment (made outside the timer,
// at varied times across a provider's fortnight): settled, the event's
// claim and ledger row, the booking's confirmation, its mail jobs and the
// fan-out of booking.confirmed to the ten subscriptions are one
// transaction. Beside it, interleaved, the same events recorded by a site
// whose bookings take no payment (the claim and the row, the hook finding
// nothing to settle): the ratio is what settling adds.
func BenchmarkPaidSettlement(b *testing.B) {
	for _, d := range storetest.Dialects() {
		for _, settle := range []bool{false, true} {
			name := string(d) + "/recorded"
			if settle {
				name = string(d) + "/settled"
			}
			b.Run(name, func(b *testing.B) { paidSettlement(b, d, settle) })
		}
	}
}

func paidSettlement(b *testing.B, d store.Dialect, settle bool) {
	ctx := context.Background()
	api := newStripeAPI(b)
	site := newPaidSite(b, d, storetest.DSN(b, d), api)
	for i := range 10 {
		if _, err := site.webhooks.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: ptr(fmt.Sprint("endpoint ", i)),
			URL: ptr(fmt.Sprintf("http://127.0.0.1:9/hook/%d", i)), Events: []string{"*"}}); err != nil {
			b.Fatal(err)
		}
	}
	svc, err := site.bookings.CreateService(ctx, bookings.OfferingInput{Name: ptr("Consultation"), Slug: ptr("consult"), Duration: ptr(15),
		TimeZone: ptr("UTC"), Price: ptr("25.00"), Currency: ptr("EUR"), RequiresPayment: ptr(settle)})
	if err != nil {
		b.Fatal(err)
	}
	openProvider(b, site.bookings, svc.Slug, "sam", "Sam")
	first := time.Now().UTC().Truncate(24 * time.Hour).Add(48 * time.Hour)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		start := first.Add(time.Duration(i%14)*24*time.Hour + time.Duration(i/14%96)*15*time.Minute)
		i++
		bk, _, err := site.bookings.Create(ctx, bookings.NewBooking{ServiceSlug: "consult", Start: start, CustomerName: "Ann",
			CustomerEmail: fmt.Sprintf("ann%d@example.com", i)})
		if err != nil {
			b.Fatal(err)
		}
		if bk.Payment == nil { // the site takes no payment: an event of the same shape
			bk.Payment = &bookings.Payment{Session: fmt.Sprint("cs_free_", i)}
		}
		body, sig := stripeEvent(b, fmt.Sprint("evt_", i), "checkout.session.completed", bk, true)
		b.StartTimer()
		if status, dup := site.deliver(b, body, sig); status != 200 || dup {
			b.Fatalf("%d %v", status, dup)
		}
	}
	b.StopTimer()
	if settle {
		var confirmed int
		if err := site.env.DB.Get(&confirmed, `SELECT COUNT(*) FROM bookings_bookings WHERE status = 'confirmed'`); err != nil || confirmed != i {
			b.Fatalf("%d of %d confirmed (%v)", confirmed, i, err)
		}
	}
}

// benchEnv is a benchmark's environment on a fresh database of d, at
// https://site.example, its queue inserting jobs without working them.
func benchEnv(b *testing.B, d store.Dialect) *store.Env {
	b.Helper()
	env, err := store.OpenEnv(context.Background(), storetest.DSN(b, d), &store.EnvOptions{Secret: []byte("0123456789abcdef0123456789abcdef"),
		BaseURL: &url.URL{Scheme: "https", Host: "site.example"}, Queue: &store.QueueOptions{TestOnly: true}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { env.Close() })
	return env
}
