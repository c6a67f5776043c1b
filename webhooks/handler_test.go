package webhooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/tenant"
	"github.com/groundwork-go/groundwork/webhooks"
)

type tokens = testkit.Tokens

var testTokens = tokens{
	"admin":  {"webhookSubscription.*"},
	"admin2": {"*"},
	"viewer": {"webhookSubscription.viewAny", "webhookSubscription.view"},
	// Bound to an owner each: they see their own subscriptions alone.
	"ownerA": {"webhookSubscription.*", webhooks.OwnerAbilityPrefix + "acct_a"},
	"ownerB": {"webhookSubscription.*", webhooks.OwnerAbilityPrefix + "acct_b"},
	// Bound to a tenant (package tenant), which is an owner.
	"tenantA": {"webhookSubscription.*", tenant.AbilityPrefix + "acct_a"},
}

type api struct {
	t      testing.TB
	server *httptest.Server
}

func (b *bundle) api(t testing.TB) *api {
	t.Helper()
	h, err := webhooks.NewHandler(b.svc, testTokens, &webhooks.HandlerOptions{Idempotency: store.NewIdempotency(b.db, b.clock.Now)})
	require.NoError(t, err)
	srv := httptest.NewServer(apitest.Documented(t, h))
	t.Cleanup(srv.Close)
	return &api{t: t, server: srv}
}

type reply struct {
	status int
	header http.Header
	body   string
}

func (r reply) json(t *testing.T) map[string]any {
	t.Helper()
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.body), &out), r.body)
	return out
}

func (r reply) data(t *testing.T) map[string]any {
	t.Helper()
	d, ok := r.json(t)["data"].(map[string]any)
	require.True(t, ok, r.body)
	return d
}

