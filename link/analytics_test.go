package link_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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
	"github.com/groundwork-go/groundwork/tenant"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

// A submission and a booking count as events on the server, in the
// session of the visitor whose request made them (their page view and
// the event are one visit, no bounce), or as a visitor of their own when
// the request carries none; a goal on the event converts them.
func TestAnalyticsLinks(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		f, b, a := formsAndBookingsCounted(t, d)
		var err error
		require.Error(t, link.FormsToAnalytics(nil, a, ""))
		require.Error(t, link.BookingsToAnalytics(b, nil, ""))
		_, err = a.AddGoal(ctx, reporting.Goal{Event: link.EventFormSubmitted, Property: "form", Value: "contact"})
		require.NoError(t, err)
		_, err = a.AddGoal(ctx, reporting.Goal{Event: link.EventBookingCreated})
		require.NoError(t, err)

		form := &forms.Form{Name: "Contact", IsActive: true}
		require.NoError(t, f.CreateForm(ctx, form))
		field := &forms.Field{FormID: form.ID, Type: forms.TypeText, Label: "Name"}
		require.NoError(t, f.CreateField(ctx, field))
		fields, err := f.Fields(ctx, form.ID)
		require.NoError(t, err)

		// A visitor sees the form page, then sends it: the submit runs
		// under CarryVisitor, as a host's handler does.
		const ua = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
		require.NoError(t, a.Collect(ctx, reporting.View{URL: "https://shop.example/contact", IP: "192.0.2.1", UserAgent: ua}))
		submit := reporting.CarryVisitor(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, err := f.Submit(r.Context(), form, fields, &forms.SubmitRequest{Values: map[string][]string{field.Name: {"Ann"}}, LoadedAt: "1"})
			require.NoError(t, err)
		}), reporting.VisitorOptions{})
		req := httptest.NewRequest("POST", "https://shop.example/forms/contact", nil)
		req.RemoteAddr = "192.0.2.1:5000"
		req.Header.Set("User-Agent", ua)
		submit.ServeHTTP(httptest.NewRecorder(), req)
		// A submission with no visitor (an import, a job): its own visitor.
		_, err = f.Submit(ctx, form, fields, &forms.SubmitRequest{Values: map[string][]string{field.Name: {"Bo"}}, LoadedAt: "1"})
		require.NoError(t, err)

		openService(t, ctx, b, "Call", "call", "sam")
		booked := reporting.WithVisitor(ctx, reporting.Visitor{IP: "192.0.2.1", UserAgent: ua, Page: "https://shop.example/book/call"})
		_, _, err = b.Create(booked, bookings.NewBooking{ServiceSlug: "call", Start: time.Now().UTC().Truncate(time.Hour).Add(48 * time.Hour),
			CustomerName: "Ann", CustomerEmail: "ann@example.com"})
		require.NoError(t, err)

		require.NoError(t, a.Flush(ctx))
		q := reporting.AnalyticsQuery{Days: 1}
		props, err := a.EventProperties(ctx, reporting.AnalyticsQuery{Days: 1, Event: link.EventFormSubmitted})
		require.NoError(t, err)
		require.Equal(t, []reporting.PropertyValue{{Property: "form", Value: "contact", Count: 2, Users: 2}}, props.Properties)
		props, err = a.EventProperties(ctx, reporting.AnalyticsQuery{Days: 1, Event: link.EventBookingCreated})
		require.NoError(t, err)
		require.ElementsMatch(t, []reporting.PropertyValue{{Property: "service", Value: "call", Count: 1, Users: 1},
			{Property: "status", Value: string(bookings.StatusConfirmed), Count: 1, Users: 1}}, props.Properties)
		ov, err := a.Overview(ctx, q)
		require.NoError(t, err)
		require.Equal(t, 1.0, ov.Totals.Sessions, "one visit: the page view, then the submission and the booking in it")
		require.NotNil(t, ov.Totals.BounceRate)
		require.Zero(t, *ov.Totals.BounceRate, "the submission in the session makes it no bounce")
		conv, err := a.GoalConversions(ctx, q)
		require.NoError(t, err)
		require.Equal(t, reporting.GoalFigures{Visitors: 2, Conversions: 2, Rate: 1}, conv.Goals[0].Period,
			"two submissions by two visitors (one of them the server's own), over one page-viewing visitor: capped at 1")
		require.Equal(t, 1.0, conv.Goals[1].Period.Conversions)
	})
}

// formsAndBookingsCounted are forms, bookings and the analytics on one
// fresh database, their submissions and bookings counted as events of
// the site https://shop.example.
func formsAndBookingsCounted(t *testing.T, d store.Dialect) (*forms.Service, *bookings.Service, *reporting.Analytics) {
	t.Helper()
	db := storetest.Open(t, d, formssql.Migrations, bookingssql.Migrations, reportingsql.Migrations)
	f, err := forms.NewService(formssql.New(db), &forms.Options{FormTokenOptional: true})
	require.NoError(t, err)
	b, err := bookings.NewService(bookingssql.New(db), nil)
	require.NoError(t, err)
	a, err := reporting.NewAnalytics(reportingsql.New(db), nil)
	require.NoError(t, err)
	require.NoError(t, link.FormsToAnalytics(f, a, "https://shop.example"))
	require.NoError(t, link.BookingsToAnalytics(b, a, "https://shop.example"))
	return f, b, a
}

