package link_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/bookings/waitlist"
	"github.com/groundwork-go/groundwork/bookings/waitlist/waitlistsql"
	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/link"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

// Each step of a waitlist is a webhook recorded in the step's own
// transaction: the offer in the cancellation's, with booking.cancelled;
// the customer named by customer_id as bookings' webhooks name them; the
// catalogue describes each.
func TestWaitlistStepsBecomeWebhooks(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		var log testkit.Buffer
		env := newEnv(t, d, &log)
		b, err := bookingssql.Join(env, nil)
		require.NoError(t, err)
		wl, err := waitlistsql.Join(env, b.Service, nil)
		require.NoError(t, err)
		w, err := webhookssql.Join(env, &webhooks.ModuleOptions{Service: webhooks.Options{AllowInsecureURLs: true, AllowPrivateHosts: true}})
		require.NoError(t, err)
		require.NoError(t, link.Join(env, link.Modules{Bookings: b, Webhooks: w, Waitlist: wl}))
		require.NoError(t, env.Migrate(ctx))
		for _, e := range waitlist.EventTypes {
			require.Contains(t, w.Service.Events(), e)
		}
		_, err = w.Service.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: ptr("all"), URL: ptr("http://127.0.0.1:9/hook"),
			Events: []string{"*"}})
		require.NoError(t, err)
		svc, err := b.Service.CreateService(ctx, bookings.OfferingInput{Name: ptr("Yoga"), Slug: ptr("yoga"), Duration: ptr(60), TimeZone: ptr("UTC")})
		require.NoError(t, err)
		openProvider(t, b.Service, svc.Slug, "sam", "Sam")
		at := time.Now().UTC().Truncate(time.Hour).Add(72 * time.Hour)
		ann, _, err := b.Service.Create(ctx, bookings.NewBooking{ServiceSlug: "yoga", Start: at, CustomerName: "Ann", CustomerEmail: "ann@example.com"})
		require.NoError(t, err)
		bob, _, err := wl.Service.Join(ctx, waitlist.NewEntry{Service: "yoga", Start: at, Name: "Bob", Email: "Bob@Example.com"})
		require.NoError(t, err)

		var events []string
		require.NoError(t, env.DB.Select(&events, `SELECT event FROM webhooks_deliveries ORDER BY id`))
		require.Equal(t, []string{"booking.created", "booking.waitlist_joined"}, events)
		_, err = b.Service.Cancel(ctx, ann.ID, bookings.ActorCustomer, "")
		require.NoError(t, err)
		events = nil
		require.NoError(t, env.DB.Select(&events, `SELECT event FROM webhooks_deliveries ORDER BY id`))
		// The offer and the cancellation, in one transaction.
		require.ElementsMatch(t, []string{"booking.created", "booking.waitlist_joined", "booking.cancelled", "booking.waitlist_offered"}, events)
		var payload string
		require.NoError(t, env.DB.Get(&payload, `SELECT payload FROM webhooks_deliveries WHERE event = 'booking.waitlist_offered'`))
		var got struct {
			Data map[string]any `json:"data"`
		}
		require.NoError(t, json.Unmarshal([]byte(payload), &got))
		require.Equal(t, float64(bob.ID), got.Data["id"])
		require.Equal(t, "offered", got.Data["status"])
		require.Equal(t, bookings.CustomerID("bob@example.com"), got.Data["customer_id"])
		require.Equal(t, at.Format(time.RFC3339), got.Data["start_time"])
		require.NotEmpty(t, got.Data["offer_expires_at"])
		// The catalogue's schema holds the real offer, and its example.
		checked := false
		for _, et := range w.Service.EventTypes() {
			if et.Name != waitlist.EventOffered {
				continue
			}
			checked = true
			require.NotEmpty(t, et.Description)
			var sc jsonschema.Schema
			require.NoError(t, json.Unmarshal(webhooks.EnvelopeSchema(et), &sc))
			resolved, err := sc.Resolve(nil)
			require.NoError(t, err)
			var instance any
			require.NoError(t, json.Unmarshal([]byte(payload), &instance))
			require.NoError(t, resolved.Validate(instance), payload)
			var broken map[string]any
			require.NoError(t, json.Unmarshal([]byte(payload), &broken))
			delete(broken["data"].(map[string]any), "customer_id")
			require.Error(t, resolved.Validate(broken), "customer_id is required")
		}
		require.True(t, checked)
	})
}
