package webhooks_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
)

type Order struct {
	ID         int64
	CustomerID int64
	Email      string
	Total      webhooks.Money
}

type OrderPlacedEvent struct{ Order Order }

func (OrderPlacedEvent) WebhookEvent() string { return "order.placed" }

type PaymentFailed struct{ OrderID int64 }

func placed(id int64) OrderPlacedEvent {
	return OrderPlacedEvent{Order: Order{ID: id, CustomerID: 7, Email: "ann@example.test", Total: webhooks.Money{Amount: 1500, Currency: "EUR"}}}
}

// deliveriesOf lists a subscription's deliveries, oldest first.
func (b *bundle) deliveriesOf(t *testing.T, sub int64) []webhooks.Delivery {
	t.Helper()
	list, _, err := b.store.ListDeliveries(context.Background(), webhooks.DeliveryQuery{SubscriptionID: sub, Sort: "id", Limit: 1000})
	require.NoError(t, err)
	return list
}

func TestDispatchDelivers(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		meter := &testkit.Meter{}
		b := setup(t, on(d), running, func(o *setupOptions) { o.service = func(so *webhooks.Options) { so.Meter = meter } })
		ctx := context.Background()
		rv1, rv2, rv3 := newReceiver(t), newReceiver(t), newReceiver(t)
		a := b.subscribe(t, rv1.URL+"/hooks", "order.placed")
		all := b.subscribe(t, rv2.URL, "*")
		off := b.subscribe(t, rv3.URL, "*")
		_, err := b.svc.UpdateSubscription(ctx, off.ID, webhooks.SubscriptionInput{IsActive: no()})
		require.NoError(t, err)
		other := b.subscribe(t, rv3.URL, "payment.failed")

		f, err := b.svc.Dispatch(webhooks.WithRequestID(ctx, "req-42"), placed(1001))
		require.NoError(t, err)
		require.Equal(t, 2, f.Deliveries)
		g1, g2 := rv1.wait(t, 20*time.Second), rv2.wait(t, 20*time.Second)
		for _, g := range []received{g1, g2} {
			require.Equal(t, "application/json", g.header.Get("Content-Type"))
			require.Equal(t, "order.placed", g.header.Get("X-Platform-Event"))
			require.Equal(t, "req-42", g.header.Get("X-Request-Id"))
			require.Equal(t, webhooks.UserAgentDefault, g.header.Get("User-Agent"))
			require.True(t, specVerify("whsec_test_secret_0123", g.header.Get("X-Platform-Signature"), g.body, b.clock.Now()),
				"a receiver written from the documented scheme verifies %q", g.header.Get("X-Platform-Signature"))
			var env map[string]any
			require.NoError(t, json.Unmarshal(g.body, &env))
			require.Equal(t, f.EventID, env["id"])
			require.Equal(t, "order.placed", env["event"])
			require.Equal(t, "2026-11-22T10:00:00+00:00", env["created_at"])
			require.Equal(t, map[string]any{"order": map[string]any{"id": 1001.0, "customer_id": 7.0, "email": "ann@example.test",
				"total": map[string]any{"amount": 1500.0, "currency": "EUR"}}}, env["data"])
		}
		require.Equal(t, "/hooks", g1.path)
		require.NotEqual(t, g1.header.Get("X-Platform-Delivery"), g2.header.Get("X-Platform-Delivery"))

		require.Eventually(t, func() bool {
			ds := b.deliveriesOf(t, a.ID)
			return len(ds) == 1 && ds[0].Status == webhooks.StatusDelivered
		}, 20*time.Second, 20*time.Millisecond)
		row := b.delivery(t, b.deliveriesOf(t, a.ID)[0].ID)
		require.Equal(t, strconv.FormatInt(row.ID, 10), g1.header.Get("X-Platform-Delivery"))
		require.Equal(t, 1, row.Attempts)
		require.Equal(t, 200, *row.ResponseStatus)
		require.Equal(t, "answer 1", *row.ResponseBody)
		require.Equal(t, b.clock.Now(), *row.DeliveredAt)
		require.Nil(t, row.NextAttemptAt)
		require.Equal(t, "1001", row.OrderID)
		require.Equal(t, "7", row.CustomerID)
		require.Equal(t, string(g1.body), string(row.Payload), "the recorded payload is what was sent")
		sub, err := b.svc.Subscription(ctx, a.ID)
		require.NoError(t, err)
		require.Equal(t, b.clock.Now(), *sub.LastSuccessAt)
		require.Len(t, b.deliveriesOf(t, all.ID), 1)
		require.Eventually(t, func() bool { return meter.Count(groundwork.MetricDeliveries, "delivered") == 2 }, 20*time.Second, 20*time.Millisecond)
		require.Equal(t, []float64{0, 0}, meter.Observed(groundwork.MetricDeliveryLag), "sent at once, by the test's clock")
		require.Empty(t, b.deliveriesOf(t, off.ID), "inactive subscriptions get no new deliveries")
		require.Empty(t, b.deliveriesOf(t, other.ID))
		time.Sleep(200 * time.Millisecond)
		require.Zero(t, rv3.count.Load())
		require.EqualValues(t, 1, rv1.count.Load(), "delivered once")

		// An unknown event is refused and reported, never raised.
		_, err = b.svc.Dispatch(ctx, webhooks.Event{Name: "no.such.event"})
		require.ErrorIs(t, err, webhooks.ErrUnknownEvent)
	})
}

