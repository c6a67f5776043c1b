package link_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	stripewebhook "github.com/stripe/stripe-go/v85/webhook"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/bookings/bookingsstripe"
	"github.com/groundwork-go/groundwork/link"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

// stripeAPI is an httptest server speaking Stripe's wire format for
// Checkout Sessions and refunds: one session or refund per idempotency
// key, as Stripe keeps them.
type stripeAPI struct {
	mu       sync.Mutex
	sessions map[string]string // idempotency key → session id
	refunds  map[string]string // idempotency key → payment intent
	srv      *httptest.Server
}

func newStripeAPI(t testing.TB) *stripeAPI {
	t.Helper()
	s := &stripeAPI{sessions: map[string]string{}, refunds: map[string]string{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(body))
		key := r.Header.Get("Idempotency-Key")
		s.mu.Lock()
		defer s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/checkout/sessions":
			id, ok := s.sessions[key]
			if !ok {
				id = fmt.Sprintf("cs_test_%d", len(s.sessions)+1)
				s.sessions[key] = id
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "object": "checkout.session", "url": "https://checkout.stripe.test/" + id})
		case "/v1/refunds":
			s.refunds[key] = form.Get("payment_intent")
			_ = json.NewEncoder(w).Encode(map[string]any{"id": "re_" + key, "object": "refund", "status": "succeeded"})
		default:
			w.WriteHeader(404)
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *stripeAPI) refunded() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for k, v := range s.refunds {
		out[k] = v
	}
	return out
}

// paidSite is one instance: bookings taking payment through Stripe and
// webhooks receiving Stripe's events, joined and linked on env.
type paidSite struct {
	env      *store.Env
	bookings *bookings.Service
	webhooks *webhooks.Service
	srv      *httptest.Server
}

const paidSecret = "whsec_paid"

func newPaidSite(t testing.TB, d store.Dialect, dsn string, api *stripeAPI) *paidSite {
	t.Helper()
	ctx := context.Background()
	env, err := store.OpenEnv(ctx, dsn, &store.EnvOptions{Secret: []byte("0123456789abcdef0123456789abcdef"),
		BaseURL: &url.URL{Scheme: "https", Host: "site.example"}, Queue: &store.QueueOptions{TestOnly: true}})
	require.NoError(t, err)
	t.Cleanup(func() { env.Close() })
	pay, err := bookingsstripe.New(bookingsstripe.Options{APIKey: "sk_test_paid", APIBase: api.srv.URL})
	require.NoError(t, err)
	b, err := bookingssql.Join(env, &bookings.ModuleOptions{Service: bookings.Options{Payments: pay}})
	require.NoError(t, err)
	w := stripeWebhooks(t, env)
	require.NoError(t, link.Join(env, link.Modules{Bookings: b, Webhooks: w}))
	require.NoError(t, env.Migrate(ctx))
	mux := http.NewServeMux()
	b.Mount(mux)
	w.Mount(mux)
	s := &paidSite{env: env, bookings: b.Service, webhooks: w.Service, srv: httptest.NewServer(mux)}
	t.Cleanup(s.srv.Close)
	return s
}

// stripeWebhooks joins the webhooks to env with Stripe's gateway (its
// secret paidSecret). Stripe posts from a few addresses: the per-address
// throttle is off, as a site behind its proxy would set it.
func stripeWebhooks(t testing.TB, env *store.Env) *webhooks.Module {
	t.Helper()
	w, err := webhookssql.Join(env, &webhooks.ModuleOptions{Service: webhooks.Options{AllowInsecureURLs: true, AllowPrivateHosts: true},
		Inbound: webhooks.InboundHandlerOptions{PerIP: -1, PerProvider: -1}})
	require.NoError(t, err)
	gateway, err := webhooks.NewStripeGateway(&webhooks.StripeOptions{WebhookSecrets: []string{paidSecret}})
	require.NoError(t, err)
	require.NoError(t, w.Service.RegisterGateway(webhooks.StripeProvider, gateway))
	return w
}

// stripeEvent is a signed Checkout Session event of booking b's page.
func stripeEvent(t testing.TB, id, typ string, b bookings.Booking, paid bool) ([]byte, string) {
	t.Helper()
	status := "unpaid"
	if paid {
		status = "paid"
	}
	body, err := json.Marshal(map[string]any{"id": id, "object": "event", "type": typ, "data": map[string]any{"object": map[string]any{
		"id": b.Payment.Session, "object": "checkout.session", "client_reference_id": fmt.Sprint(b.ID), "payment_status": status,
		"payment_intent": "pi_" + b.Number, "metadata": map[string]any{"booking_id": fmt.Sprint(b.ID), "booking_number": b.Number}}}})
	require.NoError(t, err)
	signed := stripewebhook.GenerateTestSignedPayload(&stripewebhook.UnsignedPayload{Payload: body, Secret: paidSecret, Timestamp: time.Now()})
	return body, signed.Header
}

