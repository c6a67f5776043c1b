package bookings_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/store"
)

// intakeService is a service "visit" whose booking asks four questions,
// two of them required, of Ada; with confirm, its bookings are requests.
func intakeService(t *testing.T, b *bundle, confirm bool) bookings.Offering {
	t.Helper()
	st := bookingssql.New(b.db)
	svc := b.service
	svc.Slug, svc.Name = "visit", "First visit"
	svc.RequiresConfirmation = confirm
	svc.IntakeSchema = &bookings.IntakeSchema{Fields: []bookings.IntakeField{
		{Name: "reason", Type: "textarea", Label: "What brings you here", Required: true},
		{Name: "seen", Type: "select", Label: "Seen us before", Required: true, Options: []string{"Never", "Once", "Often"}},
		{Name: "age", Type: "integer", Label: "Age"},
		{Name: "parking", Type: "boolean", Label: "I need a parking space"},
	}}
	svc, err := st.CreateService(context.Background(), svc)
	require.NoError(t, err)
	require.NoError(t, st.LinkProvider(context.Background(), svc.ID, b.provider.ID, nil, nil))
	return svc
}

// pageSite serves the booking pages of b, and the owner's list.
func pageSite(t *testing.T, b *bundle) *httptest.Server {
	t.Helper()
	pages, err := bookings.NewPageHandler(b.svc, nil)
	require.NoError(t, err)
	list, err := bookings.NewListPage(b.svc, &bookings.ListPageOptions{Viewer: func(*http.Request) (bool, int64, bool) { return true, 0, true }})
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle(bookings.PagePrefixDefault+"/", pages)
	mux.Handle(bookings.ListPagePrefixDefault+"/", list)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// post sends a form to srv as a browser on the page would, not following
// the redirect.
func post(t *testing.T, srv *httptest.Server, path string, form url.Values) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest("POST", srv.URL+path, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", srv.URL)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body), res.Header.Get("Location")
}

func getPage(t *testing.T, u string) string {
	t.Helper()
	res, err := http.Get(u)
	require.NoError(t, err)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	require.Equal(t, 200, res.StatusCode, string(body))
	return string(body)
}

// A service's questions are asked by its own booking page, each in its
// kind of input: missing or wrong answers are said beside them with what
// was typed kept, the answers are sent with the booking, and the owner
// reads them on the booking's page.
func TestBookingPageAsksTheQuestions(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	intakeService(t, b, false)
	srv := pageSite(t, b)
	page := getPage(t, srv.URL+"/bookings/visit?date=2026-06-02&tz=America/New_York")
	for _, want := range []string{`<label for="f-intake_data-reason">What brings you here <span aria-hidden="true">*</span></label>`,
		`<textarea id="f-intake_data-reason" name="intake_data.reason"`, `<select id="f-intake_data-seen" name="intake_data.seen"`,
		`<option value="Often">Often</option>`, `<input type="number" id="f-intake_data-age" name="intake_data.age"`, "Age (optional)",
		`<input type="checkbox" id="f-intake_data-parking" name="intake_data.parking" value="1"`} {
		require.Contains(t, page, want)
	}
	form := url.Values{"start_time": {"2026-06-02T14:00:00Z"}, "customer_name": {"Grace"}, "customer_email": {"grace@example.com"},
		"intake_data.age": {"forty"}, "intake_data.parking": {"1"}}
	code, body, _ := post(t, srv, "/bookings/visit?tz=America/New_York&date=2026-06-02", form)
	require.Equal(t, 422, code, body)
	require.Contains(t, body, `<a href="#f-intake_data-reason">Answer “What brings you here”</a>`)
	require.Contains(t, body, "Choose an answer to “Seen us before”")
	require.Contains(t, body, "“Age” must be a number, like 42")
	require.Contains(t, body, `value="forty"`, "what was typed is kept")
	require.Contains(t, body, `name="intake_data.parking" value="1" checked`)

	form.Set("intake_data.reason", "A sore knee")
	form.Set("intake_data.seen", "Once")
	form.Set("intake_data.age", "41")
	code, body, loc := post(t, srv, "/bookings/visit?tz=America/New_York&date=2026-06-02", form)
	require.Equal(t, 303, code, body)
	require.Contains(t, loc, "/bookings/manage/")
	list, _, err := b.svc.ListBookings(context.Background(), bookings.BookingFilter{Limit: 10})
	require.NoError(t, err)
	require.Len(t, list, 1)
	owner := getPage(t, srv.URL+bookings.ListPagePrefixDefault+"/"+itoa(list[0].ID))
	for _, want := range []string{`<dt>What brings you here</dt><dd class="answer">A sore knee</dd>`, `<dt>Seen us before</dt><dd class="answer">Once</dd>`,
		`<dt>Age</dt><dd class="answer">41</dd>`, `<dt>I need a parking space</dt><dd class="answer">Yes</dd>`} {
		require.Contains(t, owner, want)
	}
}

// A booking that waits for approval is told it is a request, who answers
// and how; not "You are booked".
func TestRequestIsNotToldItIsBooked(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	intakeService(t, b, true)
	srv := pageSite(t, b)
	form := url.Values{"start_time": {"2026-06-02T14:00:00Z"}, "customer_name": {"Grace"}, "customer_email": {"grace@example.com"},
		"intake_data.reason": {"A sore knee"}, "intake_data.seen": {"Never"}}
	code, body, loc := post(t, srv, "/bookings/visit?tz=America/New_York&date=2026-06-02", form)
	require.Equal(t, 303, code, body)
	page := getPage(t, srv.URL+loc)
	require.Contains(t, page, `<h1 tabindex="-1" autofocus>Your request is sent</h1>`)
	require.Contains(t, page, "It is not booked yet: Ada will confirm it or decline")
	require.NotContains(t, page, "You are booked")
	require.Contains(t, page, "<dt>Status</dt><dd>Requested (not confirmed yet)</dd>")
}

// The questions in Chromium, by keyboard: a mistake said at the top and
// at each question, then the request sent; axe on each state.
func TestBrowserBookingQuestions(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	intakeService(t, b, true)
	srv := pageSite(t, b)
	ctx := browsertest.New(t, 90*time.Second)
	shots := os.Getenv(browsertest.EnvScreenshots)
	browsertest.Do(t, ctx, chromedp.Navigate(srv.URL+"/bookings/visit?date=2026-06-02&tz=America/New_York"), chromedp.WaitVisible(chromedp.CSS("form#book")))
	browsertest.NoViolations(t, ctx, "a booking page with questions")
	browsertest.Screenshots(t, ctx, shots, "booking-questions")
	browsertest.TabTo(t, ctx, ".times input")
	browsertest.Press(t, ctx, " ", false)
	browsertest.TabTo(t, ctx, "#f-customer_name")
	browsertest.Do(t, ctx, chromedp.KeyEvent("Grace Hopper"))
	browsertest.TabTo(t, ctx, "#f-customer_email")
	browsertest.Do(t, ctx, chromedp.KeyEvent("grace@example.com"))
	browsertest.TabTo(t, ctx, "form#book button[type=submit]")
	browsertest.Press(t, ctx, "\r", true)
	summary := browsertest.Text(t, ctx, ".error-summary")
	require.Contains(t, summary, "Answer “What brings you here”")
	require.Contains(t, summary, "Choose an answer to “Seen us before”")
	browsertest.NoViolations(t, ctx, "a booking page with unanswered questions")
	browsertest.Screenshots(t, ctx, shots, "booking-questions-errors")
	browsertest.TabTo(t, ctx, "#f-intake_data-reason")
	browsertest.Do(t, ctx, chromedp.KeyEvent("A sore knee"))
	browsertest.TabTo(t, ctx, "#f-intake_data-seen")
	browsertest.Press(t, ctx, "O", false) // "Once"
	browsertest.TabTo(t, ctx, "#f-intake_data-parking")
	browsertest.Press(t, ctx, " ", false)
	browsertest.TabTo(t, ctx, "form#book button[type=submit]")
	browsertest.Press(t, ctx, "\r", true)
	require.Equal(t, "Your request is sent", browsertest.Text(t, ctx, "h1"))
	browsertest.NoViolations(t, ctx, "the request's confirmation")
	browsertest.Screenshots(t, ctx, shots, "booking-requested")
}
