package bookings_test

import (
	"context"
	"encoding/json"
	"errors"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// fakePayments is a payment provider in memory: a page per booking, the
// refunds asked for, and events of its own shape ({"booking": id,
// "number": ..., "session": ..., "paid": bool}).
type fakePayments struct {
	// base is where its pages are; https://pay.example when empty.
	base      string
	mu        sync.Mutex
	checkouts []string // "booking number: title → return URL"
	refunds   []string
	fail      bool
	// paidPages are the sessions paid whose events never came;
	// unreachable makes Paid fail.
	paidPages   map[string]bool
	unreachable bool
}

func (f *fakePayments) Provider() string { return "fake" }

// made returns the checkouts opened and the refunds asked for so far.
func (f *fakePayments) made() (checkouts, refunds []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.checkouts), slices.Clone(f.refunds)
}

// set changes the fake under its lock (the handlers call it meanwhile).
func (f *fakePayments) set(change func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change()
}

func (f *fakePayments) Checkout(_ context.Context, b bookings.Booking, title, returnURL string) (string, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail {
		return "", "", errors.New("the provider is down")
	}
	f.checkouts = append(f.checkouts, b.Number+": "+title+" → "+returnURL)
	base := f.base
	if base == "" {
		base = "https://pay.example"
	}
	return base + "/cs_" + b.Number, "cs_" + b.Number, nil
}

func (f *fakePayments) Refund(_ context.Context, b bookings.Booking) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refunds = append(f.refunds, b.Payment.Reference)
	return nil
}

func (f *fakePayments) Paid(_ context.Context, b bookings.Booking) (string, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.unreachable {
		return "", false, errors.New("the provider does not answer")
	}
	return "pi_" + b.Number, f.paidPages[b.Payment.Session], nil
}

func (f *fakePayments) Settlement(_ string, payload map[string]any) (bookings.Booking, bool) {
	id, _ := payload["booking"].(float64)
	number, _ := payload["number"].(string)
	session, _ := payload["session"].(string)
	paid, _ := payload["paid"].(bool)
	told := bookings.Booking{ID: int64(id), Number: number, Payment: &bookings.Payment{Session: session}}
	if paid {
		told.Payment.Reference = "pi_" + number
	}
	return told, paid
}

// event is an event of the fake provider about b.
func event(b bookings.Booking, paid bool) map[string]any {
	var out map[string]any
	raw, _ := json.Marshal(map[string]any{"booking": b.ID, "number": b.Number, "session": "cs_" + b.Number, "paid": paid})
	_ = json.Unmarshal(raw, &out)
	return out
}

// setupPaid is setup's service taking payment (25.00 EUR, refunds up to a
// day ahead) through pay, its jobs queued on a queue that is not run.
func setupPaid(t *testing.T, d store.Dialect, pay *fakePayments) *bundle {
	return setupPaidAt(t, d, pay, "https://site.example")
}

// setupPaidAt is setupPaid with its manage pages at site.
func setupPaidAt(t *testing.T, d store.Dialect, pay *fakePayments, site string) *bundle {
	t.Helper()
	db := storetest.Open(t, d, bookingssql.Migrations)
	st := bookingssql.New(db)
	queue, err := store.NewQueue(db, &store.QueueOptions{TestOnly: true})
	require.NoError(t, err)
	c := &clock{}
	c.Set(now)
	svc, err := bookings.NewService(st, &bookings.Options{Now: c.Now, LockWait: 10 * time.Second, Payments: pay, Enqueuer: queue,
		ManageURL: site + "/bookings/manage/{token}", SecretKey: []byte("0123456789abcdef0123456789abcdef")})
	require.NoError(t, err)
	b := serveBundle(t, db, svc, c)
	price := "25.00"
	b.service, err = st.CreateService(context.Background(), bookings.Offering{Slug: "consultation", Name: "Consultation", Duration: 30,
		Price: &price, TimeZone: "America/New_York", AssignmentStrategy: bookings.AssignAny, MaxBookingsPerSlot: 1, IntakeSchemaVersion: 1,
		IsActive: true, CreatedAt: now, UpdatedAt: now,
		ServiceRules: bookings.ServiceRules{RequiresPayment: true, Currency: "EUR", RefundCutoffHours: 24}})
	require.NoError(t, err)
	b.provider = newProvider(t, st, "ada", "America/New_York")
	require.NoError(t, st.LinkProvider(context.Background(), b.service.ID, b.provider.ID, nil, nil))
	weekdays(t, st, b.provider.ID, 9*60, 17*60)
	return b
}