func TestDispatchTx(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, on(d), running)
		ctx := context.Background()
		rv := newReceiver(t)
		sub := b.subscribe(t, rv.URL, "order.placed")
		rollback := errors.New("rollback")
		err := b.db.InTx(ctx, func(tx *sqlx.Tx) error {
			f, err := b.svc.DispatchTx(ctx, tx.Tx, placed(1))
			require.NoError(t, err)
			require.Equal(t, 1, f.Deliveries)
			return rollback
		})
		require.ErrorIs(t, err, rollback)
		require.Empty(t, b.deliveriesOf(t, sub.ID), "nothing is recorded if the transaction rolls back")

		require.NoError(t, b.db.InTx(ctx, func(tx *sqlx.Tx) error {
			_, err := b.svc.DispatchTx(ctx, tx.Tx, placed(2))
			return err
		}))
		g := rv.wait(t, 20*time.Second)
		require.Contains(t, string(g.body), `"id":2`)
		time.Sleep(300 * time.Millisecond)
		require.EqualValues(t, 1, rv.count.Load(), "the rolled-back event is never sent")
		_, err = b.svc.DispatchTx(ctx, nil, placed(3))
		require.Error(t, err)
	})
}

// A service with neither a queue nor a running loop (a command-line tool
// on the database) records its deliveries due at once, so the loop of any
// instance sends them without waiting out a claim nobody holds.
func TestDispatchWithoutQueueIsDueAtOnce(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *setupOptions) { o.service = func(so *webhooks.Options) { so.Enqueuer = nil } })
	sub := b.subscribe(t, "http://127.0.0.1:9/hook", "order.placed")
	require.NoError(t, dispatchErr(b.svc.Dispatch(context.Background(), placed(1))))
	list := b.deliveriesOf(t, sub.ID)
	require.Len(t, list, 1)
	require.Equal(t, b.clock.Now(), *list[0].NextAttemptAt, "due now, not after a claim timeout")
}

