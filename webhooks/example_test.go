package webhooks_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

// A receiver checks each delivery's signature before trusting it.
func ExampleVerify() {
	secret := "whsec_test_secret_0123" // from the subscription's create response
	receiver := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := webhooks.Verify(secret, r.Header.Get(webhooks.HeaderSignature), body, time.Now(), 0); err != nil {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		fmt.Println("accepted", r.Header.Get(webhooks.HeaderEvent))
	})

	body := []byte(`{"id":"1","event":"order.placed","created_at":"2026-11-22T10:00:00+00:00","data":{}}`)
	req := httptest.NewRequest("POST", "/hooks", strings.NewReader(string(body)))
	req.Header.Set(webhooks.HeaderSignature, webhooks.Sign(secret, time.Now(), body))
	req.Header.Set(webhooks.HeaderEvent, "order.placed")
	receiver.ServeHTTP(httptest.NewRecorder(), req)

	forged := httptest.NewRequest("POST", "/hooks", strings.NewReader(`{"tampered":true}`))
	forged.Header.Set(webhooks.HeaderSignature, webhooks.Sign(secret, time.Now(), body))
	w := httptest.NewRecorder()
	receiver.ServeHTTP(w, forged)
	fmt.Println(w.Code)
	// Output:
	// accepted order.placed
	// 401
}

// OrderPlaced is a host's event: its wire name is "order.placed".
type OrderPlacedExample struct {
	Order struct {
		ID    int64
		Total webhooks.Money
	}
}

func (OrderPlacedExample) WebhookEvent() string { return "order.placed" }

// Subscribe an endpoint and dispatch an event to it. (A store.Queue as
// Options.Enqueuer, with RegisterWorkers, sends the deliveries.)
// A receiver during a secret rotation's grace holds both secrets; each
// delivery carries a signature by each, so either verifies.
func ExampleVerifyAny() {
	oldSecret, newSecret := "whsec_the_old_secret_0123", "whsec_the_new_secret_4567"
	body := []byte(`{"id":"1","event":"order.placed","created_at":"2026-11-22T10:00:00+00:00","data":{}}`)
	now := time.Now()
	header := webhooks.SignWith(now, body, newSecret, oldSecret) // as the service signs in the grace
	fmt.Println(webhooks.Verify(oldSecret, header, body, now, 0) == nil, webhooks.Verify(newSecret, header, body, now, 0) == nil)
	// After the grace, only the new secret signs; a receiver that still
	// holds both is fine.
	fmt.Println(webhooks.VerifyAny([]string{oldSecret, newSecret}, webhooks.Sign(newSecret, now, body), body, now, 0) == nil)
	// Output:
	// true true
	// true
}

