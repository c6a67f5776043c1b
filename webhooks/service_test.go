package webhooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
)

func TestSubscriptionRules(t *testing.T) {
	t.Parallel()
	var logs testkit.Buffer
	b := setup(t, func(o *setupOptions) {
		o.service = func(so *webhooks.Options) {
			so.AllowInsecureURLs, so.AllowPrivateHosts = false, false
			so.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		}
	})
	ctx := context.Background()
	b.dns.set("hooks.example", "93.184.216.34")
	long := strings.Repeat("x", 256)
	for _, c := range []struct {
		in   webhooks.SubscriptionInput
		want map[string][]string
	}{
		{webhooks.SubscriptionInput{}, map[string][]string{"name": {"The name field is required."},
			"url": {"The url field is required."}, "events": {"The events field is required."}}},
		{webhooks.SubscriptionInput{Name: &long, URL: str("http://hooks.example/"), Events: []string{"Order.Placed", "order", "no.such.event", strings.Repeat("a.", 61)}},
			map[string][]string{"name": {"The name field must not be greater than 255 characters."},
				"url": {"The url field must start with https:// (plain http needs the server's AllowInsecureURLs option, GROUNDWORK_WEBHOOKS_ALLOW_INSECURE_URLS on the reference server, for local development)."}, "events.0": {"The events.0 field format is invalid."},
				"events.1": {"The events.1 field format is invalid."}, "events.2": {`The selected events.2 is invalid: "no.such.event" is not an event here.`},
				"events.3": {"The events.3 field must not be greater than 120 characters."}}},
		{webhooks.SubscriptionInput{Name: str("x"), URL: str("https://10.0.0.1/"), Events: []string{"*"}, Secret: str("short")},
			map[string][]string{"url": {"The url must resolve to a public address (a private or loopback host needs the server's AllowPrivateHosts option, GROUNDWORK_WEBHOOKS_ALLOW_PRIVATE_HOSTS on the reference server, for local development)."}, "secret": {"The secret field must be at least 16 characters."}}},
		{webhooks.SubscriptionInput{Name: str("x"), URL: str("https://hooks.example/"), Events: []string{"order.placd"}},
			map[string][]string{"events.0": {`The selected events.0 is invalid: "order.placd" is not an event here. Did you mean "order.placed"?`}}},
		{webhooks.SubscriptionInput{Name: str("x"), URL: str("not a url"), Events: []string{"*"}},
			map[string][]string{"url": {"The url field must be a valid URL."}}},
		{webhooks.SubscriptionInput{Name: str("x"), URL: str("https://hooks.example/"), Events: []string{"*"}, StandardWebhooks: yes(),
			Secret: str("whsec_not-base64-at-all!!")},
			map[string][]string{"secret": {"The secret field must be whsec_ and the base64 of at least 16 bytes for Standard Webhooks."}}},
	} {
		_, err := b.svc.CreateSubscription(ctx, c.in)
		var ve *webhooks.ValidationError
		require.ErrorAs(t, err, &ve)
		require.Equal(t, c.want, ve.Fields())
	}

	// The Go error says more than the API's messages: the value refused
	// and the option that would take it.
	_, hinted := b.svc.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: str("x"), URL: str("http://hooks.example/"),
		Events: []string{"form.submited"}})
	require.ErrorContains(t, hinted, `events.0 "form.submited" is not in the catalogue, which holds cart.abandoned, `)
	require.ErrorContains(t, hinted, `(Options.Events and Service.RegisterEvents add to it)`)
	require.ErrorContains(t, hinted, `url "http://hooks.example/" is plain http: Options.AllowInsecureURLs allows it`)
	_, hinted = b.svc.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: str("x"), URL: str("https://10.0.0.1/"), Events: []string{"*"}})
	require.ErrorContains(t, hinted, `url "https://10.0.0.1/" does not resolve to a public address: Options.AllowPrivateHosts allows private and loopback hosts`)
	require.Contains(t, logs.String(), `msg="webhooks: subscription refused" why="url \"https://10.0.0.1/\" does not resolve`, "and the server's log")
	var refused *webhooks.ValidationError
	require.ErrorAs(t, hinted, &refused, "still the API's 422")
	require.Equal(t, map[string][]string{"url": {"The url must resolve to a public address (a private or loopback host needs the server's AllowPrivateHosts option, GROUNDWORK_WEBHOOKS_ALLOW_PRIVATE_HOSTS on the reference server, for local development)."}}, refused.Fields())

	// A generated secret, events de-duplicated, shown once, sealed at rest.
	sub, err := b.svc.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: str(" Orders "), URL: str("https://hooks.example/in"),
		Events: []string{"order.placed", "order.placed", "payment.failed"}})
	require.NoError(t, err)
	require.Equal(t, "Orders", sub.Name)
	require.Regexp(t, `^whsec_[A-Za-z0-9]{48}$`, sub.Secret)
	require.Equal(t, []string{"order.placed", "payment.failed"}, sub.Events)
	require.True(t, sub.IsActive)
	var stored string
	require.NoError(t, b.db.Get(&stored, "SELECT sealed_secret FROM webhooks_subscriptions"))
	require.NotContains(t, stored, sub.Secret[6:])
	read, err := b.svc.Subscription(ctx, sub.ID)
	require.NoError(t, err)
	require.Empty(t, read.Secret)
	raw, err := json.Marshal(read)
	require.NoError(t, err)
	require.NotContains(t, string(raw), "secret")

	std, err := b.svc.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: str("s"), URL: str("https://hooks.example/"),
		Events: []string{"*"}, StandardWebhooks: yes()})
	require.NoError(t, err)
	_, err = standardwebhooks.NewWebhook(std.Secret)
	require.NoError(t, err, "a generated Standard Webhooks secret is whsec_ and base64")

	// Switching a subscription to Standard Webhooks needs a secret of that
	// form (a generated one is: 48 letters and digits are base64).
	_, err = b.svc.UpdateSubscription(ctx, sub.ID, webhooks.SubscriptionInput{StandardWebhooks: yes()})
	require.NoError(t, err)
	mine, err := b.svc.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: str("m"), URL: str("https://hooks.example/"),
		Events: []string{"*"}, Secret: str("whsec_test_secret_0123")})
	require.NoError(t, err)
	_, err = b.svc.UpdateSubscription(ctx, mine.ID, webhooks.SubscriptionInput{StandardWebhooks: yes()})
	var ve *webhooks.ValidationError
	require.ErrorAs(t, err, &ve)
	require.Contains(t, ve.Fields(), "secret")
	_, err = b.svc.UpdateSubscription(ctx, mine.ID, webhooks.SubscriptionInput{StandardWebhooks: yes(), Secret: str("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")})
	require.NoError(t, err)

	// The subscribing hook sees the secret, may change the subscription, or reject it.
	b.svc.OnSubscribing(func(_ context.Context, s *webhooks.Subscription) *webhooks.Subscription {
		require.NotEmpty(t, s.Secret)
		if s.Name == "reject me" {
			return nil
		}
		s.Name += " (checked)"
		return s
	})
	_, err = b.svc.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: str("reject me"), URL: str("https://hooks.example/"), Events: []string{"*"}})
	require.ErrorIs(t, err, webhooks.ErrRejected)
	ok, err := b.svc.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: str("fine"), URL: str("https://hooks.example/"), Events: []string{"*"}})
	require.NoError(t, err)
	require.Equal(t, "fine (checked)", ok.Name)

	// Hosts add their own events to the catalogue.
	require.NoError(t, b.svc.RegisterEvents("form.submitted"))
	require.Error(t, b.svc.RegisterEvents("Bad Name"))
	_, err = b.svc.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: str("f"), URL: str("https://hooks.example/"), Events: []string{"form.submitted"}})
	require.NoError(t, err)
	require.Contains(t, b.svc.Events(), "form.submitted")
	require.Contains(t, b.svc.Events(), "product.out.of.stock")

	_, err = webhooks.NewService(b.store, &webhooks.Options{SecretKey: []byte("short")})
	require.Error(t, err, "the secret key is required")
	_, err = webhooks.NewService(b.store, &webhooks.Options{SecretKey: testKey, ClaimTimeout: time.Second})
	require.Error(t, err)
}