// The delivery state table, walked with a fake clock: retries on the
// backoff schedule, giving up at max_attempts, the failure streak
// switching the subscription off at 10 (hook and event once), parking,
// re-enabling without resending, replay-parked, replay.
func TestStateTable(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, on(d))
		ctx := context.Background()
		rv := newReceiver(t)
		rv.answer(func(int) int { return http.StatusInternalServerError })
		var mu sync.Mutex
		var failedHooks, disabledHooks int
		var events []string
		b.svc.OnFailed(func(_ context.Context, d *webhooks.Delivery, reason error) {
			mu.Lock()
			defer mu.Unlock()
			failedHooks++
			require.ErrorContains(t, reason, "receiver answered 50")
		})
		b.svc.OnSubscriptionDisabled(func(_ context.Context, s *webhooks.Subscription) {
			mu.Lock()
			defer mu.Unlock()
			disabledHooks++
			require.False(t, s.IsActive)
			require.Empty(t, s.SealedSecret)
		})
		b.svc.OnEvent(func(_ context.Context, e any) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, fmt.Sprintf("%T", e))
		})
		sub := b.subscribe(t, rv.URL, "*")

		// One delivery through all its attempts.
		require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, placed(1))))
		first := b.deliveriesOf(t, sub.ID)[0]
		require.Equal(t, webhooks.StatusPending, first.Status)
		require.Equal(t, b.clock.Now().Add(webhooks.ClaimTimeoutDefault), *first.NextAttemptAt, "the first claim")
		schedule := []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour,
			4 * time.Hour, 8 * time.Hour, 12 * time.Hour}
		for i, wait := range schedule {
			b.attempt(t, first.ID)
			row := b.delivery(t, first.ID)
			require.Equal(t, webhooks.StatusRetrying, row.Status)
			require.Equal(t, i+1, row.Attempts)
			require.Equal(t, b.clock.Now().Add(wait), *row.NextAttemptAt, "backoff after attempt %d", i+1)
			require.Equal(t, 500, *row.ResponseStatus)
			require.Equal(t, fmt.Sprintf("answer %d", i+1), *row.ResponseBody)
			n, err := b.svc.Sweep(ctx)
			require.NoError(t, err)
			require.Zero(t, n, "not due yet")
			b.clock.Advance(wait)
			n, err = b.svc.Sweep(ctx)
			require.NoError(t, err)
			require.Equal(t, 1, n, "due: queued")
			require.Equal(t, b.clock.Now().Add(webhooks.ClaimTimeoutDefault), *b.delivery(t, first.ID).NextAttemptAt)
		}
		s, err := b.svc.Subscription(ctx, sub.ID)
		require.NoError(t, err)
		require.Equal(t, 9, s.ConsecutiveFailures)
		require.True(t, s.IsActive)
		b.attempt(t, first.ID) // the tenth
		row := b.delivery(t, first.ID)
		require.Equal(t, webhooks.StatusFailed, row.Status, "out of attempts")
		require.Equal(t, 10, row.Attempts)
		require.Nil(t, row.NextAttemptAt)
		s, err = b.svc.Subscription(ctx, sub.ID)
		require.NoError(t, err)
		require.False(t, s.IsActive, "ten failures in a row switch it off")
		require.Equal(t, 10, s.ConsecutiveFailures)
		mu.Lock()
		require.Equal(t, 10, failedHooks)
		require.Equal(t, 1, disabledHooks)
		require.Equal(t, 1, countOf(events, "webhooks.WebhookSubscriptionDisabled"))
		require.Equal(t, 10, countOf(events, "webhooks.WebhookFailed"))
		mu.Unlock()

		// While it is off: no new deliveries, replays refused.
		f, err := b.svc.Dispatch(ctx, placed(2))
		require.NoError(t, err)
		require.Zero(t, f.Deliveries)
		_, err = b.svc.Replay(ctx, sub.ID, first.ID)
		require.ErrorIs(t, err, webhooks.ErrSubscriptionInactive)
		_, err = b.svc.ReplayParked(ctx, sub.ID)
		require.ErrorIs(t, err, webhooks.ErrSubscriptionInactive)

		// Deliveries that come due while it is off are parked.
		_, err = b.svc.UpdateSubscription(ctx, sub.ID, webhooks.SubscriptionInput{IsActive: yes()})
		require.NoError(t, err)
		require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, placed(3))))
		require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, placed(4))))
		ds := b.deliveriesOf(t, sub.ID)
		second, third := ds[1], ds[2]
		b.attempt(t, second.ID) // fails: retrying
		_, err = b.svc.UpdateSubscription(ctx, sub.ID, webhooks.SubscriptionInput{IsActive: no()})
		require.NoError(t, err)
		before := rv.count.Load()
		b.attempt(t, third.ID) // pending, comes due while off
		b.clock.Advance(time.Minute)
		_, err = b.svc.Sweep(ctx)
		require.NoError(t, err)
		b.attempt(t, second.ID) // retry due while off
		require.Equal(t, before, rv.count.Load(), "nothing is sent while it is off")
		for _, id := range []int64{second.ID, third.ID} {
			row := b.delivery(t, id)
			require.Equal(t, webhooks.StatusParked, row.Status)
			require.Nil(t, row.NextAttemptAt)
		}
		require.Equal(t, 1, b.delivery(t, second.ID).Attempts, "parking uses no attempt")

		// Re-enabling alone resends nothing; replay-parked does.
		s, err = b.svc.UpdateSubscription(ctx, sub.ID, webhooks.SubscriptionInput{IsActive: yes()})
		require.NoError(t, err)
		require.Zero(t, s.ConsecutiveFailures, "re-enabling resets the streak")
		n, err := b.svc.Sweep(ctx)
		require.NoError(t, err)
		require.Zero(t, n)
		rv.answer(func(int) int { return http.StatusNoContent })
		n, err = b.svc.ReplayParked(ctx, sub.ID)
		require.NoError(t, err)
		require.Equal(t, 2, n)
		require.Equal(t, webhooks.StatusRetrying, b.delivery(t, second.ID).Status)
		require.Equal(t, webhooks.StatusPending, b.delivery(t, third.ID).Status)
		b.attempt(t, second.ID)
		b.attempt(t, third.ID)
		require.Equal(t, webhooks.StatusDelivered, b.delivery(t, second.ID).Status)
		require.Equal(t, webhooks.StatusDelivered, b.delivery(t, third.ID).Status)
		require.Equal(t, 204, *b.delivery(t, third.ID).ResponseStatus)

		// A 2xx resets the streak.
		rv.answer(func(int) int { return http.StatusBadGateway })
		require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, placed(5))))
		require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, placed(6))))
		ds = b.deliveriesOf(t, sub.ID)
		b.attempt(t, ds[3].ID)
		s, err = b.svc.Subscription(ctx, sub.ID)
		require.NoError(t, err)
		require.Equal(t, 1, s.ConsecutiveFailures)
		rv.answer(func(int) int { return http.StatusOK })
		b.attempt(t, ds[4].ID)
		s, err = b.svc.Subscription(ctx, sub.ID)
		require.NoError(t, err)
		require.Zero(t, s.ConsecutiveFailures)

		// Replay: a new row, same event and envelope; the original stays.
		replayed, err := b.svc.Replay(ctx, sub.ID, first.ID)
		require.NoError(t, err)
		require.NotEqual(t, first.ID, replayed.ID)
		require.Equal(t, first.EventID, replayed.EventID)
		require.Equal(t, webhooks.StatusPending, replayed.Status)
		b.attempt(t, replayed.ID)
		last := rv.requests()[len(rv.requests())-1]
		require.Equal(t, strconv.FormatInt(replayed.ID, 10), last.header.Get("X-Platform-Delivery"))
		require.Equal(t, string(b.delivery(t, first.ID).Payload), string(last.body))
		require.Equal(t, webhooks.StatusFailed, b.delivery(t, first.ID).Status, "the original row is kept as it was")
		_, err = b.svc.Replay(ctx, sub.ID, first.ID+1000)
		require.ErrorIs(t, err, webhooks.ErrNotFound)
	})
}

