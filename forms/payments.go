package forms

import (
	"context"
	"crypto/hmac"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/stripecheckout"
)

// A form with a total field (TypeTotal) adds up the prices of the
// answers: each option's price (field_config.options' "price") chosen, and
// a number field's field_config.price times the number given. The page
// shows it as the person answers; the server works it out again, and a
// submission that says another total is refused at the field (the prices
// changed since the page was drawn). With field_config.payment, a
// submission with a total above zero is paid for through Options.Payments
// (Stripe Checkout: formsstripe.Payments): it is kept awaiting payment,
// and its notifications, webhooks and hooks wait for the payment, which
// SettlePayment confirms in the transaction of the provider's event.

// Payments takes the payments of paid forms through a provider's hosted
// payment page: formsstripe.Payments is Stripe Checkout's. Its calls are
// made outside every transaction, and each must be safe to repeat.
type Payments interface {
	// Provider names the provider as its webhooks arrive ("stripe").
	Provider() string
	// Checkout opens the payment of sub (its Payment says the amount, the
	// currency and when the page must close), a submission of form, and
	// returns the page to send the person to and the provider's id of it;
	// returnURL is where the person comes back to. Called again for sub
	// it must open no second payment.
	Checkout(ctx context.Context, form *Form, sub *Submission, returnURL string) (url, session string, err error)
	// Paid asks the provider whether sub's payment page was paid, and by
	// which payment.
	Paid(ctx context.Context, sub *Submission) (reference string, paid bool, err error)
	// Settlement reads a verified event of the provider: the submission
	// it settles as far as the event names it (ID, FormID, and its
	// Payment's Session and, once paid, Reference; ID 0 when it settles
	// none), and whether it was paid (false: it failed or expired).
	Settlement(eventType string, payload map[string]any) (sub Submission, paid bool)
}

// Payment is what a submission of a paid form owes and how it stands.
type Payment struct {
	// Status is awaiting_payment, then paid, or unpaid (the page expired
	// or the payment failed: it holds no place of a limit or quota).
	Status   string    `json:"status"`
	Amount   string    `json:"amount"`
	Currency string    `json:"currency"`
	DueAt    time.Time `json:"due_at"`
	// CheckoutURL is the payment page, Session the provider's id of it,
	// Reference the payment once paid.
	CheckoutURL string     `json:"checkout_url,omitempty"`
	Session     string     `json:"session,omitempty"`
	Reference   string     `json:"reference,omitempty"`
	PaidAt      *time.Time `json:"paid_at,omitempty"`
}

// Payment statuses.
const (
	paymentAwaiting = "awaiting_payment"
	paymentPaid     = "paid"
	paymentUnpaid   = "unpaid"
)

// paymentWindow is how long a payment page stays open (the shortest a
// Stripe Checkout page may), and paymentGrace how long after it the
// sweep waits for the provider's word before asking.
const (
	paymentWindow = 30 * time.Minute
	paymentGrace  = 5 * time.Minute
)

// msgPaymentUnavailable is what a person reads when the payment page
// cannot be opened.
const msgPaymentUnavailable = "Payment could not be started. Please try again in a moment."

// errPaymentUnavailable: the payment provider could not open a payment
// page; the submission is kept, unpaid.
var errPaymentUnavailable = errors.New("forms: payment unavailable")

// price reads a price: a number, or a decimal string ("12.50"), not
// below zero.
func price(v any) (*big.Rat, bool) {
	var r *big.Rat
	switch p := v.(type) {
	case float64:
		var ok bool
		if r, ok = new(big.Rat).SetString(strconv.FormatFloat(p, 'f', -1, 64)); !ok {
			return nil, false
		}
	case string:
		var ok bool
		if r, ok = new(big.Rat).SetString(strings.TrimSpace(p)); !ok {
			return nil, false
		}
	default:
		return nil, false
	}
	return r, r.Sign() >= 0
}

// totalField is the index of the form's total field in fields, or -1.
func totalField(fields []Field) int {
	return slices.IndexFunc(fields, func(f Field) bool { return f.Type == TypeTotal })
}

// currencyOf is a total field's currency, upper case.
func currencyOf(f *Field) string {
	c, _ := f.FieldConfig["currency"].(string)
	return strings.ToUpper(strings.TrimSpace(c))
}

// takesPayment reports whether a total field asks for payment.
func takesPayment(f *Field) bool {
	on, _ := f.FieldConfig["payment"].(bool)
	return on
}