func (b *bundle) jobs(t *testing.T, kind string) int {
	t.Helper()
	var n int
	require.NoError(t, b.db.Get(&n, b.db.Rebind(`SELECT COUNT(*) FROM river_job WHERE kind = ?`), kind))
	return n
}

// A service that takes payment: a booking through the API is made
// awaiting payment, holding its time, with its page open at the provider
// and what it owes in the answer; paid, it is confirmed with its mail;
// unpaid past its due time, it is released by the reminders' sweep, and a
// provider that cannot open a page has the booking undone (503). Both
// databases.
func TestPaidBookingThroughTheAPI(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		pay := &fakePayments{}
		b := setupPaid(t, d, pay)
		ctx := context.Background()
		status, body := b.do(t, "POST", bookings.PrefixDefault, bookBody("consultation", "2026-06-03T14:00:00Z"))
		require.Equal(t, 201, status, body)
		var created struct {
			Data struct {
				ID      int64                 `json:"id"`
				Status  string                `json:"status"`
				Payment map[string]any        `json:"payment"`
				Service struct{ Name string } `json:"service"`
			} `json:"data"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &created))
		require.Equal(t, "awaiting_payment", created.Data.Status)
		bk, err := b.svc.Booking(ctx, created.Data.ID)
		require.NoError(t, err)
		require.Equal(t, map[string]any{"amount": "25.00", "currency": "EUR", "due_at": "2026-06-01T08:30:00+00:00",
			"checkout_url": "https://pay.example/cs_" + bk.Number}, created.Data.Payment, "the provider's ids stay out of the public answer")
		checkouts, _ := pay.made()
		require.Len(t, checkouts, 1)
		require.Regexp(t, `^`+bk.Number+`: Consultation, Wednesday 3 June 2026, 10:00 \(America/New_York\) → https://site\.example/bookings/manage/[0-9a-f]{64}$`,
			checkouts[0])
		require.Zero(t, b.jobs(t, "bookings_mail"), "no mail until it is paid")
		status, _ = b.do(t, "POST", bookings.PrefixDefault, bookBody("consultation", "2026-06-03T14:00:00Z"))
		require.Equal(t, 409, status, "the time is held")

		// Another provider's event, or one naming another booking's
		// number, settles nothing.
		_, settled, err := b.svc.SettlePayment(ctx, "stripe", "paid", event(bk, true))
		require.NoError(t, err)
		require.False(t, settled)
		forged := bk
		forged.Number = "BK-SOMEONEELSE"
		_, settled, err = b.svc.SettlePayment(ctx, "fake", "paid", event(forged, true))
		require.NoError(t, err)
		require.False(t, settled)

		paid, settled, err := b.svc.SettlePayment(ctx, "fake", "paid", event(bk, true))
		require.NoError(t, err)
		require.True(t, settled)
		require.Equal(t, bookings.StatusConfirmed, paid.Status)
		require.Equal(t, "pi_"+bk.Number, paid.Payment.Reference)
		require.Equal(t, now, *paid.Payment.PaidAt)
		require.Equal(t, 2, b.jobs(t, "bookings_mail"), "the confirmation, and the provider's notice")
		_, settled, err = b.svc.SettlePayment(ctx, "fake", "paid", event(bk, true))
		require.NoError(t, err)
		require.False(t, settled, "settled once")
		require.Equal(t, 2, b.jobs(t, "bookings_mail"))

		// Left unpaid: kept through its due time and the grace after it,
		// then released by the sweep.
		status, body = b.do(t, "POST", bookings.PrefixDefault, bookBody("consultation", "2026-06-03T15:00:00Z"))
		require.Equal(t, 201, status, body)
		require.NoError(t, json.Unmarshal([]byte(body), &created))
		b.clock.Advance(34 * time.Minute)
		n, err := bookings.ExpireUnpaid(b.svc, ctx)
		require.NoError(t, err)
		require.Zero(t, n, "within the grace")
		b.clock.Advance(2 * time.Minute)
		n, err = bookings.ExpireUnpaid(b.svc, ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		gone, err := b.svc.Booking(ctx, created.Data.ID)
		require.NoError(t, err)
		require.Equal(t, bookings.StatusCancelled, gone.Status)

		// A payment whose event was lost: the sweep asks first, and
		// settles it; a provider that cannot answer keeps the hold until
		// the next sweep, for a day at most.
		status, body = b.do(t, "POST", bookings.PrefixDefault, bookBody("consultation", "2026-06-04T14:00:00Z"))
		require.Equal(t, 201, status, body)
		require.NoError(t, json.Unmarshal([]byte(body), &created))
		lost, err := b.svc.Booking(ctx, created.Data.ID)
		require.NoError(t, err)
		status, body = b.do(t, "POST", bookings.PrefixDefault, bookBody("consultation", "2026-06-04T15:00:00Z"))
		require.Equal(t, 201, status, body)
		require.NoError(t, json.Unmarshal([]byte(body), &created))
		unanswered := created.Data.ID
		b.clock.Advance(36 * time.Minute)
		pay.set(func() { pay.unreachable = true })
		n, err = bookings.ExpireUnpaid(b.svc, ctx)
		require.NoError(t, err)
		require.Zero(t, n, "not released while the provider cannot say")
		pay.set(func() { pay.unreachable, pay.paidPages = false, map[string]bool{lost.Payment.Session: true} })
		n, err = bookings.ExpireUnpaid(b.svc, ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n, "the unpaid one released")
		found, err := b.svc.Booking(ctx, lost.ID)
		require.NoError(t, err)
		require.Equal(t, bookings.StatusConfirmed, found.Status, "the paid one settled")
		require.Equal(t, "pi_"+lost.Number, found.Payment.Reference)
		gone, err = b.svc.Booking(ctx, unanswered)
		require.NoError(t, err)
		require.Equal(t, bookings.StatusCancelled, gone.Status)
		status, body = b.do(t, "POST", bookings.PrefixDefault, bookBody("consultation", "2026-06-04T16:00:00Z"))
		require.Equal(t, 201, status, body)
		pay.set(func() { pay.unreachable = true })
		b.clock.Advance(23 * time.Hour)
		n, err = bookings.ExpireUnpaid(b.svc, ctx)
		require.NoError(t, err)
		require.Zero(t, n)
		b.clock.Advance(2 * time.Hour)
		n, err = bookings.ExpireUnpaid(b.svc, ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n, "a day past its due time, released all the same")
		pay.set(func() { pay.unreachable = false })
		b.clock.Set(now.Add(36 * time.Minute))

		// The provider cannot open a page: the booking is undone.
		pay.set(func() { pay.fail = true })
		status, body = b.do(t, "POST", bookings.PrefixDefault, bookBody("consultation", "2026-06-03T16:00:00Z"))
		require.Equal(t, 503, status)
		require.Contains(t, body, "Payment could not be started. Please try again in a moment.")
		pay.set(func() { pay.fail = false })
		status, body = b.do(t, "POST", bookings.PrefixDefault, bookBody("consultation", "2026-06-03T16:00:00Z"))
		require.Equal(t, 201, status, "the time was freed: %s", body)

		// A series is not offered for a paid service.
		status, body = b.do(t, "POST", bookings.PrefixDefault, `{"service":"consultation","start_time":"2026-06-04T14:00:00Z",
			"customer_name":"Grace","customer_email":"grace@example.com","repeat":{"count":2,"every_weeks":1}}`)
		require.Equal(t, 422, status)
		require.Contains(t, body, "repeat")
	})
}

