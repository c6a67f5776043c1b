package webhooks_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
	"github.com/groundwork-go/groundwork/webhooks/webhooksstore"
)

// startLoop runs svc's delivery loop until the test ends (or stop is
// called) and waits until it runs.
func startLoop(t *testing.T, svc *webhooks.Service) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- svc.RunDeliveries(ctx) }()
	require.Eventually(t, svc.Delivering, 5*time.Second, time.Millisecond)
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			require.NoError(t, <-done)
		})
	}
	t.Cleanup(stop)
	return stop
}

func fastLoop(o *setupOptions) {
	prev := o.service
	o.service = func(so *webhooks.Options) {
		if prev != nil {
			prev(so)
		}
		so.PollInterval = 10 * time.Millisecond
	}
}

// With the loop running, a dispatch queues no job: the loop claims the
// deliveries, sends them, and records them, retries come due on the
// clock, and an inactive subscription's delivery is parked.
func TestRunDeliveries(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, on(d), fastLoop)
		ctx := context.Background()
		rv := newReceiver(t)
		ok := b.subscribe(t, rv.URL+"/ok", "order.placed")
		flaky := b.subscribe(t, rv.URL+"/flaky", "order.placed")
		// The flaky receiver fails its first request.
		var flakyCalls atomic.Int32
		flakyRV := newReceiver(t)
		flakyRV.answer(func(n int) int {
			flakyCalls.Add(1)
			if n == 1 {
				return http.StatusServiceUnavailable
			}
			return http.StatusOK
		})
		url := flakyRV.URL + "/flaky"
		_, err := b.svc.UpdateSubscription(ctx, flaky.ID, webhooks.SubscriptionInput{URL: &url})
		require.NoError(t, err)

		startLoop(t, b.svc)
		f, err := b.svc.Dispatch(ctx, placed(1))
		require.NoError(t, err)
		require.Equal(t, 2, f.Deliveries)
		got := rv.wait(t, 5*time.Second)
		require.Equal(t, "/ok", got.path)
		require.True(t, specVerify("whsec_test_secret_0123", got.header.Get(webhooks.HeaderSignature), got.body, b.clock.Now()))
		require.Eventually(t, func() bool { return b.deliveriesOf(t, ok.ID)[0].Status == webhooks.StatusDelivered }, 5*time.Second, 5*time.Millisecond)
		var jobs int
		require.NoError(t, b.db.Get(&jobs, `SELECT COUNT(*) FROM river_job WHERE kind = 'webhooks_deliver'`))
		require.Zero(t, jobs, "no job per event")

		// The flaky one failed and waits out its backoff; once due, the
		// loop sends it again.
		require.Eventually(t, func() bool { return b.deliveriesOf(t, flaky.ID)[0].Status == webhooks.StatusRetrying }, 5*time.Second, 5*time.Millisecond)
		row := b.deliveriesOf(t, flaky.ID)[0]
		require.Equal(t, 1, row.Attempts)
		require.Equal(t, b.clock.Now().Add(time.Minute), *row.NextAttemptAt)
		time.Sleep(50 * time.Millisecond)
		require.EqualValues(t, 1, flakyCalls.Load(), "not before it is due")
		b.clock.Advance(time.Minute)
		require.Eventually(t, func() bool { return b.deliveriesOf(t, flaky.ID)[0].Status == webhooks.StatusDelivered }, 5*time.Second, 5*time.Millisecond)
		require.Equal(t, 2, b.deliveriesOf(t, flaky.ID)[0].Attempts)

		// A subscription switched off after the dispatch: parked.
		require.NoError(t, dispatchErr(b.svc.Dispatch(ctx, placed(2)))) // sent to both at once...
		_, err = b.svc.UpdateSubscription(ctx, ok.ID, webhooks.SubscriptionInput{IsActive: no()})
		require.NoError(t, err)
		require.Eventually(t, func() bool {
			ds := b.deliveriesOf(t, ok.ID)
			return len(ds) == 2 && (ds[1].Status == webhooks.StatusDelivered || ds[1].Status == webhooks.StatusParked)
		}, 5*time.Second, 5*time.Millisecond)

		require.Error(t, b.svc.RunDeliveries(ctx), "one loop per service")
	})
}

