package bookings_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/store"
)

// listSite serves the list pages of b's service; viewer is who asks.
func listSite(t *testing.T, b *bundle, viewer func(r *http.Request) (bool, int64, bool)) string {
	t.Helper()
	p, err := bookings.NewListPage(b.svc, &bookings.ListPageOptions{Viewer: viewer})
	require.NoError(t, err)
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv.URL
}

// book makes a booking through the public API and returns its ID.
func book(t *testing.T, b *bundle, start, name string) int64 {
	t.Helper()
	code, body := b.do(t, "POST", bookings.PrefixDefault, bookBody("consultation", start, "customer_name", name))
	require.Equal(t, 201, code, body)
	list, _, err := b.svc.ListBookings(context.Background(), bookings.BookingFilter{Limit: 100})
	require.NoError(t, err)
	for _, bk := range list {
		if bk.CustomerName == name {
			return bk.ID
		}
	}
	t.Fatalf("no booking for %s", name)
	return 0
}

// The owner's bookings in Chromium by keyboard: the upcoming list in the
// viewer's zone, a request confirmed and a booking cancelled from the
// list, one moved from its page; a provider sees only their own; axe on
// every page and state.
func TestBrowserBookingsList(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	st := bookingssql.New(b.db)
	manual := newOffering(t, st, "intro", 30)
	manual.RequiresConfirmation = true
	_, err := st.UpdateService(context.Background(), manual)
	require.NoError(t, err)
	require.NoError(t, st.LinkProvider(context.Background(), manual.ID, b.provider.ID, nil, nil))
	book(t, b, "2026-06-01T14:00:00Z", "Grace Hopper")
	book(t, b, "2026-06-02T15:00:00Z", "Alan Turing")
	code, body := b.do(t, "POST", bookings.PrefixDefault, bookBody("intro", "2026-06-03T14:00:00Z", "customer_name", "Ada Byron"))
	require.Equal(t, 201, code, body)

	u := listSite(t, b, func(*http.Request) (bool, int64, bool) { return true, 0, true })
	ctx := browsertest.New(t, 120*time.Second)
	shots := os.Getenv(browsertest.EnvScreenshots)
	browsertest.Do(t, ctx, chromedp.Navigate(u+bookings.ListPagePrefixDefault+"/?tz=Europe/London"), chromedp.WaitVisible(chromedp.CSS("table")))
	text := browsertest.Text(t, ctx, "table")
	require.Contains(t, text, "Mon 1 Jun 2026, 15:00–15:30", "14:00 UTC in London's summer time")
	require.Contains(t, text, "Grace Hopper")
	require.NotContains(t, text, "Ada Byron", "a request is not upcoming until confirmed")
	days, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("h2.day")].map(h => h.textContent)`))
	require.NoError(t, err)
	require.Equal(t, []string{"Today", "Tomorrow"}, days, "grouped by day in the viewer's zone")
	require.Equal(t, "2 bookings", browsertest.Text(t, ctx, "p.count"))
	require.Equal(t, "Confirmed", browsertest.Text(t, ctx, "td .status-confirmed"))
	browsertest.NoViolations(t, ctx, "the upcoming bookings")
	browsertest.Screenshots(t, ctx, shots, "bookings-list")

	// Narrowed by service, then by status: the request for the intro.
	browsertest.Do(t, ctx, chromedp.SetValue(chromedp.ID("f-service"), strconv.FormatInt(manual.ID, 10)))
	browsertest.TabTo(t, ctx, `.list-filters button[type=submit]`)
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, "main"), "No bookings match these filters.")
	require.Equal(t, "0 bookings", browsertest.Text(t, ctx, "p.count"))
	browsertest.NoViolations(t, ctx, "the bookings narrowed to none")
	browsertest.Do(t, ctx, chromedp.SetValue(chromedp.ID("f-status"), "requested"))
	browsertest.TabTo(t, ctx, `.list-filters button[type=submit]`)
	browsertest.Press(t, ctx, "\r", true)
	days, err = chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("h2.day")].map(h => h.textContent)`))
	require.NoError(t, err)
	require.Equal(t, []string{"Wednesday 3 June"}, days)
	require.Contains(t, browsertest.Text(t, ctx, "table"), "Ada Byron")
	require.Equal(t, "Requested", browsertest.Text(t, ctx, "td .status-requested"))
	browsertest.Screenshots(t, ctx, shots, "bookings-list-narrowed")
	browsertest.Do(t, ctx, chromedp.Navigate(u+bookings.ListPagePrefixDefault+"/?tz=Europe/London"), chromedp.WaitVisible(chromedp.CSS("table")))

	// Confirm the request from the list.
	browsertest.TabTo(t, ctx, `a[href*="view=requested"]`)
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, "table"), "Ada Byron")
	browsertest.Announced(t, ctx, `button[value=confirm]`, "button", "Confirm Ada Byron, Wed 3 Jun 2026, 15:00–15:30")
	browsertest.TabTo(t, ctx, `button[value=confirm]`)
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".notice"), "Confirmed.")
	require.Contains(t, browsertest.Text(t, ctx, "main"), "No requests waiting.")
	browsertest.NoViolations(t, ctx, "the requests, emptied")

	// Cancel Alan's from the upcoming list: its Cancel leads to the step
	// that says what will happen and asks for a reason; nothing is
	// cancelled before it.
	browsertest.TabTo(t, ctx, `a[href*="tz="]:not([href*="view="])`)
	browsertest.Press(t, ctx, "\r", true)
	browsertest.TabTo(t, ctx, `a[href$="#cancel"]`)
	for {
		label, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.textContent`))
		require.NoError(t, err)
		if strings.Contains(label, "Alan Turing") {
			break
		}
		browsertest.TabTo(t, ctx, `a[href$="#cancel"]`)
	}
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, "#cancel"), "Alan Turing is emailed that the booking on")
	alan, err := b.svc.Booking(context.Background(), 2)
	require.NoError(t, err)
	require.NotEqual(t, bookings.StatusCancelled, alan.Status, "not cancelled by the list's button alone")
	browsertest.NoViolations(t, ctx, "the step before a cancel")
	browsertest.TabTo(t, ctx, "#f-reason")
	browsertest.Do(t, ctx, chromedp.KeyEvent("The studio is closed that day"))
	browsertest.TabTo(t, ctx, `button[value=cancel]`)
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".notice"), "Cancelled.")
	browsertest.Do(t, ctx, chromedp.Navigate(u+bookings.ListPagePrefixDefault+"/?tz=Europe/London"), chromedp.WaitVisible(chromedp.CSS("table")))
	require.NotContains(t, browsertest.Text(t, ctx, "main"), "Alan Turing")

	// Grace's page: moved an hour later.
	browsertest.Do(t, ctx, chromedp.Navigate(u+bookings.ListPagePrefixDefault+"/?tz=Europe/London"), chromedp.WaitVisible(chromedp.CSS("table")))
	browsertest.TabTo(t, ctx, `td a[href*="/1?"]`)
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, "h1"), "Grace Hopper")
	browsertest.NoViolations(t, ctx, "a booking's page")
	browsertest.Screenshots(t, ctx, shots, "bookings-booking")
	// The move offers the provider's free times of the booking's day, as
	// the customer's reschedule does; by keyboard, the 16:00 (London).
	require.Contains(t, browsertest.Text(t, ctx, "#move"), "Monday 1 June")
	browsertest.TabTo(t, ctx, `#move input[name=start_time]`)
	for range 96 { // a day's times are one radio group: the arrows move within it
		value, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.value`))
		require.NoError(t, err)
		if value == "2026-06-01T15:00:00Z" {
			break
		}
		browsertest.Press(t, ctx, kb.ArrowRight, false)
	}
	checked, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#move input[name=start_time]:checked").value`))
	require.NoError(t, err)
	require.Equal(t, "2026-06-01T15:00:00Z", checked)
	browsertest.TabTo(t, ctx, `button[value=reschedule]`)
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".notice"), "Moved to Mon 1 Jun 2026, 16:00 London time.")
	browsertest.TabTo(t, ctx, `button[value=reschedule]`)
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".error-summary"), "Choose the new time")
	browsertest.NoViolations(t, ctx, "a booking's page with an error")
	moved, err := b.svc.Booking(context.Background(), 1)
	require.NoError(t, err)
	require.Equal(t, "2026-06-01T15:00:00Z", moved.Start.Format(time.RFC3339))

	// A provider sees their own; another's booking is not found.
	other := newProvider(t, st, "bob", "Europe/Paris")
	mine := listSite(t, b, func(*http.Request) (bool, int64, bool) { return false, other.ID, true })
	res, err := http.Get(mine + bookings.ListPagePrefixDefault + "/")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	res, err = http.Get(mine + bookings.ListPagePrefixDefault + "/1")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 404, res.StatusCode)
	nobody := listSite(t, b, func(*http.Request) (bool, int64, bool) { return false, 0, false })
	res, err = http.Get(nobody + bookings.ListPagePrefixDefault + "/")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 403, res.StatusCode)
}