// openService makes a service of half an hour, as ctx's tenant's, with a
// provider (slug provider) open all day every day.
func openService(t *testing.T, ctx context.Context, b *bookings.Service, name, slug, provider string) {
	t.Helper()
	minutes, zone := 30, "UTC"
	svc, err := b.CreateService(ctx, bookings.OfferingInput{Name: &name, Slug: &slug, Duration: &minutes, TimeZone: &zone})
	require.NoError(t, err)
	p, err := b.CreateProvider(ctx, bookings.ProviderInput{Name: &provider, Slug: &provider, TimeZone: &zone})
	require.NoError(t, err)
	require.NoError(t, b.Link(ctx, svc.Slug, p.ID, bookings.LinkInput{}))
	start, end := "00:00", "24:00"
	for day := range 7 {
		_, err := b.AddHours(ctx, p.ID, bookings.HoursInput{DayOfWeek: &day, Start: &start, End: &end})
		require.NoError(t, err)
	}
}

// The events the server counts are their owner's: a tenant's form's
// submission counts for that tenant's site, a booking of a tenant's
// service for its, whatever tenant the request that made them acted for
// (a signed-in visitor's own); the site "" and the visitor's hold none.
func TestServerEventsCountForTheirTenant(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		acme, globex, visitor := tenant.With(ctx, "org:1"), tenant.With(ctx, "org:2"), tenant.With(ctx, "org:9")
		f, b, a := formsAndBookingsCounted(t, d)

		form := &forms.Form{Name: "Acme contact", IsActive: true}
		require.NoError(t, f.CreateForm(acme, form))
		field := &forms.Field{FormID: form.ID, Type: forms.TypeText, Label: "Name"}
		require.NoError(t, f.CreateField(acme, field))
		fields, err := f.Fields(acme, form.ID)
		require.NoError(t, err)
		_, err = f.Submit(visitor, form, fields, &forms.SubmitRequest{Values: map[string][]string{field.Name: {"Ann"}}, LoadedAt: "1"})
		require.NoError(t, err)

		openService(t, globex, b, "Globex call", "globex-call", "gus")
		_, _, err = b.Create(tenant.All(visitor), bookings.NewBooking{ServiceSlug: "globex-call", Start: time.Now().UTC().Truncate(time.Hour).Add(48 * time.Hour),
			CustomerName: "Gina", CustomerEmail: "gina@example.com"})
		require.NoError(t, err)
		require.NoError(t, a.Flush(ctx))

		events := func(ctx context.Context) map[string]int64 {
			rows, err := a.Store().Daily(ctx, reporting.DimEvent, time.Now().UTC().Format(time.DateOnly), time.Now().UTC().Format(time.DateOnly), 0)
			require.NoError(t, err)
			out := map[string]int64{}
			for _, r := range rows {
				out[r.Key] = r.Views
			}
			return out
		}
		require.Equal(t, map[string]int64{link.EventFormSubmitted: 1}, events(acme))
		require.Equal(t, map[string]int64{link.EventBookingCreated: 1}, events(globex))
		require.Empty(t, events(tenant.With(ctx, "")), "the site \"\" has none")
		require.Empty(t, events(visitor), "nor the visitor's own organization")
	})
}

// A form's summary counts the views of its page that the analytics
// counted, on the days asked, and no other page's.
func TestAnalyticsToForms(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d, formssql.Migrations, reportingsql.Migrations)
		now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
		clock := func() time.Time { return now }
		f, err := forms.NewService(formssql.New(db), &forms.Options{FormTokenOptional: true, Now: clock})
		require.NoError(t, err)
		a, err := reporting.NewAnalytics(reportingsql.New(db), &reporting.AnalyticsOptions{Now: clock})
		require.NoError(t, err)
		require.Error(t, link.AnalyticsToForms(nil, a, forms.PagePrefixDefault))
		require.NoError(t, link.AnalyticsToForms(f, a, forms.PagePrefixDefault))
		form := &forms.Form{Name: "Survey", IsActive: true}
		require.NoError(t, f.CreateForm(ctx, form))

		const ua = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
		for i, path := range []string{"/forms/survey", "/forms/survey", "/forms/survey?lang=fr", "/forms/other", "/"} {
			require.NoError(t, a.Collect(ctx, reporting.View{URL: "https://shop.example" + path, IP: "192.0.2." + string(rune('1'+i)), UserAgent: ua}))
		}
		require.NoError(t, a.Flush(ctx))
		day := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
		sum, err := f.Summary(ctx, form, day, day.AddDate(0, 0, 1))
		require.NoError(t, err)
		require.NotNil(t, sum.Funnel.Views)
		require.EqualValues(t, 3, *sum.Funnel.Views, "the form's page, its query left out")
		sum, err = f.Summary(ctx, form, day.AddDate(0, 0, 1), day.AddDate(0, 0, 2))
		require.NoError(t, err)
		require.EqualValues(t, 0, *sum.Funnel.Views, "another day")
	})
}