// Cancelling a paid booking refunds it by a job queued in the
// cancellation's transaction: always when the site cancels, and when the
// customer does only before the service's cut-off.
func TestPaidBookingRefunds(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		pay := &fakePayments{}
		b := setupPaid(t, d, pay)
		ctx := context.Background()
		paidAt := func(start time.Time) bookings.Booking {
			bk, _, err := b.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: start, CustomerName: "Ann",
				CustomerEmail: "ann@example.com"})
			require.NoError(t, err)
			paid, settled, err := b.svc.SettlePayment(ctx, "fake", "paid", event(bk, true))
			require.NoError(t, err)
			require.True(t, settled)
			return paid
		}
		early := paidAt(mustTime("2026-06-03T14:00:00Z")) // 54 hours ahead
		soon := paidAt(mustTime("2026-06-01T18:00:00Z"))  // 10 hours ahead
		site := paidAt(mustTime("2026-06-01T19:00:00Z"))

		_, err := b.svc.Cancel(ctx, soon.ID, bookings.ActorCustomer, "")
		require.NoError(t, err)
		require.Zero(t, b.jobs(t, "bookings_refund"), "past the cut-off a day ahead: no refund")
		_, err = b.svc.Cancel(ctx, early.ID, bookings.ActorCustomer, "")
		require.NoError(t, err)
		require.Equal(t, 1, b.jobs(t, "bookings_refund"))
		_, err = b.svc.Cancel(ctx, site.ID, bookings.ActorOwner, "We are closed")
		require.NoError(t, err)
		require.Equal(t, 2, b.jobs(t, "bookings_refund"), "the site's cancellation is refunded whenever")

		// The job's work: refunded once, and recorded.
		require.NoError(t, bookings.Refund(b.svc, ctx, early.ID))
		require.NoError(t, bookings.Refund(b.svc, ctx, early.ID))
		_, refunds := pay.made()
		require.Equal(t, []string{"pi_" + early.Number}, refunds)
		got, err := b.svc.Booking(ctx, early.ID)
		require.NoError(t, err)
		require.Equal(t, now, *got.Payment.RefundedAt)
	})
}

