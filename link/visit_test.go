package link_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
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

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/link"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// visitSite is forms, bookings and the analytics joined and linked, the
// whole mux under CarryVisitor with the analytics (as the reference
// server's), so the APIs' submissions and bookings keep their visit as
// the pages' do; served by srv, whose address is the site's.
type visitSite struct {
	env      *store.Env
	forms    *forms.Module
	bookings *bookings.Module
	reports  *reporting.Module
	srv      *httptest.Server
}

func newVisitSite(t *testing.T, d store.Dialect, pay ...bookings.Payments) *visitSite {
	t.Helper()
	ctx := context.Background()
	mux := http.NewServeMux()
	var h http.Handler = mux
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	base, err := url.Parse(srv.URL)
	require.NoError(t, err)
	env, err := store.OpenEnv(ctx, storetest.DSN(t, d), &store.EnvOptions{Secret: []byte("0123456789abcdef0123456789abcdef"),
		BaseURL: base, Logger: slog.New(slog.DiscardHandler), Queue: &store.QueueOptions{TestOnly: true}})
	require.NoError(t, err)
	t.Cleanup(func() { env.Close() })
	open := func(next http.Handler) http.Handler { return next }
	tokens := testkit.Tokens{"admin": {"*"}}
	f, err := formssql.Join(env, &forms.ModuleOptions{Service: forms.Options{FormTokenOptional: true}, Summary: &forms.SummaryPageOptions{},
		SummaryGuard: open, API: forms.HandlerOptions{Tokens: tokens}})
	require.NoError(t, err)
	var payments bookings.Payments
	if len(pay) > 0 {
		payments = pay[0]
	}
	b, err := bookingssql.Join(env, &bookings.ModuleOptions{Service: bookings.Options{Payments: payments}, Pages: bookings.PageOptions{PostLimit: -1}, Tokens: tokens,
		List: &bookings.ListPageOptions{Viewer: func(*http.Request) (bool, int64, bool) { return true, 0, true }}, ListGuard: open})
	require.NoError(t, err)
	r, err := reportingsql.Join(env, &reporting.ModuleOptions{Collect: reporting.CollectOptions{
		Country: func(r *http.Request) string { return r.Header.Get("X-Country") }}})
	require.NoError(t, err)
	require.NoError(t, link.Join(env, link.Modules{Forms: f, Bookings: b, Reporting: r}))
	require.NoError(t, env.Migrate(ctx))
	f.Mount(mux)
	b.Mount(mux)
	r.Mount(mux)
	h = reporting.CarryVisitor(mux, reporting.VisitorOptions{BaseURL: base, Analytics: r.Analytics})
	return &visitSite{env: env, forms: f, bookings: b, reports: r, srv: srv}
}

// do sends a request as the browser with user agent ua.
func (s *visitSite) do(t *testing.T, ua, method, path, contentType string, body io.Reader) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.srv.URL+path, body)
	require.NoError(t, err)
	req.Header.Set("User-Agent", ua)
	req.Header.Set("X-Country", "DE")
	req.Header.Set("Authorization", "Bearer admin")
	if method == "POST" {
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Origin", s.srv.URL)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(out)
}