func (a *api) do(method, path, token string, body any, headers ...string) reply {
	a.t.Helper()
	var rd io.Reader
	if body != nil {
		raw, ok := body.(string)
		if !ok {
			b, err := json.Marshal(body)
			require.NoError(a.t, err)
			raw = string(b)
		}
		rd = strings.NewReader(raw)
	}
	req, err := http.NewRequest(method, a.server.URL+webhooks.PrefixDefault+path, rd)
	require.NoError(a.t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(a.t, err)
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	require.NoError(a.t, err)
	return reply{res.StatusCode, res.Header, string(out)}
}

const subs = "/admin/webhook-subscriptions"

func TestSubscriptionAPI(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, on(d), func(o *setupOptions) {
			o.service = func(so *webhooks.Options) { so.AllowPrivateHosts, so.AllowInsecureURLs = false, false }
		})
		a := b.api(t)
		b.dns.set("hooks.example", "93.184.216.34")
		b.dns.set("internal.example", "10.1.2.3")

		// Tokens.
		require.Equal(t, 401, a.do("GET", subs, "", nil).status)
		require.JSONEq(t, `{"message":"Unauthenticated."}`, a.do("GET", subs, "nope", nil).body)
		r := a.do("POST", subs, "viewer", map[string]any{"name": "x"})
		require.Equal(t, 403, r.status)
		require.JSONEq(t, `{"message":"This action is unauthorized.","ability":"webhookSubscription.create"}`, r.body)

		// Validation.
		r = a.do("POST", subs, "admin", map[string]any{"name": "x", "url": "https://internal.example/hook", "events": []any{"order.placed"}})
		require.Equal(t, 422, r.status)
		require.JSONEq(t, `{"message":"The url must resolve to a public address (a private or loopback host needs the server's AllowPrivateHosts option, GROUNDWORK_WEBHOOKS_ALLOW_PRIVATE_HOSTS on the reference server, for local development).","errors":{"url":["The url must resolve to a public address (a private or loopback host needs the server's AllowPrivateHosts option, GROUNDWORK_WEBHOOKS_ALLOW_PRIVATE_HOSTS on the reference server, for local development)."]}}`, r.body)
		r = a.do("POST", subs, "admin", map[string]any{"name": 5, "url": "https://hooks.example/", "events": "order.placed", "is_active": "maybe"})
		require.Equal(t, 422, r.status)
		require.JSONEq(t, `{"message":"The name field must be a string. (and 2 more errors)","errors":{"name":["The name field must be a string."],
			"is_active":["The is active field must be true or false."],"events":["The events field must be an array."]}}`, r.body)
		r = a.do("POST", subs, "admin", `{"name":`)
		require.Equal(t, 400, r.status)

		// Create: the secret is shown this once.
		r = a.do("POST", subs, "admin", map[string]any{"name": "Orders", "url": "https://hooks.example/in", "events": []any{"order.placed", "payment.failed"}})
		require.Equal(t, 201, r.status, r.body)
		created := r.data(t)
		require.Regexp(t, `^whsec_`, created["secret"])
		require.Equal(t, true, created["is_active"])
		require.EqualValues(t, 0, created["consecutive_failures"])
		id := fmt.Sprint(created["id"])
		r = a.do("GET", subs+"/"+id, "viewer", nil)
		require.Equal(t, 200, r.status)
		require.NotContains(t, r.body, "secret")
		require.Equal(t, 404, a.do("GET", subs+"/999", "viewer", nil).status)
		require.Equal(t, 404, a.do("GET", subs+"/abc", "viewer", nil).status)

		// Update: is_active true resets the streak.
		_, err := b.db.Exec(b.db.Rebind("UPDATE webhooks_subscriptions SET consecutive_failures = 4, is_active = ? WHERE id = ?"), false, created["id"])
		require.NoError(t, err)
		r = a.do("PATCH", subs+"/"+id, "admin", map[string]any{"is_active": true, "name": "Orders 2"})
		require.Equal(t, 200, r.status, r.body)
		require.Equal(t, "Orders 2", r.data(t)["name"])
		require.EqualValues(t, 0, r.data(t)["consecutive_failures"])
		require.Equal(t, []any{"order.placed", "payment.failed"}, r.data(t)["events"], "fields not sent are kept")
		r = a.do("PATCH", subs+"/"+id, "admin", map[string]any{"events": []any{}})
		require.Equal(t, 422, r.status)
		require.Equal(t, 404, a.do("PATCH", subs+"/999", "admin", map[string]any{"name": "x"}).status)
		r = a.do("PUT", subs, "admin", nil)
		require.Equal(t, 405, r.status)
		require.Equal(t, "GET, POST", r.header.Get("Allow"))

		// Deliveries, include=deliveries, the ledger and one delivery.
		rv := newReceiver(t)
		b.dns.set("hooks.example", "93.184.216.34")
		ctx := context.Background()
		require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, placed(1))))
		require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, webhooks.Event{Name: "payment.failed", Data: map[string]any{"order_id": 1}})))
		_ = rv
		r = a.do("GET", subs+"?include=deliveries", "viewer", nil)
		require.Equal(t, 200, r.status, r.body)
		list := r.json(t)["data"].([]any)
		require.Len(t, list, 1)
		require.Len(t, list[0].(map[string]any)["deliveries"].([]any), 2)
		r = a.do("GET", subs+"?include=everything", "viewer", nil)
		require.Equal(t, 422, r.status)
		r = a.do("GET", subs+"/"+id+"/deliveries?filter[event]=payment.failed", "viewer", nil)
		require.Equal(t, 200, r.status)
		ledger := r.json(t)
		require.EqualValues(t, 1, ledger["meta"].(map[string]any)["total"])
		row := ledger["data"].([]any)[0].(map[string]any)
		require.Equal(t, "pending", row["status"])
		require.NotContains(t, row, "payload")
		r = a.do("GET", subs+"/"+id+"/deliveries?filter[status]=pending&sort=created_at", "viewer", nil)
		require.Equal(t, 200, r.status)
		require.EqualValues(t, 2, r.json(t)["meta"].(map[string]any)["total"])
		first := r.json(t)["data"].([]any)[0].(map[string]any)
		require.Equal(t, "order.placed", first["event"])
		require.Equal(t, 422, a.do("GET", subs+"/"+id+"/deliveries?filter[status]=lost", "viewer", nil).status)
		require.Equal(t, 422, a.do("GET", subs+"/"+id+"/deliveries?sort=size", "viewer", nil).status)
		require.Equal(t, 404, a.do("GET", subs+"/999/deliveries", "viewer", nil).status)
		did := fmt.Sprint(first["id"])
		r = a.do("GET", subs+"/"+id+"/deliveries/"+did, "viewer", nil)
		require.Equal(t, 200, r.status)
		require.Equal(t, "order.placed", r.data(t)["payload"].(map[string]any)["event"])

		// Replay and replay-parked: 202, and 422 while disabled.
		r = a.do("POST", subs+"/"+id+"/replay/"+did, "admin", nil)
		require.Equal(t, 202, r.status, r.body)
		require.NotEqual(t, did, fmt.Sprint(r.data(t)["id"]))
		require.Equal(t, "pending", r.data(t)["status"])
		require.Equal(t, 403, a.do("POST", subs+"/"+id+"/replay/"+did, "viewer", nil).status)
		require.Equal(t, 404, a.do("POST", subs+"/"+id+"/replay/99999", "admin", nil).status)
		r = a.do("POST", subs+"/"+id+"/replay-parked", "admin", nil)
		require.Equal(t, 202, r.status)
		require.JSONEq(t, `{"data":{"requeued":0}}`, r.body)
		require.Equal(t, 200, a.do("PATCH", subs+"/"+id, "admin", map[string]any{"is_active": false}).status)
		for _, path := range []string{"/replay/" + did, "/replay-parked"} {
			r = a.do("POST", subs+"/"+id+path, "admin", nil)
			require.Equal(t, 422, r.status)
			require.JSONEq(t, `{"message":"The webhook subscription is disabled; enable it first."}`, r.body)
		}

		// Delete: the subscription with its deliveries.
		r = a.do("DELETE", subs+"/"+id, "admin", nil)
		require.Equal(t, 200, r.status)
		require.Equal(t, "Orders 2", r.data(t)["name"])
		require.Equal(t, 404, a.do("GET", subs+"/"+id+"/deliveries/"+did, "viewer", nil).status)
		require.Equal(t, 404, a.do("DELETE", subs+"/"+id, "admin", nil).status)
	})
}