func countOf(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// A job that is lost is recovered by the sweeper once its claim has run
// out; a job from the older claim then does nothing, so the delivery is
// sent once.
func TestLostJobRecovered(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, on(d))
		ctx := context.Background()
		rv := newReceiver(t)
		sub := b.subscribe(t, rv.URL)
		require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, placed(1))))
		row := b.deliveriesOf(t, sub.ID)[0]
		oldClaim := *row.NextAttemptAt

		n, err := b.svc.Sweep(ctx)
		require.NoError(t, err)
		require.Zero(t, n, "the job still owns it")
		b.clock.Advance(webhooks.ClaimTimeoutDefault + time.Second)
		n, err = b.svc.Sweep(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n, "the lost job's delivery is queued again")
		newClaim := *b.delivery(t, row.ID).NextAttemptAt
		require.True(t, newClaim.After(oldClaim))

		require.NoError(t, b.svc.Attempt(ctx, row.ID, oldClaim), "the stale job runs late")
		require.Zero(t, rv.count.Load(), "and does nothing")
		require.NoError(t, b.svc.Attempt(ctx, row.ID, newClaim))
		require.NoError(t, b.svc.Attempt(ctx, row.ID, newClaim), "a duplicate of the job")
		require.EqualValues(t, 1, rv.count.Load(), "sent once")
		require.Equal(t, webhooks.StatusDelivered, b.delivery(t, row.ID).Status)

		var jobs int
		require.NoError(t, b.db.Get(&jobs, "SELECT COUNT(*) FROM river_job WHERE kind = 'webhooks_deliver'"))
		require.Equal(t, 2, jobs, "one job at dispatch, one from the sweep")

		// A job that starts close to the end of its claim first takes a
		// fresh lease, so the sweeper cannot queue the delivery again
		// while the request runs.
		require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, placed(2))))
		late := b.deliveriesOf(t, sub.ID)[1]
		b.clock.Advance(webhooks.ClaimTimeoutDefault - 20*time.Second)
		var during *time.Time
		rv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			d, err := b.store.Delivery(context.Background(), late.ID)
			if err == nil {
				during = d.NextAttemptAt
			}
		})
		require.NoError(t, b.svc.Attempt(ctx, late.ID, *late.NextAttemptAt))
		require.NotNil(t, during)
		require.Equal(t, b.clock.Now().Add(webhooks.ClaimTimeoutDefault), *during)
		require.Equal(t, webhooks.StatusDelivered, b.delivery(t, late.ID).Status)
	})
}

