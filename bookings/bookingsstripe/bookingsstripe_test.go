package bookingsstripe_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingsstripe"
	"github.com/groundwork-go/groundwork/internal/outbound"
	"github.com/groundwork-go/groundwork/internal/testkit"
)

// made is when the bookings were made: a week ahead, so that the page's
// closing time is the hold's own (Stripe counts its half hour from now).
var made = time.Now().UTC().Truncate(time.Second).Add(7 * 24 * time.Hour)

// awaiting is a booking awaiting payment of 25.00 EUR.
func awaiting() bookings.Booking {
	return bookings.Booking{ID: 42, Number: "BK-7H3K9M2P4Q8R", Status: bookings.StatusAwaitingPayment, CustomerEmail: "ann@example.com",
		Start: made.Add(48 * time.Hour), End: made.Add(49 * time.Hour), CreatedAt: made,
		Payment: &bookings.Payment{Amount: "25.00", Currency: "EUR", DueAt: made.Add(30 * time.Minute)}}
}

// Stripe's own mock of its API checks each request against Stripe's
// OpenAPI document: a parameter Stripe does not take, or of the wrong
// shape, is refused there as Stripe would refuse it.
func TestAgainstStripeMock(t *testing.T) {
	t.Parallel()
	base := testkit.StripeMock(t)
	pay, err := bookingsstripe.New(bookingsstripe.Options{APIKey: "sk_test_123", APIBase: base})
	require.NoError(t, err)
	b := awaiting()
	page, session, err := pay.Checkout(context.Background(), b, "Haircut, Wednesday 3 June 2026, 09:00 (Europe/Berlin)",
		"https://example.com/bookings/manage/tok?tz=Europe%2FBerlin")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(session, "cs_"), session)
	require.True(t, strings.HasPrefix(page, "https://checkout.stripe.com/"), page)

	b.Payment.Session = session
	reference, paid, err := pay.Paid(context.Background(), b)
	require.NoError(t, err)
	require.False(t, paid, "stripe-mock's session is open, unpaid")
	require.True(t, strings.HasPrefix(reference, "pi_"), reference)

	b.Payment.Reference = "pi_123"
	require.NoError(t, pay.Refund(context.Background(), b))
}

// Before an unpaid booking is released its session is asked for: paid
// once its payment_status says so.
func TestPaid(t *testing.T) {
	t.Parallel()
	session := func(status string) func(*http.Request, int) (int, string) {
		return func(r *http.Request, _ int) (int, string) {
			if r.URL.Path != "/v1/checkout/sessions/cs_test_1" {
				return 404, `{"error":{"message":"No such checkout.session","type":"invalid_request_error"}}`
			}
			return 200, `{"id":"cs_test_1","object":"checkout.session","payment_status":"` + status + `","payment_intent":"pi_9"}`
		}
	}
	fake, pay := newFake(t, session("unpaid"))
	b := awaiting()
	_, _, err := pay.Paid(context.Background(), b)
	require.Error(t, err, "no session to ask for")
	b.Payment.Session = "cs_test_1"
	_, paid, err := pay.Paid(context.Background(), b)
	require.NoError(t, err)
	require.False(t, paid)
	fake.setAnswer(session("paid"))
	reference, paid, err := pay.Paid(context.Background(), b)
	require.NoError(t, err)
	require.True(t, paid)
	require.Equal(t, "pi_9", reference)
	require.Equal(t, "GET", fake.requests[0].Method)
	b.Payment.Session = "cs_gone"
	_, _, err = pay.Paid(context.Background(), b)
	require.ErrorIs(t, err, outbound.ErrNotFound)
}

// stripeFake is an httptest server speaking Stripe's wire format: it
// keeps every request and answers each path as told.
type stripeFake struct {
	mu       sync.Mutex
	requests []*http.Request
	forms    []url.Values
	answer   func(r *http.Request, n int) (int, string)
}

func (f *stripeFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	form, _ := url.ParseQuery(string(body))
	f.mu.Lock()
	f.requests, f.forms = append(f.requests, r), append(f.forms, form)
	n, answer := len(f.requests), f.answer
	f.mu.Unlock()
	status, out := answer(r, n)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, out)
}

// setAnswer changes how the fake answers from the next request on.
func (f *stripeFake) setAnswer(answer func(r *http.Request, n int) (int, string)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answer = answer
}

func newFake(t *testing.T, answer func(r *http.Request, n int) (int, string)) (*stripeFake, *bookingsstripe.Payments) {
	t.Helper()
	f := &stripeFake{answer: answer}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	pay, err := bookingsstripe.New(bookingsstripe.Options{APIKey: "sk_test_secret", APIBase: srv.URL})
	require.NoError(t, err)
	return f, pay
}

