// Package stripecheckout is the Stripe Checkout piece paid bookings and
// paid forms share: a Checkout Session opened for one thing to pay for,
// a refund of its PaymentIntent, a look-up of a session, and a reader of
// the Checkout Session events that settle one. Each domain's adapter
// (bookingsstripe, formsstripe) says what the session is for in its
// metadata and reads its own back.
package stripecheckout

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/internal/outbound"
)

// APIBaseDefault is Stripe's API.
const APIBaseDefault = "https://api.stripe.com"

// MinWindow is the shortest time a Checkout Session may stay open.
const MinWindow = 30 * time.Minute

// Client calls Stripe's API with one secret key. Safe for concurrent use.
type Client struct {
	api *outbound.Client
}

// New returns the client of apiKey at base (APIBaseDefault when empty),
// making its calls with hc (a shared client when nil): 30 s an attempt,
// up to three when Stripe answers 429 or 5xx or cannot be reached (each
// call carries an idempotency key, so a retry makes nothing twice).
func New(apiKey, base string, hc *http.Client) (*Client, error) {
	if strings.TrimSpace(apiKey) == "" {
		return nil, errors.New("no APIKey")
	}
	if base == "" {
		base = APIBaseDefault
	}
	api, err := outbound.New(outbound.Options{Provider: "stripe", BaseURL: base, HTTPClient: hc,
		Header: http.Header{"Authorization": {"Bearer " + apiKey}}})
	if err != nil {
		return nil, fmt.Errorf("APIBase %q is not an http(s) URL", base)
	}
	return &Client{api: api}, nil
}

// Session is a Checkout Session to open: one line of Amount in Currency
// named Title, for the thing Reference names (client_reference_id) and
// Metadata describes (on the session and its PaymentIntent), open until
// Expires (30 minutes from now at least, as Stripe requires), the
// customer's Email filled in, sent back to ReturnURL (with paid=1 once
// paid). Key makes it once: a second call with it opens none.
type Session struct {
	Key, Reference   string
	Metadata         map[string]string
	Email            string
	Amount, Currency string
	Title, ReturnURL string
	Expires          time.Time
}

// Open opens s and returns the page's address and the session's id.
func (c *Client) Open(ctx context.Context, s Session) (page, id string, err error) {
	amount, err := MinorUnits(s.Amount, s.Currency)
	if err != nil {
		return "", "", err
	}
	back, err := url.Parse(s.ReturnURL)
	if err != nil || !back.IsAbs() {
		return "", "", fmt.Errorf("return URL %q", s.ReturnURL)
	}
	expires := s.Expires
	if soonest := time.Now().Add(MinWindow + time.Minute); expires.Before(soonest) {
		expires = soonest // Stripe counts the half hour from the session's making
	}
	paid := *back
	q := paid.Query()
	q.Set("paid", "1")
	paid.RawQuery = q.Encode()
	form := url.Values{
		"mode":                                   {"payment"},
		"client_reference_id":                    {s.Reference},
		"expires_at":                             {strconv.FormatInt(expires.Unix(), 10)},
		"success_url":                            {paid.String()},
		"cancel_url":                             {back.String()},
		"line_items[0][quantity]":                {"1"},
		"line_items[0][price_data][currency]":    {strings.ToLower(s.Currency)},
		"line_items[0][price_data][unit_amount]": {strconv.FormatInt(amount, 10)},
		"line_items[0][price_data][product_data][name]": {s.Title},
	}
	if s.Email != "" {
		form.Set("customer_email", s.Email)
	}
	for k, v := range s.Metadata {
		form.Set("metadata["+k+"]", v)
		form.Set("payment_intent_data[metadata]["+k+"]", v)
	}
	var session struct {
		ID  string `json:"id"`
		URL string `json:"url"`
	}
	if err := c.post(ctx, "/v1/checkout/sessions", s.Key, form, &session); err != nil {
		return "", "", err
	}
	if session.ID == "" || session.URL == "" {
		return "", "", errors.New("Stripe answered no session")
	}
	return session.URL, session.ID, nil
}

// Refund returns the PaymentIntent reference in full, under key, with
// metadata on the refund.
func (c *Client) Refund(ctx context.Context, reference, key string, metadata map[string]string) error {
	form := url.Values{"payment_intent": {reference}}
	for k, v := range metadata {
		form.Set("metadata["+k+"]", v)
	}
	var refund struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	if err := c.post(ctx, "/v1/refunds", key, form, &refund); err != nil {
		return err
	}
	if refund.Status == "failed" || refund.Status == "canceled" {
		return errors.New(refund.Status)
	}
	return nil
}

