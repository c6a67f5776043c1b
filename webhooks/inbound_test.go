package webhooks_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	stripewebhook "github.com/stripe/stripe-go/v85/webhook"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/driverless"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
)

const (
	stripeSecret    = "whsec_inbound_test_secret_1"
	stripeOldSecret = "whsec_inbound_old_secret_0"
)

// stripeEvent is a Stripe event body.
func stripeEvent(id, typ, object, objectID string, extra ...string) []byte {
	more := ""
	if len(extra) > 0 {
		more = "," + strings.Join(extra, ",")
	}
	return []byte(fmt.Sprintf(`{"id":%q,"object":"event","type":%q,"data":{"object":{"id":%q,"object":%q%s}}}`, id, typ, objectID, object, more))
}

// stripeSigned signs body the way Stripe's own library does.
func stripeSigned(body []byte, secret string, at time.Time) string {
	return stripewebhook.GenerateTestSignedPayload(&stripewebhook.UnsignedPayload{Payload: body, Secret: secret, Timestamp: at}).Header
}

type inbound struct {
	b      *bundle
	server *httptest.Server
	fired  atomic.Int64
}

// newInbound serves the inbound endpoint with a Stripe gateway (both
// secrets accepted) on b's service; limits as given (0: defaults).
func newInbound(t *testing.T, b *bundle, limiter groundwork.RateLimiter, perIP, perProvider int) *inbound {
	t.Helper()
	in := &inbound{b: b}
	h, err := webhooks.NewInboundHandler(b.svc, &webhooks.InboundHandlerOptions{
		HTTPOptions: groundwork.HTTPOptions{RateLimiter: limiter},
		PerIP:       perIP,
		PerProvider: perProvider,
		MaxBytes:    4096,
	})
	require.NoError(t, err)
	in.server = httptest.NewServer(apitest.Of(t, h).Handler(h))
	t.Cleanup(in.server.Close)
	return in
}

func registerStripe(t *testing.T, b *bundle, apiBase string) {
	t.Helper()
	g, err := webhooks.NewStripeGateway(&webhooks.StripeOptions{WebhookSecrets: []string{stripeOldSecret, stripeSecret},
		APIKey: "sk_test_1", APIBase: apiBase})
	require.NoError(t, err)
	require.NoError(t, b.svc.RegisterGateway("stripe", g))
}

