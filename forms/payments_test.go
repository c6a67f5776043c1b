package forms_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formsstripe"
	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// orderForm makes a form that adds up a plan (Pro 25, Basic 10, Free
// 0), extra seats at 5.50 each, and a printed manual (12); its total is
// in EUR, taking payment when pay is set.
func (b *bundle) orderForm(t testing.TB, pay bool) string {
	t.Helper()
	b.createForm(t, map[string]any{"name": "Order", "success_message": "Thank you, {{email}}."})
	b.addField(t, "order", map[string]any{"type": "email", "name": "email", "label": "Email", "is_required": true})
	b.addField(t, "order", map[string]any{"type": "radio", "name": "plan", "label": "Plan", "is_required": true,
		"field_config": map[string]any{"options": []any{map[string]any{"value": "pro", "label": "Pro, 25 EUR", "price": 25},
			map[string]any{"value": "basic", "label": "Basic, 10 EUR", "price": "10.00"}, map[string]any{"value": "free", "label": "Free"}}}})
	b.addField(t, "order", map[string]any{"type": "number", "name": "seats", "label": "Extra seats, 5.50 EUR each",
		"validation_rules": map[string]any{"min": 0, "max": 50}, "field_config": map[string]any{"price": 5.5}})
	b.addField(t, "order", map[string]any{"type": "checkbox_group", "name": "extras", "label": "Extras",
		"field_config": map[string]any{"options": []any{map[string]any{"value": "manual", "label": "Printed manual, 12 EUR", "price": 12}}}})
	b.addField(t, "order", map[string]any{"type": "total", "name": "total", "label": "Total", "field_config": map[string]any{"currency": "eur", "payment": pay}})
	return "order"
}

// stripeFake speaks Stripe's wire format for Checkout Sessions: one
// session an idempotency key, and each session's payment status as the
// test sets it.
type stripeFake struct {
	mu       sync.Mutex
	sessions map[string]string     // idempotency key → session id
	made     map[string]url.Values // session id → the form it was made with
	paid     map[string]bool
	refuse   bool // answer sessions with Stripe's 400
	srv      *httptest.Server
}

func newStripeFake(t testing.TB) *stripeFake {
	t.Helper()
	s := &stripeFake{sessions: map[string]string{}, made: map[string]url.Values{}, paid: map[string]bool{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(body))
		s.mu.Lock()
		defer s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == "POST" && r.URL.Path == "/v1/checkout/sessions" && s.refuse:
			w.WriteHeader(400)
			_, _ = io.WriteString(w, `{"error":{"type":"invalid_request_error","message":"Not a valid currency: eur."}}`)
		case r.Method == "POST" && r.URL.Path == "/v1/checkout/sessions":
			key := r.Header.Get("Idempotency-Key")
			id, ok := s.sessions[key]
			if !ok {
				id = fmt.Sprintf("cs_test_%d", len(s.sessions)+1)
				s.sessions[key], s.made[id] = id, form
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "object": "checkout.session", "url": "https://checkout.stripe.test/" + id})
		case r.Method == "GET" && strings.HasPrefix(r.URL.Path, "/v1/checkout/sessions/"):
			id := strings.TrimPrefix(r.URL.Path, "/v1/checkout/sessions/")
			status := "unpaid"
			if s.paid[id] {
				status = "paid"
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "object": "checkout.session", "payment_status": status, "payment_intent": "pi_" + id})
		default:
			w.WriteHeader(404)
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// event is a Checkout Session event of the session the fake made for
// the submission.
func (s *stripeFake) event(typ, session string, paid bool) map[string]any {
	s.mu.Lock()
	made := s.made[session]
	s.mu.Unlock()
	status := "unpaid"
	if paid {
		status = "paid"
	}
	return map[string]any{"id": "evt_" + session, "type": typ, "data": map[string]any{"object": map[string]any{"id": session,
		"object": "checkout.session", "client_reference_id": made.Get("client_reference_id"), "payment_status": status,
		"payment_intent": "pi_" + session, "metadata": map[string]any{"form_id": made.Get("metadata[form_id]"),
			"submission_id": made.Get("metadata[submission_id]")}}}}
}

