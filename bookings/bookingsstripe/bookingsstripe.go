// Package bookingsstripe takes the payments of paid bookings through
// Stripe Checkout: it is the bookings.Payments of Stripe, two calls of
// Stripe's REST API (a Checkout Session made for a booking, and a refund
// of its PaymentIntent), a look-up of a session before an unpaid booking
// is released, and a reader of the Checkout Session events that settle
// one. The events arrive signed at the webhooks' inbound endpoint
// (webhooks.StripeGateway verifies them); link.BookingsToWebhooks hands
// them to bookings.Service.SettlePayment in the inbound event's own
// transaction.
//
//	pay, err := bookingsstripe.New(bookingsstripe.Options{APIKey: os.Getenv("STRIPE_SECRET_KEY")})
//	svc, err := bookings.NewService(st, &bookings.Options{Payments: pay, ...})
package bookingsstripe

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

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/internal/outbound"
)

// APIBaseDefault is Stripe's API.
const APIBaseDefault = "https://api.stripe.com"

// Options configures New.
type Options struct {
	// APIKey is the secret key ("sk_..."), or a restricted key that
	// writes Checkout Sessions and Refunds.
	APIKey string
	// APIBase is where the API is; APIBaseDefault when empty.
	APIBase string
	// Provider is the {provider} segment Stripe's webhooks arrive under
	// at the inbound endpoint; "stripe" when empty.
	Provider string
	// HTTPClient makes the calls; a shared client when nil. Each call is
	// given 30 s an attempt, and up to three attempts when Stripe answers
	// 429 or 5xx or cannot be reached (each carries an idempotency key,
	// so a retry makes nothing twice).
	HTTPClient *http.Client
}

// Payments is Stripe Checkout as bookings.Payments. Safe for concurrent
// use.
type Payments struct {
	provider string
	api      *outbound.Client
}

var _ bookings.Payments = (*Payments)(nil)

// New returns the Stripe payments of opts.
func New(opts Options) (*Payments, error) {
	if strings.TrimSpace(opts.APIKey) == "" {
		return nil, errors.New("bookingsstripe: no APIKey")
	}
	base := opts.APIBase
	if base == "" {
		base = APIBaseDefault
	}
	api, err := outbound.New(outbound.Options{Provider: "stripe", BaseURL: base, HTTPClient: opts.HTTPClient,
		Header: http.Header{"Authorization": {"Bearer " + opts.APIKey}}})
	if err != nil {
		return nil, fmt.Errorf("bookingsstripe: APIBase %q is not an http(s) URL", base)
	}
	provider := opts.Provider
	if provider == "" {
		provider = "stripe"
	}
	return &Payments{provider: provider, api: api}, nil
}

// Provider implements bookings.Payments.
func (p *Payments) Provider() string { return p.provider }

// minCheckoutWindow is the shortest time a Checkout Session may stay open.
const minCheckoutWindow = 30 * time.Minute

// Checkout implements bookings.Payments: a Checkout Session in payment
// mode for the booking's amount, open until its payment is due (at least
// 30 minutes, as Stripe requires), the booking named in its
// client_reference_id and metadata (and in its PaymentIntent's), the
// customer's email filled in, and the customer sent back to returnURL
// (with paid=1 once paid). Its idempotency key is the booking's number, so
// asking again opens no second session.
func (p *Payments) Checkout(ctx context.Context, b bookings.Booking, title, returnURL string) (string, string, error) {
	pay := b.Payment
	if pay == nil {
		return "", "", errors.New("bookingsstripe: checkout: the booking owes nothing")
	}
	amount, err := MinorUnits(pay.Amount, pay.Currency)
	if err != nil {
		return "", "", fmt.Errorf("bookingsstripe: checkout: %w", err)
	}
	if pay.DueAt.Sub(b.CreatedAt) < minCheckoutWindow {
		return "", "", fmt.Errorf("bookingsstripe: checkout: a Checkout Session stays open at least %s; PaymentWindow is shorter", minCheckoutWindow)
	}
	back, err := url.Parse(returnURL)
	if err != nil || returnURL == "" {
		return "", "", fmt.Errorf("bookingsstripe: checkout: return URL %q", returnURL)
	}
	// Stripe counts the half hour from the session's making: a page
	// opened late (for a booking made in a host's transaction) stays open
	// a little past the hold, and a payment made then is refunded.
	expires := pay.DueAt
	if soonest := time.Now().Add(minCheckoutWindow + time.Minute); expires.Before(soonest) {
		expires = soonest
	}
	paid := *back
	q := paid.Query()
	q.Set("paid", "1")
	paid.RawQuery = q.Encode()
	id := strconv.FormatInt(b.ID, 10)
	form := url.Values{
		"mode":                 {"payment"},
		"client_reference_id":  {id},
		"customer_email":       {b.CustomerEmail},
		"expires_at":           {strconv.FormatInt(expires.Unix(), 10)},
		"success_url":          {paid.String()},
		"cancel_url":           {back.String()},
		"metadata[booking_id]": {id}, "metadata[booking_number]": {b.Number},
		"payment_intent_data[metadata][booking_id]":     {id},
		"payment_intent_data[metadata][booking_number]": {b.Number},
		"line_items[0][quantity]":                       {"1"},
		"line_items[0][price_data][currency]":           {strings.ToLower(pay.Currency)},
		"line_items[0][price_data][unit_amount]":        {strconv.FormatInt(amount, 10)},
		"line_items[0][price_data][product_data][name]": {title},
	}
	if b.CustomerEmail == "" {
		form.Del("customer_email")
	}
	var session struct {
		ID  string `json:"id"`
		URL string `json:"url"`
	}
	if err := p.post(ctx, "/v1/checkout/sessions", "groundwork-checkout-"+b.Number, form, &session); err != nil {
		return "", "", fmt.Errorf("bookingsstripe: checkout of %s: %w", b.Number, err)
	}
	if session.ID == "" || session.URL == "" {
		return "", "", fmt.Errorf("bookingsstripe: checkout of %s: Stripe answered no session", b.Number)
	}
	return session.URL, session.ID, nil
}