func TestStandardWebhooksDelivery(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	rv := newReceiver(t)
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	sub, err := b.svc.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: str("std"), URL: str(rv.URL), Events: []string{"*"},
		StandardWebhooks: yes(), Secret: &secret})
	require.NoError(t, err)
	require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, placed(1))))
	row := b.deliveriesOf(t, sub.ID)[0]
	b.attempt(t, row.ID)
	g := rv.requests()[0]
	require.Empty(t, g.header.Get("X-Platform-Signature"))
	require.Equal(t, fmt.Sprint(row.ID), g.header.Get("webhook-id"))
	wh, err := standardwebhooks.NewWebhook(secret)
	require.NoError(t, err)
	require.NoError(t, wh.VerifyIgnoringTimestamp(g.body, g.header), "the Standard Webhooks library verifies it")
	require.Equal(t, fmt.Sprint(b.clock.Now().Unix()), g.header.Get("webhook-timestamp"))
}

func TestDeliveringFilter(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	rv := newReceiver(t)
	sub := b.subscribe(t, rv.URL)
	b.svc.OnDelivering(func(_ context.Context, env webhooks.Envelope, s *webhooks.Subscription) webhooks.Envelope {
		require.Empty(t, s.SealedSecret)
		env.Data["seen_by"] = s.Name
		delete(env.Data, "order")
		return env
	})
	require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, placed(1))))
	row := b.deliveriesOf(t, sub.ID)[0]
	b.attempt(t, row.ID)
	g := rv.requests()[0]
	require.Regexp(t, `^\{"id":"[^"]+","event":"order.placed","created_at":"2026-11-22T10:00:00\+00:00","data":\{"seen_by":"test"\}\}$`, string(g.body))
	require.True(t, specVerify("whsec_test_secret_0123", g.header.Get("X-Platform-Signature"), g.body, b.clock.Now()), "signed after the filter")
	require.NotEqual(t, string(g.body), string(b.delivery(t, row.ID).Payload), "the ledger keeps what was recorded")
}

