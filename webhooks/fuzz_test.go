package webhooks_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	stripewebhook "github.com/stripe/stripe-go/v85/webhook"

	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/webhooks"
)

var fuzzNow = time.Unix(1_800_000_000, 0)

// Verify never panics on any header and body, accepts only what Sign made
// (for this secret, body and a time within the tolerance), and a header
// Sign made always verifies.
func FuzzVerify(f *testing.F) {
	const secret = "whsec_fuzz"
	good := webhooks.Sign(secret, fuzzNow, []byte(`{"event":"form.submitted"}`))
	for _, h := range []string{good, "t=1800000000,v1=00", "t=,v1=", "v1=abc", "t=1800000000", "t=99999999999999999999,v1=ab",
		"t=1800000000, v1=" + strings.Repeat("a", 64) + ",v0=x", ",,,", "t=-1,v1=zz", "t=1800000000,v1=" + good[len(good)-64:]} {
		f.Add(h, []byte(`{"event":"form.submitted"}`))
	}
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		if webhooks.Verify(secret, header, body, fuzzNow, 5*time.Minute) == nil {
			// Of the v1 entries given, one must be the signature of the body
			// at the header's time (its hex in either case: the same bytes).
			want := webhooks.Sign(secret, parseT(header), body)
			if !strings.Contains(strings.ToLower(header), want[strings.Index(want, "v1="):]) {
				t.Fatalf("verified a header Sign did not make: %q", header)
			}
		}
		signed := webhooks.Sign(secret, fuzzNow, body)
		if err := webhooks.Verify(secret, signed, body, fuzzNow, 5*time.Minute); err != nil {
			t.Fatalf("Sign's own header refused: %v", err)
		}
	})
}

// parseT is the t= of a header, or the zero time.
func parseT(header string) time.Time {
	for part := range strings.SplitSeq(header, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(part), "t="); ok {
			var n int64
			for _, c := range v {
				if c < '0' || c > '9' {
					return time.Time{}
				}
				n = n*10 + int64(c-'0')
			}
			return time.Unix(n, 0)
		}
	}
	return time.Time{}
}

// VerifyStandard never panics on any Standard Webhooks headers, and what
// SignStandard made verifies.
func FuzzVerifyStandard(f *testing.F) {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	sig, err := webhooks.SignStandard(secret, "msg_1", fuzzNow, []byte(`{}`))
	if err != nil {
		f.Fatal(err)
	}
	f.Add("msg_1", "1800000000", sig, []byte(`{}`))
	f.Add("msg_1", "1800000000", "v1,AAAA v1a,BBB", []byte(`{}`))
	f.Add("", "", "", []byte{})
	f.Add("id", "1e9", "v1,"+strings.Repeat("=", 50), []byte("x"))
	f.Fuzz(func(t *testing.T, id, ts, signature string, body []byte) {
		h := http.Header{}
		h.Set(webhooks.HeaderStandardID, id)
		h.Set(webhooks.HeaderStandardTimestamp, ts)
		h.Set(webhooks.HeaderStandardSignature, signature)
		_ = webhooks.VerifyStandard(secret, h, body, fuzzNow, 5*time.Minute)
		if id == "" || strings.ContainsAny(id, "\r\n") {
			return
		}
		own, err := webhooks.SignStandard(secret, id, fuzzNow, body)
		if err != nil {
			t.Fatal(err)
		}
		h.Set(webhooks.HeaderStandardTimestamp, "1800000000")
		h.Set(webhooks.HeaderStandardSignature, own)
		if err := webhooks.VerifyStandard(secret, h, body, fuzzNow, 5*time.Minute); err != nil {
			t.Fatalf("SignStandard's own signature refused for id %q: %v", id, err)
		}
	})
}

// The Stripe gateway never panics on any Stripe-Signature header and body,
// and accepts exactly what Stripe's own library signs for its secret.
func FuzzStripeSignature(f *testing.F) {
	const secret = "whsec_stripe_fuzz"
	body := []byte(`{"id":"evt_1","object":"event","type":"customer.created","data":{"object":{"id":"cus_1","object":"customer"}}}`)
	signed := stripewebhook.GenerateTestSignedPayload(&stripewebhook.UnsignedPayload{Payload: body, Secret: secret, Timestamp: fuzzNow}).Header
	for _, h := range []string{signed, "t=1800000000,v1=ab", "t=x", "", "v1=,v1=,t=1", "t=1800000000,v0=" + strings.Repeat("f", 64)} {
		f.Add(h, body)
	}
	f.Add(signed, []byte(`{"id":1}`))
	g, err := webhooks.NewStripeGateway(&webhooks.StripeOptions{WebhookSecrets: []string{secret}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		_, _ = g.Verify(http.Header{"Stripe-Signature": {header}}, body, fuzzNow)
		own := stripewebhook.GenerateTestSignedPayload(&stripewebhook.UnsignedPayload{Payload: body, Secret: secret, Timestamp: fuzzNow}).Header
		_, err := g.Verify(http.Header{"Stripe-Signature": {own}}, body, fuzzNow)
		var gerr *webhooks.GatewayError
		if errors.As(err, &gerr) && strings.HasPrefix(gerr.Code, "signature") {
			t.Fatalf("Stripe's own signature refused: %v", err)
		}
	})
}

