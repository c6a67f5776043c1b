package webhookstest

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/webhooks"
)

// ctx is the context of every store call of the suite.
var ctx = context.Background()

// base is the suite's clock: every time is an offset from it.
var base = time.Date(2026, 11, 22, 10, 0, 0, 123456000, time.UTC)

func at(d time.Duration) time.Time { return base.Add(d) }
func ptr(t time.Time) *time.Time   { return &t }

// newSub stores a subscription named name to order.placed and "*".
func newSub(t *testing.T, s webhooks.Store, name string, active bool) *webhooks.Subscription {
	t.Helper()
	sub := &webhooks.Subscription{Name: name, URL: "https://hooks.example/" + name, Events: []string{"order.placed", "*"},
		SealedSecret: "sealed-" + name, IsActive: active, CreatedAt: at(0), UpdatedAt: at(0)}
	require.NoError(t, s.CreateSubscription(ctx, sub))
	require.Positive(t, sub.ID)
	return sub
}

// payload is the n-th event's envelope.
func payload(n int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"id":"evt-%d","event":"order.placed","created_at":"2026-11-22T10:00:00+00:00","data":{"z":1,"a":"ü/<>"}}`, n))
}

// newDelivery is the n-th event's delivery to sub (not stored).
func newDelivery(sub int64, n int, status webhooks.Status, next *time.Time) webhooks.Delivery {
	return webhooks.Delivery{SubscriptionID: sub, Event: "order.placed", EventID: fmt.Sprintf("evt-%d", n), Status: status,
		NextAttemptAt: next, Payload: payload(n), PayloadHash: fmt.Sprintf("%064d", n), RequestID: "req-1",
		CreatedAt: at(time.Duration(n) * time.Second), UpdatedAt: at(time.Duration(n) * time.Second)}
}

// create stores ds.
func create(t *testing.T, s webhooks.Store, ds ...webhooks.Delivery) []webhooks.Delivery {
	t.Helper()
	require.NoError(t, s.CreateDeliveries(ctx, ds))
	return ds
}

// RunStoreTests runs the conformance suite against the stores newStore
// returns (a fresh, empty one per call).
func RunStoreTests(t *testing.T, newStore func(t *testing.T) webhooks.Store) {
	testkit.RunAreas(t, newStore, []testkit.Area[webhooks.Store]{
		{Name: "Subscriptions", Run: exerciseSubscriptions},
		{Name: "Fanout", Run: exerciseFanout},
		{Name: "Owners", Run: exerciseOwners},
		{Name: "EndpointSettings", Run: exerciseEndpointSettings},
		{Name: "Channels", Run: exerciseChannels},
		{Name: "Deliveries", Run: exerciseDeliveries},
		{Name: "ReadDeliveries", Run: exerciseReadDeliveries},
		{Name: "ClaimAndFinish", Run: exerciseClaimAndFinish},
		{Name: "FinishDelivered", Run: exerciseFinishDelivered},
		{Name: "ClaimDue", Run: exerciseClaimDue},
		{Name: "ClaimChosen", Run: exerciseClaimChosen},
		{Name: "RequeueParked", Run: exerciseRequeueParked},
		{Name: "ParkDue", Run: exerciseParkDue},
		{Name: "Prune", Run: exercisePrune},
		{Name: "Inbound", Run: exerciseInbound},
		{Name: "Redact", Run: exerciseRedact},
	})
}

// exerciseSubscriptions is the Subscriptions part of RunStoreTests.
func exerciseSubscriptions(t *testing.T, newStore func(t *testing.T) webhooks.Store) {
	t.Parallel()
	s := newStore(t)
	a := newSub(t, s, "alpha", true)
	b := newSub(t, s, "beta", false)
	got, err := s.Subscription(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, "alpha", got.Name)
	require.Equal(t, []string{"order.placed", "*"}, got.Events)
	require.Equal(t, "sealed-alpha", got.SealedSecret)
	require.Equal(t, at(0).Truncate(time.Microsecond), got.CreatedAt)
	require.Equal(t, time.UTC, got.CreatedAt.Location())
	require.True(t, got.IsActive)
	require.Nil(t, got.LastSuccessAt)
	_, err = s.Subscription(ctx, b.ID+100)
	require.ErrorIs(t, err, webhooks.ErrNotFound)

	got.Name, got.URL, got.Events, got.SealedSecret = "alpha2", "https://other.example/x", []string{"payment.failed"}, "sealed-2"
	got.IsActive, got.StandardWebhooks, got.ConsecutiveFailures, got.UpdatedAt = false, true, 3, at(time.Hour)
	require.NoError(t, s.UpdateSubscription(ctx, got))
	again, err := s.Subscription(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, "alpha2", again.Name)
	require.Equal(t, "https://other.example/x", again.URL)
	require.Equal(t, []string{"payment.failed"}, again.Events)
	require.Equal(t, "sealed-2", again.SealedSecret)
	require.False(t, again.IsActive)
	require.True(t, again.StandardWebhooks)
	require.Equal(t, 3, again.ConsecutiveFailures)
	require.Equal(t, at(time.Hour), again.UpdatedAt)
	require.Equal(t, at(0), again.CreatedAt)
	require.ErrorIs(t, s.UpdateSubscription(ctx, &webhooks.Subscription{ID: b.ID + 100, Events: []string{}}), webhooks.ErrNotFound)

	c := newSub(t, s, "gamma", true)
	fan, err := s.CreateFanout(ctx, nil, newDelivery(0, 9, webhooks.StatusPending, ptr(at(0))))
	require.NoError(t, err)
	require.Len(t, fan, 1, "only the active subscription")
	require.Equal(t, c.ID, fan[0].SubscriptionID)
	require.NoError(t, s.DeleteSubscription(ctx, c.ID))
	c = newSub(t, s, "gamma", true)

	list, total, err := s.ListSubscriptions(ctx, webhooks.SubscriptionQuery{Sort: "name", Limit: 10})
	require.NoError(t, err)
	require.Equal(t, 3, total)
	require.Equal(t, []string{"alpha2", "beta", "gamma"}, []string{list[0].Name, list[1].Name, list[2].Name})
	list, _, err = s.ListSubscriptions(ctx, webhooks.SubscriptionQuery{Sort: "-name", Limit: 1, Offset: 1})
	require.NoError(t, err)
	require.Equal(t, "beta", list[0].Name)
	no := false
	list, total, err = s.ListSubscriptions(ctx, webhooks.SubscriptionQuery{Active: &no, Limit: 10})
	require.NoError(t, err)
	require.Equal(t, 2, total)
	require.Len(t, list, 2)
	require.Equal(t, b.ID, list[0].ID, "newest first by default (same time: higher id first)")

	create(t, s, newDelivery(c.ID, 1, webhooks.StatusPending, ptr(at(0))))
	require.NoError(t, s.DeleteSubscription(ctx, c.ID))
	require.ErrorIs(t, s.DeleteSubscription(ctx, c.ID), webhooks.ErrNotFound)
	_, total, err = s.ListDeliveries(ctx, webhooks.DeliveryQuery{SubscriptionID: c.ID, Limit: 10})
	require.NoError(t, err)
	require.Zero(t, total, "deliveries go with their subscription")
}

// exerciseFanout is the Fanout part of RunStoreTests.
func exerciseFanout(t *testing.T, newStore func(t *testing.T) webhooks.Store) {
	t.Parallel()
	s := newStore(t)
	mk := func(name string, active bool, events ...string) *webhooks.Subscription {
		sub := &webhooks.Subscription{Name: name, URL: "https://hooks.example/" + name, Events: events,
			SealedSecret: "sealed", IsActive: active, CreatedAt: at(0), UpdatedAt: at(0)}
		require.NoError(t, s.CreateSubscription(ctx, sub))
		return sub
	}
	exact := mk("exact", true, "payment.failed", "order.placed")
	mk("other", true, "order.placed.extra", "order")
	all := mk("all", true, "*")
	mk("off", false, "*")
	tmpl := newDelivery(0, 7, webhooks.StatusPending, ptr(at(time.Minute)))
	tmpl.OrderID, tmpl.CustomerID = "ord-1", "cus-1"
	var ds []webhooks.Delivery
	require.NoError(t, s.RunInTx(ctx, func(ctx context.Context, _ *sql.Tx) (err error) {
		ds, err = s.CreateFanout(ctx, nil, tmpl)
		return err
	}))
	require.Len(t, ds, 2)
	require.Equal(t, []int64{exact.ID, all.ID}, []int64{ds[0].SubscriptionID, ds[1].SubscriptionID}, "by subscription")
	for _, d := range ds {
		require.Positive(t, d.ID)
		got, err := s.Delivery(ctx, d.ID)
		require.NoError(t, err)
		require.Equal(t, d.SubscriptionID, got.SubscriptionID)
		require.Equal(t, string(payload(7)), string(got.Payload), "byte for byte")
		require.Equal(t, tmpl.PayloadHash, got.PayloadHash)
		require.Equal(t, "order.placed", got.Event)
		require.Equal(t, "evt-7", got.EventID)
		require.Equal(t, webhooks.StatusPending, got.Status)
		require.Equal(t, at(time.Minute).Truncate(time.Microsecond), *got.NextAttemptAt)
		require.Equal(t, "ord-1", got.OrderID)
		require.Equal(t, "cus-1", got.CustomerID)
		require.Equal(t, "req-1", got.RequestID)
		require.Equal(t, tmpl.CreatedAt.Truncate(time.Microsecond), got.CreatedAt)
	}

	// Nobody listens: nothing.
	none := tmpl
	none.Event = "customer.updated"
	mkNone, err := s.CreateFanout(ctx, nil, none)
	require.NoError(t, err)
	require.Len(t, mkNone, 1, "only the catch-all listens")

	// A fan-out in a transaction that fails afterwards stores nothing:
	// in the one the context carries, or in one the host hands it.
	boom := errors.New("boom")
	err = s.RunInTx(ctx, func(ctx context.Context, _ *sql.Tx) error {
		ds, err := s.CreateFanout(ctx, nil, tmpl)
		require.NoError(t, err)
		require.Len(t, ds, 2)
		return boom
	})
	require.ErrorIs(t, err, boom)
	err = s.RunInTx(ctx, func(_ context.Context, tx *sql.Tx) error {
		ds, err := s.CreateFanout(context.Background(), tx, tmpl)
		require.NoError(t, err)
		require.Len(t, ds, 2)
		return boom
	})
	require.ErrorIs(t, err, boom)
	_, total, err := s.ListDeliveries(ctx, webhooks.DeliveryQuery{SubscriptionID: exact.ID, Limit: 10})
	require.NoError(t, err)
	require.Equal(t, 1, total)
}

// exerciseDeliveries is the Deliveries part of RunStoreTests.
func exerciseDeliveries(t *testing.T, newStore func(t *testing.T) webhooks.Store) {
	t.Parallel()
	s := newStore(t)
	a := newSub(t, s, "a", true)
	b := newSub(t, s, "b", true)
	ds := []webhooks.Delivery{newDelivery(a.ID, 1, webhooks.StatusPending, ptr(at(time.Minute))), newDelivery(b.ID, 2, webhooks.StatusPending, ptr(at(time.Minute)))}
	ds[1].OrderID, ds[1].CustomerID = "ord-9", "cus-7"
	require.NoError(t, s.CreateDeliveries(ctx, ds))
	require.NotEqual(t, ds[0].ID, ds[1].ID)
	got, err := s.Delivery(ctx, ds[1].ID)
	require.NoError(t, err)
	require.Equal(t, b.ID, got.SubscriptionID, "ids are matched to their rows")
	require.Equal(t, string(payload(2)), string(got.Payload), "the payload comes back byte for byte")
	require.Equal(t, "evt-2", got.EventID)
	require.Equal(t, webhooks.StatusPending, got.Status)
	require.Equal(t, at(time.Minute).Truncate(time.Microsecond), *got.NextAttemptAt)
	require.Equal(t, "ord-9", got.OrderID)
	require.Equal(t, "cus-7", got.CustomerID)
	require.Equal(t, "req-1", got.RequestID)
	require.Nil(t, got.ResponseStatus)
	require.Nil(t, got.ResponseBody)
	_, err = s.Delivery(ctx, ds[1].ID+100)
	require.ErrorIs(t, err, webhooks.ErrNotFound)

	// Deliveries made in a transaction that fails afterwards are undone.
	boom := errors.New("boom")
	err = s.RunInTx(ctx, func(ctx context.Context, _ *sql.Tx) error {
		require.NoError(t, s.CreateDeliveries(ctx, []webhooks.Delivery{newDelivery(a.ID, 3, webhooks.StatusPending, ptr(at(0)))}))
		return boom
	})
	require.ErrorIs(t, err, boom)
	_, total, err := s.ListDeliveries(ctx, webhooks.DeliveryQuery{SubscriptionID: a.ID, Limit: 10})
	require.NoError(t, err)
	require.Equal(t, 1, total)

	// Several deliveries of one subscription in one call.
	more := create(t, s, newDelivery(a.ID, 4, webhooks.StatusDelivered, nil), newDelivery(a.ID, 5, webhooks.StatusRetrying, ptr(at(0))))
	more[0].Event = "payment.failed"
	require.NotEqual(t, more[0].ID, more[1].ID)
	d4, err := s.Delivery(ctx, more[0].ID)
	require.NoError(t, err)
	require.Equal(t, "evt-4", d4.EventID)
	list, total, err := s.ListDeliveries(ctx, webhooks.DeliveryQuery{SubscriptionID: a.ID, Limit: 10})
	require.NoError(t, err)
	require.Equal(t, 3, total)
	require.Equal(t, []int64{more[1].ID, more[0].ID, ds[0].ID}, []int64{list[0].ID, list[1].ID, list[2].ID}, "newest first")
	require.Nil(t, list[0].Payload, "lists leave the payload out")
	list, total, err = s.ListDeliveries(ctx, webhooks.DeliveryQuery{SubscriptionID: a.ID, Status: webhooks.StatusDelivered, Limit: 10})
	require.NoError(t, err)
	require.Equal(t, 1, total)
	require.Equal(t, more[0].ID, list[0].ID)
	list, _, err = s.ListDeliveries(ctx, webhooks.DeliveryQuery{SubscriptionID: a.ID, Sort: "created_at", Limit: 2})
	require.NoError(t, err)
	require.Equal(t, []int64{ds[0].ID, more[0].ID}, []int64{list[0].ID, list[1].ID})
	_, total, err = s.ListDeliveries(ctx, webhooks.DeliveryQuery{SubscriptionID: a.ID, Event: "nope", Limit: 10})
	require.NoError(t, err)
	require.Zero(t, total)

	recent, err := s.RecentDeliveries(ctx, []int64{a.ID, b.ID, 999}, 2)
	require.NoError(t, err)
	require.Len(t, recent[a.ID], 2)
	require.Equal(t, more[1].ID, recent[a.ID][0].ID)
	require.Len(t, recent[b.ID], 1)
	require.Empty(t, recent[999])
}

// exerciseReadDeliveries is the ReadDeliveries part of RunStoreTests:
// several deliveries read at once, with their subscriptions.
func exerciseReadDeliveries(t *testing.T, newStore func(t *testing.T) webhooks.Store) {
	t.Parallel()
	s := newStore(t)
	sub := newSub(t, s, "a", true)
	claim, lease := at(5*time.Minute), at(10*time.Minute)
	d := create(t, s, newDelivery(sub.ID, 1, webhooks.StatusPending, &claim))[0]
	other := create(t, s, newDelivery(sub.ID, 2, webhooks.StatusRetrying, &lease))[0]
	read2, subs, err := s.ReadDeliveries(ctx, []int64{other.ID, d.ID, 99999})
	require.NoError(t, err)
	require.Len(t, read2, 2)
	require.ElementsMatch(t, []int64{d.ID, other.ID}, []int64{read2[0].ID, read2[1].ID})
	for _, r := range read2 {
		require.NotEmpty(t, r.Payload)
	}
	require.Len(t, subs, 1)
	require.Equal(t, "sealed-a", subs[sub.ID].SealedSecret)
	none, subs, err := s.ReadDeliveries(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, none)
	require.Empty(t, subs)
}

// exercisePrune is the Prune part of RunStoreTests.
func exercisePrune(t *testing.T, newStore func(t *testing.T) webhooks.Store) {
	t.Parallel()
	s := newStore(t)
	sub := newSub(t, s, "a", true)
	var ds []webhooks.Delivery
	for i, st := range []webhooks.Status{webhooks.StatusDelivered, webhooks.StatusFailed, webhooks.StatusDelivered,
		webhooks.StatusPending, webhooks.StatusRetrying, webhooks.StatusParked, webhooks.StatusDelivered, webhooks.StatusFailed} {
		ds = append(ds, newDelivery(sub.ID, i+1, st, nil))
	}
	ds[6].CreatedAt, ds[7].CreatedAt = at(48*time.Hour), at(48*time.Hour) // recent
	create(t, s, ds...)
	n, err := s.PruneDeliveries(ctx, at(24*time.Hour), 2)
	require.NoError(t, err)
	require.Equal(t, 3, n, "old and finished only, in batches")
	list, total, err := s.ListDeliveries(ctx, webhooks.DeliveryQuery{SubscriptionID: sub.ID, Sort: "id", Limit: 10})
	require.NoError(t, err)
	require.Equal(t, 5, total)
	var statuses []webhooks.Status
	for _, d := range list {
		statuses = append(statuses, d.Status)
	}
	require.Equal(t, []webhooks.Status{webhooks.StatusPending, webhooks.StatusRetrying, webhooks.StatusParked,
		webhooks.StatusDelivered, webhooks.StatusFailed}, statuses)
}

// exerciseRedact is the Redact part of RunStoreTests.
func exerciseRedact(t *testing.T, newStore func(t *testing.T) webhooks.Store) {
	t.Parallel()
	s := newStore(t)
	sub := newSub(t, s, "a", true)
	mk := func(n int, order, customer string) webhooks.Delivery {
		d := newDelivery(sub.ID, n, webhooks.StatusDelivered, nil)
		d.OrderID, d.CustomerID = order, customer
		body := "receiver said hi"
		d.ResponseBody = &body
		return d
	}
	ds := create(t, s, mk(1, "o1", ""), mk(2, "", "c1"), mk(3, "o2", "c2"), mk(4, "o3", ""), mk(5, "", ""))
	about, err := s.DeliveriesAbout(ctx, "c1", []string{"o1", "o3"}, 0, 2)
	require.NoError(t, err)
	require.Equal(t, []int64{ds[0].ID, ds[1].ID}, []int64{about[0].ID, about[1].ID})
	require.NotEmpty(t, about[0].Payload)
	about, err = s.DeliveriesAbout(ctx, "c1", []string{"o1", "o3"}, ds[1].ID, 2)
	require.NoError(t, err)
	require.Len(t, about, 1)
	require.Equal(t, ds[3].ID, about[0].ID)
	about, err = s.DeliveriesAbout(ctx, "", nil, 0, 10)
	require.NoError(t, err)
	require.Empty(t, about)

	redacted := json.RawMessage(`{"id":"evt-1","data":{"email":"[redacted]"}}`)
	require.NoError(t, s.RedactDelivery(ctx, ds[0].ID, redacted, "abc"))
	row, err := s.Delivery(ctx, ds[0].ID)
	require.NoError(t, err)
	require.Equal(t, string(redacted), string(row.Payload))
	require.Equal(t, "abc", row.PayloadHash)
	require.Nil(t, row.ResponseBody)
	require.NoError(t, s.RedactDelivery(ctx, ds[1].ID, nil, ""))
	row, err = s.Delivery(ctx, ds[1].ID)
	require.NoError(t, err)
	require.Equal(t, string(payload(2)), string(row.Payload), "a nil payload keeps the payload")
	require.Nil(t, row.ResponseBody)
	require.ErrorIs(t, s.RedactDelivery(ctx, ds[4].ID+100, nil, ""), webhooks.ErrNotFound)
}

// exerciseOwners: a subscription keeps its owner; lists filter by it; a
// fan-out reaches the event's owner's subscriptions, or every owner's.
func exerciseOwners(t *testing.T, newStore func(t *testing.T) webhooks.Store) {
	t.Parallel()
	s := newStore(t)
	mk := func(owner, name string) *webhooks.Subscription {
		sub := &webhooks.Subscription{Owner: owner, Name: name, URL: "https://hooks.example/" + name, Events: []string{"*"},
			SealedSecret: "sealed", IsActive: true, CreatedAt: at(0), UpdatedAt: at(0)}
		require.NoError(t, s.CreateSubscription(ctx, sub))
		return sub
	}
	a, b, def := mk("acct_a", "a"), mk("acct_b", "b"), mk(webhooks.DefaultOwner, "default")
	got, err := s.Subscription(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, "acct_a", got.Owner)
	b.Name, b.Owner = "b2", "acct_a" // an update never moves it
	require.NoError(t, s.UpdateSubscription(ctx, b))
	got, err = s.Subscription(ctx, b.ID)
	require.NoError(t, err)
	require.Equal(t, "acct_b", got.Owner)
	for owner, want := range map[string][]int64{"acct_a": {a.ID}, "acct_b": {b.ID}, "": {def.ID}, "acct_c": nil} {
		o := owner
		list, total, err := s.ListSubscriptions(ctx, webhooks.SubscriptionQuery{Owner: &o, Limit: 10})
		require.NoError(t, err)
		require.Equal(t, len(want), total, owner)
		var ids []int64
		for _, l := range list {
			ids = append(ids, l.ID)
			require.Equal(t, owner, l.Owner)
		}
		require.Equal(t, want, ids, owner)
	}
	tmpl := newDelivery(0, 1, webhooks.StatusPending, ptr(at(time.Minute)))
	for owner, want := range map[string][]int64{"acct_a": {a.ID}, "": {def.ID}, webhooks.AllOwners: {a.ID, b.ID, def.ID}, "acct_c": nil} {
		tmpl.Owner = owner
		ds, err := s.CreateFanout(ctx, nil, tmpl)
		require.NoError(t, err)
		var ids []int64
		for _, d := range ds {
			ids = append(ids, d.SubscriptionID)
		}
		require.Equal(t, want, ids, owner)
	}
}

// exerciseEndpointSettings: a description, headers and rate limit kept
// and changed; TakeRate gives limit places a second, then none until the
// next second.
func exerciseEndpointSettings(t *testing.T, newStore func(t *testing.T) webhooks.Store) {
	t.Parallel()
	s := newStore(t)
	sub := &webhooks.Subscription{Name: "s", URL: "https://hooks.example/s", Events: []string{"*"}, SealedSecret: "sealed", IsActive: true,
		Description: "the warehouse", Headers: map[string]string{"X-Tenant": "acct 1"}, RateLimit: 2, CreatedAt: at(0), UpdatedAt: at(0)}
	require.NoError(t, s.CreateSubscription(ctx, sub))
	got, err := s.Subscription(ctx, sub.ID)
	require.NoError(t, err)
	require.Equal(t, "the warehouse", got.Description)
	require.Equal(t, map[string]string{"X-Tenant": "acct 1"}, got.Headers)
	require.Equal(t, 2, got.RateLimit)
	got.Headers, got.Description, got.RateLimit = nil, "", 0
	require.NoError(t, s.UpdateSubscription(ctx, got))
	got, err = s.Subscription(ctx, sub.ID)
	require.NoError(t, err)
	require.Empty(t, got.Headers)
	require.Empty(t, got.Description)
	require.Zero(t, got.RateLimit)

	for i, want := range []bool{true, true, false, false} {
		took, err := s.TakeRate(ctx, sub.ID, 1000, 2)
		require.NoError(t, err)
		require.Equal(t, want, took, "place %d of second 1000", i+1)
	}
	took, err := s.TakeRate(ctx, sub.ID, 1001, 2)
	require.NoError(t, err)
	require.True(t, took, "a new second")
	took, err = s.TakeRate(ctx, sub.ID, 1001, 3)
	require.NoError(t, err)
	require.True(t, took, "a higher limit, the same second")
	// A late attempt for a second gone by (another instance has moved on)
	// takes nothing: restarting that second's count would let it exceed
	// the limit.
	for range 3 {
		took, err = s.TakeRate(ctx, sub.ID, 1000, 2)
		require.NoError(t, err)
		require.False(t, took, "second 1000 is over")
	}
	took, err = s.TakeRate(ctx, sub.ID, 1001, 2)
	require.NoError(t, err)
	require.False(t, took, "and second 1001 kept its count (two taken): a limit of two is spent")
}

// exerciseChannels: a fan-out reaches the endpoints without channels and
// those with one of the event's; an event without channels reaches only
// the endpoints without.
func exerciseChannels(t *testing.T, newStore func(t *testing.T) webhooks.Store) {
	t.Parallel()
	s := newStore(t)
	mk := func(name string, channels ...string) *webhooks.Subscription {
		sub := &webhooks.Subscription{Name: name, URL: "https://hooks.example/" + name, Events: []string{"*"}, Channels: channels,
			SealedSecret: "sealed", IsActive: true, CreatedAt: at(0), UpdatedAt: at(0)}
		require.NoError(t, s.CreateSubscription(ctx, sub))
		return sub
	}
	all, one, two := mk("all"), mk("one", "store-1"), mk("two", "store-1", "store-2")
	got, err := s.Subscription(ctx, two.ID)
	require.NoError(t, err)
	require.Equal(t, []string{"store-1", "store-2"}, got.Channels)
	tmpl := newDelivery(0, 1, webhooks.StatusPending, ptr(at(time.Minute)))
	for _, c := range []struct {
		channels []string
		want     []int64
	}{
		{nil, []int64{all.ID}},
		{[]string{"store-1"}, []int64{all.ID, one.ID, two.ID}},
		{[]string{"store-2"}, []int64{all.ID, two.ID}},
		{[]string{"store-3", "store-2"}, []int64{all.ID, two.ID}},
		{[]string{"store-3"}, []int64{all.ID}},
	} {
		tmpl.Channels = c.channels
		ds, err := s.CreateFanout(ctx, nil, tmpl)
		require.NoError(t, err)
		var ids []int64
		for _, d := range ds {
			ids = append(ids, d.SubscriptionID)
		}
		require.Equal(t, c.want, ids, "channels %v", c.channels)
	}
}