// totalOf adds up the prices of values (answers kept): the options chosen
// and the numbers given times their field's price.
func totalOf(fields []Field, values []Value) *big.Rat {
	sum := new(big.Rat)
	for _, v := range values {
		i := findField(fields, v.FieldName)
		if i < 0 {
			continue
		}
		f := &fields[i]
		if f.Type == TypeNumber && v.Value != nil {
			each, ok := price(f.FieldConfig["price"])
			n, isNum := new(big.Rat).SetString(*v.Value)
			if ok && isNum {
				sum.Add(sum, n.Mul(n, each))
			}
			continue
		}
		if !isChoice(f.Type) || f.Type == TypeMatrix || f.Type == TypeRanking {
			continue
		}
		chosen := v.ValueArray
		if v.Value != nil {
			chosen = []string{*v.Value}
		}
		list, _ := f.FieldConfig["options"].([]any)
		for _, it := range list {
			o, _ := it.(map[string]any)
			if p, ok := price(o["price"]); ok && slices.Contains(chosen, scalarString(o["value"])) {
				sum.Add(sum, p)
			}
		}
	}
	return sum
}

// amount writes r in currency's decimals ("35.00", "3500" yen).
func amount(r *big.Rat, currency string) string {
	return r.FloatString(stripecheckout.Decimals(currency))
}

// addTotal works out the total of sub's answers, when form has a total
// field, and adds it to them: a total the request says that is not the
// same is refused at the field. It returns what the submission owes when
// the field takes payment and the total is above zero (nil otherwise).
func (s *Service) addTotal(v *api.Validator, sp *speaker, fields []Field, sub *Submission, a answers, now time.Time) *Payment {
	i := totalField(fields)
	if i < 0 {
		return nil
	}
	f := &fields[i]
	currency := currencyOf(f)
	sum := totalOf(fields, sub.Values)
	figure := amount(sum, currency)
	if said := a[f.Name]; len(said) > 0 && strings.TrimSpace(said[0]) != "" {
		if r, ok := new(big.Rat).SetString(strings.TrimSpace(said[0])); !ok || r.Cmp(sum) != 0 {
			v.Add(f.Name, sp.say("The total is %s %s, not %s: the prices may have changed. Check the total and send the form again.",
				figure, currency, strings.TrimSpace(said[0])))
			return nil
		}
	}
	fieldID := f.ID
	sub.Values = append(sub.Values, Value{FieldID: &fieldID, FieldName: f.Name, FieldLabel: f.Label, FieldType: f.Type, Value: &figure,
		DisplayValue: figure + " " + currency, CreatedAt: now})
	if !takesPayment(f) || sum.Sign() <= 0 || s.payments == nil {
		return nil
	}
	return &Payment{Status: paymentAwaiting, Amount: figure, Currency: currency, DueAt: now.Add(paymentWindow)}
}

// validateTotal checks a total field's settings, and the prices of
// others: a price is a number or decimal not below zero.
func (s *Service) validateTotal(v *api.Validator, f *Field) {
	if f.Type == TypeNumber {
		if p, given := f.FieldConfig["price"]; given {
			if _, ok := price(p); !ok {
				v.Add("field_config.price", "The field config.price field must be a price: a number not below zero, such as 12.50.")
			}
		}
	}
	if isChoice(f.Type) {
		list, _ := f.FieldConfig["options"].([]any)
		for j, it := range list {
			if o, isObj := it.(map[string]any); isObj {
				if p, given := o["price"]; given {
					if _, ok := price(p); !ok {
						key := fmt.Sprintf("field_config.options.%d.price", j)
						v.Add(key, "The "+api.Attr(key)+" field must be a price: a number not below zero, such as 12.50.")
					}
				}
			}
		}
	}
	if f.Type != TypeTotal {
		return
	}
	if c := currencyOf(f); len(c) != 3 || strings.Trim(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		v.Add("field_config.currency", "The field config.currency field must be a currency's three-letter code, such as EUR.")
	}
	if p, given := f.FieldConfig["payment"]; given {
		if _, isBool := p.(bool); !isBool {
			v.Add("field_config.payment", api.MsgBoolean("field_config.payment"))
		} else if takesPayment(f) && s.payments == nil {
			v.Add("field_config.payment", "A total cannot take payment here: this server has no payment provider.")
		}
	}
}

