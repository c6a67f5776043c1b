package bookings_test

import (
	"context"
	"io"
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
	srv, run, text := pagesInBrowser(t, ctx, b)

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
	require.NotContains(t, text(".notice"), "on its way", "no mail is promised when none is sent")
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

// pagesInBrowser serves b's pages and returns helpers that drive the
// browser on them: run actions, read an element's text.
func pagesInBrowser(t *testing.T, ctx context.Context, b *bundle) (*httptest.Server, func(...chromedp.Action[chromedp.Void]), func(string) string) {
	t.Helper()
	pages, err := bookings.NewPageHandler(b.svc, nil)
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/bookings/", pages)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	run := func(actions ...chromedp.Action[chromedp.Void]) { t.Helper(); browsertest.Do(t, ctx, actions...) }
	text := func(sel string) string { t.Helper(); return browsertest.Text(t, ctx, sel) }
	return srv, run, text
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

// The manage page in a real browser: the booking and its times, an
// error, a move, a cancellation, a link that is not valid; no axe-core
// violations on any of them.
func TestBrowserManagePage(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 90*time.Second)
	b := setup(t, store.SQLite)
	srv, run, text := pagesInBrowser(t, ctx, b)
	bk, token := bookWithToken(t, b, "2026-06-03T14:00:00Z") // Wednesday 10:00 New York
	page := srv.URL + "/bookings/manage/" + token

	run(chromedp.Navigate(page), chromedp.WaitVisible(chromedp.ID("f-start_time")))
	require.Equal(t, "Your booking", text("h1"))
	require.Contains(t, text(".details"), "Wednesday 3 June 2026, 10:00 to 10:30 (America/New_York)")
	require.Contains(t, text(".details"), bk.Number)
	require.Contains(t, text("main"), "You can change it online until Tuesday 2 June 2026, 10:00 (America/New_York).")
	require.NotContains(t, text("fieldset"), "10:00", "the booking's own time is not offered")
	require.Contains(t, text("fieldset"), "10:15", "a time overlapping its own is")
	browsertest.NoViolations(t, ctx, "the manage page")

	run(chromedp.Click(chromedp.CSS(`form[action$="/reschedule?date=2026-06-03"] button`)), chromedp.WaitVisible(chromedp.CSS(".error-summary")))
	require.Contains(t, text(".error-summary"), "Choose a new time.")
	browsertest.NoViolations(t, ctx, "the manage page with an error")

	run(chromedp.Click(chromedp.CSS(`input[value="2026-06-03T14:15:00Z"]`)),
		chromedp.Click(chromedp.CSS(`form[action$="/reschedule?date=2026-06-03"] button`)), chromedp.WaitVisible(chromedp.CSS(".notice")))
	require.Contains(t, text(".notice"), "Your booking has moved.")
	require.Contains(t, text(".details"), "Wednesday 3 June 2026, 10:15 to 10:45")
	browsertest.NoViolations(t, ctx, "the manage page after a move")

	run(chromedp.Navigate(page), chromedp.WaitVisible(chromedp.ID("f-reason")))
	run(chromedp.SendKeys(chromedp.ID("f-reason"), "Plans changed"), chromedp.Click(chromedp.CSS(`button.danger`)),
		chromedp.WaitVisible(chromedp.CSS(".notice")))
	require.Contains(t, text(".notice"), "Your booking is cancelled.")
	require.Contains(t, text(".details"), "Cancelled")
	require.Contains(t, text("main"), "This booking can no longer be changed online.")
	browsertest.NoViolations(t, ctx, "the manage page of a cancelled booking")

	run(chromedp.Navigate(srv.URL+"/bookings/manage/"+strings.Repeat("0", 64)), chromedp.WaitVisible(chromedp.CSS("h1")))
	require.Equal(t, "Booking link not valid", text("h1"))
	require.Contains(t, text("main"), bookings.MsgBadManageToken)
	browsertest.NoViolations(t, ctx, "a link that is not valid")
}

// The manage page's posts without a browser: the API's refusals and
// statuses, the change window, the per-token bucket.
func TestManagePagePosts(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	pages, err := bookings.NewPageHandler(b.svc, &bookings.PageOptions{PostLimit: -1, ManageTokenLimit: 6})
	require.NoError(t, err)
	srv := httptest.NewServer(pages)
	t.Cleanup(srv.Close)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(method, path, form string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", srv.URL)
		res, err := client.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res.StatusCode, string(body)
	}
	_, token := bookWithToken(t, b, "2026-06-03T14:00:00Z")
	path := "/bookings/manage/" + token
	code, body := do("POST", path+"/reschedule", "start_time=tomorrow")
	require.Equal(t, 422, code)
	require.Contains(t, body, bookings.MsgTimeNotUnderstood)
	code, body = do("POST", path+"/reschedule", "start_time=2026-06-03T14%3A00%3A00Z")
	require.Equal(t, 422, code)
	require.Contains(t, body, bookings.MsgAlreadyAtThatTime)
	b.clock.Set(mustTime("2026-06-02T14:00:01Z")) // past the 24-hour window
	code, body = do("POST", path+"/cancel", "")
	require.Equal(t, 422, code)
	require.Contains(t, body, bookings.MsgTooLateToCancel)
	code, body = do("GET", path, "")
	require.Equal(t, 200, code)
	require.Contains(t, body, "It is too close to your appointment to change it online.")
	require.NotContains(t, body, `name="start_time"`)
	for range 2 {
		code, _ = do("GET", path, "")
		require.Equal(t, 200, code)
	}
	code, _ = do("GET", path, "")
	require.Equal(t, 429, code, "six a minute for this token")
	code, _ = do("POST", "/bookings/manage/"+strings.Repeat("1", 64)+"/cancel", "")
	require.Equal(t, 404, code)
}