// Every submission and booking keeps where its visit came from: a
// visitor who landed on /pricing from the November newsletter sends the
// contact form from its page and books a call through the API; each
// keeps source, medium, campaign, landing page and country, read from
// the analytics (the first while the landing view still waits to be
// written, the second once it is). The inbox and the bookings list show
// it, the admin APIs answer it, the CSV export carries it; a visitor the
// analytics never saw keeps none.
func TestEachSubmissionAndBookingKeepsItsVisit(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		s := newVisitSite(t, d)
		const ann = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
		const bob = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15"

		fs := s.forms.Service
		form := &forms.Form{Name: "Contact", IsActive: true}
		require.NoError(t, fs.CreateForm(ctx, form))
		require.NoError(t, fs.CreateField(ctx, &forms.Field{FormID: form.ID, Type: forms.TypeText, Name: "name", Label: "Name", IsRequired: true}))
		_, err := s.bookings.Service.CreateService(ctx, bookings.OfferingInput{Name: ptr("Call"), Slug: ptr("call"), Duration: ptr(30), TimeZone: ptr("UTC")})
		require.NoError(t, err)
		openProvider(t, s.bookings.Service, "call", "sam", "Sam")

		// Ann lands from the newsletter; her view waits in the writer.
		landing := s.srv.URL + "/pricing?utm_source=Newsletter&utm_medium=email&utm_campaign=november"
		view, err := json.Marshal(map[string]string{"url": landing, "referrer": "https://mail.example/inbox"})
		require.NoError(t, err)
		code, _ := s.do(t, ann, "POST", "/analytics/collect", "application/json", strings.NewReader(string(view)))
		require.Equal(t, http.StatusAccepted, code)
		code, _ = s.do(t, ann, "GET", "/forms/"+form.Slug, "", nil)
		require.Equal(t, 200, code)
		code, _ = s.do(t, ann, "POST", "/forms/"+form.Slug, "application/x-www-form-urlencoded", strings.NewReader(url.Values{"name": {"Ann"}}.Encode()))
		require.Equal(t, http.StatusSeeOther, code)
		want := &groundwork.Visit{Source: "newsletter", Medium: "email", Campaign: "november", Landing: "/pricing", Country: "DE"}
		subs, _, err := fs.ListSubmissions(ctx, forms.SubmissionQuery{FormID: form.ID, Limit: 10})
		require.NoError(t, err)
		require.Len(t, subs, 1)
		require.Equal(t, want, subs[0].Visit, "read from the views not yet written")

		// Written now; Ann books through the API, Bob (never seen) too.
		require.NoError(t, s.reports.Analytics.Flush(ctx))
		start := time.Now().UTC().Truncate(time.Hour).Add(48 * time.Hour)
		book := func(ua, name string, at time.Time) bookings.Booking {
			body, err := json.Marshal(map[string]any{"start_time": at.Format(time.RFC3339), "service": "call", "customer_name": name,
				"customer_email": strings.ToLower(name) + "@example.com"})
			require.NoError(t, err)
			code, answer := s.do(t, ua, "POST", "/api/bookings", "application/json", strings.NewReader(string(body)))
			require.Equal(t, http.StatusCreated, code, answer)
			var out struct {
				Data struct {
					ID int64 `json:"id"`
				} `json:"data"`
			}
			require.NoError(t, json.Unmarshal([]byte(answer), &out))
			b, err := s.bookings.Service.Booking(ctx, out.Data.ID)
			require.NoError(t, err)
			return b
		}
		anns := book(ann, "Ann", start)
		require.Equal(t, want, anns.Visit, "read from the views written")
		bobs := book(bob, "Bob", start.Add(time.Hour))
		require.Nil(t, bobs.Visit)

		// The admin API answers it.
		code, answer := s.do(t, ann, "GET", "/api/bookings/admin/bookings/"+strconv.FormatInt(anns.ID, 10), "", nil)
		require.Equal(t, 200, code, answer)
		require.Contains(t, answer, `"visit":{"source":"newsletter","medium":"email","campaign":"november","landing":"/pricing","country":"DE"}`)
		code, answer = s.do(t, ann, "GET", "/api/v1/forms/"+form.Slug+"/submissions/"+strconv.FormatInt(subs[0].ID, 10), "", nil)
		require.Equal(t, 200, code, answer)
		require.Contains(t, answer, `"visit":{"source":"newsletter","medium":"email","campaign":"november","landing":"/pricing","country":"DE"}`)

		// The owner's pages show it.
		code, page := s.do(t, ann, "GET", forms.SummaryPathDefault+"/"+form.Slug+"/submissions/", "", nil)
		require.Equal(t, 200, code)
		require.Contains(t, page, "via newsletter, campaign november")
		code, page = s.do(t, ann, "GET", forms.SummaryPathDefault+"/"+form.Slug+"/submissions/"+strconv.FormatInt(subs[0].ID, 10), "", nil)
		require.Equal(t, 200, code)
		require.Contains(t, page, "<h2>Where it came from</h2>")
		require.Contains(t, page, "<dt>Landing page</dt><dd>/pricing</dd>")
		code, page = s.do(t, ann, "GET", "/bookings-list/?tz=UTC", "", nil)
		require.Equal(t, 200, code)
		require.Equal(t, 1, strings.Count(page, "via newsletter, campaign november"), "Ann's booking, not Bob's")
		code, page = s.do(t, ann, "GET", "/bookings-list/"+strconv.FormatInt(anns.ID, 10), "", nil)
		require.Equal(t, 200, code)
		require.Contains(t, page, "<dt>Campaign</dt><dd>november</dd>")
		require.Contains(t, page, "<dt>Country</dt><dd>DE</dd>")

		// The exports carry it: the bookings' (Ann's and Bob's, each
		// with hers or none), the answers'.
		code, export := s.do(t, ann, "GET", "/bookings-list/export.csv?view=upcoming", "", nil)
		require.Equal(t, 200, code, export)
		rows, err := csv.NewReader(strings.NewReader(export)).ReadAll()
		require.NoError(t, err)
		require.Len(t, rows, 3)
		require.Equal(t, []string{"Booking Number", "Service", "Provider", "Start (UTC)", "End (UTC)", "Status", "Customer Name", "Customer Email",
			"Customer Phone", "Booked At (UTC)", "Source", "Medium", "Campaign", "Landing Page", "Country"}, rows[0])
		require.Equal(t, []string{anns.Number, "Call", "Sam", anns.Start.UTC().Format(time.DateTime), anns.End.UTC().Format(time.DateTime),
			"confirmed", "Ann", "ann@example.com", "", anns.CreatedAt.UTC().Format(time.DateTime), "newsletter", "email", "november", "/pricing", "DE"}, rows[1])
		require.Equal(t, []string{"", "", "", "", ""}, rows[2][10:], "Bob came from nowhere the analytics saw")

		code, export = s.do(t, ann, "GET", forms.SummaryPathDefault+"/"+form.Slug+"/submissions/export.csv", "", nil)
		require.Equal(t, 200, code)
		rows, err = csv.NewReader(strings.NewReader(export)).ReadAll()
		require.NoError(t, err)
		require.Len(t, rows, 2)
		header, row := rows[0], rows[1]
		require.Equal(t, []string{"Source", "Medium", "Campaign", "Landing Page", "Country"}, header[len(header)-5:])
		require.Equal(t, []string{"newsletter", "email", "november", "/pricing", "DE"}, row[len(row)-5:])
	})
}
