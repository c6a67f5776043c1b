package link_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/link"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

// routingSite is forms, bookings and webhooks joined and linked on one
// database, its clock two hours behind, so that a routed submission's
// wait is over at once; served by srv, whose address is the site's.
type routingSite struct {
	env      *store.Env
	forms    *forms.Module
	bookings *bookings.Module
	srv      *httptest.Server
}

func newRoutingSite(t *testing.T, d store.Dialect) *routingSite {
	t.Helper()
	ctx := context.Background()
	// The server first, so the site's public address is its own.
	mux := http.NewServeMux()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { mux.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	base, err := url.Parse(srv.URL)
	require.NoError(t, err)
	env, err := store.OpenEnv(ctx, storetest.DSN(t, d), &store.EnvOptions{Secret: []byte("0123456789abcdef0123456789abcdef"),
		BaseURL: base, Logger: slog.New(slog.DiscardHandler),
		Now: func() time.Time { return time.Now().Add(-2 * time.Hour) }, Queue: &store.QueueOptions{TestOnly: true}})
	require.NoError(t, err)
	t.Cleanup(func() { env.Close() })
	open := func(next http.Handler) http.Handler { return next }
	f, err := formssql.Join(env, &forms.ModuleOptions{Service: forms.Options{FormTokenOptional: true}, Summary: &forms.SummaryPageOptions{},
		SummaryGuard: open})
	require.NoError(t, err)
	b, err := bookingssql.Join(env, &bookings.ModuleOptions{Pages: bookings.PageOptions{PostLimit: -1},
		List: &bookings.ListPageOptions{Viewer: func(*http.Request) (bool, int64, bool) { return true, 0, true }}, ListGuard: open})
	require.NoError(t, err)
	w, err := webhookssql.Join(env, &webhooks.ModuleOptions{Service: webhooks.Options{AllowInsecureURLs: true, AllowPrivateHosts: true}})
	require.NoError(t, err)
	require.NoError(t, link.Join(env, link.Modules{Forms: f, Bookings: b, Webhooks: w}))
	require.NoError(t, env.Migrate(ctx))
	_, err = w.Service.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: ptr("all"), URL: ptr("http://127.0.0.1:9/hook"), Events: []string{"*"}})
	require.NoError(t, err)
	f.Mount(mux)
	b.Mount(mux)
	return &routingSite{env: env, forms: f, bookings: b, srv: srv}
}

// provider makes a provider of the service, free around the clock.
func (s *routingSite) provider(t *testing.T, service, slug, name string) bookings.Provider {
	t.Helper()
	return openProvider(t, s.bookings.Service, service, slug, name)
}

func (s *routingSite) do(t *testing.T, method, path string, form url.Values) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, s.srv.URL+path, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	if method == "POST" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", s.srv.URL)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(body), res.Header
}