// Join makes each goal a visitor reaches a signed analytics.goal_reached,
// once a visitor a day a goal, for the goal's owner, recorded in the
// transaction that counts it: three visitors, two of them reaching the
// pricing goal (one of them twice), one the signup goal of another owner;
// the catalogue describes the event.
func TestGoalsReachedBecomeWebhooks(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		var log testkit.Buffer
		env := newEnv(t, d, &log)
		r, err := reportingsql.Join(env, nil)
		require.NoError(t, err)
		w, err := webhookssql.Join(env, &webhooks.ModuleOptions{Service: webhooks.Options{AllowInsecureURLs: true, AllowPrivateHosts: true}})
		require.NoError(t, err)
		require.NoError(t, link.Join(env, link.Modules{Reporting: r, Webhooks: w}))
		require.NoError(t, env.Migrate(ctx))
		require.Contains(t, w.Service.Events(), "analytics.goal_reached")
		_, err = w.Service.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: ptr("goals"), URL: ptr("http://127.0.0.1:9/goals"),
			Events: []string{"analytics.goal_reached"}})
		require.NoError(t, err)
		pricing, err := r.Analytics.AddGoal(ctx, reporting.Goal{Page: "/pricing"})
		require.NoError(t, err)
		signup, err := r.Analytics.AddGoal(ctx, reporting.Goal{Event: "signup", Owner: "acct_7"})
		require.NoError(t, err)
		require.Equal(t, "acct_7", signup.Owner)
		_, err = r.Analytics.AddGoal(ctx, reporting.Goal{Event: "x", Owner: "*"})
		require.ErrorIs(t, err, reporting.ErrBadGoal, "no owner's name")
		// The signup goal's owner has a subscription of their own.
		_, err = w.Service.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: ptr("acct_7's"), URL: ptr("http://127.0.0.1:9/acct7"),
			Events: []string{"analytics.goal_reached"}, Owner: ptr("acct_7")})
		require.NoError(t, err)

		const ua = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
		view := func(ip, url string) {
			t.Helper()
			require.NoError(t, r.Analytics.Collect(ctx, reporting.View{URL: url, IP: ip, UserAgent: ua,
				Referrer: "https://news.example/"}))
		}
		view("192.0.2.1", "https://shop.example/pricing?utm_medium=email&utm_campaign=november")
		view("192.0.2.1", "https://shop.example/pricing")
		view("192.0.2.2", "https://shop.example/pricing")
		view("192.0.2.3", "https://shop.example/")
		require.NoError(t, r.Analytics.Collect(ctx, reporting.View{URL: "https://shop.example/", IP: "192.0.2.3", UserAgent: ua, Name: "signup"}))
		require.NoError(t, r.Analytics.Flush(ctx))
		view("192.0.2.2", "https://shop.example/pricing") // again, a later batch
		require.NoError(t, r.Analytics.Flush(ctx))

		var owners []string
		require.NoError(t, env.DB.Select(&owners, `SELECT s.owner FROM webhooks_deliveries d JOIN webhooks_subscriptions s ON s.id = d.subscription_id
			WHERE d.event = 'analytics.goal_reached' ORDER BY d.id`))
		require.ElementsMatch(t, []string{"", "", "acct_7"}, owners, "pricing's twice to the default owner, the signup once to its owner")
		var payloads []string
		require.NoError(t, env.DB.Select(&payloads, `SELECT payload FROM webhooks_deliveries WHERE event = 'analytics.goal_reached' ORDER BY id`))
		require.Len(t, payloads, 3, "two visitors reached pricing, one signed up; each once")
		// The writers share a batch by visitor, so the order of the
		// deliveries is theirs: the campaign's visitor is found by it.
		var fromMail []string
		for _, p := range payloads {
			var got struct {
				Data struct {
					Goal struct {
						ID   int64  `json:"id"`
						Name string `json:"name"`
					} `json:"goal"`
					Page, Source, Medium, Campaign string
				} `json:"data"`
			}
			require.NoError(t, json.Unmarshal([]byte(p), &got))
			require.NotContains(t, p, "192.0.2.", "no visitor")
			if got.Data.Medium == "email" {
				fromMail = append(fromMail, got.Data.Page)
				require.Equal(t, pricing.ID, got.Data.Goal.ID)
				require.Equal(t, "november", got.Data.Campaign)
			}
		}
		require.Equal(t, []string{"/pricing"}, fromMail)
	})
}