// deliver posts a Stripe event to the site's inbound endpoint; it
// returns the status and whether it was answered as a duplicate.
func (s *paidSite) deliver(t testing.TB, body []byte, sig string) (int, bool) {
	t.Helper()
	req, err := http.NewRequest("POST", s.srv.URL+webhooks.InboundPrefixDefault+"/stripe", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Stripe-Signature", sig)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res.StatusCode, strings.Contains(string(out), `"duplicate":true`)
}

// deliverAtOnce delivers a Stripe event n times at once, spread over
// sites, and counts the answers by status and whether each was a
// duplicate ("200 false").
func deliverAtOnce(t *testing.T, sites []*paidSite, body []byte, sig string, n int) map[string]int {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	answers := map[string]int{}
	for i := range n {
		site := sites[i%len(sites)]
		wg.Go(func() {
			status, dup := site.deliver(t, body, sig)
			mu.Lock()
			answers[fmt.Sprint(status, dup)]++
			mu.Unlock()
		})
	}
	wg.Wait()
	return answers
}

func (s *paidSite) count(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, s.env.DB.Get(&n, s.env.DB.Rebind(q), args...))
	return n
}

// A paid booking on two instances of one database: the customer's
// Checkout Session opens as the booking is made; Stripe's event, sent to
// both instances at once and again, confirms it once, with its
// booking.confirmed webhook and confirmation mail in the transaction of
// the event's ledger row; an event of the same session under another id
// (the reconciliation's, an asynchronous payment's) changes nothing more.
// An expired page frees the time; a payment that lands after that is
// refunded, and so is a cancellation within the service's policy, by a
// job queued in the cancellation's transaction. On SQLite one instance.
func TestPaidBookingsSettleInTheInboundTransaction(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		api := newStripeAPI(t)
		dsn := storetest.DSN(t, d)
		one := newPaidSite(t, d, dsn, api)
		sites := []*paidSite{one}
		if d == store.Postgres {
			sites = append(sites, newPaidSite(t, d, dsn, api))
		}
		other := sites[len(sites)-1]
		_, err := one.webhooks.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: ptr("all"), URL: ptr("http://127.0.0.1:9/hook"),
			Events: []string{"*"}})
		require.NoError(t, err)
		svc, err := one.bookings.CreateService(ctx, bookings.OfferingInput{Name: ptr("Consultation"), Slug: ptr("consult"), Duration: ptr(60),
			TimeZone: ptr("UTC"), Price: ptr("25.00"), Currency: ptr("EUR"), RequiresPayment: ptr(true), RefundCutoffHours: ptr(24)})
		require.NoError(t, err)
		openProvider(t, one.bookings, svc.Slug, "sam", "Sam")
		at := time.Now().UTC().Truncate(time.Hour).Add(72 * time.Hour)
		var mu sync.Mutex
		book := func(site *paidSite, start time.Time) bookings.Booking {
			b, _, err := site.bookings.Create(ctx, bookings.NewBooking{ServiceSlug: "consult", Start: start, CustomerName: "Ann",
				CustomerEmail: "ann@example.com"})
			require.NoError(t, err)
			return b
		}

		b := book(one, at)
		require.Equal(t, bookings.StatusAwaitingPayment, b.Status)
		require.Equal(t, "25.00", b.Payment.Amount)
		require.Equal(t, "EUR", b.Payment.Currency)
		require.WithinDuration(t, time.Now().Add(30*time.Minute), b.Payment.DueAt, time.Minute)
		require.Equal(t, "https://checkout.stripe.test/"+b.Payment.Session, b.Payment.CheckoutURL)
		_, _, err = other.bookings.Create(ctx, bookings.NewBooking{ServiceSlug: "consult", Start: at, CustomerName: "Bo",
			CustomerEmail: "bo@example.com"})
		require.ErrorIs(t, err, bookings.ErrSlotTaken, "the time is held while it awaits payment")
		require.Zero(t, one.count(t, `SELECT COUNT(*) FROM river_job WHERE kind = 'bookings_mail'`), "no mail until it is paid")

		// A step of the confirmation that fails rolls the event's claim
		// back with it: Stripe's retry is handled as new.
		failed := false
		for _, site := range sites {
			site.bookings.OnEventTx(func(_ context.Context, _ *sql.Tx, e bookings.Event) error {
				mu.Lock()
				defer mu.Unlock()
				if e.Type == bookings.EventConfirmed && !failed {
					failed = true
					return errors.New("the host's own step failed")
				}
				return nil
			})
		}
		body, sig := stripeEvent(t, "evt_paid", "checkout.session.completed", b, true)
		status, _ := other.deliver(t, body, sig)
		require.Equal(t, 500, status)
		held, err := one.bookings.Booking(ctx, b.ID)
		require.NoError(t, err)
		require.Equal(t, bookings.StatusAwaitingPayment, held.Status, "the confirmation went with the claim")
		require.Nil(t, held.Payment.PaidAt)
		require.Zero(t, one.count(t, `SELECT COUNT(*) FROM webhooks_deliveries WHERE event = 'booking.confirmed'`))

		// Stripe's event, to both instances at once, and again.
		require.Equal(t, map[string]int{"200 false": 1, "200 true": 11}, deliverAtOnce(t, sites, body, sig, 12))
		paid, err := other.bookings.Booking(ctx, b.ID)
		require.NoError(t, err)
		require.Equal(t, bookings.StatusConfirmed, paid.Status)
		require.Equal(t, "pi_"+b.Number, paid.Payment.Reference)
		require.NotNil(t, paid.Payment.PaidAt)
		confirmed := `SELECT COUNT(*) FROM webhooks_deliveries WHERE event = 'booking.confirmed'`
		require.Equal(t, 1, one.count(t, confirmed), "one booking.confirmed")
		require.Equal(t, 1, one.count(t, `SELECT COUNT(*) FROM river_job WHERE kind = 'bookings_mail' AND CAST(args AS TEXT) LIKE '%"confirmed"%'`))
		require.Equal(t, 1, one.count(t, `SELECT COUNT(*) FROM webhooks_inbound WHERE event_id = 'evt_paid' AND response_status = 200 AND duplicate = ?`, false))

		// The same session's payment under another event id (a replay
		// through the other instance) changes nothing.
		body, sig = stripeEvent(t, "evt_async", "checkout.session.async_payment_succeeded", b, true)
		status, dup := other.deliver(t, body, sig)
		require.Equal(t, 200, status)
		require.False(t, dup, "a new event id")
		require.Equal(t, 1, one.count(t, confirmed))
		again, err := one.bookings.Booking(ctx, b.ID)
		require.NoError(t, err)
		require.Equal(t, paid.Payment, again.Payment)

		// An expired page frees the time at once.
		later := book(other, at.Add(2*time.Hour))
		body, sig = stripeEvent(t, "evt_expired", "checkout.session.expired", later, false)
		status, _ = one.deliver(t, body, sig)
		require.Equal(t, 200, status)
		expired, err := one.bookings.Booking(ctx, later.ID)
		require.NoError(t, err)
		require.Equal(t, bookings.StatusCancelled, expired.Status)
		rebooked := book(one, at.Add(2*time.Hour))
		require.Equal(t, bookings.StatusAwaitingPayment, rebooked.Status, "the time was free again")
		// A payment of the expired page that lands late is kept and refunded.
		body, sig = stripeEvent(t, "evt_late", "checkout.session.completed", later, true)
		status, _ = other.deliver(t, body, sig)
		require.Equal(t, 200, status)
		late, err := one.bookings.Booking(ctx, later.ID)
		require.NoError(t, err)
		require.Equal(t, bookings.StatusCancelled, late.Status)
		require.NotNil(t, late.Payment.PaidAt)
		refunds := `SELECT COUNT(*) FROM river_job WHERE kind = 'bookings_refund'`
		require.Equal(t, 1, one.count(t, refunds))

		// The customer cancels the paid booking within the policy (a day
		// before): its refund is queued with the cancellation.
		_, err = other.bookings.Cancel(ctx, b.ID, bookings.ActorCustomer, "")
		require.NoError(t, err)
		require.Equal(t, 2, one.count(t, refunds))

		// The queue refunds both once, and says so.
		require.NoError(t, one.env.Start(ctx))
		t.Cleanup(func() { _ = one.env.Stop(context.Background()) })
		require.Eventually(t, func() bool {
			return one.count(t, `SELECT COUNT(*) FROM webhooks_deliveries WHERE event = 'booking.refunded'`) == 2
		}, 20*time.Second, 20*time.Millisecond)
		require.Equal(t, map[string]string{"groundwork-refund-" + b.Number: "pi_" + b.Number, "groundwork-refund-" + later.Number: "pi_" + later.Number},
			api.refunded())
		for _, id := range []int64{b.ID, later.ID} {
			r, err := one.bookings.Booking(ctx, id)
			require.NoError(t, err)
			require.NotNil(t, r.Payment.RefundedAt, id)
		}
	})
}
