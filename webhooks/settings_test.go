package webhooks_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

// An endpoint's description, custom headers and rate limit through the
// API: kept, shown, sent with each delivery, never in place of the
// delivery's own headers; bad ones refused with the field named. On both
// databases.
func TestEndpointSettings(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, on(d))
		a := b.api(t)
		rv := newReceiver(t)
		r := a.do("POST", subs, "admin", map[string]any{"name": "warehouse", "url": rv.URL, "events": []string{"*"},
			"description": "  Orders to the warehouse  ", "rate_limit": 50,
			"headers": map[string]any{"x-tenant": "acct 1", "Authorization": "Bearer for-the-receiver"}})
		require.Equal(t, 201, r.status, r.body)
		data := r.data(t)
		require.Equal(t, "Orders to the warehouse", data["description"])
		require.Equal(t, map[string]any{"X-Tenant": "acct 1", "Authorization": "Bearer for-the-receiver"}, data["headers"])
		require.EqualValues(t, 50, data["rate_limit"])
		id := fmt.Sprint(data["id"])

		require.NoError(t, dispatchErr(b.svc.Dispatch(context.Background(), placed(1))))
		b.attempt(t, b.deliveriesOf(t, mustID(t, id))[0].ID)
		got := rv.requests()[0]
		require.Equal(t, "acct 1", got.header.Get("X-Tenant"))
		require.Equal(t, "Bearer for-the-receiver", got.header.Get("Authorization"))
		require.Equal(t, "application/json", got.header.Get("Content-Type"))
		require.NotEmpty(t, got.header.Get(webhooks.HeaderSignature))

		for _, c := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"headers": map[string]any{"X-Platform-Signature": "t=1, v1=forged"}}, "headers.X-Platform-Signature"},
			{map[string]any{"headers": map[string]any{"content-type": "text/plain"}}, "headers.content-type"},
			{map[string]any{"headers": map[string]any{"webhook-id": "1"}}, "headers.webhook-id"},
			{map[string]any{"headers": map[string]any{"X-Split": "a\r\nX-Injected: 1"}}, "headers.X-Split"},
			{map[string]any{"headers": map[string]any{"X-Bell": "a\u0007b"}}, "headers.X-Bell"},
			{map[string]any{"headers": map[string]any{"X-Del": "a\u007fb"}}, "headers.X-Del"},
			{map[string]any{"headers": map[string]any{"X-Esc": "\u001b[31m"}}, "headers.X-Esc"},
			{map[string]any{"headers": map[string]any{"Bad Name": "x"}}, "headers.Bad Name"},
			{map[string]any{"headers": map[string]any{"X-Number": 1}}, "headers.X-Number"},
			{map[string]any{"headers": []string{"X-A: 1"}}, "headers"},
			{map[string]any{"headers": elevenHeaders()}, "headers"},
			{map[string]any{"rate_limit": -1}, "rate_limit"},
			{map[string]any{"rate_limit": 1.5}, "rate_limit"},
			{map[string]any{"rate_limit": 10001}, "rate_limit"},
			{map[string]any{"description": strings.Repeat("d", 1001)}, "description"},
		} {
			r := a.do("PATCH", subs+"/"+id, "admin", c.body)
			require.Equal(t, 422, r.status, "%v: %s", c.body, r.body)
			require.Contains(t, r.json(t)["errors"], c.field, r.body)
		}
		r = a.do("GET", subs+"/"+id, "admin", nil)
		require.Equal(t, "Bearer for-the-receiver", r.data(t)["headers"].(map[string]any)["Authorization"], "nothing changed")
		r = a.do("PATCH", subs+"/"+id, "admin", map[string]any{"headers": map[string]any{}, "description": nil, "rate_limit": 0})
		require.Equal(t, 200, r.status, r.body)
		require.NotContains(t, r.data(t), "headers")
		require.NotContains(t, r.data(t), "description")
		require.NotContains(t, r.data(t), "rate_limit")

		// GraphQL takes and shows them too.
		r = a.graphql("admin", `mutation($id: ID!) { updateWebhookSubscription(id: $id, description: "via GraphQL", rate_limit: 3,
			headers: [{name: "x-b", value: "2"}, {name: "X-A", value: "1"}]) {
			webhook_subscription { description rate_limit headers { name value } } errors { field message } } }`, map[string]any{"id": id})
		require.JSONEq(t, `{"data":{"updateWebhookSubscription":{"webhook_subscription":{"description":"via GraphQL","rate_limit":3,
			"headers":[{"name":"X-A","value":"1"},{"name":"X-B","value":"2"}]},"errors":[]}}}`, r.body)
	})
}