func (in *inbound) post(t *testing.T, provider string, body []byte, signature string, headers ...string) reply {
	t.Helper()
	req, err := http.NewRequest("POST", in.server.URL+"/ecommerce/webhooks/"+provider, strings.NewReader(string(body)))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if signature != "" {
		req.Header.Set("Stripe-Signature", signature)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return reply{res.StatusCode, res.Header, string(out)}
}

func (b *bundle) ledger(t *testing.T) []webhooks.InboundRecord {
	t.Helper()
	list, _, err := b.svc.InboundLedger(context.Background(), webhooks.InboundQuery{Limit: 1000})
	require.NoError(t, err)
	return list
}

func TestStripeSignatures(t *testing.T) {
	t.Parallel()
	g, err := webhooks.NewStripeGateway(&webhooks.StripeOptions{WebhookSecrets: []string{stripeOldSecret, " " + stripeSecret + " ", ""}})
	require.NoError(t, err)
	now := time.Now()
	body := stripeEvent("evt_1", "payment_intent.succeeded", "payment_intent", "pi_1")
	h := func(sig string) http.Header { return http.Header{"Stripe-Signature": {sig}} }

	ev, err := g.Verify(h(stripeSigned(body, stripeSecret, now)), body, now)
	require.NoError(t, err)
	require.Equal(t, "evt_1", ev.ID)
	require.Equal(t, "payment_intent.succeeded", ev.Type)
	require.Equal(t, "pi_1", ev.SessionReference)
	require.Equal(t, webhooks.PaymentSucceeded, ev.Outcome)
	_, err = g.Verify(h(stripeSigned(body, stripeOldSecret, now)), body, now)
	require.NoError(t, err, "a rotated secret still verifies")

	// Several v1 values, as Stripe sends while a secret rolls: any match.
	good := stripeSigned(body, stripeSecret, now)
	ts, v1, _ := strings.Cut(good, ",v1=")
	_, err = g.Verify(h(ts+",v1="+strings.Repeat("0", 64)+",v1="+v1+",v0=abc"), body, now)
	require.NoError(t, err)

	var ge *webhooks.GatewayError
	for _, c := range []struct {
		header string
		body   []byte
		now    time.Time
		code   string
	}{
		{"", body, now, "signature_missing"},
		{stripeSigned(body, "whsec_someone_else", now), body, now, "signature_mismatch"},
		{stripeSigned(body, stripeSecret, now), []byte(strings.Replace(string(body), "pi_1", "pi_2", 1)), now, "signature_mismatch"},
		{stripeSigned(body, stripeSecret, now.Add(-301*time.Second)), body, now, "signature_mismatch"},
		{"t=abc,v1=" + v1, body, now, "signature_mismatch"},
		{stripeSigned([]byte(`not json`), stripeSecret, now), []byte(`not json`), now, "invalid_payload"},
		{stripeSigned(append(body[:len(body):len(body)], `{}`...), stripeSecret, now), append(body[:len(body):len(body)], `{}`...), now, "invalid_payload"},
		{stripeSigned([]byte(`{"id":"evt_1"}`), stripeSecret, now), []byte(`{"id":"evt_1"}`), now, "invalid_payload"},
	} {
		_, err := g.Verify(h(c.header), c.body, c.now)
		require.ErrorAs(t, err, &ge)
		require.Equal(t, c.code, ge.Code, c.header)
	}
	_, err = g.Verify(h(stripeSigned(body, stripeSecret, now.Add(-299*time.Second))), body, now)
	require.NoError(t, err, "within the 300 s tolerance")
	_, err = g.Verify(h(stripeSigned(body, stripeSecret, now.Add(400*time.Second))), body, now)
	require.NoError(t, err, "a timestamp ahead of our clock is not a replay: stripe-go and stripe-node accept it")
	none, err := webhooks.NewStripeGateway(nil)
	require.NoError(t, err)
	_, err = none.Verify(h(good), body, now)
	require.ErrorAs(t, err, &ge)
	require.Equal(t, "webhook_secret_not_configured", ge.Code)

	// The events that report an outcome.
	for _, c := range []struct {
		typ, object, id string
		extra           []string
		ref             string
		outcome         webhooks.PaymentOutcome
	}{
		{"payment_intent.payment_failed", "payment_intent", "pi_2", nil, "pi_2", webhooks.PaymentFailed},
		{"payment_intent.canceled", "payment_intent", "pi_3", nil, "pi_3", webhooks.PaymentFailed},
		{"payment_intent.amount_capturable_updated", "payment_intent", "pi_4", nil, "pi_4", webhooks.PaymentSucceeded},
		{"payment_intent.processing", "payment_intent", "pi_5", nil, "pi_5", ""},
		{"checkout.session.completed", "checkout.session", "cs_1", []string{`"payment_status":"paid"`}, "cs_1", webhooks.PaymentSucceeded},
		{"checkout.session.completed", "checkout.session", "cs_2", []string{`"payment_status":"unpaid"`}, "cs_2", ""},
		{"checkout.session.async_payment_failed", "checkout.session", "cs_3", nil, "cs_3", webhooks.PaymentFailed},
		{"checkout.session.expired", "checkout.session", "cs_4", nil, "cs_4", webhooks.PaymentFailed},
		{"customer.created", "customer", "cus_1", nil, "", ""},
	} {
		b := stripeEvent("evt_"+c.id, c.typ, c.object, c.id, c.extra...)
		ev, err := g.Verify(h(stripeSigned(b, stripeSecret, now)), b, now)
		require.NoError(t, err)
		require.Equal(t, c.ref, ev.SessionReference, c.typ)
		require.Equal(t, c.outcome, ev.Outcome, c.typ)
	}
}

// Every row of the response table, in order, and what the ledger keeps.
func TestInboundEndpoint(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, on(d))
		registerStripe(t, b, "")
		in := newInbound(t, b, nil, 0, 2)
		var fired atomic.Int64
		var gatewayFired, paymentFired atomic.Int64
		b.svc.OnWebhookReceived(func(_ context.Context, provider string, ev *webhooks.InboundEvent) error {
			require.Equal(t, "stripe", provider)
			fired.Add(1)
			return nil
		})
		b.svc.OnGatewayWebhookReceived("stripe", func(context.Context, *webhooks.InboundEvent) error { gatewayFired.Add(1); return nil })
		b.svc.OnGatewayWebhookReceived("paypal", func(context.Context, *webhooks.InboundEvent) error { t.Error("wrong provider"); return nil })
		b.svc.OnPaymentWebhookReceived(func(_ context.Context, payload map[string]any, provider string) error {
			require.Equal(t, "event", payload["object"])
			paymentFired.Add(1)
			return nil
		})
		now := b.clock.Now()

		r := in.post(t, "paypal", []byte(`{}`), "")
		require.Equal(t, 404, r.status)
		require.JSONEq(t, `{"code":"gateway_not_registered","message":"Payment gateway \"paypal\" is not registered."}`, r.body)

		big := stripeEvent("evt_big", "customer.created", "customer", "cus_1", `"pad":"`+strings.Repeat("x", 5000)+`"`)
		r = in.post(t, "stripe", big, stripeSigned(big, stripeSecret, now))
		require.Equal(t, 413, r.status)
		require.Contains(t, r.body, `"code":"payload_too_large"`)
		// Over the limit by count, the length not announced.
		req, err := http.NewRequest("POST", in.server.URL+"/ecommerce/webhooks/stripe", io.MultiReader(strings.NewReader(string(big))))
		require.NoError(t, err)
		req.ContentLength = -1
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, 413, res.StatusCode)
		require.Empty(t, b.ledger(t), "404 and 413 leave no row")

		junk := []byte(strings.Repeat("j", 1500))
		r = in.post(t, "stripe", junk, stripeSigned(junk, "whsec_wrong", now))
		require.Equal(t, 400, r.status)
		require.JSONEq(t, `{"code":"signature_mismatch","message":"No signatures found matching the expected signature for payload."}`, r.body)
		rows := b.ledger(t)
		require.Len(t, rows, 1)
		require.False(t, rows[0].Verified)
		require.Equal(t, "signature_mismatch", rows[0].ErrorCode)
		require.Equal(t, 1500, rows[0].PayloadSize)
		require.Equal(t, hash(junk), rows[0].PayloadHash)
		require.Len(t, rows[0].Payload, 1024, "the first KiB only")
		require.True(t, rows[0].PayloadTruncated)
		require.Nil(t, rows[0].Parsed)
		require.Equal(t, 400, rows[0].ResponseStatus)

		ev := stripeEvent("evt_1", "payment_intent.succeeded", "payment_intent", "pi_1")
		r = in.post(t, "stripe", ev, stripeSigned(ev, stripeSecret, now), "X-Request-Id", "req-77")
		require.Equal(t, 200, r.status, r.body)
		require.JSONEq(t, `{"received":true,"event_id":"evt_1","type":"payment_intent.succeeded"}`, r.body)
		r = in.post(t, "stripe", ev, stripeSigned(ev, stripeSecret, now))
		require.Equal(t, 200, r.status)
		require.JSONEq(t, `{"received":true,"event_id":"evt_1","type":"payment_intent.succeeded","duplicate":true}`, r.body)
		require.EqualValues(t, 1, fired.Load(), "a redelivery fires nothing")
		require.EqualValues(t, 1, gatewayFired.Load())
		require.EqualValues(t, 1, paymentFired.Load())
		rows = b.ledger(t)
		require.Len(t, rows, 3)
		first := rows[1]
		require.True(t, first.Verified)
		require.False(t, first.Duplicate)
		require.Equal(t, string(ev), first.Payload, "the whole body")
		require.Equal(t, "evt_1", first.Parsed["id"])
		require.Equal(t, "pi_1", first.SessionReference)
		require.Equal(t, "req-77", first.CorrelationID)
		require.True(t, rows[0].Duplicate)

		// The provider's allowance counts verified events only (2 here):
		// junk did not use it, the duplicate did.
		ev2 := stripeEvent("evt_2", "customer.created", "customer", "cus_2")
		r = in.post(t, "stripe", ev2, stripeSigned(ev2, stripeSecret, now))
		require.Equal(t, 429, r.status)
		require.JSONEq(t, `{"code":"rate_limited","message":"Too many webhooks; try again later."}`, r.body)
		require.NotEmpty(t, r.header.Get("Retry-After"))
		require.Len(t, b.ledger(t), 3, "a 429 leaves no row")
		r = in.post(t, "stripe", junk, stripeSigned(junk, "whsec_wrong", now))
		require.Equal(t, 400, r.status, "junk is still checked, not throttled by the provider allowance")
	})
}

