package link_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/emaillist"
	"github.com/groundwork-go/groundwork/emaillist/emaillistsql"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/link"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/tenant"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

// site is the four domains on one database and one (stopped) queue, so
// what each link records stays where a test can count it.
type site struct {
	db        *store.DB
	forms     *forms.Service
	bookings  *bookings.Service
	webhooks  *webhooks.Service
	emaillist *emaillist.Service
	// fail, when set, fails every change after the links have run in its
	// transaction: whatever they recorded must go with it.
	fail bool
}

func newSite(t *testing.T, d store.Dialect) *site {
	t.Helper()
	s := &site{db: storetest.Open(t, d, formssql.Migrations, bookingssql.Migrations, webhookssql.Migrations, emaillistsql.Migrations)}
	queue, err := store.NewQueue(s.db, &store.QueueOptions{TestOnly: true})
	require.NoError(t, err)
	s.webhooks, err = webhooks.NewService(webhookssql.New(s.db), &webhooks.Options{SecretKey: []byte("0123456789abcdef0123456789abcdef"),
		Enqueuer: queue, AllowInsecureURLs: true, AllowPrivateHosts: true, OmitDefaultEvents: true})
	require.NoError(t, err)
	s.forms, err = forms.NewService(formssql.New(s.db), &forms.Options{FormTokenOptional: true})
	require.NoError(t, err)
	s.bookings, err = bookings.NewService(bookingssql.New(s.db), nil)
	require.NoError(t, err)
	s.emaillist, err = emaillist.NewService(emaillistsql.New(s.db), queue, &emaillist.Options{FormExists: link.FormExists(s.forms)})
	require.NoError(t, err)

	require.NoError(t, link.FormsToWebhooks(s.forms, s.webhooks))
	require.NoError(t, link.FormsToEmaillist(s.forms, s.emaillist))
	require.NoError(t, link.BookingsToWebhooks(s.bookings, s.webhooks))
	s.forms.OnSubmissionAcceptedTx(func(context.Context, *sql.Tx, forms.SubmissionEvent) error { return s.failure() })
	s.bookings.OnEventTx(func(context.Context, *sql.Tx, bookings.Event) error { return s.failure() })

	_, err = s.webhooks.CreateSubscription(context.Background(), webhooks.SubscriptionInput{Name: ptr("all"),
		URL: ptr("http://127.0.0.1:9/hook"), Events: []string{"*"}})
	require.NoError(t, err)
	return s
}

func (s *site) failure() error {
	if s.fail {
		return errors.New("the change fails after the links")
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// openProvider makes a provider (in UTC) of service, free around the
// clock every day.
func openProvider(tb testing.TB, b *bookings.Service, service, slug, name string) bookings.Provider {
	tb.Helper()
	ctx := context.Background()
	p, err := b.CreateProvider(ctx, bookings.ProviderInput{Name: ptr(name), Slug: ptr(slug), TimeZone: ptr("UTC")})
	require.NoError(tb, err)
	require.NoError(tb, b.Link(ctx, service, p.ID, bookings.LinkInput{}))
	for day := range 7 {
		_, err := b.AddHours(ctx, p.ID, bookings.HoursInput{DayOfWeek: ptr(day), Start: ptr("00:00"), End: ptr("24:00")})
		require.NoError(tb, err)
	}
	return p
}

func (s *site) count(t *testing.T, q string) int {
	t.Helper()
	var n int
	require.NoError(t, s.db.Get(&n, q))
	return n
}

// newsletter makes a form with a required email field and an active
// email-list feed of it, and returns the form, the field and its fields.
func (s *site) newsletter(t *testing.T) (*forms.Form, *forms.Field, []forms.Field) {
	t.Helper()
	ctx := context.Background()
	form := &forms.Form{Name: "Newsletter", IsActive: true}
	require.NoError(t, s.forms.CreateForm(ctx, form))
	email := &forms.Field{FormID: form.ID, Type: forms.TypeEmail, Label: "Email", IsRequired: true}
	require.NoError(t, s.forms.CreateField(ctx, email))
	_, err := s.emaillist.CreateFeed(ctx, emaillist.Feed{FormID: form.ID, Name: "List", IsActive: true,
		FieldMap: map[string]string{"email_address": email.Name}})
	require.NoError(t, err)
	fields, err := s.forms.Fields(ctx, form.ID)
	require.NoError(t, err)
	return form, email, fields
}

// A submission's form.submitted webhook and email-list job are recorded
// in the submission's transaction: with it, or not at all.
func TestFormsLinks(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		s := newSite(t, d)
		ctx := context.Background()
		require.Contains(t, s.webhooks.Events(), forms.EventSubmitted, "linking added the event to the catalogue")
		form, email, fields := s.newsletter(t)
		_, err := s.emaillist.CreateFeed(ctx, emaillist.Feed{FormID: form.ID + 100, Name: "Elsewhere", IsActive: true,
			FieldMap: map[string]string{"email_address": "email"}})
		require.Error(t, err, "FormExists: a feed is for one of the forms")
		submit := func() error {
			_, err := s.forms.Submit(ctx, form, fields, &forms.SubmitRequest{Values: map[string][]string{email.Name: {"ann@example.test"}},
				LoadedAt: "1"})
			return err
		}

		s.fail = true
		require.Error(t, submit())
		require.Zero(t, s.count(t, `SELECT COUNT(*) FROM forms_submissions`))
		require.Zero(t, s.count(t, `SELECT COUNT(*) FROM webhooks_deliveries`), "no webhook without its submission")
		require.Zero(t, s.count(t, `SELECT COUNT(*) FROM river_job WHERE kind = 'emaillist_subscribe'`), "no job without its submission")

		s.fail = false
		require.NoError(t, submit())
		require.Equal(t, 1, s.count(t, `SELECT COUNT(*) FROM webhooks_deliveries WHERE event = 'form.submitted'`))
		var payload string
		require.NoError(t, s.db.Get(&payload, `SELECT payload FROM webhooks_deliveries`))
		require.Contains(t, payload, `"form":"newsletter"`)
		require.Contains(t, payload, `"values":{"email":"ann@example.test"}`)
		require.Equal(t, 1, s.count(t, `SELECT COUNT(*) FROM river_job WHERE kind = 'emaillist_subscribe'`))
	})
}

