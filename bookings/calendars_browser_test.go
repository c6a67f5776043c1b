package bookings_test

import (
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
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/bookings/calendars"
	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// The provider's calendar page and the booking page in a real browser,
// on a real CalDAV server: the provider connects their Radicale account
// (after an empty form's errors), makes it the destination, adds a
// dentist's appointment in Radicale and presses "Read now" from the
// keyboard; the booking page then does not offer that time, a booking
// made there appears in Radicale, and cancelling it takes it out. Every
// page and state passes the page bar.
func TestBrowserCalendarsWithRadicale(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second)
	base := testkit.Radicale(t)
	db := storetest.Open(t, store.SQLite, bookingssql.Migrations)
	b := setupOn(t, db)
	svc := queuedCalendarService(t, db, b.clock, nil, nil)
	code, _ := davRequest(t, "MKCALENDAR", base+"/ada/work/", "")
	require.Equal(t, http.StatusCreated, code)

	page, err := calendars.NewPageHandler(svc.cal, nil)
	require.NoError(t, err)
	pages, err := bookings.NewPageHandler(svc.Service, nil)
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle(calendars.PagePrefixDefault+"/", page)
	mux.Handle(bookings.PagePrefixDefault+"/", pages)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	run := func(actions ...chromedp.Action[chromedp.Void]) { t.Helper(); browsertest.Do(t, ctx, actions...) }
	text := func(sel string) string { t.Helper(); return browsertest.Text(t, ctx, sel) }
	submit := func(sel string) { t.Helper(); browsertest.Submit(t, ctx, sel) }
	starts := func() []string {
		t.Helper()
		run(chromedp.Navigate(srv.URL + "/bookings/consultation?tz=UTC&date=2026-06-02"))
		out, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("input[name=start_time]")].map(i => i.value)`))
		require.NoError(t, err)
		return out
	}
	require.Contains(t, starts(), "2026-06-02T14:00:00Z", "free before the dentist")

	link := svc.cal.PageLink(b.provider.ID, time.Hour)
	run(chromedp.Navigate(srv.URL + calendars.PagePrefixDefault + "/" + link))
	require.Equal(t, "Your calendars", text("h1"))
	require.Contains(t, text("main"), "No calendar is connected yet.")
	browsertest.NoViolations(t, ctx, "the calendar page, nothing connected")
	browsertest.Screenshots(t, ctx, os.Getenv(browsertest.EnvScreenshots), "calendars-empty")

	// The providers' buttons: each opens its own form, iCloud's with
	// Apple's server filled in.
	browsertest.TabTo(t, ctx, `ul.providers a[href*="connect=icloud"]`)
	browsertest.Press(t, ctx, "\r", true)
	require.Equal(t, "Apple iCloud", text("#connect-form-title"))
	server, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("f-caldav_url").value`))
	require.NoError(t, err)
	require.Equal(t, "https://caldav.icloud.com/", server)
	browsertest.NoViolations(t, ctx, "the calendar page, iCloud's form")
	browsertest.Screenshots(t, ctx, os.Getenv(browsertest.EnvScreenshots), "calendars-icloud")
	browsertest.TabTo(t, ctx, `ul.providers a[href*="connect=caldav"]`)
	browsertest.Press(t, ctx, "\r", true)
	require.Equal(t, "Another CalDAV server", text("#connect-form-title"))

	submit(`form:has(input[value=caldav]) button[type=submit]`)
	summary := text(".error-summary")
	for _, want := range []string{"The name is required.", "The address is required.", "The app password is required."} {
		require.Contains(t, summary, want)
	}
	browsertest.NoViolations(t, ctx, "the calendar page with the CalDAV form's errors")
	browsertest.Screenshots(t, ctx, os.Getenv(browsertest.EnvScreenshots), "calendars-errors")

	run(chromedp.SendKeys(chromedp.ID("f-caldav_name"), "Work"), chromedp.SendKeys(chromedp.ID("f-caldav_url"), base+"/"),
		chromedp.SendKeys(chromedp.ID("f-caldav_username"), "ada"), chromedp.SendKeys(chromedp.ID("f-caldav_password"), "app-password"))
	submit(`form:has(input[value=caldav]) button[type=submit]`)
	require.Contains(t, text(".notice"), "Work is connected")
	require.NotContains(t, text("main"), "app-password")

	submit(`a[href*="?edit="]`)
	require.Equal(t, "Calendars of Work", text("#edit-title"))
	browsertest.NoViolations(t, ctx, "the step that chooses calendars")
	browsertest.Screenshots(t, ctx, os.Getenv(browsertest.EnvScreenshots), "calendars-edit")
	// Each calendar by its name, with its own two choices; by keyboard.
	names := text("ul.calendar-list")
	require.NotContains(t, names, "ada/", "never a path")
	require.Contains(t, names, "work", "a calendar without a name of its own is named by the end of its path")
	browsertest.TabTo(t, ctx, "#f-destination")    // the group's chosen radio: none
	browsertest.Press(t, ctx, kb.ArrowDown, false) // round to the first calendar
	first, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("ul.calendar-list li:first-child input[type=radio]").checked`))
	require.NoError(t, err)
	require.True(t, first, "bookings added to the first calendar")
	submit(`form[action$="/choose"] button[type=submit]`)
	require.Contains(t, text(".notice"), "The calendars of Work are saved.")
	require.NotContains(t, text(".details"), "/ada/", "the calendar by its name, the server by its host")

	// The dentist, put in Radicale a moment ago; "Read now" by keyboard.
	code, _ = davRequest(t, http.MethodPut, base+"/ada/work/dentist.ics", strings.Join([]string{"BEGIN:VCALENDAR", "VERSION:2.0",
		"PRODID:-//test//EN", "BEGIN:VEVENT", "UID:dentist", "DTSTAMP:20260601T080000Z", "DTSTART:20260602T140000Z",
		"DTEND:20260602T150000Z", "SUMMARY:Dentist", "END:VEVENT", "END:VCALENDAR", ""}, "\r\n"))
	require.Equal(t, http.StatusCreated, code)
	browsertest.TabTo(t, ctx, `form[action$="/sync"] button`)
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, text(".notice"), "Work was read just now.")
	browsertest.NoViolations(t, ctx, "the calendar page with a connection")
	browsertest.Screenshots(t, ctx, os.Getenv(browsertest.EnvScreenshots), "calendars-connected")

	free := starts()
	require.NotContains(t, free, "2026-06-02T14:00:00Z", "the dentist's time is not offered")
	require.NotContains(t, free, "2026-06-02T14:30:00Z")
	require.Contains(t, free, "2026-06-02T16:00:00Z")
	require.NotContains(t, text("main"), "Dentist", "what the busy time was is never shown")
	run(chromedp.Click(chromedp.CSS(`input[value="2026-06-02T16:00:00Z"]`)), chromedp.SendKeys(chromedp.ID("f-customer_name"), "Grace Hopper"),
		chromedp.SendKeys(chromedp.ID("f-customer_email"), "grace@example.com"))
	submit(`form[method=post] button[type=submit]`)
	require.Equal(t, "You are booked", text("h1"))
	number := strings.TrimSpace(text(".details dd:last-of-type"))
	event := base + "/ada/work/" + number + "@" + bookings.FeedHostDefault + ".ics"
	require.Eventually(t, func() bool { code, _ := davRequest(t, http.MethodGet, event, ""); return code == http.StatusOK },
		10*time.Second, 20*time.Millisecond, "the booking appears in Radicale")
	_, body := davRequest(t, http.MethodGet, event, "")
	require.Contains(t, body, "DTSTART:20260602T160000Z")

	submit(`a[href*="step=cancel"]`)
	submit(`form[action*="/cancel"] button[type=submit]`)
	require.Equal(t, "Booking cancelled", text("h1"))
	require.Eventually(t, func() bool { code, _ := davRequest(t, http.MethodGet, event, ""); return code == http.StatusNotFound },
		10*time.Second, 20*time.Millisecond, "cancelling takes it out of Radicale")
}