// A total's settings are checked when saved, and a form has one.
func TestTotalSettings(t *testing.T) {
	t.Parallel()
	b := setup(t)
	slug := b.orderForm(t, false)
	for _, c := range []struct {
		field      map[string]any
		key, error string
	}{
		{map[string]any{"type": "total", "name": "sum", "field_config": map[string]any{"currency": "EUR"}}, "type",
			"A form has one total: this one has a total field already."},
		{map[string]any{"type": "number", "name": "n", "field_config": map[string]any{"price": -1}}, "field_config.price",
			"The field config.price field must be a price: a number not below zero, such as 12.50."},
		{map[string]any{"type": "radio", "name": "r", "field_config": map[string]any{"options": []any{map[string]any{"value": "a", "price": "ten"}}}},
			"field_config.options.0.price", "The field config.options.0.price field must be a price: a number not below zero, such as 12.50."},
		{map[string]any{"type": "text", "name": "t", "field_config": map[string]any{"currency": "EUR"}}, "field_config.currency",
			"A text field does not take field config.currency."},
	} {
		r := b.api(t, "POST", "/"+slug+"/fields", c.field)
		require.Equal(t, 422, r.status, r.body)
		require.Equal(t, []string{c.error}, r.errors(t).Errors[c.key], r.body)
	}
	b.createForm(t, map[string]any{"name": "Other"})
	for key, config := range map[string]map[string]any{
		"field_config.currency": {"currency": "euro"},
		"field_config.payment":  {"currency": "EUR", "payment": true},
	} {
		r := b.api(t, "POST", "/other/fields", map[string]any{"type": "total", "field_config": config})
		require.Equal(t, 422, r.status, r.body)
		require.Contains(t, r.errors(t).Errors, key, r.body)
	}
}

// The total is worked out on the server and kept with the answers; a
// submission that says another total is refused at the field. The page
// without JavaScript works it out when asked, the mistakes not said.
func TestTotalOnTheAPIAndThePage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	slug := b.orderForm(t, false)
	r := b.postJSON(t, slug, `{"email": "ann@example.test", "plan": "pro", "seats": "3", "extras": ["manual"], "total": "50.00"}`)
	require.Equal(t, 422, r.status, r.body)
	require.Equal(t, []string{"The total is 53.50 EUR, not 50.00: the prices may have changed. Check the total and send the form again."},
		r.errors(t).Errors["total"])
	r = b.postJSON(t, slug, `{"email": "ann@example.test", "plan": "pro", "seats": "3", "extras": ["manual"], "total": "53.5"}`)
	require.Equal(t, 201, r.status, r.body)
	require.Empty(t, r.json(t)["payment_url"], "no payment asked")
	r = b.postJSON(t, slug, `{"email": "bo@example.test", "plan": "basic"}`)
	require.Equal(t, 201, r.status, r.body)
	var totals []string
	for _, s := range b.api(t, "GET", "/"+slug+"/submissions", nil).json(t)["data"].([]any) {
		for _, v := range s.(map[string]any)["values"].([]any) {
			if v := v.(map[string]any); v["field_name"] == "total" {
				totals = append(totals, v["value"].(string)+" / "+v["display_value"].(string))
			}
		}
	}
	require.Equal(t, []string{"10.00 / 10.00 EUR", "53.50 / 53.50 EUR"}, totals)

	v := &visitor{b: b}
	page := v.do(t, "GET", "/forms/"+slug, "", nil, nil)
	require.Contains(t, page.body, `>0.00 EUR</output>`)
	require.Contains(t, page.body, `data-total-button>Work out the total</button>`)
	form := readPage(t, page.body)
	b.clock.Advance(20 * time.Second)
	body := url.Values{"plan": {"basic"}, "seats": {"2"}, forms.ActionField: {"total"}, forms.FormTokenField: {form.inputs[forms.FormTokenField]}}
	again := v.do(t, "POST", form.action, "application/x-www-form-urlencoded", strings.NewReader(body.Encode()), nil)
	require.Equal(t, 200, again.status, again.body)
	require.Contains(t, again.body, `>21.00 EUR</output>`)
	require.NotContains(t, again.body, "error-summary", "the email not asked yet")
	require.Contains(t, again.body, `value="basic" checked`)
}