// failingStore fails every write once killed, as a dead instance writes
// nothing.
type failingStore struct {
	webhooks.Store
	killed *atomic.Bool
}

var errKilled = errors.New("killed")

func (f failingStore) FinishDelivered(ctx context.Context, ds []webhooks.SuccessfulAttempt) ([]int64, error) {
	if f.killed.Load() {
		return nil, errKilled
	}
	return f.Store.FinishDelivered(ctx, ds)
}

func (f failingStore) FinishAttempt(ctx context.Context, d *webhooks.Delivery, lease time.Time, o webhooks.Outcome, n int) (bool, error) {
	if f.killed.Load() {
		return false, errKilled
	}
	return f.Store.FinishAttempt(ctx, d, lease, o, n)
}

func (f failingStore) ClaimDue(ctx context.Context, now, lease time.Time, limit int) ([]int64, error) {
	if f.killed.Load() {
		return nil, errKilled
	}
	return f.Store.ClaimDue(ctx, now, lease, limit)
}

func (f failingStore) ClaimChosen(ctx context.Context, now, lease time.Time, limit int, pick webhooksstore.ClaimPick) ([]int64, error) {
	if f.killed.Load() {
		return nil, errKilled
	}
	return f.Store.ClaimChosen(ctx, now, lease, limit, pick)
}

// An instance killed in the middle of a batch (some attempts sent and not
// recorded, some claimed and not sent) loses nothing: once the leases run
// out another instance claims what is left and sends it. A delivery
// arrives twice only if it was under way when the instance died.
func TestKilledMidBatchLosesNothing(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d, webhookssql.Migrations)
		clock := newClock()
		var killed atomic.Bool
		dns := &dnsTable{}
		opts := func() *webhooks.Options {
			return &webhooks.Options{SecretKey: testKey, Now: clock.Now, Resolver: dns, AllowPrivateHosts: true, AllowInsecureURLs: true,
				Timeout: 5 * time.Second, PollInterval: 10 * time.Millisecond, DeliverBatch: 40, MaxInFlight: 20}
		}
		a, err := webhooks.NewService(failingStore{Store: webhookssql.New(db), killed: &killed}, opts())
		require.NoError(t, err)

		// The receiver holds every request until 20 have arrived, then
		// the instance dies: those 20 were sent, the rest of its claims
		// were not. (Twenty endpoints: the loop has one attempt under way
		// to an endpoint until it answers.)
		const endpoints, events = 20, 5
		var mu sync.Mutex
		arrivals := map[string]int{}
		held := make(chan struct{})
		var count atomic.Int32
		rv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id := r.Header.Get(webhooks.HeaderDelivery)
			mu.Lock()
			arrivals[id]++
			mu.Unlock()
			if count.Add(1) == 20 {
				killed.Store(true) // dies with 20 sent and answered...
				close(held)
			}
			<-held
			w.WriteHeader(http.StatusOK)
		}))
		t.Cleanup(rv.Close)
		for i := range endpoints {
			url := rv.URL + "/hook/" + strconv.Itoa(i)
			_, err = a.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: str("k"), URL: &url, Events: []string{"*"},
				Secret: str("whsec_test_secret_0123")})
			require.NoError(t, err)
		}
		stopA := startLoop(t, a)
		for i := range events {
			require.NoError(t, dispatchErr(a.Dispatch(ctx, placed(int64(i)))))
		}
		<-held
		stopA() // ...and the rest of what it claimed is never sent by it
		var claimed, delivered int
		require.NoError(t, db.Get(&claimed, db.Rebind(`SELECT COUNT(*) FROM webhooks_deliveries WHERE status = 'pending' AND next_attempt_at > ?`), store.NewTime(clock.Now())))
		require.NoError(t, db.Get(&delivered, `SELECT COUNT(*) FROM webhooks_deliveries WHERE status = 'delivered'`))
		require.Zero(t, delivered, "the dead instance recorded nothing")
		require.Positive(t, claimed, "it held claims when it died")

		// Another instance takes over once the leases run out.
		clock.Advance(webhooks.ClaimTimeoutDefault + time.Second)
		b, err := webhooks.NewService(webhookssql.New(db), opts())
		require.NoError(t, err)
		startLoop(t, b)
		require.Eventually(t, func() bool {
			var n int
			require.NoError(t, db.Get(&n, `SELECT COUNT(*) FROM webhooks_deliveries WHERE status = 'delivered'`))
			return n == endpoints*events
		}, 20*time.Second, 10*time.Millisecond)

		var ids []int64
		require.NoError(t, db.Select(&ids, `SELECT id FROM webhooks_deliveries ORDER BY id`))
		require.Len(t, ids, endpoints*events)
		mu.Lock()
		defer mu.Unlock()
		twice := 0
		for _, id := range ids {
			n := arrivals[strconv.FormatInt(id, 10)]
			require.GreaterOrEqual(t, n, 1, "delivery %d never arrived", id)
			require.LessOrEqual(t, n, 2, "delivery %d", id)
			if n == 2 {
				twice++
			}
		}
		require.LessOrEqual(t, twice, 20, "only what was under way when it died arrives twice")
	})
}