// fixedResolver answers every name with one address: a private one for
// names under .internal, else a public one.
type fixedResolver struct{}

func (fixedResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if strings.HasSuffix(host, ".internal") {
		return []netip.Addr{netip.MustParseAddr("10.1.2.3")}, nil
	}
	return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
}

// The egress check never panics, and a URL it passes is https with a host,
// at most MaxURLLength long, whose every address (its literal IP, in any
// spelling, or what it resolves to) is public.
func FuzzEgressCheck(f *testing.F) {
	for _, u := range []string{"https://example.com/hook", "https://2130706433/", "https://0x7f.1/", "https://0177.0.0.1/", "https://127.1/",
		"https://[::ffff:127.0.0.1]/", "https://a.internal/", "http://example.com/", "https://user@10.0.0.1:443/x", "https://[fe80::1%25eth0]/",
		"https://example.com:99999/", "https:///x", "//example.com", "https://ex ample.com/", "https://1.2.3.4.5/", "https://0x100000000/"} {
		f.Add(u)
	}
	g := &webhooks.Guard{Resolver: fixedResolver{}}
	f.Fuzz(func(t *testing.T, raw string) {
		target, err := g.Check(context.Background(), raw)
		if err != nil {
			return
		}
		if target.URL.Scheme != "https" || target.URL.Hostname() == "" || len(raw) > webhooks.MaxURLLength {
			t.Fatalf("passed %q as %v", raw, target.URL)
		}
		if len(target.Addrs) == 0 {
			t.Fatalf("passed %q with no address", raw)
		}
		for _, a := range target.Addrs {
			if !webhooks.IsPublic(a) {
				t.Fatalf("passed %q to %s", raw, a)
			}
		}
		if a, err := netip.ParseAddr(strings.Trim(target.URL.Hostname(), "[]")); err == nil && !webhooks.IsPublic(a) {
			t.Fatalf("passed %q, a literal %s", raw, a)
		}
	})
}

// No JSON body sent to the admin API's writing routes (GraphQL too) makes
// one panic or answer 5xx, and every answer is JSON as documented.
func FuzzAdminBodies(f *testing.F) {
	routes := []struct{ method, path string }{
		{"POST", "/admin/webhook-subscriptions"}, {"PATCH", "/admin/webhook-subscriptions/1"}, {"PUT", "/admin/webhook-subscriptions/1"},
		{"POST", "/admin/webhook-subscriptions/1/rotate-secret"}, {"POST", "/admin/webhook-subscriptions/1/replay-parked"}, {"POST", "/graphql"},
	}
	for i, body := range []string{`{"name":"n","url":"https://example.com/h","events":["form.submitted"]}`,
		`{"url":"https://2130706433/","events":[],"headers":{"Host":"x","X-A":"` + strings.Repeat("b", 5000) + `"}}`,
		`{"name":null,"url":"ftp://x","events":["*"],"rate_limit":-1,"channels":["a",1]}`, `{"grace_seconds":99999999999}`,
		`{"from":"2026-13-01T00:00:00Z"}`, `{"query":"{ webhookSubscriptions { data { id url } } }"}`,
		`{"query":"mutation { createWebhookSubscription(input: {name: \"x\", url: \"https://e.com\", events: [\"*\"]}) { id } }","variables":{"a":[1]}}`,
		`{"query":"{` + strings.Repeat("a{", 200) + `"}`} {
		f.Add(uint8(i), body)
	}
	b := setup(f)
	a := b.api(f)
	b.subscribe(f, "https://93.184.216.34/hook")
	client := a.server.Client()
	f.Fuzz(func(t *testing.T, route uint8, body string) {
		r := routes[int(route)%len(routes)]
		req, err := http.NewRequest(r.method, a.server.URL+webhooks.PrefixDefault+r.path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer admin2")
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode >= 500 || !json.Valid(out) && res.StatusCode != 204 {
			t.Fatalf("%s %s %q: %d %s", r.method, r.path, body, res.StatusCode, out)
		}
		if held := apitest.Held(); len(held) > 0 {
			t.Fatalf("%s %s %q: %v", r.method, r.path, body, held)
		}
	})
}