func TestTimeoutAndLongAnswers(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *setupOptions) { o.service = func(so *webhooks.Options) { so.Timeout = 200 * time.Millisecond } })
	ctx := context.Background()
	slow := newReceiver(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	slow.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	chatty := newReceiver(t)
	chatty.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
		_, _ = fmt.Fprint(w, strings.Repeat("é", 1500)) // 3000 bytes
	})
	s1, s2 := b.subscribe(t, slow.URL), b.subscribe(t, chatty.URL)
	require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, placed(1))))
	b.attempt(t, b.deliveriesOf(t, s1.ID)[0].ID)
	b.attempt(t, b.deliveriesOf(t, s2.ID)[0].ID)
	timedOut := b.delivery(t, b.deliveriesOf(t, s1.ID)[0].ID)
	require.Equal(t, webhooks.StatusRetrying, timedOut.Status)
	require.Nil(t, timedOut.ResponseStatus)
	require.Contains(t, *timedOut.ResponseBody, "deadline exceeded")
	long := b.delivery(t, b.deliveriesOf(t, s2.ID)[0].ID)
	require.Equal(t, 418, *long.ResponseStatus)
	require.Equal(t, strings.Repeat("é", 1000), *long.ResponseBody, "2000 bytes, whole characters")
}

func TestPruneAndRedact(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, on(d))
		ctx := context.Background()
		rv := newReceiver(t)
		sub := b.subscribe(t, rv.URL)
		require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, placed(1))))
		type Shipment struct {
			OrderID         int64
			ShippingAddress map[string]any
			Reason          *string
			Note            string
		}
		require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, webhooks.Event{Name: "shipment.created",
			Data: Shipment{OrderID: 1, ShippingAddress: map[string]any{"line": "1 Main St"}, Note: "keep"}})))
		require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, placed(2))))
		ds := b.deliveriesOf(t, sub.ID)
		for _, row := range ds {
			b.attempt(t, row.ID)
		}
		n, err := b.svc.RedactCustomer(ctx, "", []string{"1"})
		require.NoError(t, err)
		require.Equal(t, 2, n)
		r0 := b.delivery(t, ds[0].ID)
		var env map[string]any
		require.NoError(t, json.Unmarshal(r0.Payload, &env))
		order := env["data"].(map[string]any)["order"].(map[string]any)
		require.Equal(t, "[redacted]", order["email"])
		require.EqualValues(t, 1, order["id"])
		require.Nil(t, r0.ResponseBody)
		require.Equal(t, hash(r0.Payload), r0.PayloadHash)
		r1 := b.delivery(t, ds[1].ID)
		require.NoError(t, json.Unmarshal(r1.Payload, &env))
		data := env["data"].(map[string]any)
		require.Nil(t, data["shipping_address"], "objects become null")
		require.Nil(t, data["reason"], "null stays null")
		require.Equal(t, "keep", data["note"])
		untouched := b.delivery(t, ds[2].ID)
		require.Contains(t, string(untouched.Payload), "ann@example.test", "another order's delivery is kept")
		require.NotNil(t, untouched.ResponseBody)
		n, err = b.svc.RedactCustomer(ctx, "7", nil)
		require.NoError(t, err)
		require.Equal(t, 2, n, "by customer: the two order deliveries")

		// Prune: finished rows past the retention only.
		require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, placed(3)))) // pending
		n, err = b.svc.Prune(ctx)
		require.NoError(t, err)
		require.Zero(t, n)
		b.clock.Advance(webhooks.RetentionDefault + time.Hour)
		n, err = b.svc.Prune(ctx)
		require.NoError(t, err)
		require.Equal(t, 3, n)
		left := b.deliveriesOf(t, sub.ID)
		require.Len(t, left, 1)
		require.Equal(t, webhooks.StatusPending, left[0].Status)
	})
}