// checkTotal says where a total field is a form's second.
func checkTotal(f *Field, fields []Field) *api.Validator {
	v := &api.Validator{}
	if f.Type == TypeTotal && slices.ContainsFunc(fields, func(o Field) bool { return o.Type == TypeTotal && o.Name != f.Name && o.ID != f.ID }) {
		v.Add("type", "A form has one total: this one has a total field already.")
	}
	return v
}

// openCheckout opens the payment page of sub, just stored awaiting
// payment, and keeps it with the submission; when the provider cannot
// open one, the submission is left unpaid and the error wraps
// errPaymentUnavailable.
func (s *Service) openCheckout(ctx context.Context, form *Form, sub *Submission, returnURL string) error {
	url, session, err := s.payments.Checkout(ctx, form, sub, returnURL)
	if err != nil {
		s.logger.WarnContext(ctx, "forms: the payment could not be started", "form", form.ID, "submission", sub.ID, "error", err)
		unpaid := *sub.Payment
		unpaid.Status = paymentUnpaid
		if serr := s.store.SetPayment(ctx, form.ID, sub.ID, paymentAwaiting, &unpaid); serr != nil {
			err = errors.Join(err, serr)
		}
		return fmt.Errorf("forms: checkout of submission %d: %w: %w", sub.ID, errPaymentUnavailable, err)
	}
	pay := *sub.Payment
	pay.CheckoutURL, pay.Session = url, session
	if err := s.store.SetPayment(ctx, form.ID, sub.ID, paymentAwaiting, &pay); err != nil {
		return fmt.Errorf("forms: checkout of submission %d: %w", sub.ID, err)
	}
	sub.Payment = &pay
	return nil
}

// SettlePayment settles the submission a payment provider's verified
// event is about, in the transaction ctx carries (the inbound event's:
// the webhooks' received hooks are given it), so the event is recorded,
// the submission paid and its notifications and webhooks queued, or none
// of it. Paid, a submission awaiting payment (or one left unpaid, paid at
// the last moment) is accepted: its notifications are queued and its
// OnSubmissionAcceptedTx hooks run in that transaction, its
// OnSubmissionAccepted hooks once they have (before the caller's
// transaction commits). Unpaid, one awaiting payment is left unpaid. An
// event settled already, of another provider, or that names no
// submission here, changes nothing (settled false).
func (s *Service) SettlePayment(ctx context.Context, provider, eventType string, payload map[string]any) (settled bool, err error) {
	if s.payments == nil || provider != s.payments.Provider() {
		return false, nil
	}
	told, paid := s.payments.Settlement(eventType, payload)
	if told.ID == 0 || told.Payment == nil {
		return false, nil
	}
	sub, err := s.store.Submission(ctx, told.FormID, told.ID)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("forms: settle payment: %w", err)
	}
	if sub.Payment == nil || sub.Payment.Session != "" && told.Payment.Session != sub.Payment.Session {
		return false, nil // another site's, or an earlier page's
	}
	return s.settle(ctx, sub, told.Payment, paid)
}

// settle settles sub as the provider told of its payment p.
func (s *Service) settle(ctx context.Context, sub *Submission, p *Payment, paid bool) (bool, error) {
	pay := *sub.Payment
	from := pay.Status
	switch {
	case !paid && from != paymentAwaiting, paid && from == paymentPaid:
		return false, nil
	case !paid:
		pay.Status = paymentUnpaid
		err := s.store.SetPayment(ctx, sub.FormID, sub.ID, from, &pay)
		return err == nil, ignoreConflict(err)
	}
	now := s.now().UTC()
	pay.Status, pay.Reference, pay.PaidAt = paymentPaid, p.Reference, &now
	if pay.Session == "" {
		pay.Session = p.Session
	}
	form, err := s.store.Form(ctx, sub.FormID, "")
	if err != nil {
		return false, fmt.Errorf("forms: settle payment: %w", err)
	}
	fields, err := s.store.Fields(ctx, form.ID)
	if err != nil {
		return false, fmt.Errorf("forms: settle payment: %w", err)
	}
	var notifications []Notification
	if s.enqueuer != nil {
		if notifications, err = s.store.Notifications(ctx, form.ID); err != nil {
			return false, fmt.Errorf("forms: settle payment: %w", err)
		}
	}
	sub.Payment = &pay
	event := SubmissionEvent{Form: form, Submission: sub}
	a := answers{}
	for _, v := range sub.Values {
		if v.ValueArray != nil {
			a[v.FieldName] = v.ValueArray
		} else if v.Value != nil {
			a[v.FieldName] = []string{*v.Value}
		}
	}
	err = s.store.RunInTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := s.store.SetPayment(ctx, sub.FormID, sub.ID, from, &pay); err != nil {
			return err
		}
		return s.acceptTx(ctx, tx, notifications, s.hooks.submissionTx.All(), event, a, fieldNames(fields))
	})
	if err != nil {
		return false, ignoreConflict(err)
	}
	s.fireAccepted(ctx, event)
	return true, nil
}