// Paid asks for the session with this id: paid when its payment_status
// says so, its PaymentIntent the reference.
func (c *Client) Paid(ctx context.Context, id string) (reference string, paid bool, err error) {
	var session struct {
		PaymentStatus string `json:"payment_status"`
		PaymentIntent string `json:"payment_intent"`
	}
	if err := c.api.GetJSON(ctx, "/v1/checkout/sessions/"+url.PathEscape(id), nil, &session); err != nil {
		return "", false, fmt.Errorf("look up %s: %w", id, err)
	}
	return session.PaymentIntent, session.PaymentStatus == "paid" && session.PaymentIntent != "", nil
}

// post sends form to path with an idempotency key, and decodes the
// answer into out.
func (c *Client) post(ctx context.Context, path, key string, form url.Values, out any) error {
	return c.api.DoDecode(ctx, &outbound.Request{Method: http.MethodPost, Path: path, Body: []byte(form.Encode()), Idempotent: true,
		Header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Idempotency-Key": {key}}}, out)
}

// Event is what a Checkout Session event says of its session.
type Event struct {
	// Session is the session's id, Reference its client_reference_id,
	// Metadata its metadata, PaymentIntent its payment (once paid).
	Session, Reference, PaymentIntent string
	Metadata                          map[string]string
}

// Read reads a Checkout Session event: checkout.session.completed with
// its payment_status paid, and checkout.session.async_payment_succeeded,
// are paid (with a PaymentIntent); checkout.session.expired and
// checkout.session.async_payment_failed are not. Any other event, or a
// completed one whose payment is still to come, is not one (ok false).
func Read(eventType string, payload map[string]any) (e Event, paid, ok bool) {
	data, _ := payload["data"].(map[string]any)
	obj, _ := data["object"].(map[string]any)
	str := func(m map[string]any, k string) string { v, _ := m[k].(string); return v }
	if str(obj, "object") != "checkout.session" {
		return Event{}, false, false
	}
	e = Event{Session: str(obj, "id"), Reference: str(obj, "client_reference_id"), Metadata: map[string]string{}}
	meta, _ := obj["metadata"].(map[string]any)
	for k := range meta {
		e.Metadata[k] = str(meta, k)
	}
	switch eventType {
	case "checkout.session.completed":
		if str(obj, "payment_status") != "paid" {
			return Event{}, false, false // an asynchronous payment reports later
		}
	case "checkout.session.async_payment_succeeded":
	case "checkout.session.expired", "checkout.session.async_payment_failed":
		return e, false, true
	default:
		return Event{}, false, false
	}
	if e.PaymentIntent = str(obj, "payment_intent"); e.PaymentIntent == "" {
		return Event{}, false, false
	}
	return e, true, true
}

// zeroDecimal are the currencies Stripe counts in whole units, and
// threeDecimal those it counts in thousandths.
var (
	zeroDecimal  = "BIF CLP DJF GNF JPY KMF KRW MGA PYG RWF UGX VND VUV XAF XOF XPF"
	threeDecimal = "BHD JOD KWD OMR TND"
)

// Decimals is how many decimal places currency's amounts have as Stripe
// counts them: 0 for yen, 3 for dinars, 2 for most.
func Decimals(currency string) int {
	currency = strings.ToUpper(strings.TrimSpace(currency))
	switch {
	case len(currency) != 3:
		return 2
	case strings.Contains(zeroDecimal, currency):
		return 0
	case strings.Contains(threeDecimal, currency):
		return 3
	}
	return 2
}

// MinorUnits is a decimal amount ("25.00") in currency's smallest unit
// as Stripe counts it (2500 cents; 2500 yen for "2500" JPY): an amount
// that unit cannot hold exactly, or not above zero, is an error.
func MinorUnits(amount, currency string) (int64, error) {
	currency = strings.ToUpper(strings.TrimSpace(currency))
	if len(currency) != 3 {
		return 0, fmt.Errorf("currency %q is not an ISO 4217 code", currency)
	}
	places := int64(1)
	for range Decimals(currency) {
		places *= 10
	}
	r, ok := new(big.Rat).SetString(strings.TrimSpace(amount))
	if !ok || r.Sign() <= 0 {
		return 0, fmt.Errorf("amount %q is not a price above zero", amount)
	}
	r.Mul(r, new(big.Rat).SetInt64(places))
	if !r.IsInt() || !r.Num().IsInt64() {
		return 0, fmt.Errorf("amount %q cannot be paid in %s", amount, currency)
	}
	return r.Num().Int64(), nil
}