// A service takes payment only with a price above zero and a currency.
func TestPaidServiceNeedsAPrice(t *testing.T) {
	t.Parallel()
	b := setupPaid(t, store.SQLite, &fakePayments{})
	ctx := context.Background()
	yes := true
	for _, in := range []bookings.OfferingInput{
		{Name: ptr("Free"), Duration: ptr(30), TimeZone: ptr("UTC"), IsFree: &yes, Currency: ptr("EUR"), RequiresPayment: &yes},
		{Name: ptr("No currency"), Duration: ptr(30), TimeZone: ptr("UTC"), Price: ptr("10.00"), RequiresPayment: &yes},
		{Name: ptr("Zero"), Duration: ptr(30), TimeZone: ptr("UTC"), Price: ptr("0.00"), Currency: ptr("EUR"), RequiresPayment: &yes},
	} {
		_, err := b.svc.CreateService(ctx, in)
		var ve *bookings.ValidationError
		require.ErrorAs(t, err, &ve, *in.Name)
		require.Equal(t, []string{"A service that takes payment needs a price above zero and a currency."}, ve.Fields()["requires_payment"])
	}
	_, err := b.svc.CreateService(ctx, bookings.OfferingInput{Name: ptr("Cut"), Duration: ptr(30), TimeZone: ptr("UTC"), Price: ptr("10.00"),
		Currency: ptr("eur"), RequiresPayment: &yes, RefundCutoffHours: ptr(-1)})
	var ve *bookings.ValidationError
	require.ErrorAs(t, err, &ve)
	require.Contains(t, ve.Fields(), "refund_cutoff_hours")

	_, err = bookings.NewService(bookingssql.New(b.db), &bookings.Options{Payments: &fakePayments{}})
	require.ErrorContains(t, err, "Payments needs an Enqueuer")
}