func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, on(d))
		a := b.api(t)
		body := map[string]any{"name": "Orders", "url": "http://127.0.0.1:9/in", "events": []any{"*"}}
		r := a.do("POST", subs, "admin", body, "Idempotency-Key", "key-1")
		require.Equal(t, 201, r.status, r.body)
		first := r.data(t)
		require.NotEmpty(t, first["secret"])
		require.Empty(t, r.header.Get("Idempotent-Replay"))

		// The same request again: the same answer, without the secret.
		same := `{"events":["*"],  "url":"http://127.0.0.1:9/in","name":"Orders"}`
		r = a.do("POST", subs, "admin", same, "Idempotency-Key", "key-1")
		require.Equal(t, 201, r.status, r.body)
		require.Equal(t, "true", r.header.Get("Idempotent-Replay"))
		require.Equal(t, "application/json", r.header.Get("Content-Type"))
		replayed := r.data(t)
		require.Equal(t, first["id"], replayed["id"])
		require.NotContains(t, replayed, "secret")
		list := a.do("GET", subs, "admin", nil).json(t)
		require.EqualValues(t, 1, list["meta"].(map[string]any)["total"], "created once")

		// The same key with another request, another caller, a long key.
		body["name"] = "Other"
		r = a.do("POST", subs, "admin", body, "Idempotency-Key", "key-1")
		require.Equal(t, 409, r.status)
		require.JSONEq(t, `{"message":"This Idempotency-Key was already used for a different request."}`, r.body)
		r = a.do("POST", subs, "admin2", body, "Idempotency-Key", "key-1")
		require.Equal(t, 201, r.status, "keys are per caller")
		r = a.do("POST", subs, "admin", body, "Idempotency-Key", strings.Repeat("k", 256))
		require.Equal(t, 400, r.status)

		// A failure is kept and replayed too.
		bad := map[string]any{"name": "x"}
		require.Equal(t, 422, a.do("POST", subs, "admin", bad, "Idempotency-Key", "key-2").status)
		r = a.do("POST", subs, "admin", bad, "Idempotency-Key", "key-2")
		require.Equal(t, 422, r.status)
		require.Equal(t, "true", r.header.Get("Idempotent-Replay"))

		// A repeat while the first still runs waits for its answer.
		release := make(chan struct{})
		entered := make(chan struct{})
		var once sync.Once
		b.svc.OnSubscribing(func(_ context.Context, s *webhooks.Subscription) *webhooks.Subscription {
			if s.Name == "slow" {
				once.Do(func() { close(entered) })
				<-release
			}
			return s
		})
		slow := map[string]any{"name": "slow", "url": "http://127.0.0.1:9/in", "events": []any{"*"}}
		var wg sync.WaitGroup
		var firstReply, secondReply reply
		wg.Go(func() { firstReply = a.do("POST", subs, "admin", slow, "Idempotency-Key", "key-3") })
		<-entered
		wg.Go(func() { secondReply = a.do("POST", subs, "admin", slow, "Idempotency-Key", "key-3") })
		time.Sleep(300 * time.Millisecond)
		close(release)
		wg.Wait()
		require.Equal(t, 201, firstReply.status)
		require.Equal(t, 201, secondReply.status, secondReply.body)
		require.Equal(t, "true", secondReply.header.Get("Idempotent-Replay"))
		require.Equal(t, firstReply.data(t)["id"], secondReply.data(t)["id"])
	})
}

func (a *api) graphql(token, query string, variables map[string]any) reply {
	a.t.Helper()
	return a.do("POST", "/graphql", token, map[string]any{"query": query, "variables": variables})
}