func elevenHeaders() map[string]any {
	out := map[string]any{}
	for i := range 11 {
		out[fmt.Sprintf("X-H%d", i)] = "v"
	}
	return out
}

// A rate limit holds across two instances on one database: each delivery
// loop takes its places from the same count, so no more than the limit go
// out in a second (counted by the second each was signed in, the one its
// place was taken in, not by arrival, which a loaded machine may bunch),
// the rest go later, and none is an extra attempt or a failure. On both
// databases, each instance with its own connection pool, as two servers.
func TestRateLimitAcrossInstances(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		dsn := storetest.DSN(t, d)
		db := storetest.OpenDSN(t, dsn, webhookssql.Migrations)
		other, err := store.Open(context.Background(), dsn)
		require.NoError(t, err)
		t.Cleanup(func() { _ = other.Close() })
		var mu sync.Mutex
		var arrivals []int64 // the seconds the sender signed them in
		seen := map[string]bool{}
		done := make(chan struct{})
		const limit, events = 4, 14
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			if id := r.Header.Get(webhooks.HeaderDelivery); !seen[id] {
				seen[id] = true
				at, err := strconv.ParseInt(r.Header.Get(webhooks.HeaderStandardTimestamp), 10, 64)
				if err != nil {
					at = -1 // counted apart: the test fails on it below
				}
				arrivals = append(arrivals, at)
				if len(arrivals) == events {
					close(done)
				}
			}
			w.WriteHeader(http.StatusNoContent)
		}))
		t.Cleanup(srv.Close)
		opts := func() *webhooks.Options {
			return &webhooks.Options{SecretKey: testKey, AllowPrivateHosts: true, AllowInsecureURLs: true, PollInterval: 20 * time.Millisecond}
		}
		one, err := webhooks.NewService(webhookssql.New(db), opts())
		require.NoError(t, err)
		two, err := webhooks.NewService(webhookssql.New(other), opts())
		require.NoError(t, err)
		limitN, standard := limit, true
		sub, err := one.CreateSubscription(context.Background(), webhooks.SubscriptionInput{Name: str("slow"), URL: str(srv.URL),
			Events: []string{"*"}, RateLimit: &limitN, StandardWebhooks: &standard})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var wg sync.WaitGroup
		for _, svc := range []*webhooks.Service{one, two} {
			wg.Go(func() { _ = svc.RunDeliveries(ctx) })
		}
		start := time.Now()
		for i := range events {
			svc := []*webhooks.Service{one, two}[i%2]
			require.NoError(t, dispatchErr(svc.Dispatch(context.Background(), placed(int64(i+1)))))
		}
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("only %d of %d arrived", len(arrivals), events)
		}
		took := time.Since(start)
		cancel()
		wg.Wait()
		perSecond := map[int64]int{}
		for _, at := range arrivals {
			perSecond[at]++
		}
		require.NotContains(t, perSecond, int64(-1), "every delivery signed with its time")
		counts := slices.Collect(maps.Values(perSecond))
		// A place is taken in the second the request is signed in.
		require.LessOrEqual(t, slices.Max(counts), limit, "per second: %v", perSecond)
		require.GreaterOrEqual(t, took, time.Duration(events/limit-1)*time.Second, "the rest waited their turn")
		list, _, err := webhookssql.New(db).ListDeliveries(context.Background(), webhooks.DeliveryQuery{SubscriptionID: sub.ID, Limit: 100})
		require.NoError(t, err)
		require.Len(t, list, events)
		for _, dl := range list {
			require.Equal(t, webhooks.StatusDelivered, dl.Status)
			require.Equal(t, 1, dl.Attempts, "a wait is no attempt")
		}
		after, err := one.Subscription(context.Background(), sub.ID)
		require.NoError(t, err)
		require.Zero(t, after.ConsecutiveFailures, "nor a failure")
	})
}

