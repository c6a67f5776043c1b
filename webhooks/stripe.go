package webhooks

import (
	"bytes"
	"context"
	"crypto/hmac"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/internal/outbound"
)

// Stripe defaults.
const (
	// StripeAPIBaseDefault is Stripe's API.
	StripeAPIBaseDefault = "https://api.stripe.com"
	// StripeProvider is the {provider} segment the Stripe gateway is
	// usually registered under.
	StripeProvider = "stripe"
)

// StripeOptions configures NewStripeGateway.
type StripeOptions struct {
	// WebhookSecrets are the endpoint's signing secrets ("whsec_..."): a
	// webhook signed with any of them verifies, so a secret can be rolled
	// by adding the new one before removing the old.
	WebhookSecrets []string
	// APIKey is the secret key session lookups use ("sk_..." or a
	// restricted key that reads PaymentIntents and Checkout Sessions).
	APIKey string
	// APIBase is where the API is; StripeAPIBaseDefault when empty.
	APIBase string
	// Tolerance is how old a signature's timestamp may be;
	// ToleranceDefault (300 s, as Stripe's libraries) when zero. A
	// timestamp ahead of now is not refused, as Stripe's libraries do not.
	Tolerance time.Duration
	// HTTPClient makes the API calls; a shared client when nil. Each
	// lookup is given 30 s an attempt, and up to three attempts when
	// Stripe answers 429 or 5xx or cannot be reached.
	HTTPClient *http.Client
}

// StripeGateway is the Gateway of Stripe webhooks: Stripe-Signature
// verified as Stripe documents it, the PaymentIntent and Checkout Session
// events that settle a payment recognised, and sessions looked up through
// Stripe's API.
type StripeGateway struct {
	opts StripeOptions
	api  *outbound.Client
}

var _ Gateway = (*StripeGateway)(nil)

// NewStripeGateway returns the Stripe gateway.
func NewStripeGateway(opts *StripeOptions) (*StripeGateway, error) {
	var o StripeOptions
	if opts != nil {
		o = *opts
	}
	var secrets []string
	for _, s := range o.WebhookSecrets {
		if s = strings.TrimSpace(s); s != "" {
			secrets = append(secrets, s)
		}
	}
	o.WebhookSecrets = secrets
	if o.APIBase == "" {
		o.APIBase = StripeAPIBaseDefault
	}
	if o.Tolerance == 0 {
		o.Tolerance = ToleranceDefault
	}
	api, err := outbound.New(outbound.Options{Provider: StripeProvider, BaseURL: o.APIBase, HTTPClient: o.HTTPClient,
		Header: http.Header{"Authorization": {"Bearer " + o.APIKey}}})
	if err != nil {
		return nil, fmt.Errorf("webhooks: stripe: APIBase %q is not an http(s) URL", o.APIBase)
	}
	return &StripeGateway{opts: o, api: api}, nil
}

