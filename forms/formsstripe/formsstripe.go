// Package formsstripe takes the payments of paid forms through Stripe
// Checkout: it is the forms.Payments of Stripe, on the same Checkout piece
// as paid bookings (bookingsstripe): a Checkout Session opened for a
// submission awaiting payment, a look-up of it before an unpaid one is
// given up, and a reader of the Checkout Session events that settle one.
// The events arrive signed at the webhooks' inbound endpoint
// (webhooks.StripeGateway verifies them); link.FormsToWebhooks hands them
// to forms.Service.SettlePayment in the inbound event's own transaction.
//
//	pay, err := formsstripe.New(formsstripe.Options{APIKey: os.Getenv("STRIPE_SECRET_KEY")})
//	svc, err := forms.NewService(st, &forms.Options{Payments: pay, ...})
package formsstripe

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/internal/stripecheckout"
)

// Options configures New.
type Options struct {
	// APIKey is the secret key ("sk_..."), or a restricted key that
	// writes Checkout Sessions.
	APIKey string
	// APIBase is where the API is; Stripe's own when empty.
	APIBase string
	// Provider is the {provider} segment Stripe's webhooks arrive under
	// at the inbound endpoint; "stripe" when empty.
	Provider string
	// HTTPClient makes the calls; a shared client when nil. Each call is
	// given 30 s an attempt, and up to three when Stripe answers 429 or
	// 5xx or cannot be reached (each carries an idempotency key).
	HTTPClient *http.Client
}

// Payments is Stripe Checkout as forms.Payments. Safe for concurrent use.
type Payments struct {
	provider string
	api      *stripecheckout.Client
}

var _ forms.Payments = (*Payments)(nil)

// New returns the Stripe payments of opts.
func New(opts Options) (*Payments, error) {
	api, err := stripecheckout.New(opts.APIKey, opts.APIBase, opts.HTTPClient)
	if err != nil {
		return nil, fmt.Errorf("formsstripe: %w", err)
	}
	provider := opts.Provider
	if provider == "" {
		provider = "stripe"
	}
	return &Payments{provider: provider, api: api}, nil
}

// Provider implements forms.Payments.
func (p *Payments) Provider() string { return p.provider }

// Checkout implements forms.Payments: a Checkout Session in payment mode
// for the submission's total, named after the form, open until its
// payment is due (at least 30 minutes), the submission named in its
// client_reference_id and metadata (form_id, submission_id, and its
// PaymentIntent's), the person sent back to returnURL (with paid=1 once
// paid). Its idempotency key is the form's and submission's ids, so asking
// again opens no second session.
func (p *Payments) Checkout(ctx context.Context, form *forms.Form, sub *forms.Submission, returnURL string) (string, string, error) {
	if sub.Payment == nil {
		return "", "", errors.New("formsstripe: checkout: the submission owes nothing")
	}
	id, formID := strconv.FormatInt(sub.ID, 10), strconv.FormatInt(form.ID, 10)
	page, session, err := p.api.Open(ctx, stripecheckout.Session{Key: "groundwork-form-" + formID + "-" + id, Reference: id,
		Metadata: map[string]string{"form_id": formID, "submission_id": id}, Email: emailOf(sub),
		Amount: sub.Payment.Amount, Currency: sub.Payment.Currency, Title: form.Name, ReturnURL: returnURL, Expires: sub.Payment.DueAt})
	if err != nil {
		return "", "", fmt.Errorf("formsstripe: checkout of submission %s: %w", id, err)
	}
	return page, session, nil
}

// emailOf is the first answer of an email field of sub, for Checkout to
// fill in.
func emailOf(sub *forms.Submission) string {
	for _, v := range sub.Values {
		if v.FieldType == forms.TypeEmail && v.Value != nil {
			return *v.Value
		}
	}
	return ""
}

// Paid implements forms.Payments: the submission's Checkout Session asked
// for, paid when its payment_status is paid.
func (p *Payments) Paid(ctx context.Context, sub *forms.Submission) (string, bool, error) {
	if sub.Payment == nil || sub.Payment.Session == "" {
		return "", false, errors.New("formsstripe: paid: the submission has no Checkout Session")
	}
	reference, paid, err := p.api.Paid(ctx, sub.Payment.Session)
	if err != nil {
		return "", false, fmt.Errorf("formsstripe: %w", err)
	}
	return reference, paid, nil
}

// Settlement implements forms.Payments: the Checkout Session events of a
// session made by Checkout (paid: completed and paid, or an asynchronous
// payment succeeded; unpaid: expired, or an asynchronous payment failed).
// Any other event, or a session of no submission (a booking's), settles
// none.
func (p *Payments) Settlement(eventType string, payload map[string]any) (forms.Submission, bool) {
	e, paid, ok := stripecheckout.Read(eventType, payload)
	id, err := strconv.ParseInt(e.Reference, 10, 64)
	formID, ferr := strconv.ParseInt(e.Metadata["form_id"], 10, 64)
	if !ok || err != nil || ferr != nil || id <= 0 || e.Metadata["submission_id"] != e.Reference {
		return forms.Submission{}, false
	}
	return forms.Submission{ID: id, FormID: formID, Payment: &forms.Payment{Session: e.Session, Reference: e.PaymentIntent}}, paid
}