func TestRedirectsNotFollowed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	rv := newReceiver(t)
	rv.answer(func(int) int { return http.StatusFound })
	sub := b.subscribe(t, rv.URL)
	require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, placed(1))))
	row := b.deliveriesOf(t, sub.ID)[0]
	b.attempt(t, row.ID)
	got := b.delivery(t, row.ID)
	require.Equal(t, webhooks.StatusRetrying, got.Status)
	require.Equal(t, 302, *got.ResponseStatus)
	require.EqualValues(t, 1, rv.count.Load(), "the redirect target was not asked")
}

// The guard runs before every attempt: a host that resolved to a public
// address when subscribed and to a private one now is not reached.
func TestEgressCheckedAtSend(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, on(d), func(o *setupOptions) {
			o.service = func(so *webhooks.Options) { so.AllowPrivateHosts = false }
		})
		ctx := context.Background()
		rv := newReceiver(t)
		b.dns.set("hooks.example", "93.184.216.34")
		sub := b.subscribe(t, "http://hooks.example:"+rv.port()+"/in")
		_, err := b.svc.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: str("x"), URL: str(rv.URL), Events: []string{"*"}})
		var ve *webhooks.ValidationError
		require.ErrorAs(t, err, &ve)
		require.Equal(t, []string{"The url must resolve to a public address (a private or loopback host needs the server's AllowPrivateHosts option, GROUNDWORK_WEBHOOKS_ALLOW_PRIVATE_HOSTS on the reference server, for local development)."}, ve.Fields()["url"])

		b.dns.set("hooks.example", "127.0.0.1") // rebinding
		require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, placed(1))))
		row := b.deliveriesOf(t, sub.ID)[0]
		b.attempt(t, row.ID)
		got := b.delivery(t, row.ID)
		require.Equal(t, webhooks.StatusRetrying, got.Status)
		require.Nil(t, got.ResponseStatus)
		require.Equal(t, "Webhook URL does not resolve to a public address.", *got.ResponseBody)
		require.Zero(t, rv.count.Load(), "the private address was never reached")
	})
}

