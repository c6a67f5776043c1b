package webhooks_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

// fakeStripeAPI answers GET /v1/payment_intents/{id} and
// /v1/checkout/sessions/{id} from a table, as Stripe's API does.
func fakeStripeAPI(t *testing.T, objects map[string]string) (*httptest.Server, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Path)
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer sk_test_1" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		id := r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]
		body, ok := objects[id]
		if !ok || !(strings.HasPrefix(r.URL.Path, "/v1/payment_intents/") || strings.HasPrefix(r.URL.Path, "/v1/checkout/sessions/")) {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"message":"No such object: '` + id + `'","type":"invalid_request_error"}}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, &asked
}

func TestReconcile(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		clock := newClock()
		var sessions *webhookssql.PaymentSessions
		b := setup(t, on(d), func(o *setupOptions) {
			o.service = func(so *webhooks.Options) {
				so.PaymentSessions = webhooks.PaymentSessions(lazySessions{&sessions})
			}
		})
		sessions = webhookssql.NewPaymentSessions(b.db, clock.Now)
		api, asked := fakeStripeAPI(t, map[string]string{
			"pi_ok":     `{"id":"pi_ok","object":"payment_intent","status":"succeeded"}`,
			"pi_auth":   `{"id":"pi_auth","object":"payment_intent","status":"requires_capture"}`,
			"pi_gone":   `{"id":"pi_gone","object":"payment_intent","status":"canceled"}`,
			"pi_wait":   `{"id":"pi_wait","object":"payment_intent","status":"processing"}`,
			"pi_recent": `{"id":"pi_recent","object":"payment_intent","status":"requires_payment_method"}`,
			"cs_paid":   `{"id":"cs_paid","object":"checkout.session","status":"complete","payment_status":"paid"}`,
			"cs_old":    `{"id":"cs_old","object":"checkout.session","status":"expired","payment_status":"unpaid"}`,
		})
		registerStripe(t, b, api.URL)

		// Sessions made 8 days, 1 hour and 5 minutes before the clock the
		// service runs on.
		clock.Set(b.clock.Now().Add(-8 * 24 * time.Hour))
		require.NoError(t, sessions.Add(ctx, "stripe", "pi_ancient")) // too old
		clock.Set(b.clock.Now().Add(-time.Hour))
		for _, ref := range []string{"pi_ok", "pi_auth", "pi_gone", "pi_wait", "cs_paid", "cs_old", "pi_missing"} {
			require.NoError(t, sessions.Add(ctx, "stripe", ref))
		}
		require.NoError(t, sessions.Add(ctx, "paypal", "PAY-1")) // no gateway
		clock.Set(b.clock.Now().Add(-5 * time.Minute))
		require.NoError(t, sessions.Add(ctx, "stripe", "pi_recent")) // not quiet yet

		report, err := b.svc.Reconcile(ctx, -1)
		require.NoError(t, err)
		failures := report.Failures
		report.Failures = nil
		require.Equal(t, webhooks.ReconcileReport{Finalized: 3, Released: 2, Left: 1, Errors: 2}, report)
		require.Equal(t, "Finalized 3, released 2, left 1, errors 2.", report.String())
		var causes []string
		for _, f := range failures {
			causes = append(causes, f.String())
		}
		slices.Sort(causes)
		require.Len(t, causes, 2)
		require.Equal(t, `PAY-1 (paypal): no gateway is registered for provider "paypal"`, causes[0])
		require.Regexp(t, `^pi_missing \(stripe\): looking the session up: .*404`, causes[1])
		for ref, want := range map[string]string{"pi_ok": "succeeded", "pi_auth": "succeeded", "cs_paid": "succeeded",
			"pi_gone": "failed", "cs_old": "failed", "pi_wait": "pending", "pi_missing": "pending", "pi_recent": "pending",
			"pi_ancient": "pending"} {
			got, err := sessions.Status(ctx, "stripe", ref)
			require.NoError(t, err)
			require.Equal(t, want, got, ref)
		}
		require.NotContains(t, *asked, "/v1/payment_intents/pi_recent")
		require.NotContains(t, *asked, "/v1/payment_intents/pi_ancient")
		require.Contains(t, *asked, "/v1/checkout/sessions/cs_paid")

		// --minutes: a shorter quiet time takes the recent one too.
		report, err = b.svc.Reconcile(ctx, time.Minute)
		require.NoError(t, err)
		require.Len(t, report.Failures, 2)
		report.Failures = nil
		require.Equal(t, webhooks.ReconcileReport{Left: 2, Errors: 2}, report, "pi_wait and pi_recent left; pi_missing and PAY-1 errors")
		require.Contains(t, *asked, "/v1/payment_intents/pi_recent")
	})
}

// lazySessions lets a test build the sessions after the service.
type lazySessions struct{ p **webhookssql.PaymentSessions }

func (l lazySessions) Awaiting(ctx context.Context, from, to time.Time, limit int) ([]webhooks.PaymentSession, error) {
	return (*l.p).Awaiting(ctx, from, to, limit)
}