// Each booking change's webhook is recorded in the change's transaction;
// a reissued manage link is never a webhook.
func TestBookingsLink(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		s := newSite(t, d)
		ctx := context.Background()
		require.Subset(t, s.webhooks.Events(), link.BookingWebhooks)
		require.NotContains(t, s.webhooks.Events(), bookings.EventManageTokenReissued)
		name, slug, minutes, zone := "Call", "call", 30, "UTC"
		svc, err := s.bookings.CreateService(ctx, bookings.OfferingInput{Name: &name, Slug: &slug, Duration: &minutes, TimeZone: &zone})
		require.NoError(t, err)
		pname, pslug := "Sam", "sam"
		p, err := s.bookings.CreateProvider(ctx, bookings.ProviderInput{Name: &pname, Slug: &pslug, TimeZone: &zone})
		require.NoError(t, err)
		require.NoError(t, s.bookings.Link(ctx, svc.Slug, p.ID, bookings.LinkInput{}))
		start, end, day := "00:00", "24:00", 0
		for day = range 7 {
			_, err := s.bookings.AddHours(ctx, p.ID, bookings.HoursInput{DayOfWeek: &day, Start: &start, End: &end})
			require.NoError(t, err)
		}
		at := time.Now().UTC().Truncate(time.Hour).Add(48 * time.Hour)
		book := func() (bookings.Booking, error) {
			b, _, err := s.bookings.Create(ctx, bookings.NewBooking{ServiceSlug: "call", Start: at, CustomerName: "Grace",
				CustomerEmail: "grace@example.com"})
			return b, err
		}

		s.fail = true
		_, err = book()
		require.Error(t, err)
		require.Zero(t, s.count(t, `SELECT COUNT(*) FROM bookings_bookings`))
		require.Zero(t, s.count(t, `SELECT COUNT(*) FROM webhooks_deliveries`), "no webhook without its booking")

		s.fail = false
		b, err := book()
		require.NoError(t, err)
		_, err = s.bookings.ReissueManageToken(ctx, b.ID)
		require.NoError(t, err)
		s.fail = true
		_, err = s.bookings.Cancel(ctx, b.ID, bookings.ActorAdmin, "")
		require.Error(t, err)
		s.fail = false
		_, err = s.bookings.Cancel(ctx, b.ID, bookings.ActorAdmin, "Ill")
		require.NoError(t, err)
		var events []string
		require.NoError(t, s.db.Select(&events, `SELECT event FROM webhooks_deliveries ORDER BY id`))
		require.Equal(t, []string{bookings.EventCreated, bookings.EventCancelled}, events)
		var payload string
		require.NoError(t, s.db.Get(&payload, `SELECT payload FROM webhooks_deliveries WHERE event = 'booking.cancelled'`))
		require.Contains(t, payload, `"reason":"Ill"`)
		require.Contains(t, payload, `"customer_id":"`+bookings.CustomerID("Grace@Example.com ")+`"`)
	})
}