// The connection goes to the address the guard vetted, whatever name the
// URL has; TLS still checks the name.
func TestPinnedConnection(t *testing.T) {
	t.Parallel()
	rv := newReceiver(t)
	b := setup(t)
	ctx := context.Background()
	b.dns.set("hooks.test", "127.0.0.1")
	sub := b.subscribe(t, "http://hooks.test:"+rv.port()+"/in")
	require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, placed(1))))
	b.attempt(t, b.deliveriesOf(t, sub.ID)[0].ID)
	require.EqualValues(t, 1, rv.count.Load())
	require.Equal(t, "hooks.test:"+rv.port(), rv.requests()[0].host)

	// HTTPS: the test server's certificate names example.com.
	tlsSrv := newTLSReceiver(t)
	tb := setup(t, func(o *setupOptions) {
		o.service = func(so *webhooks.Options) { so.TLSConfig = tlsSrv.tls }
	})
	tb.dns.set("example.com", "127.0.0.1")
	tb.dns.set("other.test", "127.0.0.1")
	good := tb.subscribe(t, "https://example.com:"+tlsSrv.port+"/")
	bad := tb.subscribe(t, "https://other.test:"+tlsSrv.port+"/")
	require.NoError(t, dispatchErr(tb.svc.Dispatch(ctx, placed(2))))
	tb.attempt(t, tb.deliveriesOf(t, good.ID)[0].ID)
	tb.attempt(t, tb.deliveriesOf(t, bad.ID)[0].ID)
	require.Equal(t, webhooks.StatusDelivered, tb.deliveriesOf(t, good.ID)[0].Status)
	failed := tb.delivery(t, tb.deliveriesOf(t, bad.ID)[0].ID)
	require.Equal(t, webhooks.StatusRetrying, failed.Status)
	require.Contains(t, *failed.ResponseBody, "certificate", "the name is still verified")
	require.EqualValues(t, 1, tlsSrv.count.Load())
}

// A receiver's answer that is not text is kept as text: the attempt is
// recorded, not lost and sent again.
func TestHostileResponseBody(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, on(d))
		rv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte("ok\x00\xff\xe2\x98"))
		}))
		t.Cleanup(rv.Close)
		sub := b.subscribe(t, rv.URL)
		require.NoError(t, dispatchErr(b.svc.Dispatch(context.Background(), placed(1))))
		row := b.deliveriesOf(t, sub.ID)[0]
		b.attempt(t, row.ID)
		got := b.delivery(t, row.ID)
		require.Equal(t, webhooks.StatusDelivered, got.Status)
		require.Equal(t, "ok\uFFFD\uFFFD", *got.ResponseBody, "NUL, then one run of invalid bytes")
	})
}

