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
	"net/http"
	"strconv"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/internal/stripecheckout"
)

// APIBaseDefault is Stripe's API.
const APIBaseDefault = stripecheckout.APIBaseDefault

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
	api      *stripecheckout.Client
}

var _ bookings.Payments = (*Payments)(nil)

// New returns the Stripe payments of opts.
func New(opts Options) (*Payments, error) {
	api, err := stripecheckout.New(opts.APIKey, opts.APIBase, opts.HTTPClient)
	if err != nil {
		return nil, fmt.Errorf("bookingsstripe: %w", err)
	}
	provider := opts.Provider
	if provider == "" {
		provider = "stripe"
	}
	return &Payments{provider: provider, api: api}, nil
}

// Provider implements bookings.Payments.
func (p *Payments) Provider() string { return p.provider }

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
	if pay.DueAt.Sub(b.CreatedAt) < stripecheckout.MinWindow {
		return "", "", fmt.Errorf("bookingsstripe: checkout: a Checkout Session stays open at least %s; PaymentWindow is shorter", stripecheckout.MinWindow)
	}
	// Stripe counts the half hour from the session's making: a page
	// opened late (for a booking made in a host's transaction) stays open
	// a little past the hold, and a payment made then is refunded.
	id := strconv.FormatInt(b.ID, 10)
	page, session, err := p.api.Open(ctx, stripecheckout.Session{Key: "groundwork-checkout-" + b.Number, Reference: id,
		Metadata: map[string]string{"booking_id": id, "booking_number": b.Number}, Email: b.CustomerEmail,
		Amount: pay.Amount, Currency: pay.Currency, Title: title, ReturnURL: returnURL, Expires: pay.DueAt})
	if err != nil {
		return "", "", fmt.Errorf("bookingsstripe: checkout of %s: %w", b.Number, err)
	}
	return page, session, nil
}

// Refund implements bookings.Payments: a refund of the booking's
// PaymentIntent in full, under an idempotency key of the booking's number.
func (p *Payments) Refund(ctx context.Context, b bookings.Booking) error {
	if b.Payment == nil || b.Payment.Reference == "" {
		return errors.New("bookingsstripe: refund: the booking has no payment")
	}
	err := p.api.Refund(ctx, b.Payment.Reference, "groundwork-refund-"+b.Number,
		map[string]string{"booking_id": strconv.FormatInt(b.ID, 10), "booking_number": b.Number})
	if err != nil {
		return fmt.Errorf("bookingsstripe: refund of %s: %w", b.Number, err)
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
	reference, paid, err := p.api.Paid(ctx, b.Payment.Session)
	if err != nil {
		return "", false, fmt.Errorf("bookingsstripe: %w", err)
	}
	return reference, paid, nil
}

// Settlement implements bookings.Payments: the Checkout Session events of
// a session made by Checkout. checkout.session.completed with its
// payment_status paid, and checkout.session.async_payment_succeeded, are
// paid; checkout.session.expired and checkout.session.async_payment_failed
// are not. Any other event, or a session of no booking, settles none.
func (p *Payments) Settlement(eventType string, payload map[string]any) (bookings.Booking, bool) {
	e, paid, ok := stripecheckout.Read(eventType, payload)
	id, err := strconv.ParseInt(e.Reference, 10, 64)
	number := e.Metadata["booking_number"]
	if !ok || err != nil || id <= 0 || number == "" || e.Metadata["booking_id"] != e.Reference {
		return bookings.Booking{}, false
	}
	return bookings.Booking{ID: id, Number: number, Payment: &bookings.Payment{Session: e.Session, Reference: e.PaymentIntent}}, paid
}

// MinorUnits is a decimal amount ("25.00") in currency's smallest unit
// as Stripe counts it (2500 cents; 2500 yen for "2500" JPY): an amount
// that unit cannot hold exactly, or not above zero, is an error.
func MinorUnits(amount, currency string) (int64, error) {
	return stripecheckout.MinorUnits(amount, currency)
}