// A paid form through Stripe Checkout (an httptest server speaking its
// wire format to formsstripe): the submission is kept awaiting payment
// with its page, nothing is told until it is paid, and the event of its
// payment accepts it once: its notification queued then. An expired page
// leaves another unpaid, and its option's place free. Both databases.
func TestPaidFormSubmissions(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		stripe := newStripeFake(t)
		pay, err := formsstripe.New(formsstripe.Options{APIKey: "sk_test_forms", APIBase: stripe.srv.URL})
		require.NoError(t, err)
		b := setup(t, func(o *setupOptions) { o.dialect = d; o.service = func(so *forms.Options) { so.Payments = pay } })
		var accepted []int64
		b.svc.OnSubmissionAccepted(func(_ context.Context, e forms.SubmissionEvent) { accepted = append(accepted, e.Submission.ID) })
		slug := b.orderForm(t, true)
		r := b.api(t, "POST", "/"+slug+"/notifications", map[string]any{"type": "admin", "recipients": "team@example.test"})
		require.Equal(t, 201, r.status, r.body)

		r = b.postJSON(t, slug, `{"email": "ann@example.test", "plan": "pro", "seats": "2"}`)
		require.Equal(t, 201, r.status, r.body)
		require.Equal(t, "https://checkout.stripe.test/cs_test_1", r.json(t)["payment_url"])
		id := num(r.json(t)["submission_id"])
		made := stripe.made["cs_test_1"]
		require.Equal(t, "3600", made.Get("line_items[0][price_data][unit_amount]"))
		require.Equal(t, "eur", made.Get("line_items[0][price_data][currency]"))
		require.Equal(t, "Order", made.Get("line_items[0][price_data][product_data][name]"))
		require.Equal(t, "ann@example.test", made.Get("customer_email"))
		require.Equal(t, id, made.Get("metadata[submission_id]"))
		require.Contains(t, made.Get("success_url"), b.server.URL+"/forms/order?paid=1&payment="+id+".")
		sub := b.api(t, "GET", "/"+slug+"/submissions/"+id, nil).data(t)
		require.Equal(t, "awaiting_payment", sub["payment"].(map[string]any)["status"])
		require.Empty(t, accepted, "nothing told before the payment")
		require.Equal(t, 0, countJobs(t, b), "no notification queued")

		// The payment's event, twice: accepted once.
		for range 2 {
			_, err = b.svc.SettlePayment(t.Context(), "stripe", "checkout.session.completed", stripe.event("checkout.session.completed", "cs_test_1", true))
			require.NoError(t, err)
		}
		sub = b.api(t, "GET", "/"+slug+"/submissions/"+id, nil).data(t)
		require.Equal(t, "paid", sub["payment"].(map[string]any)["status"])
		require.Equal(t, "pi_cs_test_1", sub["payment"].(map[string]any)["reference"])
		require.Len(t, accepted, 1)
		require.Equal(t, 1, countJobs(t, b), "the notification queued with the payment")

		// Back from the page: the thanks says so.
		link, _ := url.Parse(made.Get("success_url"))
		page := b.request(t, "GET", link.RequestURI(), "", "", nil)
		require.Contains(t, page.body, "Thank you: your payment of 36.00 EUR is received.")

		// Another, whose page expires: unpaid, nothing told.
		r = b.postJSON(t, slug, `{"email": "bo@example.test", "plan": "basic"}`)
		require.Equal(t, 201, r.status, r.body)
		second := num(r.json(t)["submission_id"])
		cancel, _ := url.Parse(stripe.made["cs_test_2"].Get("cancel_url"))
		page = b.request(t, "GET", cancel.RequestURI(), "", "", nil)
		require.Contains(t, page.body, "Your answers are kept, but the payment of 10.00 EUR is not made yet.")
		require.Contains(t, page.body, `<a href="https://checkout.stripe.test/cs_test_2" target="_top">Pay now</a>`)
		_, err = b.svc.SettlePayment(t.Context(), "stripe", "checkout.session.expired", stripe.event("checkout.session.expired", "cs_test_2", false))
		require.NoError(t, err)
		sub = b.api(t, "GET", "/"+slug+"/submissions/"+second, nil).data(t)
		require.Equal(t, "unpaid", sub["payment"].(map[string]any)["status"])
		require.Len(t, accepted, 1)
		list := b.api(t, "GET", "/"+slug+"/submissions?payment=unpaid", nil).json(t)
		require.EqualValues(t, 1, list["meta"].(map[string]any)["total"])

		// Two more whose pages close without word: the sweep asks Stripe,
		// settles the one paid and leaves the other unpaid.
		r = b.postJSON(t, slug, `{"email": "di@example.test", "plan": "pro"}`)
		require.Equal(t, 201, r.status, r.body)
		paidLate := num(r.json(t)["submission_id"])
		r = b.postJSON(t, slug, `{"email": "ed@example.test", "plan": "pro"}`)
		require.Equal(t, 201, r.status, r.body)
		gone := num(r.json(t)["submission_id"])
		stripe.mu.Lock()
		stripe.paid["cs_test_3"] = true
		stripe.mu.Unlock()
		n, err := b.svc.ExpireUnpaid(t.Context())
		require.NoError(t, err)
		require.Zero(t, n, "not due yet")
		b.clock.Advance(40 * time.Minute)
		n, err = b.svc.ExpireUnpaid(t.Context())
		require.NoError(t, err)
		require.Equal(t, 1, n)
		for want, id := range map[string]string{"paid": paidLate, "unpaid": gone} {
			sub = b.api(t, "GET", "/"+slug+"/submissions/"+id, nil).data(t)
			require.Equal(t, want, sub["payment"].(map[string]any)["status"], id)
		}
		require.Len(t, accepted, 2, "the one paid late, accepted")
		summary := b.api(t, "GET", "/"+slug+"/summary", nil)
		require.Equal(t, 200, summary.status, "the summary of a form with a total")
		require.EqualValues(t, 2, summary.data(t)["submissions"], "the two paid, not the two left unpaid")

		// A free plan owes nothing: accepted at once.
		r = b.postJSON(t, slug, `{"email": "cy@example.test", "plan": "free"}`)
		require.Equal(t, 201, r.status, r.body)
		require.Empty(t, r.json(t)["payment_url"])
		require.Len(t, accepted, 3)

		// Stripe refuses the page: 503, said in words; the answers kept,
		// unpaid, holding no place.
		stripe.mu.Lock()
		stripe.refuse = true
		stripe.mu.Unlock()
		r = b.postJSON(t, slug, `{"email": "fay@example.test", "plan": "pro"}`)
		require.Equal(t, 503, r.status, r.body)
		require.Equal(t, "Payment could not be started. Please try again in a moment.", r.json(t)["message"])
		require.Equal(t, "30", r.header.Get("Retry-After"))
		unpaid := b.api(t, "GET", "/"+slug+"/submissions?payment=unpaid", nil).json(t)
		require.EqualValues(t, 3, unpaid["meta"].(map[string]any)["total"])
		require.Len(t, accepted, 3)
	})
}