func (l lazySessions) Settle(ctx context.Context, s webhooks.PaymentSession, o webhooks.PaymentOutcome) error {
	return (*l.p).Settle(ctx, s, o)
}

// A webhook that reports an outcome settles its session through the
// queued reconciliation job.
func TestWebhookSettlesSession(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		var sessions *webhookssql.PaymentSessions
		b := setup(t, on(d), running, func(o *setupOptions) {
			o.service = func(so *webhooks.Options) { so.PaymentSessions = lazySessions{&sessions} }
		})
		sessions = webhookssql.NewPaymentSessions(b.db, nil)
		registerStripe(t, b, "")
		in := newInbound(t, b, nil, -1, -1)
		require.NoError(t, sessions.Add(ctx, "stripe", "pi_9"))
		require.NoError(t, sessions.Add(ctx, "stripe", "cs_9"))
		ev := stripeEvent("evt_9", "payment_intent.succeeded", "payment_intent", "pi_9")
		require.Equal(t, 200, in.post(t, "stripe", ev, stripeSigned(ev, stripeSecret, b.clock.Now())).status)
		ev = stripeEvent("evt_10", "checkout.session.expired", "checkout.session", "cs_9")
		require.Equal(t, 200, in.post(t, "stripe", ev, stripeSigned(ev, stripeSecret, b.clock.Now())).status)
		require.Eventually(t, func() bool {
			a, _ := sessions.Status(ctx, "stripe", "pi_9")
			c, _ := sessions.Status(ctx, "stripe", "cs_9")
			return a == "succeeded" && c == "failed"
		}, 20*time.Second, 20*time.Millisecond)
	})
}

func TestInboundPruneAndRedact(t *testing.T) {
	t.Parallel()
	b := setup(t)
	registerStripe(t, b, "")
	in := newInbound(t, b, nil, -1, -1)
	ctx := context.Background()
	ev := stripeEvent("evt_p", "payment_intent.succeeded", "payment_intent", "pi_p", `"receipt_email":"ann@example.test"`)
	require.Equal(t, 200, in.post(t, "stripe", ev, stripeSigned(ev, stripeSecret, b.clock.Now())).status)
	n, err := b.svc.RedactInbound(ctx, nil, "ann@example.test")
	require.NoError(t, err)
	require.Equal(t, 1, n)
	row := b.ledger(t)[0]
	require.Empty(t, row.Payload)
	require.Nil(t, row.Parsed)
	require.Equal(t, hash(ev), row.PayloadHash)

	n, err = b.svc.PruneInbound(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
	b.clock.Advance(webhooks.RetentionDefault + time.Hour)
	n, err = b.svc.PruneInbound(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	// The event's claim went with it: a (very late) redelivery is new.
	require.Equal(t, 200, in.post(t, "stripe", ev, stripeSigned(ev, stripeSecret, b.clock.Now())).status)
	require.False(t, b.ledger(t)[0].Duplicate)
}

// Session lookups go through the shared outbound client: a 503 is tried
// again, the key is sent and never shown, and Stripe's message is kept
// for the log.
func TestStripeSessionLookup(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	var agent atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		agent.Store(r.Header.Get("User-Agent"))
		switch {
		case r.Header.Get("Authorization") != "Bearer sk_test_lookup":
			w.WriteHeader(http.StatusUnauthorized)
		case strings.HasSuffix(r.URL.Path, "/pi_flaky") && calls.Add(1) == 1:
			w.WriteHeader(http.StatusServiceUnavailable)
		case strings.HasSuffix(r.URL.Path, "/pi_flaky"):
			_, _ = w.Write([]byte(`{"id":"pi_flaky","object":"payment_intent","status":"succeeded"}`))
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"message":"No such payment_intent: 'pi_nope'"}}`))
		}
	}))
	t.Cleanup(srv.Close)
	g, err := webhooks.NewStripeGateway(&webhooks.StripeOptions{APIKey: "sk_test_lookup", APIBase: srv.URL})
	require.NoError(t, err)

	outcome, err := g.Session(context.Background(), "pi_flaky")
	require.NoError(t, err)
	require.Equal(t, webhooks.PaymentSucceeded, outcome)
	require.EqualValues(t, 2, calls.Load(), "the 503 was tried again")
	require.True(t, strings.HasPrefix(agent.Load().(string), "groundwork/"))

	_, err = g.Session(context.Background(), "pi_nope")
	require.ErrorContains(t, err, "No such payment_intent: 'pi_nope'")
	require.ErrorContains(t, err, "404")
	require.NotContains(t, err.Error(), "sk_test_lookup")

	_, err = g.Session(context.Background(), "in_123")
	require.ErrorContains(t, err, "neither a PaymentIntent nor a Checkout Session")
	_, err = webhooks.NewStripeGateway(&webhooks.StripeOptions{APIBase: "ftp://stripe.test"})
	require.Error(t, err)
}
