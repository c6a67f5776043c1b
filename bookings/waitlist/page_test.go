package waitlist_test

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
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// serve mounts the site's bookings and waitlist modules on a test server.
func (s *site) serve(t testing.TB) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	s.bookingsModule.Mount(mux)
	s.module.Mount(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func get(t testing.TB, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(body)
}

// The pages' answers without a browser: a day's full times, an address
// that names no offer or service, a day with none full.
func TestWaitlistPageAnswers(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		c := &clock{at: time.Now().UTC()}
		s := newSite(t, storetest.DSN(t, d), c)
		s.service(t, "yoga", 1)
		at := c.now().Truncate(24 * time.Hour).Add(72*time.Hour + 10*time.Hour)
		s.book(t, "yoga", "Ann", at)
		srv := s.serve(t)
		date := at.Format(time.DateOnly)
		status, body := get(t, srv.URL+"/bookings/yoga?tz=UTC&date="+date)
		require.Equal(t, 200, status)
		require.Contains(t, body, `href="/waitlist/yoga?date=`+date+`&amp;tz=UTC">Join its waitlist</a>`)
		status, body = get(t, srv.URL+"/waitlist/yoga?tz=UTC&date="+date)
		require.Equal(t, 200, status)
		require.Contains(t, body, `value="`+at.Format(time.RFC3339)+`"`)
		require.Contains(t, body, ">10:00<")
		status, body = get(t, srv.URL+"/waitlist/yoga?tz=UTC&date="+at.Add(24*time.Hour).Format(time.DateOnly))
		require.Equal(t, 200, status)
		require.Contains(t, body, "No time is full on")
		status, body = get(t, srv.URL+"/bookings/yoga?tz=UTC&date="+at.Add(24*time.Hour).Format(time.DateOnly))
		require.Equal(t, 200, status)
		require.NotContains(t, body, "Join its waitlist", "a day with no full time links to none")
		status, _ = get(t, srv.URL+"/waitlist/pilates")
		require.Equal(t, 404, status)
		status, _ = get(t, srv.URL+"/waitlist/offer/"+strings.Repeat("a", 64))
		require.Equal(t, 404, status)
		status, _ = get(t, srv.URL+"/waitlist/offer/short")
		require.Equal(t, 404, status)

		// An offer taken: the first post books it, a second (a double
		// click) says it is booked.
		s.join(t, "yoga", "Bob", at)
		list, _, err := s.bookings.ListBookings(context.Background(), bookings.BookingFilter{})
		require.NoError(t, err)
		_, err = s.bookings.Cancel(context.Background(), list[0].ID, bookings.ActorCustomer, "")
		require.NoError(t, err)
		require.NoError(t, s.env.Start(context.Background()))
		t.Cleanup(func() { _ = s.env.Stop(context.Background()) })
		token, _ := s.offerMailedTo(t, "bob@example.com")
		take := func() (int, string) {
			req, err := http.NewRequest("POST", srv.URL+"/waitlist/offer/"+token, nil)
			require.NoError(t, err)
			req.Header.Set("Origin", srv.URL)
			client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			res, err := client.Do(req)
			require.NoError(t, err)
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			return res.StatusCode, res.Header.Get("Location") + string(body)
		}
		status, body = take()
		require.Equal(t, http.StatusSeeOther, status)
		require.Contains(t, body, "/bookings/manage/")
		status, body = take()
		require.Equal(t, 200, status)
		require.Contains(t, body, "You have booked this time")
	})
}