// The session carries the booking whole: its amount in cents, its
// currency, the page closing when the hold ends, the booking named for
// the events that come back, and one idempotency key for the booking, so
// a retry after Stripe's 500 opens no second session.
func TestCheckoutSendsTheBooking(t *testing.T) {
	t.Parallel()
	fake, pay := newFake(t, func(r *http.Request, n int) (int, string) {
		if n == 1 {
			return 500, `{"error":{"message":"try again","type":"api_error"}}`
		}
		return 200, `{"id":"cs_test_1","object":"checkout.session","url":"https://checkout.stripe.com/c/pay/cs_test_1"}`
	})
	page, session, err := pay.Checkout(context.Background(), awaiting(), "Haircut", "https://example.com/bookings/manage/tok")
	require.NoError(t, err)
	require.Equal(t, "https://checkout.stripe.com/c/pay/cs_test_1", page)
	require.Equal(t, "cs_test_1", session)
	require.Len(t, fake.requests, 2, "the 500 was tried again")
	for _, r := range fake.requests {
		require.Equal(t, "POST", r.Method)
		require.Equal(t, "/v1/checkout/sessions", r.URL.Path)
		require.Equal(t, "Bearer sk_test_secret", r.Header.Get("Authorization"))
		require.Equal(t, "application/x-www-form-urlencoded", r.Header.Get("Content-Type"))
		require.Equal(t, "groundwork-checkout-BK-7H3K9M2P4Q8R", r.Header.Get("Idempotency-Key"))
	}
	require.Equal(t, fake.forms[0], fake.forms[1], "the same request both times")
	require.Equal(t, url.Values{
		"mode": {"payment"}, "client_reference_id": {"42"}, "customer_email": {"ann@example.com"},
		"expires_at":  {fmt.Sprint(made.Add(30 * time.Minute).Unix())},
		"success_url": {"https://example.com/bookings/manage/tok?paid=1"}, "cancel_url": {"https://example.com/bookings/manage/tok"},
		"metadata[booking_id]": {"42"}, "metadata[booking_number]": {"BK-7H3K9M2P4Q8R"},
		"payment_intent_data[metadata][booking_id]": {"42"}, "payment_intent_data[metadata][booking_number]": {"BK-7H3K9M2P4Q8R"},
		"line_items[0][quantity]": {"1"}, "line_items[0][price_data][currency]": {"eur"},
		"line_items[0][price_data][unit_amount]": {"2500"}, "line_items[0][price_data][product_data][name]": {"Haircut"},
	}, fake.forms[0])
}

// What Stripe refuses comes back as an error of its class, the key never
// in its text; what cannot be asked is not sent.
func TestCheckoutRefusals(t *testing.T) {
	t.Parallel()
	fake, pay := newFake(t, func(*http.Request, int) (int, string) {
		return 400, `{"error":{"message":"Invalid currency: xyz","type":"invalid_request_error"}}`
	})
	_, _, err := pay.Checkout(context.Background(), awaiting(), "Haircut", "https://example.com/m/tok")
	require.ErrorIs(t, err, outbound.ErrValidation)
	require.NotContains(t, err.Error(), "sk_test_secret")
	require.Len(t, fake.requests, 1, "a 400 is not tried again")

	short := awaiting()
	short.Payment.DueAt = made.Add(10 * time.Minute)
	_, _, err = pay.Checkout(context.Background(), short, "Haircut", "https://example.com/m/tok")
	require.ErrorContains(t, err, "at least 30m0s")
	// Opened late (a booking made in a host's transaction, paid for from
	// its page), the page stays open Stripe's half hour from now.
	late := awaiting()
	late.CreatedAt, late.Payment.DueAt = time.Now().Add(-25*time.Minute), time.Now().Add(5*time.Minute)
	fake.setAnswer(func(*http.Request, int) (int, string) {
		return 200, `{"id":"cs_test_2","object":"checkout.session","url":"https://checkout.stripe.com/c/pay/cs_test_2"}`
	})
	_, _, err = pay.Checkout(context.Background(), late, "Haircut", "https://example.com/m/tok")
	require.NoError(t, err)
	expires, err := strconv.ParseInt(fake.forms[1].Get("expires_at"), 10, 64)
	require.NoError(t, err)
	require.InDelta(t, time.Now().Add(31*time.Minute).Unix(), expires, 5)
	odd := awaiting()
	odd.Payment.Amount, odd.Payment.Currency = "25.50", "JPY"
	_, _, err = pay.Checkout(context.Background(), odd, "Haircut", "https://example.com/m/tok")
	require.ErrorContains(t, err, `amount "25.50" cannot be paid in JPY`)
	none := awaiting()
	none.Payment = nil
	_, _, err = pay.Checkout(context.Background(), none, "Haircut", "https://example.com/m/tok")
	require.Error(t, err)
	require.Len(t, fake.requests, 2, "none of these reached Stripe")

	_, err = bookingsstripe.New(bookingsstripe.Options{})
	require.ErrorContains(t, err, "no APIKey")
	_, err = bookingsstripe.New(bookingsstripe.Options{APIKey: "sk", APIBase: "ftp://x"})
	require.Error(t, err)
}