// Two instances' loops on one database share the work: every delivery is
// claimed by one of them and arrives once.
func TestTwoLoopsShareTheWork(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		dsn := storetest.DSN(t, d)
		var mu sync.Mutex
		arrivals := map[string]int{}
		rv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			arrivals[r.Header.Get(webhooks.HeaderDelivery)]++
			mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
		}))
		t.Cleanup(rv.Close)
		var svcs []*webhooks.Service
		var db *store.DB
		for range 2 {
			db = storetest.OpenDSN(t, dsn, webhookssql.Migrations)
			svc, err := webhooks.NewService(webhookssql.New(db), &webhooks.Options{SecretKey: testKey, AllowPrivateHosts: true,
				AllowInsecureURLs: true, PollInterval: 10 * time.Millisecond, DeliverBatch: 7})
			require.NoError(t, err)
			startLoop(t, svc)
			svcs = append(svcs, svc)
		}
		for i := range 3 {
			url := rv.URL + "/hook/" + strconv.Itoa(i)
			_, err := svcs[0].CreateSubscription(ctx, webhooks.SubscriptionInput{Name: str("s"), URL: &url, Events: []string{"*"}})
			require.NoError(t, err)
		}
		const events = 150
		var wg sync.WaitGroup
		for i := range events {
			wg.Go(func() { require.NoError(t, dispatchErr(svcs[i%2].Dispatch(ctx, placed(int64(i))))) })
		}
		wg.Wait()
		require.Eventually(t, func() bool {
			var n int
			require.NoError(t, db.Get(&n, `SELECT COUNT(*) FROM webhooks_deliveries WHERE status = 'delivered'`))
			return n == 3*events
		}, 20*time.Second, 10*time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		require.Len(t, arrivals, 3*events)
		for id, n := range arrivals {
			require.Equal(t, 1, n, "delivery %s", id)
		}
	})
}

// Endpoints that hang until the timeout do not take the loop's slots from
// the others: each has one attempt under way at a time, so the healthy
// endpoints' deliveries go through while they hang. (Unpaced, the hanging
// ones' deliveries fill every slot within two claims, and the healthy
// ones wait a minute.)
func TestHangingEndpointsDoNotStallTheOthers(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d, webhookssql.Migrations)
		quit := make(chan struct{})
		var hung, arrived atomic.Int32
		hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hung.Add(1)
			select {
			case <-r.Context().Done():
			case <-quit:
			}
		}))
		t.Cleanup(hang.Close)
		good := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			arrived.Add(1)
			w.WriteHeader(http.StatusNoContent)
		}))
		t.Cleanup(good.Close)
		svc, err := webhooks.NewService(webhookssql.New(db), &webhooks.Options{SecretKey: testKey, AllowPrivateHosts: true,
			AllowInsecureURLs: true, Timeout: time.Minute, PollInterval: 10 * time.Millisecond, MaxInFlight: 8})
		require.NoError(t, err)
		// The hanging endpoints first: a fan-out lists them before the
		// healthy ones.
		const hanging, healthy, events = 6, 2, 20
		for i := range hanging + healthy {
			url := hang.URL + "/hook/" + strconv.Itoa(i)
			if i >= hanging {
				url = good.URL + "/hook/" + strconv.Itoa(i)
			}
			_, err := svc.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: str("s"), URL: &url, Events: []string{"*"}})
			require.NoError(t, err)
		}
		startLoop(t, svc)
		t.Cleanup(func() { close(quit) }) // before the loop stops: it waits for the attempts under way
		for i := range events {
			require.NoError(t, dispatchErr(svc.Dispatch(ctx, placed(int64(i)))))
		}
		require.Eventually(t, func() bool { return arrived.Load() == healthy*events }, 15*time.Second, 10*time.Millisecond,
			"the healthy endpoints' deliveries, while the others hang")
		require.Equal(t, int32(hanging), hung.Load(), "one attempt under way to each hanging endpoint")
	})
}