// The pages: booking a paid service sends the customer to the provider's
// page; their manage page holds the time until the due time with a way
// to pay (which sends them to the same page), says the payment is being
// confirmed when they come back, and once paid shows it and what a
// cancellation would return.
func TestPaidBookingOnThePages(t *testing.T) {
	t.Parallel()
	pay := &fakePayments{}
	b := setupPaid(t, store.SQLite, pay)
	srv := pageSite(t, b)
	ctx := context.Background()
	form := url.Values{"start_time": {"2026-06-03T14:00:00Z"}, "customer_name": {"Ann"}, "customer_email": {"ann@example.com"}, "tz": {"UTC"}}
	status, body, location := post(t, srv, bookings.PagePrefixDefault+"/consultation", form)
	require.Equal(t, http.StatusSeeOther, status, body)
	require.True(t, strings.HasPrefix(location, "https://pay.example/cs_BK-"), location)
	number := strings.TrimPrefix(location, "https://pay.example/cs_")
	checkouts, _ := pay.made()
	require.Len(t, checkouts, 1)
	manage := strings.SplitN(checkouts[0], " → https://site.example", 2)[1]

	page := getPage(t, srv.URL+manage)
	require.Contains(t, page, "<h1>Pay to confirm your booking</h1>")
	require.Contains(t, page, "This time is held for you until 04:30 on Monday 1 June (New York time).")
	require.Contains(t, page, `<a class="button" href="`+manage+`/pay">Pay`)
	require.Contains(t, page, "<dd>Awaiting payment</dd>")
	require.NotContains(t, page, "Add to your calendar", "not until it is paid")
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(srv.URL + manage + "/pay")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, "https://pay.example/cs_"+number, res.Header.Get("Location"), "the page already open")
	checkouts, _ = pay.made()
	require.Len(t, checkouts, 1)
	require.Contains(t, getPage(t, srv.URL+manage+"?paid=1"), "<h1>Confirming your payment</h1>")

	// The owner sees it held, awaiting payment.
	owner := getPage(t, srv.URL+bookings.ListPagePrefixDefault+"/?view=unpaid&tz=UTC")
	require.Contains(t, owner, `aria-current="page">Awaiting payment</a>`)
	require.Contains(t, owner, `<td data-label="Status"><span class="status status-awaiting_payment">Awaiting payment</span></td>`)
	list, _, err := b.svc.ListBookings(ctx, bookings.BookingFilter{})
	require.NoError(t, err)
	detail := srv.URL + bookings.ListPagePrefixDefault + "/" + itoa(list[0].ID) + "?tz=UTC"
	require.Contains(t, getPage(t, detail), "<dd>€25.00, awaiting payment until 08:30 on 1 June</dd>")
	_, settled, err := b.svc.SettlePayment(ctx, "fake", "paid", event(list[0], true))
	require.NoError(t, err)
	require.True(t, settled)
	require.Contains(t, getPage(t, detail), "<dd>€25.00, paid (pi_"+number+")</dd>")
	page = getPage(t, srv.URL+manage+"?paid=1")
	require.Contains(t, page, "<h1>Your booking</h1>")
	require.Contains(t, page, "<dd>Paid €25.00</dd>")
	require.Contains(t, page, "Add to your calendar")
	require.Contains(t, getPage(t, srv.URL+manage+"?step=cancel"), "You will be refunded €25.00 in full.")
	res, err = client.Get(srv.URL + manage + "/pay")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, manage, res.Header.Get("Location"), "paid: back to the booking")

	// The provider down as the customer books: the page says so.
	pay.set(func() { pay.fail = true })
	form.Set("start_time", "2026-06-03T15:00:00Z")
	status, body, _ = post(t, srv, bookings.PagePrefixDefault+"/consultation", form)
	require.Equal(t, http.StatusServiceUnavailable, status)
	require.Contains(t, body, "Payment could not be started. Please try again in a moment.")
}