// countJobs counts the notification jobs queued.
func countJobs(t *testing.T, b *bundle) int {
	t.Helper()
	var n int
	require.NoError(t, b.db.Get(&n, `SELECT COUNT(*) FROM river_job WHERE kind = 'forms_notification'`))
	return n
}

// The total on the page follows the answers as they are given, by
// keyboard, with the page's script; axe-core finds nothing.
func TestBrowserTotal(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 90*time.Second)
	b := setup(t)
	slug := b.orderForm(t, false)
	shots := os.Getenv(browsertest.EnvScreenshots)
	browsertest.Do(t, ctx, chromedp.EmulateViewport(390, 900), chromedp.Navigate(b.server.URL+"/forms/"+slug), chromedp.WaitVisible(chromedp.ID("f-plan")))
	hidden, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("button[data-total-button]").hidden`))
	require.NoError(t, err)
	require.True(t, hidden, "the script works it out: no button")
	browsertest.TabTo(t, ctx, "#f-plan")
	browsertest.Press(t, ctx, " ", false) // Pro
	require.Equal(t, "25.00 EUR", browsertest.Text(t, ctx, "output"))
	browsertest.Press(t, ctx, kb.ArrowDown, false) // Basic
	require.Equal(t, "10.00 EUR", browsertest.Text(t, ctx, "output"))
	browsertest.TabTo(t, ctx, "#f-seats")
	browsertest.Press(t, ctx, "3", false)
	browsertest.TabTo(t, ctx, "#f-extras")
	browsertest.Press(t, ctx, " ", false)
	require.Equal(t, "38.50 EUR", browsertest.Text(t, ctx, "output"))
	browsertest.NoViolations(t, ctx, "the form with its total")
	browsertest.Screenshots(t, ctx, shots, "form-total")
	browsertest.Do(t, ctx, chromedp.EmulateViewport(320, 900))
	overflow, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`))
	require.NoError(t, err)
	require.False(t, overflow, "nothing wider than 320 px")
	browsertest.TabTo(t, ctx, "#f-email")
	browsertest.Press(t, ctx, "ann@example.test", false)
	b.clock.Advance(time.Minute)
	browsertest.TabTo(t, ctx, "main button[type=submit]:not([hidden])")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".notice"), "Thank you, ann@example.test.")
	r := b.api(t, "GET", "/"+slug+"/submissions", nil)
	require.Contains(t, r.body, `"display_value":"38.50 EUR"`)
}