// A submission's links run in its transaction and take no second
// connection: with a pool of one, a submission that feeds an email list
// and a webhook goes through. (A hook that waited for a second connection
// deadlocked a pool whose connections all held submissions: found by the
// soak on Postgres.)
func TestLinksTakeNoSecondConnection(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		s := newSite(t, d)
		ctx := context.Background()
		form, email, fields := s.newsletter(t)

		s.db.SetMaxOpenConns(1)
		s.db.Reader().SetMaxOpenConns(1)
		deadline, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_, err := s.forms.Submit(deadline, form, fields, &forms.SubmitRequest{Values: map[string][]string{email.Name: {"ann@example.test"}},
			LoadedAt: "1"})
		require.NoError(t, err)
		require.Equal(t, 1, s.count(t, `SELECT COUNT(*) FROM webhooks_deliveries WHERE event = 'form.submitted'`))
		require.Equal(t, 1, s.count(t, `SELECT COUNT(*) FROM river_job WHERE kind = 'emaillist_subscribe'`))
	})
}

// A tenant is a webhook owner: a submission to a tenant's form, though
// the public request that makes it acts for no tenant, is told to that
// tenant's subscriptions alone; a form of no tenant's, to the default
// owner's.
func TestFormsWebhooksOfATenant(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		s := newSite(t, d) // its subscription is the default owner's
		acme := tenant.With(context.Background(), "acme")
		for _, ctx := range []context.Context{acme, tenant.With(context.Background(), "globex")} {
			_, err := s.webhooks.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: ptr("mine"), URL: ptr("http://127.0.0.1:9/hook"),
				Events: []string{forms.EventSubmitted}})
			require.NoError(t, err)
		}
		form := &forms.Form{Name: "Quote", IsActive: true}
		require.NoError(t, s.forms.CreateForm(acme, form))
		require.Equal(t, "acme", form.Tenant)
		field := &forms.Field{FormID: form.ID, Type: forms.TypeText, Label: "Name"}
		require.NoError(t, s.forms.CreateField(acme, field))
		fields, err := s.forms.Fields(context.Background(), form.ID)
		require.NoError(t, err)
		_, err = s.forms.Submit(context.Background(), form, fields, &forms.SubmitRequest{Values: map[string][]string{field.Name: {"Ann"}}, LoadedAt: "1"})
		require.NoError(t, err)
		require.Equal(t, 1, s.count(t, `SELECT COUNT(*) FROM webhooks_deliveries`))
		require.Equal(t, 1, s.count(t, `SELECT COUNT(*) FROM webhooks_deliveries d JOIN webhooks_subscriptions s ON s.id = d.subscription_id
			WHERE s.owner = 'acme'`), "the tenant's subscription hears of it, no other")
	})
}

// An email-list feed is its form's tenant's: a request acting for
// another tenant neither finds it, lists it, changes it nor makes one for
// the form.
func TestFeedsOfATenant(t *testing.T) {
	t.Parallel()
	s := newSite(t, store.SQLite)
	acme, globex := tenant.With(context.Background(), "acme"), tenant.With(context.Background(), "globex")
	form := &forms.Form{Name: "Newsletter", IsActive: true}
	require.NoError(t, s.forms.CreateForm(acme, form))
	feed, err := s.emaillist.CreateFeed(acme, emaillist.Feed{FormID: form.ID, Name: "List", IsActive: true,
		FieldMap: map[string]string{"email_address": "email"}})
	require.NoError(t, err)

	_, err = s.emaillist.Feed(globex, feed.ID)
	require.ErrorIs(t, err, emaillist.ErrNotFound)
	list, err := s.emaillist.ListFeeds(globex, 0)
	require.NoError(t, err)
	require.Empty(t, list)
	feed.Name = "Taken"
	_, err = s.emaillist.UpdateFeed(globex, feed)
	require.ErrorIs(t, err, emaillist.ErrNotFound)
	require.ErrorIs(t, s.emaillist.DeleteFeed(globex, feed.ID), emaillist.ErrNotFound)
	_, err = s.emaillist.CreateFeed(globex, emaillist.Feed{FormID: form.ID, Name: "Mine", IsActive: true,
		FieldMap: map[string]string{"email_address": "email"}})
	require.Error(t, err, "not its form")

	list, err = s.emaillist.ListFeeds(acme, 0)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, "List", list[0].Name)
	got, err := s.emaillist.Feed(context.Background(), feed.ID)
	require.NoError(t, err, "a context of no tenant sees every one")
	require.Equal(t, "List", got.Name)
}