// A paid booking in a real browser, walked by keyboard where a customer
// acts: booked, the customer lands on the provider's page; back without
// paying, their page holds the time with a way to pay; back from paying,
// it says the payment is being confirmed; paid, it shows the payment and
// what cancelling returns; the booking page says when payment cannot
// start. Every state passes axe, light and dark.
func TestBrowserPaidBooking(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second)
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	pay := &fakePayments{base: srv.URL + "/provider"}
	b := setupPaidAt(t, store.SQLite, pay, srv.URL)
	pages, err := bookings.NewPageHandler(b.svc, nil)
	require.NoError(t, err)
	mux.Handle("/bookings/", pages)
	owner, err := bookings.NewListPage(b.svc, &bookings.ListPageOptions{Viewer: func(*http.Request) (bool, int64, bool) { return true, 0, true }})
	require.NoError(t, err)
	mux.Handle(bookings.ListPagePrefixDefault+"/", owner)
	mux.HandleFunc("/provider/{session}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, `<!doctype html><html lang="en"><title>Provider</title><main><h1>The provider's payment page</h1></main></html>`)
	})
	run := func(actions ...chromedp.Action[chromedp.Void]) { t.Helper(); browsertest.Do(t, ctx, actions...) }
	text := func(sel string) string { t.Helper(); return browsertest.Text(t, ctx, sel) }
	shots := os.Getenv(browsertest.EnvScreenshots)

	run(chromedp.Navigate(srv.URL+"/bookings/consultation?tz=America/New_York&date=2026-06-03#times"), chromedp.WaitVisible(chromedp.CSS(".times")))
	run(chromedp.Click(chromedp.CSS(`label[for="f-start_time-1"]`)), chromedp.SendKeys(chromedp.ID("f-customer_name"), "Ann Example"),
		chromedp.SendKeys(chromedp.ID("f-customer_email"), "ann@example.com"))
	browsertest.Submit(t, ctx, `form#book button[type=submit]`)
	require.Equal(t, "The provider's payment page", text("h1"))
	checkouts, _ := pay.made()
	require.Len(t, checkouts, 1)
	manage := strings.SplitN(checkouts[0], " → ", 2)[1]

	run(chromedp.Navigate(manage), chromedp.WaitVisible(chromedp.CSS("h1")))
	require.Equal(t, "Pay to confirm your booking", text("h1"))
	require.Contains(t, text(".notice"), "This time is held for you until 04:30 on Monday 1 June (New York time).")
	require.Contains(t, text(".details"), "Awaiting payment")
	browsertest.NoViolations(t, ctx, "a booking awaiting payment")
	browsertest.Screenshots(t, ctx, shots, "bookings-awaiting-payment")
	browsertest.TabTo(t, ctx, `.notice a.button`)
	browsertest.Press(t, ctx, "\r", true)
	require.Equal(t, "The provider's payment page", text("h1"), "the way to pay, by keyboard")

	run(chromedp.Navigate(srv.URL+bookings.ListPagePrefixDefault+"/?view=unpaid&tz=America/New_York"), chromedp.WaitVisible(chromedp.CSS("h1")))
	require.Contains(t, text("table"), "Awaiting payment")
	browsertest.NoViolations(t, ctx, "the owner's bookings awaiting payment")
	browsertest.Submit(t, ctx, `table a[href*="tz="]`)
	require.Contains(t, text(".details"), "€25.00, awaiting payment until 04:30 on 1 June")
	browsertest.NoViolations(t, ctx, "the owner's page of a booking awaiting payment")

	run(chromedp.Navigate(manage+"?paid=1"), chromedp.WaitVisible(chromedp.CSS("h1")))
	require.Equal(t, "Confirming your payment", text("h1"))
	browsertest.NoViolations(t, ctx, "back from paying, the payment not yet confirmed")
	browsertest.Screenshots(t, ctx, shots, "bookings-confirming-payment")

	list, _, err := b.svc.ListBookings(context.Background(), bookings.BookingFilter{})
	require.NoError(t, err)
	_, settled, err := b.svc.SettlePayment(context.Background(), "fake", "paid", event(list[0], true))
	require.NoError(t, err)
	require.True(t, settled)
	run(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("h1")))
	require.Equal(t, "Your booking", text("h1"))
	require.Contains(t, text(".details"), "Paid €25.00")
	browsertest.NoViolations(t, ctx, "a paid booking")
	browsertest.TabTo(t, ctx, `a[href*="step=cancel"]`)
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, text("form.card"), "You will be refunded €25.00 in full.")
	browsertest.NoViolations(t, ctx, "cancelling a paid booking")
	browsertest.Screenshots(t, ctx, shots, "bookings-cancel-paid")
	browsertest.Submit(t, ctx, `button.danger`)
	require.Equal(t, "Booking cancelled", text("h1"))
	require.Contains(t, text(".details"), "Paid €25.00", "refunded once the provider accepts it")

	pay.set(func() { pay.fail = true })
	run(chromedp.Navigate(srv.URL+"/bookings/consultation?tz=America/New_York&date=2026-06-03#times"), chromedp.WaitVisible(chromedp.CSS(".times")))
	run(chromedp.Click(chromedp.CSS(`label[for="f-start_time-2"]`)), chromedp.SendKeys(chromedp.ID("f-customer_name"), "Bo"),
		chromedp.SendKeys(chromedp.ID("f-customer_email"), "bo@example.com"))
	browsertest.Submit(t, ctx, `form#book button[type=submit]`)
	require.Contains(t, text(".error-summary"), "Payment could not be started. Please try again in a moment.")
	browsertest.NoViolations(t, ctx, "the booking page when payment cannot start")
}