// parkCounter counts the deliveries parked one by one (a FinishAttempt
// with no outcome) and all at once (ParkDue).
type parkCounter struct {
	webhooks.Store
	oneByOne, atOnce atomic.Int32
}

func (p *parkCounter) FinishAttempt(ctx context.Context, d *webhooks.Delivery, lease time.Time, o webhooks.Outcome, n int) (bool, error) {
	if o == webhooks.OutcomeNone && d.Status == webhooks.StatusParked {
		p.oneByOne.Add(1)
	}
	return p.Store.FinishAttempt(ctx, d, lease, o, n)
}

func (p *parkCounter) ParkDue(ctx context.Context, sub int64, now time.Time) (int, error) {
	n, err := p.Store.ParkDue(ctx, sub, now)
	p.atOnce.Add(int32(n))
	return n, err
}

// An endpoint that refuses connections is tried one delivery at a time,
// resting after each failure (a second, then two), not once for each of
// its waiting deliveries; the failure that switches it off parks its
// other due deliveries at once, rather than each being claimed and parked
// in turn.
func TestDeadEndpointIsSwitchedOffAndParked(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d, webhookssql.Migrations)
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		url := "http://" + l.Addr().String() + "/hook"
		require.NoError(t, l.Close()) // nothing listens: refused
		st := &parkCounter{Store: webhookssql.New(db)}
		svc, err := webhooks.NewService(st, &webhooks.Options{SecretKey: testKey, AllowPrivateHosts: true, AllowInsecureURLs: true,
			PollInterval: 10 * time.Millisecond, DisableAfterFailures: 3})
		require.NoError(t, err)
		sub, err := svc.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: str("dead"), URL: &url, Events: []string{"*"}})
		require.NoError(t, err)
		const events = 15
		for i := range events {
			require.NoError(t, dispatchErr(svc.Dispatch(ctx, placed(int64(i)))))
		}
		startLoop(t, svc)
		count := func(status webhooks.Status) int {
			var n int
			require.NoError(t, db.Get(&n, db.Rebind(`SELECT COUNT(*) FROM webhooks_deliveries WHERE status = ?`), string(status)))
			return n
		}
		// The rows are parked before the store's call returns to the
		// counter, so the wait is for both.
		require.Eventually(t, func() bool {
			return count(webhooks.StatusParked) == events-3 && st.atOnce.Load()+st.oneByOne.Load() == events-3
		}, 10*time.Second, 10*time.Millisecond)
		require.Equal(t, 3, count(webhooks.StatusRetrying), "three tries, one after another, then off")
		got, err := svc.Subscription(ctx, sub.ID)
		require.NoError(t, err)
		require.False(t, got.IsActive)
		require.Equal(t, int32(events-3), st.atOnce.Load(), "parked at once when switched off")
	})
}