func TestGraphQL(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.api(t)
	create := `mutation($name: String!, $url: String!, $events: [String!]!) {
		createWebhookSubscription(name: $name, url: $url, events: $events, clientMutationId: "c1") {
			webhook_subscription { id name url events secret is_active consecutive_failures created_at }
			errors { field message }
			clientMutationId
		}
	}`
	r := a.graphql("admin", create, map[string]any{"name": "G", "url": "http://127.0.0.1:9/g", "events": []any{"order.placed"}})
	require.Equal(t, 200, r.status, r.body)
	out := r.json(t)
	require.Nil(t, out["errors"], r.body)
	payload := out["data"].(map[string]any)["createWebhookSubscription"].(map[string]any)
	require.Equal(t, "c1", payload["clientMutationId"])
	require.Empty(t, payload["errors"])
	sub := payload["webhook_subscription"].(map[string]any)
	require.Regexp(t, `^whsec_`, sub["secret"])
	require.Equal(t, []any{"order.placed"}, sub["events"])
	id := sub["id"].(string)

	// Validation errors come back in the payload.
	r = a.graphql("admin", create, map[string]any{"name": "G", "url": "ftp://x", "events": []any{"nope"}})
	payload = r.json(t)["data"].(map[string]any)["createWebhookSubscription"].(map[string]any)
	require.Nil(t, payload["webhook_subscription"])
	require.Equal(t, []any{map[string]any{"field": "url", "message": "The url field must be a valid URL."},
		map[string]any{"field": "events.0", "message": "The events.0 field format is invalid."}}, payload["errors"])

	r = a.graphql("admin", `mutation { updateWebhookSubscription(id: "`+id+`", name: "G2", is_active: false) {
		webhook_subscription { name is_active secret } errors { field } } }`, nil)
	upd := r.json(t)["data"].(map[string]any)["updateWebhookSubscription"].(map[string]any)["webhook_subscription"].(map[string]any)
	require.Equal(t, map[string]any{"name": "G2", "is_active": false, "secret": nil}, upd)

	require.NoError(t, dispatchErr(b.svc.Dispatch(context.Background(), placed(1))))
	_, err := b.svc.UpdateSubscription(context.Background(), mustInt(id), webhooks.SubscriptionInput{IsActive: yes()})
	require.NoError(t, err)
	require.NoError(t, dispatchErr(b.svc.Dispatch(context.Background(), placed(2))))
	did := fmt.Sprint(b.deliveriesOf(t, mustInt(id))[0].ID)
	r = a.graphql("admin", `mutation { replayWebhookDelivery(subscription_id: "`+id+`", delivery_id: "`+did+`") {
		delivery { id event status subscription_id } } }`, nil)
	rep := r.json(t)["data"].(map[string]any)["replayWebhookDelivery"].(map[string]any)["delivery"].(map[string]any)
	require.Equal(t, "pending", rep["status"])
	require.NotEqual(t, did, rep["id"])

	r = a.graphql("viewer", `query { webhookSubscriptions { id name } webhookSubscription(id: "`+id+`") { name } }`, nil)
	q := r.json(t)["data"].(map[string]any)
	require.Len(t, q["webhookSubscriptions"], 1)
	require.Equal(t, "G2", q["webhookSubscription"].(map[string]any)["name"])

	// Abilities per field; a token is needed at all.
	r = a.graphql("viewer", `mutation { deleteWebhookSubscription(id: "`+id+`") { deleted_id } }`, nil)
	errs := r.json(t)["errors"].([]any)
	require.Equal(t, "This action is unauthorized.", errs[0].(map[string]any)["message"])
	require.Equal(t, 401, a.graphql("", `query { webhookSubscriptions { id } }`, nil).status)
	r = a.graphql("admin", `mutation { deleteWebhookSubscription(id: "`+id+`", clientMutationId: "d") { deleted_id clientMutationId } }`, nil)
	require.JSONEq(t, `{"data":{"deleteWebhookSubscription":{"deleted_id":"`+id+`","clientMutationId":"d"}}}`, r.body)
	r = a.graphql("admin", `mutation { deleteWebhookSubscription(id: "`+id+`") { deleted_id } }`, nil)
	require.Equal(t, "Not found.", r.json(t)["errors"].([]any)[0].(map[string]any)["message"])
	r = a.do("POST", "/graphql", "admin", map[string]any{"query": ""})
	require.Equal(t, 422, r.status)
	r = a.graphql("admin", `{ nope }`, nil)
	require.NotEmpty(t, r.json(t)["errors"])
}

func mustInt(s string) int64 {
	var n int64
	_, err := fmt.Sscan(s, &n)
	if err != nil {
		panic(err)
	}
	return n
}