// A customer finds their time taken, joins its waitlist from the booking
// page, and is offered the time when it frees: the offer's page books it,
// by keyboard; a lapsed offer says where the time went. Every state with
// axe.
func TestBrowserWaitlist(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second)
	c := &clock{at: time.Now().UTC()}
	s := newSite(t, storetest.DSN(t, store.SQLite), c)
	s.service(t, "yoga", 1)
	at := c.now().Truncate(24 * time.Hour).Add(72*time.Hour + 10*time.Hour)
	ann := s.book(t, "yoga", "Ann", at)
	srv := s.serve(t)
	run := func(actions ...chromedp.Action[chromedp.Void]) { t.Helper(); browsertest.Do(t, ctx, actions...) }
	text := func(sel string) string { t.Helper(); return browsertest.Text(t, ctx, sel) }
	shots := os.Getenv(browsertest.EnvScreenshots)

	run(chromedp.Navigate(srv.URL+"/bookings/yoga?tz=UTC&date="+at.Format(time.DateOnly)), chromedp.WaitVisible(chromedp.CSS(".waitlist")))
	require.Contains(t, text(".waitlist"), "Is the time you want taken?")
	browsertest.NoViolations(t, ctx, "a day with a full time")
	browsertest.Screenshots(t, ctx, shots, "waitlist-booking-day")
	browsertest.TabTo(t, ctx, `.waitlist a`)
	browsertest.Press(t, ctx, "\r", true)
	require.Equal(t, "Join the waitlist", text("h1"))
	require.Contains(t, text("fieldset"), "10:00")
	browsertest.NoViolations(t, ctx, "the waitlist's full times")
	browsertest.Screenshots(t, ctx, shots, "waitlist-join")

	// Every mistake at once.
	browsertest.Submit(t, ctx, `form[method=post] button[type=submit]`)
	require.Contains(t, text(".error-summary"), "Choose the time to wait for.")
	require.Contains(t, text(".error-summary"), "Enter your name.")
	browsertest.NoViolations(t, ctx, "joining with mistakes")
	browsertest.Screenshots(t, ctx, shots, "waitlist-join-errors")

	// By keyboard: the time, the name, the email, the button.
	browsertest.TabTo(t, ctx, `#f-start_time`)
	browsertest.Press(t, ctx, " ", false)
	run(chromedp.SendKeys(chromedp.ID("f-customer_name"), "Bob Example"), chromedp.SendKeys(chromedp.ID("f-customer_email"), "bob@example.com"))
	browsertest.TabTo(t, ctx, `form[method=post] button[type=submit]`)
	browsertest.Press(t, ctx, "\r", true)
	require.Equal(t, "You are on the waitlist", text("h1"))
	require.Contains(t, text(".notice"), "we will email bob@example.com")
	browsertest.NoViolations(t, ctx, "joined")
	browsertest.Screenshots(t, ctx, shots, "waitlist-joined")

	// Ann cancels: Bob is mailed the offer.
	_, err := s.bookings.Cancel(context.Background(), ann.ID, bookings.ActorCustomer, "")
	require.NoError(t, err)
	require.NoError(t, s.env.Start(context.Background()))
	t.Cleanup(func() { _ = s.env.Stop(context.Background()) })
	token, _ := s.offerMailedTo(t, "bob@example.com")
	run(chromedp.Navigate(srv.URL+"/waitlist/offer/"+token), chromedp.WaitVisible(chromedp.CSS("h1")))
	require.Equal(t, "A place has come free", text("h1"))
	require.Contains(t, text(".details"), "Kept until")
	browsertest.NoViolations(t, ctx, "an offer")
	browsertest.Screenshots(t, ctx, shots, "waitlist-offer")
	browsertest.TabTo(t, ctx, `form[method=post] button[type=submit]`)
	browsertest.Press(t, ctx, "\r", true)
	require.Equal(t, "You are booked", text("h1"))
	run(chromedp.Navigate(srv.URL+"/waitlist/offer/"+token), chromedp.WaitVisible(chromedp.CSS("h1")))
	require.Equal(t, "You have booked this time", text("h1"))
	browsertest.NoViolations(t, ctx, "an offer taken")

	// An offer not taken in time has gone to the next in line.
	later := at.Add(2 * time.Hour)
	dan := s.book(t, "yoga", "Dan", later)
	s.join(t, "yoga", "Eve", later)
	_, err = s.bookings.Cancel(context.Background(), dan.ID, bookings.ActorCustomer, "")
	require.NoError(t, err)
	eve, _ := s.offerMailedTo(t, "eve@example.com")
	c.add(3 * time.Hour)
	_, err = s.waitlist.Sweep(context.Background(), 10)
	require.NoError(t, err)
	run(chromedp.Navigate(srv.URL+"/waitlist/offer/"+eve), chromedp.WaitVisible(chromedp.CSS("h1")))
	require.Equal(t, "This offer has gone", text("h1"))
	browsertest.NoViolations(t, ctx, "an offer lapsed")
	browsertest.Screenshots(t, ctx, shots, "waitlist-offer-gone")
}
