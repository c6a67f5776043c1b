package bookings_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/store"
)

// The booking page in a real browser: a day's times, the errors of an
// empty form, a booking and its confirmation, a day with no times; no
// axe-core violations on any of them.
func TestBrowserBookingPage(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 90*time.Second)
	b := setup(t, store.SQLite)
	pages, err := bookings.NewPageHandler(b.svc, nil)
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/bookings/", pages)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	run := func(actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx, actions...))
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		require.NoError(t, err)
		return s
	}

	run(chromedp.Navigate(srv.URL+"/bookings/consultation?date=2026-06-02"), chromedp.WaitVisible(chromedp.ID("f-start_time")))
	require.Contains(t, text("h1"), "Book: Consultation consultation")
	browsertest.NoViolations(t, ctx, "the booking page")
	run(chromedp.Click(chromedp.CSS(`form[method=post] button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS(".error-summary")))
	require.Contains(t, text(".error-summary"), "Choose a time.")
	browsertest.NoViolations(t, ctx, "the booking page with an error")

	run(chromedp.Click(chromedp.ID("f-start_time-2")), chromedp.SendKeys(chromedp.ID("f-customer_name"), "Grace Hopper"),
		chromedp.SendKeys(chromedp.ID("f-customer_email"), "not an address"),
		chromedp.Click(chromedp.CSS(`form[method=post] button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS(".error-summary")))
	require.Contains(t, text(".error-summary"), "The customer email field must be a valid email address.")
	browsertest.NoViolations(t, ctx, "the booking page with a field error")
	run(chromedp.SetValue(chromedp.ID("f-customer_email"), "grace@example.com"),
		chromedp.Click(chromedp.CSS(`form[method=post] button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS(".notice")))
	require.Contains(t, text(".notice"), "Booked: Consultation consultation, Tuesday 2 June 2026 at 09:30 EDT.")
	browsertest.NoViolations(t, ctx, "the booking page after a booking")
	labels := text("fieldset")
	require.NotContains(t, labels, "09:30", "the booked time is gone")

	run(chromedp.Navigate(srv.URL+"/bookings/consultation?date=2026-06-06"), chromedp.WaitVisible(chromedp.CSS("h2")))
	require.True(t, strings.Contains(text("main"), "No times are free on this day."))
	browsertest.NoViolations(t, ctx, "a day without times")
	run(chromedp.Navigate(srv.URL+"/bookings/nope"), chromedp.WaitVisible(chromedp.CSS("h1")))
	require.Equal(t, "Service not found", text("h1"))
	browsertest.NoViolations(t, ctx, "the not-found page")
}

// The page's POST: 409 when the time was taken meanwhile, 403 from
// another origin.
func TestBookingPagePost(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	pages, err := bookings.NewPageHandler(b.svc, &bookings.PageOptions{PostLimit: -1})
	require.NoError(t, err)
	srv := httptest.NewServer(pages)
	t.Cleanup(srv.Close)
	post := func(origin string) (int, string) {
		req, _ := http.NewRequest("POST", srv.URL+"/bookings/consultation?date=2026-06-02",
			strings.NewReader("start_time=2026-06-02T13%3A00%3A00Z&customer_name=G&customer_email=g%40example.com"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", origin)
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := client.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		var sb strings.Builder
		buf := make([]byte, 1<<16)
		for {
			n, err := res.Body.Read(buf)
			sb.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return res.StatusCode, sb.String()
	}
	code, _ := post("https://evil.example")
	require.Equal(t, 403, code)
	code, _ = post(srv.URL)
	require.Equal(t, http.StatusSeeOther, code)
	code, body := post(srv.URL)
	require.Equal(t, http.StatusConflict, code)
	require.Contains(t, body, bookings.MsgTaken)
}