func TestInboundPerIP(t *testing.T) {
	t.Parallel()
	b := setup(t)
	registerStripe(t, b, "")
	in := newInbound(t, b, nil, 3, 0)
	for range 2 {
		require.Equal(t, 404, in.post(t, "nobody", []byte(`{}`), "").status)
	}
	require.Equal(t, 400, in.post(t, "stripe", []byte(`{}`), "t=1,v1=00").status)
	r := in.post(t, "stripe", []byte(`{}`), "")
	require.Equal(t, 429, r.status, "every request counts toward the address's allowance")
	require.Contains(t, r.body, "rate_limited")
}

// 50 deliveries of one event at the same moment fire the hooks once.
func TestInboundExactlyOnce(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		meter := &testkit.Meter{}
		b := setup(t, on(d), func(o *setupOptions) { o.service = func(so *webhooks.Options) { so.Meter = meter } })
		registerStripe(t, b, "")
		in := newInbound(t, b, nil, -1, -1)
		var fired atomic.Int64
		b.svc.OnWebhookReceived(func(context.Context, string, *webhooks.InboundEvent) error {
			fired.Add(1)
			time.Sleep(20 * time.Millisecond)
			return nil
		})
		ev := stripeEvent("evt_once", "payment_intent.succeeded", "payment_intent", "pi_1")
		sig := stripeSigned(ev, stripeSecret, b.clock.Now())
		var wg sync.WaitGroup
		var mu sync.Mutex
		statuses := map[string]int{}
		for range 50 {
			wg.Go(func() {
				r := in.post(t, "stripe", ev, sig)
				var body struct {
					Duplicate bool `json:"duplicate"`
				}
				_ = json.Unmarshal([]byte(r.body), &body)
				mu.Lock()
				statuses[fmt.Sprint(r.status, body.Duplicate)]++
				mu.Unlock()
			})
		}
		wg.Wait()
		require.EqualValues(t, 1, fired.Load())
		require.Equal(t, map[string]int{"200 false": 1, "200 true": 49}, statuses)
		require.Len(t, b.ledger(t), 50)
		require.Equal(t, 1.0, meter.Count(groundwork.MetricInbound, "stripe", "verified"), "counted once each")
		require.Equal(t, 49.0, meter.Count(groundwork.MetricInbound, "stripe", "duplicate"))
		r := in.post(t, "stripe", ev, "t=1,v1=00")
		require.Equal(t, 400, r.status)
		require.Equal(t, 1.0, meter.Count(groundwork.MetricInbound, "stripe", "refused"))
	})
}