// Refund implements bookings.Payments: a refund of the booking's
// PaymentIntent in full, under an idempotency key of the booking's number.
func (p *Payments) Refund(ctx context.Context, b bookings.Booking) error {
	if b.Payment == nil || b.Payment.Reference == "" {
		return errors.New("bookingsstripe: refund: the booking has no payment")
	}
	form := url.Values{"payment_intent": {b.Payment.Reference}, "metadata[booking_id]": {strconv.FormatInt(b.ID, 10)},
		"metadata[booking_number]": {b.Number}}
	var refund struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	if err := p.post(ctx, "/v1/refunds", "groundwork-refund-"+b.Number, form, &refund); err != nil {
		return fmt.Errorf("bookingsstripe: refund of %s: %w", b.Number, err)
	}
	if refund.Status == "failed" || refund.Status == "canceled" {
		return fmt.Errorf("bookingsstripe: refund of %s: %s", b.Number, refund.Status)
	}
	return nil
}

// Paid implements bookings.Payments: the booking's Checkout Session asked
// for, paid when its payment_status is paid (its PaymentIntent the
// reference).
func (p *Payments) Paid(ctx context.Context, b bookings.Booking) (string, bool, error) {
	if b.Payment == nil || b.Payment.Session == "" {
		return "", false, errors.New("bookingsstripe: paid: the booking has no Checkout Session")
	}
	var session struct {
		PaymentStatus string `json:"payment_status"`
		PaymentIntent string `json:"payment_intent"`
	}
	if err := p.api.GetJSON(ctx, "/v1/checkout/sessions/"+url.PathEscape(b.Payment.Session), nil, &session); err != nil {
		return "", false, fmt.Errorf("bookingsstripe: look up %s: %w", b.Payment.Session, err)
	}
	return session.PaymentIntent, session.PaymentStatus == "paid" && session.PaymentIntent != "", nil
}

// post sends form to path with an idempotency key, and decodes the
// answer into out.
func (p *Payments) post(ctx context.Context, path, key string, form url.Values, out any) error {
	return p.api.DoDecode(ctx, &outbound.Request{Method: http.MethodPost, Path: path, Body: []byte(form.Encode()), Idempotent: true,
		Header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Idempotency-Key": {key}}}, out)
}

// Settlement implements bookings.Payments: the Checkout Session events of
// a session made by Checkout. checkout.session.completed with its
// payment_status paid, and checkout.session.async_payment_succeeded, are
// paid; checkout.session.expired and checkout.session.async_payment_failed
// are not. Any other event, or a session of no booking, settles none.
func (p *Payments) Settlement(eventType string, payload map[string]any) (bookings.Booking, bool) {
	data, _ := payload["data"].(map[string]any)
	obj, _ := data["object"].(map[string]any)
	str := func(m map[string]any, k string) string { v, _ := m[k].(string); return v }
	if str(obj, "object") != "checkout.session" {
		return bookings.Booking{}, false
	}
	meta, _ := obj["metadata"].(map[string]any)
	id, err := strconv.ParseInt(str(obj, "client_reference_id"), 10, 64)
	number := str(meta, "booking_number")
	if err != nil || id <= 0 || number == "" || str(meta, "booking_id") != strconv.FormatInt(id, 10) {
		return bookings.Booking{}, false
	}
	told := bookings.Booking{ID: id, Number: number, Payment: &bookings.Payment{Session: str(obj, "id")}}
	switch eventType {
	case "checkout.session.completed":
		if str(obj, "payment_status") != "paid" {
			return bookings.Booking{}, false // an asynchronous payment reports later
		}
	case "checkout.session.async_payment_succeeded":
	case "checkout.session.expired", "checkout.session.async_payment_failed":
		return told, false
	default:
		return bookings.Booking{}, false
	}
	told.Payment.Reference = str(obj, "payment_intent")
	if told.Payment.Reference == "" {
		return bookings.Booking{}, false
	}
	return told, true
}

// zeroDecimal are the currencies Stripe counts in whole units, and
// threeDecimal those it counts in thousandths.
var (
	zeroDecimal  = "BIF CLP DJF GNF JPY KMF KRW MGA PYG RWF UGX VND VUV XAF XOF XPF"
	threeDecimal = "BHD JOD KWD OMR TND"
)

// MinorUnits is a decimal amount ("25.00") in currency's smallest unit
// as Stripe counts it (2500 cents; 2500 yen for "2500" JPY): an amount
// that unit cannot hold exactly, or not above zero, is an error.
func MinorUnits(amount, currency string) (int64, error) {
	currency = strings.ToUpper(strings.TrimSpace(currency))
	if len(currency) != 3 {
		return 0, fmt.Errorf("currency %q is not an ISO 4217 code", currency)
	}
	places := int64(100)
	switch {
	case strings.Contains(zeroDecimal, currency):
		places = 1
	case strings.Contains(threeDecimal, currency):
		places = 1000
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