// Channels through the API and Dispatch: an endpoint with channels gets
// the events that carry one (the event's own, or the context's), one
// without gets every event; bad channels are refused, on a subscription
// with the field named and on an event before anything is recorded.
func TestChannels(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, on(d))
		a := b.api(t)
		ctx := context.Background()
		rv := newReceiver(t)
		mk := func(name string, channels ...string) int64 {
			t.Helper()
			body := map[string]any{"name": name, "url": rv.URL + "/" + name, "events": []string{"*"}}
			if channels != nil {
				body["channels"] = channels
			}
			r := a.do("POST", subs, "admin", body)
			require.Equal(t, 201, r.status, r.body)
			return mustID(t, fmt.Sprint(r.data(t)["id"]))
		}
		all, shop := mk("all"), mk("shop", "store-1", "store-1")
		r := a.do("GET", fmt.Sprintf("%s/%d", subs, shop), "admin", nil)
		require.Equal(t, []any{"store-1"}, r.data(t)["channels"], "each once")
		fan := func(f webhooks.Fanout, err error) int {
			t.Helper()
			require.NoError(t, err)
			return f.Deliveries
		}
		require.Equal(t, 1, fan(b.svc.Dispatch(ctx, placed(1))), "no channel: the endpoint without channels")
		require.Equal(t, 2, fan(b.svc.Dispatch(ctx, webhooks.Event{Name: "order.placed", Data: map[string]any{}, Channels: []string{"store-1"}})))
		require.Equal(t, 2, fan(b.svc.Dispatch(webhooks.WithChannels(ctx, "store-1"), placed(2))), "the context's channel")
		require.Equal(t, 1, fan(b.svc.Dispatch(webhooks.WithChannels(ctx, "store-9"), placed(3))))
		require.Len(t, b.deliveriesOf(t, all), 4)
		require.Len(t, b.deliveriesOf(t, shop), 2)
		_, err := b.svc.Dispatch(webhooks.WithChannels(ctx, "no spaces"), placed(4))
		require.ErrorIs(t, err, webhooks.ErrChannel)
		require.Len(t, b.deliveriesOf(t, all), 4, "nothing recorded")
		for _, bad := range []any{[]string{"a b"}, []string{strings.Repeat("c", 129)}, []any{1}, "store-1",
			[]string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"}} {
			r := a.do("PATCH", fmt.Sprintf("%s/%d", subs, shop), "admin", map[string]any{"channels": bad})
			require.Equal(t, 422, r.status, "%v: %s", bad, r.body)
			require.Contains(t, r.body, `"channels`)
		}
		r = a.do("PATCH", fmt.Sprintf("%s/%d", subs, shop), "admin", map[string]any{"channels": []string{}})
		require.Equal(t, 200, r.status, r.body)
		require.NotContains(t, r.data(t), "channels")
		require.Equal(t, 2, fan(b.svc.Dispatch(ctx, placed(5))), "no channels now: every event")
		r = a.graphql("admin", `mutation($id: ID!) { updateWebhookSubscription(id: $id, channels: ["b", "a"]) {
			webhook_subscription { channels } errors { field } } }`, map[string]any{"id": fmt.Sprint(shop)})
		require.JSONEq(t, `{"data":{"updateWebhookSubscription":{"webhook_subscription":{"channels":["a","b"]},"errors":[]}}}`, r.body)
	})
}
