package webhooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/tenant"
	"github.com/groundwork-go/groundwork/webhooks"
)

// Two owners on one service: each owner's events reach its endpoints
// alone (AllOwners every owner's), and a token bound to one owner never
// sees, changes, replays or learns of the other's subscriptions,
// deliveries or secrets, on any REST route or GraphQL field; an unbound
// admin token sees all and filters by owner. On both databases.
func TestOwnersNeverSeeEachOther(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, on(d))
		a := b.api(t)
		ctx := context.Background()
		rv := newReceiver(t)
		create := func(token string, body map[string]any) map[string]any {
			t.Helper()
			body["url"], body["events"] = rv.URL+"/"+token, []string{"order.placed"}
			r := a.do("POST", subs, token, body)
			require.Equal(t, 201, r.status, r.body)
			return r.data(t)
		}
		subA := create("ownerA", map[string]any{"name": "A's"})
		require.Equal(t, "acct_a", subA["owner"], "a bound token makes its owner's")
		subB := create("ownerB", map[string]any{"name": "B's", "secret": "b-secret-0123456789"})
		require.Equal(t, "acct_b", subB["owner"])
		subDefault := create("admin", map[string]any{"name": "the shop's own"})
		require.NotContains(t, subDefault, "owner", "the default owner is not on the wire")
		subA2 := create("admin", map[string]any{"name": "A's, made by the admin", "owner": "acct_a"})
		require.Equal(t, "acct_a", subA2["owner"])
		r := a.do("POST", subs, "ownerA", map[string]any{"name": "x", "url": rv.URL, "events": []string{"order.placed"}, "owner": "acct_b"})
		require.Equal(t, 422, r.status, "a bound token cannot make another owner's: %s", r.body)
		require.Contains(t, r.body, `"owner"`)
		r = a.do("POST", subs, "admin", map[string]any{"name": "x", "url": rv.URL, "events": []string{"order.placed"}, "owner": "*"})
		require.Equal(t, 422, r.status, "* is no owner: %s", r.body)
		idA, idB := fmt.Sprint(subA["id"]), fmt.Sprint(subB["id"])

		// Events go to their owner's subscriptions.
		fanout := func(f webhooks.Fanout, err error) int {
			t.Helper()
			require.NoError(t, err)
			return f.Deliveries
		}
		require.Equal(t, 2, fanout(b.svc.DispatchFor(ctx, "acct_a", placed(1))))
		require.Equal(t, 1, fanout(b.svc.DispatchFor(ctx, "acct_b", placed(2))))
		require.Equal(t, 1, fanout(b.svc.Dispatch(ctx, placed(3))), "the default owner's")
		require.Equal(t, 1, fanout(b.svc.Dispatch(webhooks.ForOwner(ctx, "acct_b"), placed(4))), "the owner ctx names")
		require.Equal(t, 4, fanout(b.svc.DispatchFor(ctx, webhooks.AllOwners, placed(5))), "a system event: every owner's")
		require.Zero(t, fanout(b.svc.DispatchFor(ctx, "acct_c", placed(6))), "an owner with no endpoints")
		_, err := b.svc.DispatchFor(ctx, "bad\x00owner", placed(7))
		require.ErrorIs(t, err, webhooks.ErrOwner)
		delivered := map[string][]int64{}
		for _, sub := range []map[string]any{subA, subB, subDefault, subA2} {
			id, _ := strconv.ParseInt(fmt.Sprint(sub["id"]), 10, 64)
			for _, dl := range b.deliveriesOf(t, id) {
				delivered[fmt.Sprint(sub["id"])] = append(delivered[fmt.Sprint(sub["id"])], dl.ID)
			}
		}
		require.Len(t, delivered[idA], 2) // orders 1 and 5
		require.Len(t, delivered[idB], 3) // orders 2, 4 and 5
		didB := fmt.Sprint(delivered[idB][0])

		// Lists: each bound token its own; the admin all, or by owner.
		ids := func(token, query string) []string {
			t.Helper()
			r := a.do("GET", subs+query, token, nil)
			require.Equal(t, 200, r.status, r.body)
			require.NotContains(t, r.body, "b-secret", "no secret in a list")
			var out []string
			for _, s := range r.json(t)["data"].([]any) {
				out = append(out, fmt.Sprint(s.(map[string]any)["id"]))
			}
			return out
		}
		require.ElementsMatch(t, []string{idA, fmt.Sprint(subA2["id"])}, ids("ownerA", ""))
		require.ElementsMatch(t, []string{idB}, ids("ownerB", "?include=deliveries"))
		require.Len(t, ids("admin", ""), 4)
		require.ElementsMatch(t, []string{idB}, ids("admin", "?filter[owner]=acct_b"))
		require.ElementsMatch(t, []string{fmt.Sprint(subDefault["id"])}, ids("admin", "?filter[owner]="))
		require.Empty(t, ids("ownerA", "?filter[owner]=acct_b"), "a filter cannot widen a bound token")
		require.ElementsMatch(t, ids("ownerA", ""), ids("tenantA", ""), "a tenant is an owner")
		require.NotContains(t, a.do("GET", subs+"?include=deliveries", "ownerA", nil).body, rv.URL+"/ownerB")

		// Every route on B's subscription, as A: 404, nothing changed.
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{"GET", subs + "/" + idB, nil},
			{"PATCH", subs + "/" + idB, map[string]any{"name": "taken"}},
			{"PUT", subs + "/" + idB, map[string]any{"name": "taken"}},
			{"DELETE", subs + "/" + idB, nil},
			{"GET", subs + "/" + idB + "/deliveries", nil},
			{"GET", subs + "/" + idB + "/deliveries/" + didB, nil},
			{"GET", subs + "/" + idA + "/deliveries/" + didB, nil},
			{"POST", subs + "/" + idB + "/replay/" + didB, nil},
			{"POST", subs + "/" + idA + "/replay/" + didB, nil},
			{"POST", subs + "/" + idB + "/replay-parked", nil},
			{"POST", subs + "/" + idB + "/rotate-secret", nil},
		} {
			r := a.do(c.method, c.path, "ownerA", c.body)
			require.Equal(t, 404, r.status, "%s %s: %s", c.method, c.path, r.body)
			require.NotContains(t, r.body, "B's")
		}
		r = a.do("GET", subs+"/"+idB, "ownerB", nil)
		require.Equal(t, 200, r.status)
		require.Equal(t, "B's", r.data(t)["name"], "unchanged")
		require.Len(t, b.deliveriesOf(t, mustID(t, idB)), 3, "nothing replayed")
		// Its own: seen, changed, but not moved to another owner.
		require.Equal(t, 200, a.do("GET", subs+"/"+idA+"/deliveries", "ownerA", nil).status)
		require.Equal(t, 202, a.do("POST", subs+"/"+idA+"/replay/"+fmt.Sprint(delivered[idA][0]), "ownerA", nil).status)
		r = a.do("PATCH", subs+"/"+idA, "ownerA", map[string]any{"owner": "acct_b"})
		require.Equal(t, 422, r.status, r.body)
		r = a.do("PATCH", subs+"/"+idA, "admin", map[string]any{"owner": "acct_b"})
		require.Equal(t, 422, r.status, "no one moves a subscription: %s", r.body)
		r = a.do("PATCH", subs+"/"+idA, "ownerA", map[string]any{"owner": "acct_a", "name": "A's, renamed"})
		require.Equal(t, 200, r.status, r.body)

		// GraphQL, as A.
		r = a.graphql("ownerA", `{ webhookSubscriptions { id owner } }`, nil)
		require.Equal(t, 200, r.status)
		require.NotContains(t, r.body, `"`+idB+`"`)
		require.Contains(t, r.body, `"owner":"acct_a"`)
		require.NotContains(t, r.body, "acct_b")
		r = a.graphql("ownerA", `query($id: ID!) { webhookSubscription(id: $id) { id name } }`, map[string]any{"id": idB})
		require.JSONEq(t, `{"data":{"webhookSubscription":null}}`, r.body)
		for _, q := range []string{
			`mutation($id: ID!) { updateWebhookSubscription(id: $id, name: "taken") { webhook_subscription { id } } }`,
			`mutation($id: ID!) { deleteWebhookSubscription(id: $id) { deleted_id } }`,
			`mutation($id: ID!) { replayWebhookDelivery(subscription_id: $id, delivery_id: "` + didB + `") { delivery { id } } }`,
			`mutation($id: ID!) { rotateWebhookSubscriptionSecret(id: $id) { webhook_subscription { secret } } }`,
		} {
			r = a.graphql("ownerA", q, map[string]any{"id": idB})
			require.Contains(t, r.body, "Not found.", q)
		}
		r = a.graphql("ownerA", `mutation { createWebhookSubscription(name: "x", url: "`+rv.URL+`", events: ["order.placed"], owner: "acct_b") {
			webhook_subscription { id } errors { field message } } }`, nil)
		require.Contains(t, r.body, `"field":"owner"`, r.body)
		r = a.graphql("admin", `{ webhookSubscriptions { id owner } }`, nil)
		require.Contains(t, r.body, `"owner":"acct_b"`)
		require.Contains(t, r.body, `"owner":""`, "the default owner, in GraphQL a string")
		r = a.do("GET", subs+"/"+idB, "ownerB", nil)
		require.Equal(t, "B's", r.data(t)["name"], "still unchanged")
		require.Equal(t, 1, fanout(b.svc.Dispatch(tenant.With(ctx, "acct_b"), placed(8))), "an event of a tenant's request: its own")
	})
}