// A paid booking made inside another site's frame: the payment page
// refuses frames, so the customer lands on their booking's own page,
// still framed, whose Pay opens the payment in a tab of its own; the
// host hears of the booking, unconfirmed while it waits for its payment.
func TestPaidBookingInAFrame(t *testing.T) {
	t.Parallel()
	pay := &fakePayments{}
	b := setupPaid(t, store.SQLite, pay)
	pages, err := bookings.NewPageHandler(b.svc, &bookings.PageOptions{FrameOrigins: []string{"https://www.example.com"}})
	require.NoError(t, err)
	srv := httptest.NewServer(pages)
	t.Cleanup(srv.Close)
	framed := "?" + url.Values{"embed": {"https://www.example.com"}, "tz": {"UTC"}}.Encode()
	form := url.Values{"start_time": {"2026-06-03T14:00:00Z"}, "customer_name": {"Ann"}, "customer_email": {"ann@example.com"}}
	// The day's page posts to an address that keeps the frame (the answer
	// is framed before the page's script has run, or without it).
	day := getPage(t, srv.URL+bookings.PagePrefixDefault+"/consultation"+framed+"&date=2026-06-03")
	action := regexp.MustCompile(`<form method="post" id="book" action="([^"]+)"`).FindStringSubmatch(day)
	require.NotNil(t, action, day)
	require.Equal(t, bookings.PagePrefixDefault+"/consultation?date=2026-06-03&embed=https%3A%2F%2Fwww.example.com&tz=UTC", html.UnescapeString(action[1]))
	status, body, location := post(t, srv, html.UnescapeString(action[1]), form)
	require.Equal(t, http.StatusSeeOther, status, body)
	require.True(t, strings.HasPrefix(location, bookings.PagePrefixDefault+"/manage/"), location)
	to, err := url.Parse(location)
	require.NoError(t, err)
	require.Equal(t, "https://www.example.com", to.Query().Get("embed"), "still framed")
	page := getPage(t, srv.URL+location)
	require.Contains(t, page, "<h1>Pay to confirm your booking</h1>")
	require.Regexp(t, `<a class="button" href="/bookings/manage/[^"]+/pay" target="_blank">Pay €25.00<span class="visually-hidden"> \(opens a new tab\)</span></a>`, page)
	require.Contains(t, page, `data-frame-event="bookingSuccessful"`)
	require.Contains(t, page, `&#34;confirmed&#34;:false`)
	require.Contains(t, page, `&#34;status&#34;:&#34;awaiting_payment&#34;`)
}