// A refund names the PaymentIntent, once per booking whatever the tries.
func TestRefund(t *testing.T) {
	t.Parallel()
	refund := func(status string) func(*http.Request, int) (int, string) {
		return func(*http.Request, int) (int, string) {
			return 200, `{"id":"re_1","object":"refund","status":"` + status + `"}`
		}
	}
	fake, pay := newFake(t, refund("succeeded"))
	b := awaiting()
	require.Error(t, pay.Refund(context.Background(), b), "nothing paid, nothing refunded")
	require.Empty(t, fake.requests)
	b.Payment.Reference = "pi_9"
	require.NoError(t, pay.Refund(context.Background(), b))
	r := fake.requests[0]
	require.Equal(t, "/v1/refunds", r.URL.Path)
	require.Equal(t, "groundwork-refund-BK-7H3K9M2P4Q8R", r.Header.Get("Idempotency-Key"))
	require.Equal(t, url.Values{"payment_intent": {"pi_9"}, "metadata[booking_id]": {"42"}, "metadata[booking_number]": {"BK-7H3K9M2P4Q8R"}},
		fake.forms[0])
	fake.setAnswer(refund("failed"))
	require.ErrorContains(t, pay.Refund(context.Background(), b), "failed")
}

// session is a Checkout Session event's payload as Stripe sends it.
func session(status string, meta map[string]any) map[string]any {
	return map[string]any{"id": "evt_1", "object": "event", "data": map[string]any{"object": map[string]any{
		"id": "cs_test_1", "object": "checkout.session", "client_reference_id": "42", "payment_intent": "pi_9",
		"payment_status": status, "metadata": meta}}}
}

func TestSettlement(t *testing.T) {
	t.Parallel()
	pay, err := bookingsstripe.New(bookingsstripe.Options{APIKey: "sk_test"})
	require.NoError(t, err)
	require.Equal(t, "stripe", pay.Provider())
	ours := map[string]any{"booking_id": "42", "booking_number": "BK-7H3K9M2P4Q8R"}
	paid := bookings.Booking{ID: 42, Number: "BK-7H3K9M2P4Q8R", Payment: &bookings.Payment{Session: "cs_test_1", Reference: "pi_9"}}
	unpaid := bookings.Booking{ID: 42, Number: "BK-7H3K9M2P4Q8R", Payment: &bookings.Payment{Session: "cs_test_1"}}
	for _, c := range []struct {
		event   string
		payload map[string]any
		want    bookings.Booking
		paid    bool
	}{
		{"checkout.session.completed", session("paid", ours), paid, true},
		{"checkout.session.async_payment_succeeded", session("paid", ours), paid, true},
		{"checkout.session.completed", session("unpaid", ours), bookings.Booking{}, false}, // a bank debit reports later
		{"checkout.session.expired", session("unpaid", ours), unpaid, false},
		{"checkout.session.async_payment_failed", session("unpaid", ours), unpaid, false},
		{"payment_intent.succeeded", session("paid", ours), bookings.Booking{}, false},
		{"checkout.session.completed", session("paid", nil), bookings.Booking{}, false},                                                          // not made by us
		{"checkout.session.completed", session("paid", map[string]any{"booking_id": "41", "booking_number": "BK-1"}), bookings.Booking{}, false}, // ids disagree
		{"checkout.session.completed", map[string]any{"data": "x"}, bookings.Booking{}, false},
	} {
		got, ok := pay.Settlement(c.event, c.payload)
		require.Equal(t, c.want, got, c.event)
		require.Equal(t, c.paid, ok, c.event)
	}
}

func TestMinorUnits(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		amount, currency string
		want             int64
		err              bool
	}{
		{"25.00", "EUR", 2500, false}, {"25", "usd", 2500, false}, {"0.5", "GBP", 50, false}, {"2500", "JPY", 2500, false},
		{"2500.00", "JPY", 2500, false}, {"1.234", "KWD", 1234, false}, {"25.5", "JPY", 0, true}, {"0.00", "EUR", 0, true},
		{"-1", "EUR", 0, true}, {"abc", "EUR", 0, true}, {"1.005", "EUR", 0, true}, {"1", "EURO", 0, true},
	} {
		got, err := bookingsstripe.MinorUnits(c.amount, c.currency)
		require.Equal(t, c.err, err != nil, "%s %s: %v", c.amount, c.currency, err)
		require.Equal(t, c.want, got, "%s %s", c.amount, c.currency)
	}
}

func ExampleMinorUnits() {
	cents, _ := bookingsstripe.MinorUnits("25.00", "EUR")
	yen, _ := bookingsstripe.MinorUnits("2500", "JPY")
	fmt.Println(cents, yen)
	// Output: 2500 2500
}