// ignoreConflict is nil for ErrConflict (another settled it first).
func ignoreConflict(err error) error {
	if errors.Is(err, ErrConflict) {
		return nil
	}
	return err
}

// expireUnpaid leaves unpaid the submissions still awaiting payment past
// their due time (and a grace for the provider's last word), and returns
// how many. The provider's event of an expired page does it sooner; this
// catches the ones whose event never came. Each is asked of the provider
// first: one it says was paid is settled instead; one it cannot answer
// for is left to the next sweep.
func (s *Service) expireUnpaid(ctx context.Context) (int, error) {
	if s.payments == nil {
		return 0, nil
	}
	now := s.now()
	n, kept := 0, 0 // kept: those still awaiting, in the pages read
	for {
		list, _, err := s.store.ListSubmissions(ctx, SubmissionQuery{Payment: paymentAwaiting, Offset: kept, Limit: sweepPage})
		if err != nil {
			return n, fmt.Errorf("forms: expire unpaid submissions: %w", err)
		}
		for i := range list {
			settled, err := s.expireOne(ctx, &list[i], now)
			if err != nil {
				return n, err
			}
			switch settled {
			case settledUnpaid:
				n++
			case settledNot:
				kept++
			}
		}
		if len(list) < sweepPage {
			return n, nil
		}
	}
}

// sweepPage is how many submissions awaiting payment the sweep reads at
// once.
const sweepPage = 200

// What the sweep made of a submission awaiting payment.
const (
	settledNot = iota
	settledPaid
	settledUnpaid
)

// expireOne settles sub, awaiting payment, when its page is past due: as
// paid when the provider says so, else unpaid. One not due, or that the
// provider cannot answer for, is left as it is (settledNot).
func (s *Service) expireOne(ctx context.Context, sub *Submission, now time.Time) (int, error) {
	if sub.Payment == nil || now.Before(sub.Payment.DueAt.Add(paymentGrace)) {
		return settledNot, nil
	}
	if sub.Payment.Session != "" {
		reference, paid, err := s.payments.Paid(ctx, sub)
		if err != nil {
			s.logger.WarnContext(ctx, "forms: the payment provider could not say whether a submission was paid", "submission", sub.ID, "error", err)
			return settledNot, nil
		}
		if paid {
			_, err := s.settle(ctx, sub, &Payment{Session: sub.Payment.Session, Reference: reference}, true)
			return settledPaid, err
		}
	}
	if settled, err := s.settle(ctx, sub, sub.Payment, false); err != nil || !settled {
		return settledNot, err
	}
	return settledUnpaid, nil
}

// actionTotal is the page's button that works the total out again
// without sending the form: what a page without JavaScript has.
const actionTotal = "total"

// paymentQuery is the page address's parameter naming, signed, the
// submission a payment page sends the person back about.
const (
	paymentQuery   = "payment"
	paymentContext = "groundwork forms: payment return v1\x00"
)

// paymentReturn is the form's page with sub's signed id: where its
// payment page sends the person back (pages is where the pages are;
// Options.PagesURL wins).
func (s *Service) paymentReturn(form *Form, sub *Submission, pages string) string {
	if s.pagesURL != "" {
		pages = s.pagesURL
	}
	id := strconv.FormatInt(sub.ID, 10)
	return pageLink(pages, form, paymentQuery, id+"."+base64.RawURLEncoding.EncodeToString(s.mac(paymentContext, id)))
}

// returnedPayment is the payment of the submission of form a signed
// return names; nil when the token is not good or names none.
func (s *Service) returnedPayment(ctx context.Context, form *Form, token string) *Payment {
	id, sig, ok := strings.Cut(token, ".")
	mac, err := base64.RawURLEncoding.DecodeString(sig)
	if !ok || err != nil || !hmac.Equal(mac, s.mac(paymentContext, id)) {
		return nil
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return nil
	}
	sub, err := s.store.Submission(ctx, form.ID, n)
	if err != nil {
		return nil
	}
	return sub.Payment
}