// Verify implements Gateway.
func (g *StripeGateway) Verify(header http.Header, body []byte, now time.Time) (*InboundEvent, error) {
	if len(g.opts.WebhookSecrets) == 0 {
		return nil, &GatewayError{Code: "webhook_secret_not_configured", Message: "No Stripe webhook secret is configured."}
	}
	sig := header.Get("Stripe-Signature")
	if sig == "" {
		return nil, &GatewayError{Code: "signature_missing", Message: "The Stripe-Signature header is missing."}
	}
	var ts string
	var candidates [][]byte
	for part := range strings.SplitSeq(sig, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch k {
		case "t":
			ts = v
		case "v1":
			if b, err := hex.DecodeString(v); err == nil {
				candidates = append(candidates, b)
			}
		}
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(candidates) == 0 {
		return nil, &GatewayError{Code: "signature_mismatch", Message: "Unable to extract timestamp and signatures from header."}
	}
	// Only a signature older than the tolerance is refused, as Stripe's
	// own libraries judge (a sender's clock ahead of ours is not a replay).
	if now.Sub(time.Unix(unix, 0)) > g.opts.Tolerance {
		return nil, &GatewayError{Code: "signature_mismatch", Message: "Timestamp outside the tolerance zone."}
	}
	matched := false
	for _, secret := range g.opts.WebhookSecrets {
		want := mac([]byte(secret), ts, body)
		for _, c := range candidates {
			if hmac.Equal(c, want) {
				matched = true
			}
		}
	}
	if !matched {
		return nil, &GatewayError{Code: "signature_mismatch", Message: "No signatures found matching the expected signature for payload."}
	}
	return parseStripeEvent(body)
}

// stripeOutcomes are the events that report a payment's outcome.
var stripeOutcomes = map[string]PaymentOutcome{
	"payment_intent.succeeded":                 PaymentSucceeded,
	"payment_intent.amount_capturable_updated": PaymentSucceeded, // authorised, to capture
	"payment_intent.payment_failed":            PaymentFailed,
	"payment_intent.canceled":                  PaymentFailed,
	"checkout.session.async_payment_succeeded": PaymentSucceeded,
	"checkout.session.async_payment_failed":    PaymentFailed,
	"checkout.session.expired":                 PaymentFailed,
}

func parseStripeEvent(body []byte) (*InboundEvent, error) {
	var payload map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&payload) != nil || dec.Decode(new(json.RawMessage)) != io.EOF {
		return nil, &GatewayError{Code: "invalid_payload", Message: "The webhook body is not a Stripe event."}
	}
	str := func(m map[string]any, k string) string { v, _ := m[k].(string); return v }
	out := &InboundEvent{ID: str(payload, "id"), Type: str(payload, "type"), Payload: payload}
	if out.ID == "" || out.Type == "" {
		return nil, &GatewayError{Code: "invalid_payload", Message: "The webhook body is not a Stripe event."}
	}
	data, _ := payload["data"].(map[string]any)
	obj, _ := data["object"].(map[string]any)
	if kind := str(obj, "object"); kind == "payment_intent" || kind == "checkout.session" {
		out.SessionReference = str(obj, "id")
	}
	out.Outcome = stripeOutcomes[out.Type]
	if paid := str(obj, "payment_status"); out.Type == "checkout.session.completed" && (paid == "paid" || paid == "no_payment_required") {
		out.Outcome = PaymentSucceeded // an asynchronous payment reports later
	}
	if out.SessionReference == "" {
		out.Outcome = ""
	}
	return out, nil
}

// Session implements Gateway: a PaymentIntent ("pi_...") or a Checkout
// Session ("cs_...") is asked for through the API.
func (g *StripeGateway) Session(ctx context.Context, reference string) (PaymentOutcome, error) {
	var path string
	switch {
	case strings.HasPrefix(reference, "pi_"):
		path = "/v1/payment_intents/"
	case strings.HasPrefix(reference, "cs_"):
		path = "/v1/checkout/sessions/"
	default:
		return "", fmt.Errorf("webhooks: stripe: %q is neither a PaymentIntent nor a Checkout Session", reference)
	}
	var obj struct {
		Status        string `json:"status"`
		PaymentStatus string `json:"payment_status"`
	}
	if err := g.api.GetJSON(ctx, path+url.PathEscape(reference), nil, &obj); err != nil {
		return "", fmt.Errorf("webhooks: stripe: look up %s: %w", reference, err)
	}
	if path == "/v1/payment_intents/" {
		switch obj.Status {
		case "succeeded", "requires_capture":
			return PaymentSucceeded, nil
		case "canceled":
			return PaymentFailed, nil
		}
		return PaymentPending, nil
	}
	switch {
	case obj.PaymentStatus == "paid" || obj.PaymentStatus == "no_payment_required":
		return PaymentSucceeded, nil
	case obj.Status == "expired":
		return PaymentFailed, nil
	}
	return PaymentPending, nil
}