// A failing listener releases the event: the provider's retry is handled.
func TestInboundFailingListener(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, on(d))
		registerStripe(t, b, "")
		in := newInbound(t, b, nil, -1, -1)
		var calls atomic.Int64
		b.svc.OnWebhookReceived(func(context.Context, string, *webhooks.InboundEvent) error {
			switch calls.Add(1) {
			case 1:
				return errors.New("the shop's database is down")
			case 2:
				panic("and then it panicked")
			}
			return nil
		})
		ev := stripeEvent("evt_retry", "customer.created", "customer", "cus_1")
		sig := stripeSigned(ev, stripeSecret, b.clock.Now())
		r := in.post(t, "stripe", ev, sig)
		require.Equal(t, 500, r.status)
		require.Contains(t, r.body, `"code":"webhook_failed"`)
		require.Equal(t, 500, in.post(t, "stripe", ev, sig).status, "a panic too")
		r = in.post(t, "stripe", ev, sig)
		require.Equal(t, 200, r.status)
		require.NotContains(t, r.body, "duplicate")
		require.EqualValues(t, 3, calls.Load())
		r = in.post(t, "stripe", ev, sig)
		require.Contains(t, r.body, `"duplicate":true`)
		require.EqualValues(t, 3, calls.Load())
	})
}

