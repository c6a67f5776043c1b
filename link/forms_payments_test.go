package link_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	stripewebhook "github.com/stripe/stripe-go/v85/webhook"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/forms/formsstripe"
	"github.com/groundwork-go/groundwork/link"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
)

// newPaidFormSite is one instance: forms taking payment through Stripe
// and webhooks receiving Stripe's events, joined and linked on env.
func newPaidFormSite(t testing.TB, dsn string, api *stripeAPI) (*paidSite, *forms.Service) {
	t.Helper()
	ctx := context.Background()
	env, err := store.OpenEnv(ctx, dsn, &store.EnvOptions{Secret: []byte("0123456789abcdef0123456789abcdef"),
		Queue: &store.QueueOptions{TestOnly: true}})
	require.NoError(t, err)
	t.Cleanup(func() { env.Close() })
	pay, err := formsstripe.New(formsstripe.Options{APIKey: "sk_test_paid", APIBase: api.srv.URL})
	require.NoError(t, err)
	f, err := formssql.Join(env, &forms.ModuleOptions{Service: forms.Options{Payments: pay, FormTokenOptional: true,
		PagesURL: "https://site.example/forms"}})
	require.NoError(t, err)
	w := stripeWebhooks(t, env)
	require.NoError(t, link.Join(env, link.Modules{Forms: f, Webhooks: w}))
	require.NoError(t, env.Migrate(ctx))
	mux := http.NewServeMux()
	w.Mount(mux)
	s := &paidSite{env: env, webhooks: w.Service, srv: httptest.NewServer(mux)}
	t.Cleanup(s.srv.Close)
	return s, f.Service
}

// submissionEvent is a signed Checkout Session event of a submission's
// page.
func submissionEvent(t testing.TB, id, typ string, sub *forms.Submission, paid bool) ([]byte, string) {
	t.Helper()
	status := "unpaid"
	if paid {
		status = "paid"
	}
	ref := strconv.FormatInt(sub.ID, 10)
	body, err := json.Marshal(map[string]any{"id": id, "object": "event", "type": typ, "data": map[string]any{"object": map[string]any{
		"id": sub.Payment.Session, "object": "checkout.session", "client_reference_id": ref, "payment_status": status,
		"payment_intent": "pi_" + ref, "metadata": map[string]any{"form_id": strconv.FormatInt(sub.FormID, 10), "submission_id": ref}}}})
	require.NoError(t, err)
	signed := stripewebhook.GenerateTestSignedPayload(&stripewebhook.UnsignedPayload{Payload: body, Secret: paidSecret, Timestamp: time.Now()})
	return body, signed.Header
}

// A paid form on two instances of one database (on SQLite, one): its
// submission waits for payment, nothing told; Stripe's event, sent to
// both instances at once and again, accepts it once, its form.submitted
// webhook recorded in the transaction of the event's ledger row. An
// expired page leaves another unpaid, its option's place free again.
func TestPaidFormsSettleInTheInboundTransaction(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		api := newStripeAPI(t)
		dsn := storetest.DSN(t, d)
		one, svc := newPaidFormSite(t, dsn, api)
		sites := []*paidSite{one}
		if d == store.Postgres {
			two, _ := newPaidFormSite(t, dsn, api)
			sites = append(sites, two)
		}
		_, err := one.webhooks.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: ptr("all"), URL: ptr("http://127.0.0.1:9/hook"),
			Events: []string{"*"}})
		require.NoError(t, err)
		form := &forms.Form{Name: "Workshop", IsActive: true}
		require.NoError(t, svc.CreateForm(ctx, form))
		for _, f := range []*forms.Field{
			{FormID: form.ID, Type: forms.TypeRadio, Name: "seat", Label: "Seat", IsRequired: true, FieldConfig: map[string]any{"options": []any{
				map[string]any{"value": "front", "label": "Front row", "price": "40", "quota": float64(1)}}}},
			{FormID: form.ID, Type: forms.TypeTotal, Name: "total", Label: "Total", FieldConfig: map[string]any{"currency": "EUR", "payment": true}},
		} {
			require.NoError(t, svc.CreateField(ctx, f))
		}
		_, fields, err := svc.FormWithFields(ctx, form.Slug)
		require.NoError(t, err)
		submit := func() (*forms.SubmitResult, error) {
			return svc.Submit(ctx, form, fields, &forms.SubmitRequest{Values: map[string][]string{"seat": {"front"}}, LoadedAt: "1"})
		}
		res, err := submit()
		require.NoError(t, err)
		require.Equal(t, "https://checkout.stripe.test/cs_test_1", res.PaymentURL)
		_, err = submit()
		require.Error(t, err, "the front row's one place is held while it awaits payment")
		delivered := `SELECT COUNT(*) FROM webhooks_deliveries WHERE event = 'form.submitted'`
		require.Zero(t, one.count(t, delivered), "nothing told before the payment")

		body, sig := submissionEvent(t, "evt_form_paid", "checkout.session.completed", res.Submission, true)
		require.Equal(t, map[string]int{"200 false": 1, "200 true": 7}, deliverAtOnce(t, sites, body, sig, 8))
		require.Equal(t, 1, one.count(t, delivered), "one form.submitted, with the payment")
		require.Equal(t, 1, one.count(t, `SELECT COUNT(*) FROM webhooks_deliveries WHERE event = 'form.submitted'
			AND CAST(payload AS TEXT) LIKE '%"status":"paid"%' AND CAST(payload AS TEXT) NOT LIKE '%checkout_url%'`), "its data says it is paid")
		require.Equal(t, 1, one.count(t, `SELECT COUNT(*) FROM forms_submissions WHERE payment_status = 'paid'`))

		// The seat again, the paid one deleted; its page expires: unpaid, the place free.
		require.NoError(t, svc.DeleteSubmission(ctx, form.ID, res.Submission.ID))
		res, err = submit()
		require.NoError(t, err)
		body, sig = submissionEvent(t, "evt_form_expired", "checkout.session.expired", res.Submission, false)
		status, _ := sites[len(sites)-1].deliver(t, body, sig)
		require.Equal(t, 200, status)
		require.Equal(t, 1, one.count(t, `SELECT COUNT(*) FROM forms_submissions WHERE payment_status = 'unpaid'`))
		require.Equal(t, 1, one.count(t, delivered), "nothing told of the unpaid one")
		_, err = submit()
		require.NoError(t, err, "the unpaid one's place is free again")
	})
}