// A routing form sends each respondent on to book: "company size over
// 50" to the enterprise demo with the sales team, anyone else to the
// intro call. The answer is the booking page's address, prefilled and
// signed; the booking made from it names the submission and the
// submission the booking (in the booking's transaction), each linking to
// the other's page; a tampered address prefills nothing; a submission
// routed and not booked in time is a form.routed_not_booked webhook.
func TestRoutingFormsSendOnToBook(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		s := newRoutingSite(t, d)
		bk := s.bookings.Service
		for _, slug := range []string{"enterprise", "intro"} {
			_, err := bk.CreateService(ctx, bookings.OfferingInput{Name: ptr("Demo " + slug), Slug: ptr(slug), Duration: ptr(30), TimeZone: ptr("UTC")})
			require.NoError(t, err)
		}
		sales := s.provider(t, "enterprise", "sales", "Sales Team")
		s.provider(t, "enterprise", "support", "Support Team")
		s.provider(t, "intro", "ida", "Ida")

		fs := s.forms.Service
		form := &forms.Form{Name: "Book a demo", IsActive: true, FormSettings: forms.FormSettings{Routing: &forms.Routing{Routes: []forms.Route{
			{When: &forms.Logic{Logic: "all", Rules: []forms.Rule{{Field: "company_size", Operator: "greater_than", Value: 50}}},
				Service: "enterprise", Providers: []string{"sales"}},
			{Service: "intro"}}}}}
		require.NoError(t, fs.CreateForm(ctx, form))
		for _, f := range []forms.Field{{Type: forms.TypeText, Name: "name", Label: "Name"}, {Type: forms.TypeEmail, Name: "email", Label: "Email"},
			{Type: forms.TypeNumber, Name: "company_size", Label: "Company size"}} {
			f.FormID, f.IsRequired = form.ID, true
			require.NoError(t, fs.CreateField(ctx, &f))
		}
		fields, err := fs.Fields(ctx, form.ID)
		require.NoError(t, err)
		submit := func(name, email, size string) *forms.SubmitResult {
			res, err := fs.Submit(ctx, form, fields, &forms.SubmitRequest{Values: map[string][]string{"name": {name}, "email": {email},
				"company_size": {size}}})
			require.NoError(t, err)
			return res
		}

		ann := submit("Ann Lee", "ann@example.com", "120")
		require.Equal(t, &forms.Routed{Service: "enterprise", Providers: []string{"sales"}, At: ann.Submission.Routed.At}, ann.Submission.Routed)
		u, err := url.Parse(ann.BookingURL)
		require.NoError(t, err)
		require.Equal(t, s.srv.URL+"/bookings/enterprise", u.Scheme+"://"+u.Host+u.Path)
		day := time.Now().UTC().Add(72 * time.Hour).Format(time.DateOnly)
		code, page, _ := s.do(t, "GET", u.Path+"?"+u.RawQuery+"&tz=UTC&date="+day, nil)
		require.Equal(t, 200, code)
		require.Contains(t, page, `value="Ann Lee"`)
		require.Contains(t, page, `value="ann@example.com"`)
		require.Contains(t, page, ann.Submission.Number(), "the page says which request it books")
		require.Contains(t, page, "<dd>Sales Team</dd>", "the route's providers alone")

		// A tampered address is the page without the answers.
		code, plain, _ := s.do(t, "GET", u.Path+"?"+strings.Replace(u.RawQuery, "prefill=e", "prefill=f", 1)+"&tz=UTC&date="+day, nil)
		require.Equal(t, 200, code)
		require.NotContains(t, plain, `value="Ann Lee"`)

		// Booked from the page: the booking and the submission name each
		// other.
		slots, err := bk.Slots(ctx, mustService(t, bk, "enterprise"), bookings.SlotQuery{From: time.Now().Add(72 * time.Hour), To: time.Now().Add(96 * time.Hour)})
		require.NoError(t, err)
		code, _, header := s.do(t, "POST", u.Path+"?tz=UTC&date="+day, url.Values{"start_time": {slots[0].Start.UTC().Format(time.RFC3339)},
			"customer_name": {"Ann Lee"}, "customer_email": {"ann@example.com"}, "prefill": {u.Query().Get("prefill")}})
		require.Equal(t, http.StatusSeeOther, code)
		require.Contains(t, header.Get("Location"), "/bookings/manage/")
		list, _, err := bk.ListBookings(ctx, bookings.BookingFilter{})
		require.NoError(t, err)
		require.Len(t, list, 1)
		booking := list[0]
		require.Equal(t, sales.ID, *booking.ProviderID, "the route's provider")
		require.Equal(t, &bookings.FromForm{Form: form.Slug, FormID: form.ID, SubmissionID: ann.Submission.ID, Number: ann.Submission.Number(),
			URL: forms.SummaryPathDefault + "/" + form.Slug + "/submissions/" + strconv.FormatInt(ann.Submission.ID, 10)}, booking.FromForm)
		sub, err := fs.Submission(ctx, form.ID, ann.Submission.ID)
		require.NoError(t, err)
		require.Equal(t, booking.ID, *sub.Routed.BookingID)
		require.Equal(t, booking.Number, sub.Routed.BookingNumber)
		require.Equal(t, "/bookings-list/"+strconv.FormatInt(booking.ID, 10), sub.Routed.BookingURL)
		code, owner, _ := s.do(t, "GET", sub.Routed.BookingURL, nil)
		require.Equal(t, 200, code)
		require.Contains(t, owner, `<a href="`+booking.FromForm.URL+`">`+ann.Submission.Number()+`</a>`)
		code, inbox, _ := s.do(t, "GET", booking.FromForm.URL, nil)
		require.Equal(t, 200, code)
		require.Contains(t, inbox, `<a href="`+sub.Routed.BookingURL+`">`+booking.Number+`</a>`)

		// Bob's company is small: the intro call, which he never books.
		bob := submit("Bob Ray", "bob@example.com", "10")
		require.Equal(t, "intro", bob.Submission.Routed.Service)
		require.Contains(t, bob.BookingURL, "/bookings/intro?prefill=")
		require.NoError(t, s.env.Start(ctx))
		t.Cleanup(func() { _ = s.env.Stop(context.Background()) })
		require.Eventually(t, func() bool {
			var n int
			require.NoError(t, s.env.DB.Get(&n, `SELECT COUNT(*) FROM webhooks_deliveries WHERE event = 'form.routed_not_booked'`))
			return n == 1
		}, 20*time.Second, 20*time.Millisecond)
		bobs, err := fs.Submission(ctx, form.ID, bob.Submission.ID)
		require.NoError(t, err)
		require.NotNil(t, bobs.Routed.NotBookedAt)
		var payload string
		require.NoError(t, s.env.DB.Get(&payload, `SELECT payload FROM webhooks_deliveries WHERE event = 'form.routed_not_booked'`))
		require.Contains(t, payload, `"submission_id":`+strconv.FormatInt(bob.Submission.ID, 10))
		require.Contains(t, payload, `"service":"intro"`)
		anns, err := fs.Submission(ctx, form.ID, ann.Submission.ID)
		require.NoError(t, err)
		require.Nil(t, anns.Routed.NotBookedAt, "booked")
	})
}

func mustService(t *testing.T, b *bookings.Service, slug string) bookings.Offering {
	t.Helper()
	svc, err := b.ActiveService(context.Background(), slug)
	require.NoError(t, err)
	return svc
}