// The received hooks run in the transaction that claims the event: what
// a hook writes through its context commits with the claim and the
// ledger row, a failing hook takes its writes back with it (and the
// claim, so the retry is handled), and a redelivery, on this instance or
// another on the same database, writes nothing again.
func TestInboundHooksShareTheClaimsTransaction(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		dsn := storetest.DSN(t, d)
		instances := 1
		if d == store.Postgres {
			instances = 2
		}
		var ins []*inbound
		var first *bundle
		var calls atomic.Int64
		for i := range instances {
			b := setup(t, onDSN(d, dsn))
			if i == 0 {
				first = b
				_, err := b.db.ExecContext(context.Background(), `CREATE TABLE host_paid (event_id TEXT NOT NULL)`)
				require.NoError(t, err)
			}
			registerStripe(t, b, "")
			db := b.db
			b.svc.OnWebhookReceived(func(ctx context.Context, _ string, ev *webhooks.InboundEvent) error {
				if _, err := db.On(ctx).ExecContext(ctx, db.Rebind(`INSERT INTO host_paid (event_id) VALUES (?)`), ev.ID); err != nil {
					return err
				}
				if calls.Add(1) == 1 {
					return errors.New("the confirmation mail could not be queued")
				}
				time.Sleep(10 * time.Millisecond)
				return nil
			})
			ins = append(ins, newInbound(t, b, nil, -1, -1))
		}
		paid := func() int {
			var n int
			require.NoError(t, first.db.GetContext(context.Background(), &n, `SELECT COUNT(*) FROM host_paid`))
			return n
		}
		ev := stripeEvent("evt_paid", "checkout.session.completed", "checkout.session", "cs_1")
		sig := stripeSigned(ev, stripeSecret, first.clock.Now())
		require.Equal(t, 500, ins[0].post(t, "stripe", ev, sig).status)
		require.Zero(t, paid(), "the failing hook's write is rolled back with the claim")

		var wg sync.WaitGroup
		var mu sync.Mutex
		statuses := map[string]int{}
		for i := range 20 {
			in := ins[i%len(ins)]
			wg.Go(func() {
				r := in.post(t, "stripe", ev, sig)
				mu.Lock()
				statuses[fmt.Sprint(r.status, strings.Contains(r.body, `"duplicate":true`))]++
				mu.Unlock()
			})
		}
		wg.Wait()
		require.Equal(t, map[string]int{"200 false": 1, "200 true": 19}, statuses)
		require.Equal(t, 1, paid(), "written once, with the one claim")
		rows := map[string]int{}
		for _, r := range first.ledger(t) {
			rows[fmt.Sprint(r.ResponseStatus, r.Duplicate)]++
		}
		require.Equal(t, map[string]int{"500 false": 1, "200 false": 1, "200 true": 19}, rows, "the ledger: the failure, the claim, the redeliveries")
	})
}

// Both allowances hold across two instances sharing a database.
func TestInboundLimitsAcrossInstances(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, on(d))
		registerStripe(t, b, "")
		one := newInbound(t, b, store.NewSQLRateLimiter(b.db, nil), 100, 3)
		two := newInbound(t, b, store.NewSQLRateLimiter(b.db, nil), 100, 3)
		now := b.clock.Now()
		for i, in := range []*inbound{one, two, one} {
			ev := stripeEvent(fmt.Sprintf("evt_%d", i), "customer.created", "customer", "cus_1")
			require.Equal(t, 200, in.post(t, "stripe", ev, stripeSigned(ev, stripeSecret, now)).status)
		}
		ev := stripeEvent("evt_x", "customer.created", "customer", "cus_1")
		require.Equal(t, 429, two.post(t, "stripe", ev, stripeSigned(ev, stripeSecret, now)).status, "the provider's allowance is shared")

		fresh := setup(t, on(d)) // a database whose address counts start at zero
		ipOne := newInbound(t, fresh, store.NewSQLRateLimiter(fresh.db, nil), 2, -1)
		ipTwo := newInbound(t, fresh, store.NewSQLRateLimiter(fresh.db, nil), 2, -1)
		require.Equal(t, 404, ipOne.post(t, "x", []byte(`{}`), "").status)
		require.Equal(t, 404, ipTwo.post(t, "x", []byte(`{}`), "").status)
		require.Equal(t, 429, ipOne.post(t, "x", []byte(`{}`), "").status, "the address's allowance is shared")
	})
}