func ExampleService_Dispatch() {
	ctx := context.Background()
	db, done := storetest.Temp(webhookssql.Migrations) // your *store.DB, migrated
	defer done()
	svc, _ := webhooks.NewService(webhookssql.New(db), &webhooks.Options{
		SecretKey:         webhooks.GenerateSecretKey(),
		AllowPrivateHosts: true, // the example's endpoint is on loopback
	})
	sub, err := svc.CreateSubscription(ctx, webhooks.SubscriptionInput{
		Name: ptr("Orders"), URL: ptr("https://127.0.0.1:8443/hooks"), Events: []string{"order.placed"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(strings.HasPrefix(sub.Secret, "whsec_"), sub.IsActive)

	var ev OrderPlacedExample
	ev.Order.ID, ev.Order.Total = 1001, webhooks.Money{Amount: 1500, Currency: "EUR"}
	env, _ := svc.Envelope(ev)
	fmt.Println(env.Event, env.Data["order"])

	f, err := svc.Dispatch(ctx, ev)
	fmt.Println(f.Deliveries, err)
	// Output:
	// true true
	// order.placed map[id:1001 total:map[amount:1500 currency:EUR]]
	// 1 <nil>
}

func ptr(s string) *string { return &s }

// allTokens grants every token every ability (an *auth.Service in a real
// host).
type allTokens struct{}

func (allTokens) VerifyToken(context.Context, string) (string, []string, error) {
	return "token:1", []string{"webhookSubscription.*"}, nil
}

// Mount the subscription API in a host's mux.
func ExampleNewHandler() {
	db, done := storetest.Temp(webhookssql.Migrations)
	defer done()
	svc, _ := webhooks.NewService(webhookssql.New(db), &webhooks.Options{SecretKey: webhooks.GenerateSecretKey()})
	h, err := webhooks.NewHandler(svc, allTokens{}, nil)
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle(webhooks.PrefixDefault+"/", h)

	req := httptest.NewRequest("GET", "/api/ecommerce/v1/admin/webhook-subscriptions", nil)
	req.Header.Set("Authorization", "Bearer any")
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, req)
	fmt.Println(w.Code, strings.Contains(w.Body.String(), `"total":0`))
	// Output: 200 true
}

// Stripe posts to the inbound endpoint; a verified event runs the hooks
// once, however often it is delivered.
func ExampleNewInboundHandler() {
	secret := "whsec_from_the_stripe_dashboard"
	db, done := storetest.Temp(webhookssql.Migrations)
	defer done()
	svc, _ := webhooks.NewService(webhookssql.New(db), &webhooks.Options{SecretKey: webhooks.GenerateSecretKey()})
	stripe, _ := webhooks.NewStripeGateway(&webhooks.StripeOptions{WebhookSecrets: []string{secret}})
	_ = svc.RegisterGateway(webhooks.StripeProvider, stripe)
	svc.OnWebhookReceived(func(ctx context.Context, provider string, ev *webhooks.InboundEvent) error {
		fmt.Println("hook:", provider, ev.Type, ev.SessionReference, ev.Outcome)
		return nil
	})
	h, _ := webhooks.NewInboundHandler(svc, nil)

	// What Stripe sends: Stripe-Signature: t=<unix>,v1=<HMAC-SHA256 of "<t>.<body>">.
	body := `{"id":"evt_1","object":"event","type":"payment_intent.succeeded","data":{"object":{"id":"pi_1","object":"payment_intent"}}}`
	t := strconv.FormatInt(time.Now().Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(t + "." + body))
	for range 2 {
		req := httptest.NewRequest("POST", "/ecommerce/webhooks/stripe", strings.NewReader(body))
		req.Header.Set("Stripe-Signature", "t="+t+",v1="+hex.EncodeToString(mac.Sum(nil)))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Print(rec.Code, " ", rec.Body.String())
	}
	// Output:
	// hook: stripe payment_intent.succeeded pi_1 succeeded
	// 200 {"received":true,"event_id":"evt_1","type":"payment_intent.succeeded"}
	// 200 {"received":true,"event_id":"evt_1","type":"payment_intent.succeeded","duplicate":true}
}

// carts is a host's checkout, as reconciliation sees it.
type carts map[string]webhooks.PaymentOutcome // reference -> "" while awaiting payment

func (c carts) Awaiting(ctx context.Context, from, to time.Time, limit int) ([]webhooks.PaymentSession, error) {
	var out []webhooks.PaymentSession
	for ref, settled := range c {
		if settled == "" && len(out) < limit {
			out = append(out, webhooks.PaymentSession{Provider: webhooks.StripeProvider, Reference: ref, UpdatedAt: from})
		}
	}
	return out, nil
}

func (c carts) Settle(ctx context.Context, s webhooks.PaymentSession, outcome webhooks.PaymentOutcome) error {
	if c[s.Reference] == "" {
		c[s.Reference] = outcome
	}
	return nil
}

// Reconciliation asks the provider about sessions whose webhook never came.
func ExampleService_Reconcile() {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Stripe's API: GET /v1/payment_intents/{id}
		_, _ = io.WriteString(w, `{"id":"pi_1","object":"payment_intent","status":"succeeded"}`)
	}))
	defer api.Close()
	cart := carts{"pi_1": ""}
	db, done := storetest.Temp(webhookssql.Migrations)
	defer done()
	svc, _ := webhooks.NewService(webhookssql.New(db), &webhooks.Options{
		SecretKey:       webhooks.GenerateSecretKey(),
		PaymentSessions: cart,
	})
	stripe, _ := webhooks.NewStripeGateway(&webhooks.StripeOptions{APIKey: "sk_test_123", APIBase: api.URL})
	_ = svc.RegisterGateway(webhooks.StripeProvider, stripe)

	report, err := svc.Reconcile(context.Background(), 0) // sessions quiet for any time; the job uses 15 minutes
	fmt.Println(report, err)
	fmt.Println("pi_1:", cart["pi_1"])
	// Output:
	// Finalized 1, released 0, left 0, errors 0. <nil>
	// pi_1: succeeded
}
