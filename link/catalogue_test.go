package link_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/link"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
)

// The catalogue against what is sent: each event the links describe has
// a description, a schema and an example; the example, dispatched and
// delivered over HTTP by the real delivery path, validates against the
// envelope's schema, and so do the bodies of a real form submission and
// of a real booking made and cancelled, so a change to forms.Submitted or
// bookings.EventData that the schema does not follow fails here. On both
// databases.
func TestEventCatalogueDrift(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		s := newSite(t, d)
		ctx, stop := context.WithCancel(context.Background())
		defer stop()
		var mu sync.Mutex
		bodies := map[string][][]byte{}
		arrived := make(chan struct{}, 100)
		rv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			mu.Lock()
			bodies[r.Header.Get(webhooks.HeaderEvent)] = append(bodies[r.Header.Get(webhooks.HeaderEvent)], body)
			mu.Unlock()
			arrived <- struct{}{}
		}))
		defer rv.Close()
		_, err := s.webhooks.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: ptr("drift"), URL: ptr(rv.URL), Events: []string{"*"}})
		require.NoError(t, err)
		go func() { _ = s.webhooks.RunDeliveries(ctx) }()
		// Dispatched while the loop runs, deliveries are due at once for it
		// (before, they would wait for the queue's jobs, not started here).
		require.Eventually(t, s.webhooks.Delivering, 5*time.Second, 5*time.Millisecond)
		wait := func(n int) {
			t.Helper()
			for range n {
				select {
				case <-arrived:
				case <-time.After(10 * time.Second):
					t.Fatal("a delivery did not arrive")
				}
			}
		}
		schemas := map[string]*jsonschema.Resolved{}
		types := s.webhooks.EventTypes()
		for _, et := range types {
			require.NotEmpty(t, et.Description, et.Name)
			var sc jsonschema.Schema
			require.NoError(t, json.Unmarshal(webhooks.EnvelopeSchema(et), &sc), et.Name)
			resolved, err := sc.Resolve(nil)
			require.NoError(t, err, et.Name)
			schemas[et.Name] = resolved
			require.NotEmpty(t, et.Example, "%s: the links describe every event they send", et.Name)
			var data map[string]any
			require.NoError(t, json.Unmarshal(et.Example, &data))
			_, err = s.webhooks.Dispatch(ctx, webhooks.Event{Name: et.Name, Data: data})
			require.NoError(t, err)
		}
		require.ElementsMatch(t, append([]string{forms.EventSubmitted, forms.EventRoutedNotBooked}, link.BookingWebhooks...), s.webhooks.Events())
		wait(len(types))

		// The real events, as the domains make them.
		form := &forms.Form{Name: "Contact", IsActive: true}
		require.NoError(t, s.forms.CreateForm(ctx, form))
		require.NoError(t, s.forms.CreateField(ctx, &forms.Field{FormID: form.ID, Type: forms.TypeText, Label: "Name", IsRequired: true}))
		fields, err := s.forms.Fields(ctx, form.ID)
		require.NoError(t, err)
		_, err = s.forms.Submit(ctx, form, fields, &forms.SubmitRequest{Values: map[string][]string{fields[0].Name: {"Ann"}}, LoadedAt: "1"})
		require.NoError(t, err)
		name, slug, minutes, zone := "Call", "call", 30, "UTC"
		svc, err := s.bookings.CreateService(ctx, bookings.OfferingInput{Name: &name, Slug: &slug, Duration: &minutes, TimeZone: &zone})
		require.NoError(t, err)
		pname, pslug := "Sam", "sam"
		p, err := s.bookings.CreateProvider(ctx, bookings.ProviderInput{Name: &pname, Slug: &pslug, TimeZone: &zone})
		require.NoError(t, err)
		require.NoError(t, s.bookings.Link(ctx, svc.Slug, p.ID, bookings.LinkInput{}))
		start, end := "00:00", "24:00"
		for day := range 7 {
			_, err := s.bookings.AddHours(ctx, p.ID, bookings.HoursInput{DayOfWeek: &day, Start: &start, End: &end})
			require.NoError(t, err)
		}
		b, _, err := s.bookings.Create(ctx, bookings.NewBooking{ServiceSlug: "call", Start: time.Now().UTC().Truncate(time.Hour).Add(48 * time.Hour),
			CustomerName: "Grace", CustomerEmail: "grace@example.com"})
		require.NoError(t, err)
		_, err = s.bookings.Cancel(ctx, b.ID, bookings.ActorAdmin, "Ill")
		require.NoError(t, err)
		wait(3)

		mu.Lock()
		defer mu.Unlock()
		for event, got := range bodies {
			for _, body := range got {
				var instance any
				require.NoError(t, json.Unmarshal(body, &instance))
				require.NoError(t, schemas[event].Validate(instance), "%s: %s", event, body)
			}
		}
		require.Len(t, bodies[forms.EventSubmitted], 2, "the example and the real one")
		require.Len(t, bodies[bookings.EventCancelled], 2)
		// The schema is not a formality: a body without its data's
		// required fields fails.
		var broken any
		require.NoError(t, json.Unmarshal([]byte(`{"id":"1","event":"form.submitted","created_at":"2026-11-22T10:00:00+00:00","data":{"form":"x"}}`), &broken))
		require.Error(t, schemas[forms.EventSubmitted].Validate(broken))
	})
}