// An instance given another secret key cannot open a subscription's
// secret: the attempt fails with a reason a person can act on, recorded
// in the ledger, and an ERROR log line; nothing is sent unsigned.
func TestDeliveryWithAnotherKey(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	rv := newReceiver(t)
	sub := b.subscribe(t, rv.URL)
	require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, placed(1))))
	d := b.deliveriesOf(t, sub.ID)[0]

	var logs syncLog
	other, err := webhooks.NewService(b.store, &webhooks.Options{SecretKey: bytes.Repeat([]byte{7}, 32), Now: b.clock.Now,
		Resolver: b.dns, AllowPrivateHosts: true, AllowInsecureURLs: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	require.NoError(t, err)
	require.NoError(t, other.Attempt(ctx, d.ID, *d.NextAttemptAt))

	row := b.delivery(t, d.ID)
	require.Equal(t, webhooks.StatusRetrying, row.Status)
	require.Nil(t, row.ResponseStatus)
	require.Equal(t, webhooks.ErrSecretUnreadable.Error(), *row.ResponseBody)
	require.Contains(t, *row.ResponseBody, "every instance must be given the key that sealed it")
	require.Contains(t, logs.String(), "level=ERROR")
	require.Contains(t, logs.String(), "this instance's secret key is not the one that sealed it")
	require.Zero(t, rv.count.Load(), "nothing was sent")
}

// syncLog is a log buffer safe for concurrent writes.
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// failingQueue refuses jobs while down, and otherwise passes them on.
type failingQueue struct {
	store.Enqueuer
	down atomic.Bool
}

func (q *failingQueue) EnqueueMany(ctx context.Context, tx *sql.Tx, jobs []river.InsertManyParams) error {
	if q.down.Load() {
		return errors.New("the queue is down")
	}
	return q.Enqueuer.EnqueueMany(ctx, tx, jobs)
}

func (q *failingQueue) EnqueueTx(ctx context.Context, tx *sql.Tx, args river.JobArgs, opts *river.InsertOpts) error {
	if q.down.Load() {
		return errors.New("the queue is down")
	}
	return q.Enqueuer.EnqueueTx(ctx, tx, args, opts)
}

// A sweep whose jobs cannot be queued claims nothing: the claims roll back
// with them, the sweep says it queued none, and the next sweep takes them.
func TestSweepWithoutTheQueueClaimsNothing(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		q := &failingQueue{}
		b := setup(t, on(d), func(o *setupOptions) {
			o.service = func(so *webhooks.Options) { q.Enqueuer = so.Enqueuer; so.Enqueuer = q }
		})
		rv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
		t.Cleanup(rv.Close)
		sub := b.subscribe(t, rv.URL, "*")
		require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, placed(1))))
		require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, placed(2))))
		b.clock.Advance(webhooks.ClaimTimeoutDefault + time.Minute) // their jobs' claims ran out
		due := map[int64]time.Time{}
		for _, dl := range b.deliveriesOf(t, sub.ID) {
			due[dl.ID] = *dl.NextAttemptAt
		}
		require.Len(t, due, 2)

		q.down.Store(true)
		n, err := b.svc.Sweep(ctx)
		require.ErrorContains(t, err, "the queue is down")
		require.Zero(t, n, "none queued")
		for id, at := range due {
			require.Equal(t, at, *b.delivery(t, id).NextAttemptAt, "the claim rolled back with its job")
		}

		q.down.Store(false)
		n, err = b.svc.Sweep(ctx)
		require.NoError(t, err)
		require.Equal(t, 2, n)
		for id := range due {
			require.Equal(t, b.clock.Now().Add(webhooks.ClaimTimeoutDefault), *b.delivery(t, id).NextAttemptAt, "claimed anew")
		}
	})
}

// With DisableAfterFailing, a failing endpoint is switched off only once
// it has also gone that long without a delivery: a receiver down for a
// day keeps its subscription however many attempts fail, and one down for
// the whole span loses it at the next failure past the streak.
func TestDisableAfterFailingForgivesAShortOutage(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, on(d), func(o *setupOptions) {
			o.service = func(so *webhooks.Options) { so.DisableAfterFailures, so.DisableAfterFailing = 3, 5*24*time.Hour }
		})
		ctx := context.Background()
		rv := newReceiver(t)
		rv.answer(func(int) int { return http.StatusServiceUnavailable })
		sub := b.subscribe(t, rv.URL, "*")
		fail := func(id int64) {
			t.Helper()
			require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, placed(id))))
			list := b.deliveriesOf(t, sub.ID)
			b.attempt(t, list[len(list)-1].ID)
		}
		for i := range 6 {
			fail(int64(i + 1))
			b.clock.Advance(4 * time.Hour)
		}
		s, err := b.svc.Subscription(ctx, sub.ID)
		require.NoError(t, err)
		require.Equal(t, 6, s.ConsecutiveFailures)
		require.True(t, s.IsActive, "a day of failures, twice the streak: still on")

		b.clock.Advance(4 * 24 * time.Hour) // five days since it was made, none delivered
		fail(7)
		s, err = b.svc.Subscription(ctx, sub.ID)
		require.NoError(t, err)
		require.False(t, s.IsActive, "five days without a delivery, and failing: off")
	})
}