// Bodies that are not valid text still leave their ledger rows: hostile
// bytes in a refused request, and a NUL or an invalid byte inside a
// verified event's strings.
func TestInboundLedgerHostileBytes(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, on(d))
		registerStripe(t, b, "")
		in := newInbound(t, b, nil, -1, -1)
		var fired atomic.Int64
		b.svc.OnWebhookReceived(func(context.Context, string, *webhooks.InboundEvent) error {
			fired.Add(1)
			return nil
		})

		// A refused body: NUL, an invalid byte, and a rune cut at 1 KiB.
		refused := append([]byte("\x00\xff{"), strings.Repeat("a", webhooks.InboundStoredPrefix-4)...)
		refused = append(refused, "é and more"...)
		require.Equal(t, 400, in.post(t, "stripe", refused, "t=1,v1=00").status)

		// A verified event whose strings carry a NUL escape and an invalid byte.
		ev := stripeEvent("evt_nul", "customer.updated", "customer", "cus_1", `"name":"a\u0000b","note":"x`+"\xff"+`y"`)
		r := in.post(t, "stripe", ev, stripeSigned(ev, stripeSecret, b.clock.Now()))
		require.Equal(t, 200, r.status, r.body)
		require.Contains(t, in.post(t, "stripe", ev, stripeSigned(ev, stripeSecret, b.clock.Now())).body, `"duplicate":true`)
		require.EqualValues(t, 1, fired.Load(), "the claim held")

		rows := b.ledger(t)
		require.Len(t, rows, 3)
		bad := rows[2]
		require.False(t, bad.Verified)
		require.Equal(t, len(refused), bad.PayloadSize)
		sum := sha256.Sum256(refused)
		require.Equal(t, hex.EncodeToString(sum[:]), bad.PayloadHash, "the hash is of the bytes received")
		require.True(t, bad.PayloadTruncated)
		require.True(t, utf8.ValidString(bad.Payload))
		require.NotContains(t, bad.Payload, "\x00")
		require.True(t, strings.HasSuffix(bad.Payload, "aaa"), "the rune the cut would split is left out")
		require.True(t, strings.HasPrefix(bad.Payload, "\uFFFD\uFFFD{"))
		good := rows[1]
		require.True(t, good.Verified)
		require.Equal(t, "evt_nul", good.EventID)
		require.Equal(t, len(ev), good.PayloadSize)
		obj := good.Parsed["data"].(map[string]any)["object"].(map[string]any)
		require.Equal(t, "a\uFFFDb", obj["name"])
		require.Equal(t, "x\uFFFDy", obj["note"])
	})
}

// failingOn is a rate limiter whose counters cannot be reached for keys
// containing its text.
type failingOn struct {
	text string
	next groundwork.RateLimiter
}

func (f failingOn) Hit(ctx context.Context, key string, limit int, window time.Duration) (groundwork.RateLimit, error) {
	if strings.Contains(key, f.text) {
		return groundwork.RateLimit{}, errors.New("the counters are unreachable")
	}
	return f.next.Hit(ctx, key, limit, window)
}

// An allowance that cannot be checked answers 503 and records nothing:
// the provider retries, and no event slips past its limit.
func TestInboundLimiterDown(t *testing.T) {
	t.Parallel()
	b := setup(t)
	registerStripe(t, b, "")
	var fired atomic.Int64
	b.svc.OnWebhookReceived(func(context.Context, string, *webhooks.InboundEvent) error {
		fired.Add(1)
		return nil
	})
	ev := stripeEvent("evt_down", "customer.created", "customer", "cus_1")
	sig := stripeSigned(ev, stripeSecret, b.clock.Now())
	for _, text := range []string{"-ip:", "-provider:"} {
		in := newInbound(t, b, failingOn{text, driverless.NewMemoryRateLimiter(nil)}, 0, 0)
		r := in.post(t, "stripe", ev, sig)
		require.Equal(t, 503, r.status, text)
		require.JSONEq(t, `{"code":"unavailable","message":"Service Unavailable."}`, r.body)
	}
	require.Zero(t, fired.Load())
	require.Empty(t, b.ledger(t))
	r := newInbound(t, b, nil, 0, 0).post(t, "stripe", ev, sig)
	require.Equal(t, 200, r.status)
	require.EqualValues(t, 1, fired.Load(), "the event was not claimed by the refused tries")
}