// Back from Stripe's page in a browser: unpaid, the page says so and
// links to the payment page by keyboard; paid, it thanks. axe-core finds
// nothing in either.
func TestBrowserPaymentReturn(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 60*time.Second)
	stripe := newStripeFake(t)
	pay, err := formsstripe.New(formsstripe.Options{APIKey: "sk_test_forms", APIBase: stripe.srv.URL})
	require.NoError(t, err)
	b := setup(t, func(o *setupOptions) { o.service = func(so *forms.Options) { so.Payments = pay } })
	slug := b.orderForm(t, true)
	r := b.postJSON(t, slug, `{"email": "ann@example.test", "plan": "pro"}`)
	require.Equal(t, 201, r.status, r.body)
	back, _ := url.Parse(stripe.made["cs_test_1"].Get("cancel_url"))
	browsertest.Do(t, ctx, chromedp.EmulateViewport(390, 800), chromedp.Navigate(b.server.URL+back.RequestURI()), chromedp.WaitVisible(chromedp.CSS(".notice")))
	require.Equal(t, "Your answers are kept, but the payment of 25.00 EUR is not made yet.", browsertest.Text(t, ctx, ".notice"))
	browsertest.TabTo(t, ctx, `a[href="https://checkout.stripe.test/cs_test_1"]`)
	browsertest.NoViolations(t, ctx, "back from the payment page, unpaid")
	browsertest.Screenshots(t, ctx, os.Getenv(browsertest.EnvScreenshots), "form-payment-return")

	_, err = b.svc.SettlePayment(t.Context(), "stripe", "checkout.session.completed", stripe.event("checkout.session.completed", "cs_test_1", true))
	require.NoError(t, err)
	paid, _ := url.Parse(stripe.made["cs_test_1"].Get("success_url"))
	browsertest.Do(t, ctx, chromedp.Navigate(b.server.URL+paid.RequestURI()), chromedp.WaitVisible(chromedp.CSS(".notice")))
	require.Equal(t, "Thank you: your payment of 25.00 EUR is received.", browsertest.Text(t, ctx, ".notice"))
	browsertest.NoViolations(t, ctx, "back from the payment page, paid")
}

// A paid form in another site's frame: the payment page is not framed,
// so the page says what is owed and links to it out of the frame; the
// host page is not told of a submission yet.
func TestPaidFormInAFrame(t *testing.T) {
	t.Parallel()
	stripe := newStripeFake(t)
	pay, err := formsstripe.New(formsstripe.Options{APIKey: "sk_test_forms", APIBase: stripe.srv.URL})
	require.NoError(t, err)
	const host = "https://www.example.com"
	b := setup(t, func(o *setupOptions) {
		o.service = func(so *forms.Options) { so.Payments = pay }
		o.page = func(po *forms.PageOptions) { po.FrameOrigins = []string{host} }
	})
	slug := b.orderForm(t, true)
	v := &visitor{b: b}
	framed := "/forms/" + slug + "?embed=" + url.QueryEscape(host)
	page := readPage(t, v.do(t, "GET", framed, "", nil, nil).body)
	b.clock.Advance(20 * time.Second)
	body := url.Values{"email": {"ann@example.test"}, "plan": {"basic"}, forms.FormTokenField: {page.inputs[forms.FormTokenField]}}
	r := v.do(t, "POST", page.action, "application/x-www-form-urlencoded", strings.NewReader(body.Encode()), nil)
	require.Equal(t, 200, r.status, r.body)
	require.Contains(t, r.body, "Your answers are kept, but the payment of 10.00 EUR is not made yet.")
	require.Contains(t, r.body, `<a href="https://checkout.stripe.test/cs_test_1" target="_top">Pay now</a>`)
	require.NotContains(t, r.body, `data-frame-detail="{`, "the host page is told nothing yet")
}