func mustID(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	require.NoError(t, err)
	return n
}

// A token may be granted the owner binding by its name: the reference
// server's token command takes it without --force.
func TestOwnerAbilityIsKnown(t *testing.T) {
	require.True(t, groundwork.KnownAbility(webhooks.OwnerAbilityPrefix+"acct_1"))
	require.False(t, groundwork.KnownAbility(webhooks.OwnerAbilityPrefix), "with its owner")
	require.False(t, groundwork.KnownAbility(webhooks.OwnerAbilityPrefix+"*"), "one owner, not a wildcard")
	o, ok := webhooks.OwnerOf(groundwork.Caller{Abilities: []string{"webhookSubscription.*", webhooks.OwnerAbilityPrefix + "acct_1"}})
	require.True(t, ok)
	require.Equal(t, "acct_1", o)
	_, ok = webhooks.OwnerOf(groundwork.Caller{Abilities: []string{"*"}})
	require.False(t, ok, "an unbound token")
}

// GET /admin/webhook-event-types: the catalogue, an event described with
// its schema and example, the others with an object schema.
func TestEventTypesRoute(t *testing.T) {
	t.Parallel()
	b := setup(t)
	type Shipped struct {
		Order   int64     `json:"order"`
		Carrier string    `json:"carrier,omitempty"`
		At      time.Time `json:"at"`
	}
	require.NoError(t, b.svc.DescribeEvent("parcel.shipped", "A parcel left the warehouse.", Shipped{Order: 7, At: b.clock.Now()}))
	a := b.api(t)
	r := a.do("GET", "/admin/webhook-event-types", "viewer", nil)
	require.Equal(t, 200, r.status, r.body)
	var got struct {
		Data []webhooks.EventType `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.body), &got))
	i := slices.IndexFunc(got.Data, func(e webhooks.EventType) bool { return e.Name == "parcel.shipped" })
	require.GreaterOrEqual(t, i, 0)
	require.Equal(t, "A parcel left the warehouse.", got.Data[i].Description)
	require.JSONEq(t, `{"type":"object","properties":{"order":{"type":"integer"},"carrier":{"type":"string"},"at":{"type":"string","format":"date-time"}},
		"required":["order","at"],"additionalProperties":false}`, string(got.Data[i].Schema))
	require.JSONEq(t, `{"order":7,"at":"2026-11-22T10:00:00Z"}`, string(got.Data[i].Example), "as a delivery carries it")
	j := slices.IndexFunc(got.Data, func(e webhooks.EventType) bool { return e.Name == "order.placed" })
	require.JSONEq(t, `{"type":"object"}`, string(got.Data[j].Schema))
	require.Equal(t, 401, a.do("GET", "/admin/webhook-event-types", "", nil).status)
}