// TestFailureBurstIsRecordedFewAtATime has a hundred endpoints refuse
// their first attempts at once: the failures are recorded a few at a time,
// not each on a connection of its own, and every one is recorded.
func TestFailureBurstIsRecordedFewAtATime(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		url := "http://" + l.Addr().String() + "/hook"
		require.NoError(t, l.Close()) // nothing listens: refused
		st := &failureWatch{Store: webhookssql.New(storetest.Open(t, d, webhookssql.Migrations))}
		svc, err := webhooks.NewService(st, &webhooks.Options{SecretKey: testKey, AllowPrivateHosts: true, AllowInsecureURLs: true,
			PollInterval: 10 * time.Millisecond})
		require.NoError(t, err)
		const endpoints = 100
		for i := range endpoints {
			u := fmt.Sprintf("%s/%d", url, i)
			_, err := svc.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: str("dead"), URL: &u, Events: []string{"*"}})
			require.NoError(t, err)
		}
		require.NoError(t, dispatchErr(svc.Dispatch(ctx, placed(1))))
		st.slow.Store(true) // each write takes a moment, so that a burst would pile up
		startLoop(t, svc)
		require.Eventually(t, func() bool { return st.recorded.Load() == endpoints }, 15*time.Second, 10*time.Millisecond)
		require.LessOrEqual(t, st.most.Load(), int32(4), "failures recorded at once")
		require.Greater(t, st.most.Load(), int32(1), "recorded side by side, a few at a time")
	})
}

// failureWatch counts the failed attempts being recorded at once.
type failureWatch struct {
	webhooks.Store
	slow                atomic.Bool
	now, most, recorded atomic.Int32
}

func (f *failureWatch) FinishAttempt(ctx context.Context, d *webhooks.Delivery, lease time.Time, o webhooks.Outcome, n int) (bool, error) {
	if o != webhooks.OutcomeFailure {
		return f.Store.FinishAttempt(ctx, d, lease, o, n)
	}
	at := f.now.Add(1)
	defer f.now.Add(-1)
	for m := f.most.Load(); at > m && !f.most.CompareAndSwap(m, at); m = f.most.Load() {
	}
	if f.slow.Load() {
		time.Sleep(5 * time.Millisecond)
	}
	disabled, err := f.Store.FinishAttempt(ctx, d, lease, o, n)
	if err == nil {
		f.recorded.Add(1)
	}
	return disabled, err
}

// claimLost fails every attempt's own claim, as a database that goes away
// between the batch's claim and the attempt: the attempt is given up with
// an error naming the delivery, never a crash (the failed claim returns no
// delivery), and the delivery stays for a later claim.
type claimLost struct{ webhooks.Store }

func (claimLost) ClaimDelivery(context.Context, int64, time.Time, time.Time) (*webhooks.Delivery, *webhooks.Subscription, error) {
	return nil, nil, errKilled
}

func TestAttemptWhoseClaimFailsIsGivenUp(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d, webhookssql.Migrations)
		clock := newClock()
		var sent atomic.Int32
		rv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { sent.Add(1) }))
		t.Cleanup(rv.Close)
		// A claim no longer than an attempt's timeout and margin: every
		// attempt takes a fresh lease of its own first.
		svc, err := webhooks.NewService(claimLost{webhookssql.New(db)}, &webhooks.Options{SecretKey: testKey, Now: clock.Now,
			AllowPrivateHosts: true, AllowInsecureURLs: true, Timeout: 5 * time.Second, ClaimTimeout: 30 * time.Second,
			PollInterval: 10 * time.Millisecond})
		require.NoError(t, err)
		url := rv.URL + "/hook"
		_, err = svc.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: str("k"), URL: &url, Events: []string{"*"},
			Secret: str("whsec_test_secret_0123")})
		require.NoError(t, err)
		require.NoError(t, dispatchErr(svc.Dispatch(ctx, placed(1))))
		stop := startLoop(t, svc)
		require.Eventually(t, func() bool {
			var claimed int
			require.NoError(t, db.Get(&claimed, db.Rebind(`SELECT COUNT(*) FROM webhooks_deliveries WHERE next_attempt_at > ?`),
				store.NewTime(clock.Now())))
			return claimed == 1
		}, 5*time.Second, 10*time.Millisecond, "the batch claimed it")
		time.Sleep(100 * time.Millisecond) // the attempt's own claim fails meanwhile
		stop()
		var pending int
		require.NoError(t, db.Get(&pending, `SELECT COUNT(*) FROM webhooks_deliveries WHERE status = 'pending'`))
		require.Equal(t, 1, pending, "kept for a later claim")
		require.Zero(t, sent.Load(), "nothing sent without the claim")
	})
}
