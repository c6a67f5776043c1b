package bookings_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/store"
)

// The booking page in a real browser, as a customer walks it: the month
// (free days linked, never before today), a day's times as a grid, every
// error of an empty form at once in the labels' words, a booking that
// lands on its confirmation page (calendar links, the manage link),
// then reschedule and cancel (asked first) from that page, and "Book
// again"; every page and state passes the page bar (axe light and dark,
// 320 px, 24 px targets).
func TestBrowserBookingFlow(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second)
	b := setup(t, store.SQLite)
	srv, run, text := pagesInBrowser(t, ctx, b)
	submit := func(sel string) { t.Helper(); browsertest.Submit(t, ctx, sel) }

	run(chromedp.Navigate(srv.URL+"/bookings/consultation?tz=America/New_York"), chromedp.WaitVisible(chromedp.CSS("table.month")))
	require.Equal(t, "Consultation consultation", text("h1"))
	require.Equal(t, "June 2026", text("table.month caption"))
	require.NotContains(t, text(".month-nav"), "Previous month", "never before this month")
	free, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("table.month a")].map(a => a.getAttribute("aria-label"))`))
	require.NoError(t, err)
	require.NotEmpty(t, free)
	require.NotContains(t, strings.Join(free, "|"), "Saturday", "no hours at weekends")
	browsertest.NoViolations(t, ctx, "the booking page's month")

	submit(`table.month a[aria-label^="Tuesday 2 June"]`)
	require.Contains(t, text("#times h2"), "Tuesday 2 June 2026")
	loc, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(loc, "#times"), "choosing a day keeps the reader at the times: %s", loc)
	dots, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector(".times input")).opacity`))
	require.NoError(t, err)
	require.Equal(t, "0", dots, "the time chips show no radio dots")
	browsertest.NoViolations(t, ctx, "the booking page with a day's times")
	submit(`form#book button[type=submit]`)
	summary := text(".error-summary")
	for _, want := range []string{"Choose a time", "Enter your name", "Enter your email address"} {
		require.Contains(t, summary, want, "every error in one round")
	}
	focused, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.className`))
	require.NoError(t, err)
	require.Equal(t, "error-summary", focused)
	browsertest.NoViolations(t, ctx, "the booking page with errors")

	run(chromedp.Click(chromedp.CSS(`label[for="f-start_time-2"]`)), chromedp.SendKeys(chromedp.ID("f-customer_name"), "Grace Hopper"),
		chromedp.SendKeys(chromedp.ID("f-customer_email"), "grace@example.com"))
	submit(`form#book button[type=submit]`)
	require.Equal(t, "You are booked", text("h1"))
	require.Contains(t, text(".details"), "Tuesday 2 June 2026, 09:30 to 10:00 (New York time)")
	require.Equal(t, 1, strings.Count(text("main"), "09:30 to 10:00"), "when, once")
	require.Contains(t, text(".notice"), "Keep this page's address", "no mail is promised when none is sent")
	google, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('a[href^="https://calendar.google.com/"]').href`))
	require.NoError(t, err)
	require.Contains(t, google, "dates=20260602T133000Z%2F20260602T140000Z")
	require.Contains(t, text("main"), "Apple and others (.ics)")
	require.Contains(t, text("main"), "Outlook")
	browsertest.NoViolations(t, ctx, "the confirmation page")

	// Reschedule, then cancel, from the booking's own page.
	submit(`a[href*="step=reschedule"]`)
	require.Contains(t, text("form[action*='/reschedule'] h3"), "Tuesday 2 June 2026", "the picker opens on the booked day")
	require.Equal(t, "09:30\nyour time now", text(".current-time"), "shown on two lines")
	browsertest.NoViolations(t, ctx, "the reschedule step on the booked day, its time marked")
	submit(`table.month a[aria-label^="Wednesday 3 June"]`)
	browsertest.NoViolations(t, ctx, "the reschedule step")
	run(chromedp.Click(chromedp.CSS(`label[for="f-start_time-1"]`)))
	submit(`form[action*="/reschedule"] button[type=submit]`)
	require.Contains(t, text(".notice"), "Your booking has moved.")
	require.Contains(t, text(".details"), "Wednesday 3 June 2026")
	browsertest.NoViolations(t, ctx, "the booking after a move")
	submit(`a[href*="step=cancel"]`)
	require.Contains(t, text("main"), "Cancel this booking?")
	require.Contains(t, text(".details"), "Confirmed", "asking does not cancel")
	require.NotContains(t, text("main"), "Add to your calendar", "not above the cancel question")
	browsertest.NoViolations(t, ctx, "the cancel question")
	run(chromedp.SendKeys(chromedp.ID("f-reason"), "Plans changed"))
	submit(`button.danger`)
	require.Equal(t, "Booking cancelled", text("h1"))
	require.Contains(t, text(".notice"), "Your booking is cancelled.")
	require.NotContains(t, text("main"), ".ics", "no calendar for a cancelled booking")
	require.Equal(t, 1, strings.Count(strings.ToLower(text("main")), "is cancelled"), "it says it once")
	browsertest.NoViolations(t, ctx, "a cancelled booking")
	submit(`main a[href^="/bookings/consultation"]`)
	require.Equal(t, "Consultation consultation", text("h1"), "book again")

	run(chromedp.Navigate(srv.URL+"/bookings/nope"), chromedp.WaitVisible(chromedp.CSS("h1")))
	require.Equal(t, "Service not found", text("h1"))
	browsertest.NoViolations(t, ctx, "the not-found page")
	run(chromedp.Navigate(srv.URL+"/bookings/manage/"+strings.Repeat("0", 64)), chromedp.WaitVisible(chromedp.CSS("h1")))
	require.Equal(t, "Booking link not valid", text("h1"))
	browsertest.NoViolations(t, ctx, "a link that is not valid")
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

// A move through a manage link leaves the booking changeable: the page
// offers no time inside the change window (and says so), opens on the
// booked day in the customer's zone with the present time marked, and
// the API refuses such a time with a 422 on start_time.
func TestRescheduleKeepsTheBookingChangeable(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	pages, err := bookings.NewPageHandler(b.svc, &bookings.PageOptions{PostLimit: -1})
	require.NoError(t, err)
	srv := httptest.NewServer(pages)
	t.Cleanup(srv.Close)
	get := func(path string) string {
		t.Helper()
		res, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		require.Equal(t, 200, res.StatusCode, string(body))
		return string(body)
	}
	// Booked on Wednesday 3 June at 10:00 New York (14:00 UTC) by a
	// customer in London; it is now Tuesday 2 June 09:00 UTC, so online
	// changes close on Tuesday at 14:00 UTC and a move must start no
	// sooner than Wednesday 09:00 UTC (05:00 New York, before opening).
	bk, token, err := b.svc.Create(context.Background(), bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-03T14:00:00Z"),
		CustomerName: "Grace", CustomerEmail: "grace@example.com", CustomerTimeZone: "Europe/London"})
	require.NoError(t, err)
	bookWithToken(t, b, "2026-06-03T16:00:00Z") // someone else's, so the day is not all free
	b.clock.Set(mustTime("2026-06-02T09:00:00Z"))

	page := get("/bookings/manage/" + token + "?step=reschedule")
	require.Contains(t, page, "<h3>Wednesday 3 June 2026</h3>", "the booked day, not today")
	require.Contains(t, page, `aria-current="date">3</a>`)
	require.Contains(t, page, `<span class="current-time">15:00 <small>your time now</small></span>`, "the present time marked, in the customer's zone")
	require.Contains(t, page, "Times are offered from Wednesday 3 June 2026, 10:00 (London time) on: a booking any sooner could not be changed online again.")
	require.Contains(t, page, `value="2026-06-03T13:00:00Z"`, "Wednesday 09:00 New York is offered")
	require.NotContains(t, page, "Tuesday 2 June, 1", "no Tuesday time is offered")
	tuesday := get("/bookings/manage/" + token + "?step=reschedule&date=2026-06-02&tz=Europe/London")
	require.NotContains(t, tuesday, `name="start_time"`, "every Tuesday time is inside the window")
	require.Contains(t, tuesday, "No times are free on this day.")

	// The API: meta says from when, a sooner time is refused.
	code, body := b.do(t, "GET", "/api/bookings/manage/"+token, "")
	require.Equal(t, 200, code)
	require.Contains(t, body, `"reschedule_from":"2026-06-03T09:00:00+00:00"`)
	code, body = b.do(t, "POST", "/api/bookings/manage/"+token+"/reschedule", `{"start_time":"2026-06-02T15:00:00Z"}`)
	require.Equal(t, 422, code)
	require.JSONEq(t, `{"message":"`+bookings.MsgInsideChangeWindow+`","errors":{"start_time":["`+bookings.MsgInsideChangeWindow+`"]}}`, body)
	code, body = b.do(t, "POST", "/api/bookings/manage/"+token+"/reschedule", `{"start_time":"2026-06-03T13:00:00Z"}`)
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `"can_reschedule":true`, "still changeable after the move")
	_ = bk
}

// The manage page's posts without a browser: the API's refusals and
// statuses, the change window, the per-token bucket.
func TestManagePagePosts(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	pages, err := bookings.NewPageHandler(b.svc, &bookings.PageOptions{PostLimit: -1, ManageTokenLimit: 6, Contact: "Call us on 020 7946 0000."})
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
	require.Contains(t, body, `Call us on <a href="tel:02079460000">020 7946 0000</a>.`, "with the host's contact text, the number a link")
	require.NotContains(t, body, "You can change", "no window that has closed is offered")
	require.NotContains(t, body, `name="start_time"`)
	code, body = do("GET", path+"?step=reschedule", "")
	require.Equal(t, 200, code)
	require.NotContains(t, body, `name="start_time"`, "no step past the window")
	code, _ = do("GET", path, "")
	require.Equal(t, 200, code)
	code, _ = do("GET", path, "")
	require.Equal(t, 429, code, "six a minute for this token")
	code, _ = do("POST", "/bookings/manage/"+strings.Repeat("1", 64)+"/cancel", "")
	require.Equal(t, 404, code)
}

// The booking page of a service with two lengths, a price in euros, a
// place and weekly series, walked with the keyboard alone: the length
// chosen, a day opened (landing at its times), a time chosen with the
// arrow keys, three weeks asked, the confirmation with what, when, where
// and the price; every state passes the page bar (and is pictured with
// GROUNDWORK_SCREENSHOTS).
func TestBrowserBookingRules(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second)
	b := setup(t, store.SQLite)
	c := context.Background()
	lengths := []bookings.LengthChoice{{Minutes: 30}, {Minutes: 60, Price: ptr("45.00")}}
	place := bookings.Location{Kind: bookings.LocationAddress, Value: "1 Main Street, Springfield"}
	_, err := b.svc.UpdateService(c, "consultation", bookings.OfferingInput{Lengths: &lengths, Currency: ptr("EUR"), Location: &place,
		Series: &bookings.SeriesRule{MaxCount: 6, MaxEveryWeeks: 2}})
	require.NoError(t, err)
	srv, run, text := pagesInBrowser(t, ctx, b)
	shots := os.Getenv(browsertest.EnvScreenshots)

	run(chromedp.Navigate(srv.URL+"/bookings/consultation?tz=America/New_York"), chromedp.WaitVisible(chromedp.CSS("table.month")))
	require.Contains(t, text(".summary-card"), "€25.00")
	require.Contains(t, text(".summary-card"), "1 Main Street, Springfield")
	require.Contains(t, text(".summary-card"), "New York (UTC−04:00)")
	require.Contains(t, text("#f-length"), "60 minutes, €45.00")
	browsertest.NoViolations(t, ctx, "the booking page with lengths")

	// Keyboard only: the length, then a day, then a time.
	browsertest.TabTo(t, ctx, "#f-length")
	browsertest.Press(t, ctx, "6", false) // typing selects "60 minutes, €45.00"
	require.Contains(t, text(".summary-card .price"), "€45.00", "the price follows the length at once")
	require.Equal(t, "60 minutes", text(`.summary-card [data-follows="length"]`))
	stacked, err := browsertest.AtWidth(ctx, 390, func(ctx context.Context) (bool, error) {
		return chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("#f-tz").getBoundingClientRect().top > document.querySelector("#f-length").getBoundingClientRect().bottom`))
	})
	require.NoError(t, err)
	require.True(t, stacked, "on a phone the length and the zone each have the width, so neither cuts its text")
	cut, err := browsertest.AtWidth(ctx, 390, browsertest.Layout)
	require.NoError(t, err)
	require.Empty(t, cut)
	browsertest.TabTo(t, ctx, ".zone-form button")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, text(".summary-card"), "60 minutes")
	require.Contains(t, text(".summary-card"), "€45.00")
	browsertest.TabTo(t, ctx, `table.month a[aria-label^="Tuesday 2 June"]`)
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, text("#times h2"), "Tuesday 2 June 2026")
	browsertest.NoViolations(t, ctx, "a day's times, 60 minutes")
	browsertest.Screenshots(t, ctx, shots, "booking-day")
	browsertest.TabTo(t, ctx, ".times input")
	browsertest.Press(t, ctx, " ", false) // space chooses the first time
	checked, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector(".times input:checked").value`))
	require.NoError(t, err)
	require.Equal(t, "2026-06-02T13:00:00Z", checked)
	outline, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector(".times label")).outlineStyle`))
	require.NoError(t, err)
	require.Equal(t, "solid", outline, "the focused chip shows its focus")
	browsertest.TabTo(t, ctx, "#f-customer_name")
	run(chromedp.SendKeys(chromedp.ID("f-customer_name"), "Grace Hopper"), chromedp.SendKeys(chromedp.ID("f-customer_email"), "grace@example.com"))
	browsertest.TabTo(t, ctx, "#f-repeat")
	browsertest.Press(t, ctx, "3", false) // "3 times"
	browsertest.TabTo(t, ctx, "#f-every")
	require.Equal(t, "Every week\nEvery 2 weeks", text("#f-every"), "the gaps the service allows")
	browsertest.Press(t, ctx, kb.ArrowDown, false) // "Every 2 weeks"
	noNote, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector(".request-note") === null`))
	require.NoError(t, err)
	require.True(t, noNote, "booked at once: nothing to wait for")
	require.Equal(t, "Book", text("form#book button[type=submit]"))
	browsertest.TabTo(t, ctx, "form#book button[type=submit]")
	browsertest.Press(t, ctx, "\r", true)
	require.Equal(t, "You are booked for 3 dates", text("h1"))
	dates := text("ol.series-dates")
	for _, day := range []string{"Tuesday 2 June 2026, 09:00 to 10:00", "Tuesday 16 June 2026, 09:00 to 10:00", "Tuesday 30 June 2026, 09:00 to 10:00"} {
		require.Contains(t, dates, day, "every date of the series")
	}
	details := text(".details")
	require.Contains(t, details, "Tuesday 2 June 2026, 09:00 to 10:00 (New York time)")
	require.Contains(t, details, "1 Main Street, Springfield")
	require.Contains(t, details, "€45.00")
	browsertest.NoViolations(t, ctx, "the confirmation with place and price")
	browsertest.Screenshots(t, ctx, shots, "booking-confirmed")
	list, _, err := b.svc.Store().ListBookings(c, bookings.BookingFilter{Limit: 10})
	require.NoError(t, err)
	require.Len(t, list, 3, "three dates, two weeks apart")
	for i, bk := range list {
		require.Equal(t, time.Hour, bk.End.Sub(bk.Start))
		if i > 0 {
			require.Equal(t, 14*24*time.Hour, absDuration(bk.Start.Sub(list[i-1].Start)))
		}
	}
}

func absDuration(d time.Duration) time.Duration { return max(d, -d) }

// TestBrowserBookingPageSaysWhatFollows: a video meeting's link is not on
// the public page (it comes with the booking, and stays inside its card
// however long), and a service whose bookings wait for approval says so
// above a "Request this time" button; one that waits only for late ones
// says which.
func TestBrowserBookingPageSaysWhatFollows(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second)
	b := setup(t, store.SQLite)
	c := context.Background()
	const room = "https://meet.example.com/studio-consultation-room-for-the-whole-team-and-every-guest-0123456789"
	place := bookings.Location{Kind: bookings.LocationVideo, Value: room}
	_, err := b.svc.UpdateService(c, "consultation", bookings.OfferingInput{Location: &place, RequiresConfirmation: ptr(true)})
	require.NoError(t, err)
	srv, run, text := pagesInBrowser(t, ctx, b)
	shots := os.Getenv(browsertest.EnvScreenshots)

	run(chromedp.Navigate(srv.URL+"/bookings/consultation?tz=America/New_York&date=2026-06-02"), chromedp.WaitVisible(chromedp.CSS("form#book")))
	require.NotContains(t, text("main"), "meet.example.com", "the link is for those who book")
	require.Contains(t, text(".summary-card"), "Video call: the link comes with your booking")
	require.Contains(t, text(".request-note"), "This is a request: the provider confirms it")
	require.Equal(t, "Request this time", text("form#book button[type=submit]"))
	browsertest.NoViolations(t, ctx, "a booking page whose bookings are requests")
	browsertest.Screenshots(t, ctx, shots, "booking-request-first")

	run(chromedp.Click(chromedp.CSS(`label[for="f-start_time-2"]`)), chromedp.SendKeys(chromedp.ID("f-customer_name"), "Grace Hopper"),
		chromedp.SendKeys(chromedp.ID("f-customer_email"), "grace@example.com"))
	browsertest.Submit(t, ctx, `form#book button[type=submit]`)
	require.Equal(t, "Video meeting", text(`.details a[href="`+room+`"]`), "the customer's own page has the link")
	inside, err := browsertest.AtWidth(ctx, 320, func(ctx context.Context) (bool, error) {
		return chromedp.Run(ctx, chromedp.Evaluate[bool](`[...document.querySelectorAll(".details dd")].every(dd =>
			dd.getBoundingClientRect().right <= Math.min(innerWidth, dd.closest(".details").getBoundingClientRect().right) + 1)`))
	})
	require.NoError(t, err)
	require.True(t, inside, "the place stays inside its card at 320 px")
	browsertest.NoViolations(t, ctx, "the requested booking with its video link")

	_, err = b.svc.UpdateService(c, "consultation", bookings.OfferingInput{ConfirmWithinHours: ptr(48)})
	require.NoError(t, err)
	run(chromedp.Navigate(srv.URL+"/bookings/consultation?tz=America/New_York&date=2026-06-02"), chromedp.WaitVisible(chromedp.CSS("form#book")))
	require.Contains(t, text(".request-note"), "A time less than 48 hours from now is a request")
	require.Equal(t, "Book", text("form#book button[type=submit]"))
	browsertest.NoViolations(t, ctx, "a booking page whose late bookings are requests")

	long := bookings.Location{Kind: bookings.LocationAddress, Value: "https://maps.example.com/place/StudioBuildingSevenEntranceByTheCourtyardGate0123456789"}
	_, err = b.svc.UpdateService(c, "consultation", bookings.OfferingInput{Location: &long})
	require.NoError(t, err)
	run(chromedp.Navigate(srv.URL+"/bookings/consultation?tz=America/New_York"), chromedp.WaitVisible(chromedp.CSS(".summary-card")))
	inside, err = browsertest.AtWidth(ctx, 320, func(ctx context.Context) (bool, error) {
		return chromedp.Run(ctx, chromedp.Evaluate[bool](`[...document.querySelectorAll(".summary-card dd")].every(dd =>
			dd.getBoundingClientRect().right <= Math.min(innerWidth, dd.closest(".card").getBoundingClientRect().right) + 1)`))
	})
	require.NoError(t, err)
	require.True(t, inside, "a long place stays inside its card at 320 px")
}
