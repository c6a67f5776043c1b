package webhooks_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/driverless"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

func BenchmarkSign(b *testing.B) {
	body := make([]byte, 1024)
	for i := range body {
		body[i] = byte('a' + i%26)
	}
	now := time.Unix(1700000000, 0)
	b.Run("Sign", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = webhooks.Sign("whsec_test_secret_0123", now, body)
		}
	})
	header := webhooks.Sign("whsec_test_secret_0123", now, body)
	b.Run("Verify", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := webhooks.Verify("whsec_test_secret_0123", header, body, now, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// fanoutReceiver counts deliveries by id and notes when each arrived.
type fanoutReceiver struct {
	mu       sync.Mutex
	arrived  map[string]time.Time
	events   map[string]string // delivery id → event id
	dupes    int
	done     chan struct{}
	expected int
}

func (f *fanoutReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	id := r.Header.Get(webhooks.HeaderDelivery)
	now := time.Now()
	f.mu.Lock()
	if _, seen := f.arrived[id]; seen {
		f.dupes++
	} else {
		f.arrived[id] = now
		if len(f.arrived) == f.expected {
			close(f.done)
		}
	}
	f.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// BenchmarkFanout dispatches events to subscriptions on a local receiver,
// as fast as 4 dispatchers can, and waits for every delivery: deliveries
// per second, and the time from dispatch to receipt. Two shapes: 10,000
// events to one subscription each, and 1,000 events to ten. Each shape
// runs twice, interleaved: sent by the delivery loop (RunDeliveries), and
// by a River job per event, as a service without the loop does. Run with
// -benchtime 1x.
func BenchmarkFanout(b *testing.B) {
	for _, d := range storetest.Dialects() {
		for _, shape := range []struct {
			name                  string
			events, subscriptions int
		}{{"1sub", 10_000, 1}, {"10subs", 1_000, 10}} {
			for _, mode := range []string{"loop", "jobs"} {
				b.Run(string(d)+"/"+shape.name+"/"+mode, func(b *testing.B) {
					for range b.N {
						fanout(b, d, shape.events, shape.subscriptions, 0, mode == "loop")
					}
				})
			}
		}
	}
}

// BenchmarkDeliveryLatency dispatches 1,000 events a second for 5
// seconds to one subscription, sent by the delivery loop, and reports
// the time from dispatch to receipt (p50, p99). Run with -benchtime 1x.
func BenchmarkDeliveryLatency(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			for range b.N {
				fanout(b, d, 5_000, 1, 1000, true)
			}
		})
	}
}

// benchQueue is a fresh, migrated database (its Postgres pool grown as
// production's) and a queue on it with the benchmark's workers.
func benchQueue(b *testing.B, d store.Dialect) (*store.DB, *store.Queue) {
	db := storetest.Open(b, d, webhookssql.Migrations)
	if d == store.Postgres {
		db.SetMaxOpenConns(store.PostgresMaxOpenConns)
		db.SetMaxIdleConns(store.PostgresMaxOpenConns)
	}
	queue, err := store.NewQueue(db, &store.QueueOptions{MaxWorkers: benchWorkers()})
	if err != nil {
		b.Fatal(err)
	}
	return db, queue
}

// fanout dispatches events to subscriptions, perSecond events a second
// (0: as fast as it can), and waits for every delivery; loop runs the
// delivery loop, else each event's job sends its deliveries.
func fanout(b *testing.B, d store.Dialect, events, subscriptions, perSecond int, loop bool) {
	b.StopTimer()
	ctx := context.Background()
	db, queue := benchQueue(b, d)
	svc, err := webhooks.NewService(webhookssql.New(db), &webhooks.Options{SecretKey: testKey, Enqueuer: queue,
		AllowPrivateHosts: true, AllowInsecureURLs: true})
	if err != nil {
		b.Fatal(err)
	}
	if err := webhooks.RegisterWorkers(queue.Workers(), svc); err != nil {
		b.Fatal(err)
	}
	rv := &fanoutReceiver{arrived: map[string]time.Time{}, done: make(chan struct{}), expected: events * subscriptions}
	srv := httptest.NewServer(rv)
	defer srv.Close()
	for i := range subscriptions {
		url := fmt.Sprintf("%s/hook/%d", srv.URL, i)
		if _, err := svc.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: str("bench"), URL: &url, Events: []string{"*"}}); err != nil {
			b.Fatal(err)
		}
	}
	if err := queue.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = queue.Stop(context.Background()) }()
	if loop {
		loopCtx, stop := context.WithCancel(ctx)
		looped := make(chan error, 1)
		go func() { looped <- svc.RunDeliveries(loopCtx) }()
		defer func() {
			stop()
			if err := <-looped; err != nil {
				b.Error(err)
			}
		}()
		for !svc.Delivering() {
			time.Sleep(time.Millisecond)
		}
	}

	dispatched := make(map[int64]time.Time, events*subscriptions) // delivery id → dispatch time
	var mu sync.Mutex
	b.StartTimer()
	start := time.Now()
	var wg sync.WaitGroup
	work := make(chan int)
	for range dispatchers() {
		wg.Go(func() {
			for i := range work {
				t := time.Now()
				f, err := svc.Dispatch(ctx, placed(int64(i)))
				if err != nil || f.Deliveries != subscriptions {
					b.Errorf("dispatch %d: %d deliveries, %v", i, f.Deliveries, err)
					return
				}
				mu.Lock()
				dispatched[int64(i)] = t
				mu.Unlock()
			}
		})
	}
	var tick <-chan time.Time
	if perSecond > 0 {
		ticker := time.NewTicker(time.Second / time.Duration(perSecond))
		defer ticker.Stop()
		tick = ticker.C
	}
	for i := range events {
		if tick != nil {
			<-tick
		}
		work <- i
	}
	close(work)
	wg.Wait()
	dispatchedIn := time.Since(start)
	select {
	case <-rv.done:
	case <-time.After(5 * time.Minute):
		b.Fatalf("only %d of %d deliveries arrived", len(rv.arrived), events*subscriptions)
	}
	elapsed := time.Since(start)
	b.StopTimer()

	// None lost: every row ends delivered (the last writes may trail the
	// receipts by a moment).
	deadline := time.Now().Add(time.Minute)
	for {
		var n int
		if err := db.Get(&n, "SELECT COUNT(*) FROM webhooks_deliveries WHERE status = 'delivered'"); err != nil {
			b.Fatal(err)
		}
		if n == events*subscriptions {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d deliveries delivered, want %d", n, events*subscriptions)
		}
		time.Sleep(10 * time.Millisecond)
	}

	// Latency: from the dispatch of each event to the receipt of each of
	// its deliveries (the delivery's payload names the order, the event).
	type row struct {
		ID    int64  `db:"id"`
		Order string `db:"order_id"`
	}
	var rows []row
	if err := db.Select(&rows, "SELECT id, order_id FROM webhooks_deliveries"); err != nil {
		b.Fatal(err)
	}
	var latencies []time.Duration
	for _, r := range rows {
		var order int64
		fmt.Sscan(r.Order, &order)
		latencies = append(latencies, rv.arrived[fmt.Sprint(r.ID)].Sub(dispatched[order]))
	}
	slices.Sort(latencies)
	b.ReportMetric(float64(events*subscriptions)/elapsed.Seconds(), "deliveries/s")
	b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(rv.dupes), "duplicates")
	b.ReportMetric(float64(events)/dispatchedIn.Seconds(), "events-dispatched/s")
	if rv.dupes > 0 {
		b.Errorf("%d deliveries arrived twice", rv.dupes)
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "%s: %d deliveries in %s\n", d, events*subscriptions, elapsed.Round(time.Millisecond))
	}
}

// dispatchers is how many goroutines dispatch at once in the fan-out
// benchmarks (BENCH_DISPATCHERS, default 4), as so many requests of a
// host would.
func dispatchers() int {
	var n int
	if _, err := fmt.Sscan(os.Getenv("BENCH_DISPATCHERS"), &n); err == nil && n > 0 {
		return n
	}
	return 4
}

// benchWorkers is the queue's MaxWorkers for BenchmarkFanout
// (BENCH_WORKERS, default 20): each job sends the deliveries of one event
// at once, so 20 jobs are up to 200 requests in flight.
func benchWorkers() int {
	var n int
	if _, err := fmt.Sscan(os.Getenv("BENCH_WORKERS"), &n); err == nil && n > 0 {
		return n
	}
	return 20
}

// BenchmarkInbound posts Stripe-signed webhooks, each a new event, to the
// inbound endpoint over loopback from 32 clients: verified, counted
// against both allowances (limits set out of reach; counted in the
// database on Postgres, as across instances), claimed, recorded
// (BENCH_INBOUND_HOOK=1: with a received hook, so in one transaction).
// Events/s = 1e9 / ns/op.
func BenchmarkInbound(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			db := storetest.Open(b, d, webhookssql.Migrations)
			var limiter groundwork.RateLimiter = driverless.NewMemoryRateLimiter(nil)
			if d == store.Postgres {
				db.SetMaxOpenConns(store.PostgresMaxOpenConns)
				db.SetMaxIdleConns(store.PostgresMaxOpenConns)
				if os.Getenv("BENCH_MEMORY_LIMITER") == "" {
					limiter = store.NewSQLRateLimiter(db, nil)
				}
			}
			svc, err := webhooks.NewService(webhookssql.New(db), &webhooks.Options{SecretKey: testKey})
			if err != nil {
				b.Fatal(err)
			}
			g, err := webhooks.NewStripeGateway(&webhooks.StripeOptions{WebhookSecrets: []string{stripeSecret}})
			if err != nil {
				b.Fatal(err)
			}
			if err := svc.RegisterGateway("stripe", g); err != nil {
				b.Fatal(err)
			}
			if os.Getenv("BENCH_INBOUND_HOOK") != "" { // the claim, the row and the hook in one transaction
				svc.OnWebhookReceived(func(context.Context, string, *webhooks.InboundEvent) error { return nil })
			}
			h, err := webhooks.NewInboundHandler(svc, &webhooks.InboundHandlerOptions{HTTPOptions: groundwork.HTTPOptions{RateLimiter: limiter}, PerIP: 1 << 30, PerProvider: 1 << 30})
			if err != nil {
				b.Fatal(err)
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			bodies := make([][]byte, b.N)
			sigs := make([]string, b.N)
			now := time.Now()
			for i := range bodies {
				bodies[i] = stripeEvent(fmt.Sprintf("evt_%d", i), "customer.updated", "customer", "cus_1")
				sigs[i] = stripeSigned(bodies[i], stripeSecret, now)
			}
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			var next atomic.Int64
			b.SetParallelism(16)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := next.Add(1) - 1
					req, _ := http.NewRequest("POST", srv.URL+"/ecommerce/webhooks/stripe", bytes.NewReader(bodies[i]))
					req.Header.Set("Stripe-Signature", sigs[i])
					res, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if res.StatusCode != 200 {
						b.Errorf("status %d", res.StatusCode)
						return
					}
				}
			})
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
			var n int
			if err := db.Get(&n, "SELECT COUNT(*) FROM webhooks_inbound WHERE verified AND NOT duplicate"); err != nil {
				b.Fatal(err)
			}
			if n != b.N {
				b.Fatalf("%d events recorded, want %d", n, b.N)
			}
		})
	}
}

// BenchmarkDrain measures the sending alone: events dispatched
// beforehand (10,000 to one subscription each, or 1,000 to ten) wait,
// then the delivery loop, or the River jobs of the events, send them all:
// deliveries per second, interleaved loop and jobs. Run with -benchtime 1x.
func BenchmarkDrain(b *testing.B) {
	for _, d := range storetest.Dialects() {
		for _, shape := range []struct {
			name                  string
			events, subscriptions int
		}{{"1sub", 10_000, 1}, {"10subs", 1_000, 10}} {
			for _, mode := range []string{"loop", "jobs"} {
				b.Run(string(d)+"/"+shape.name+"/"+mode, func(b *testing.B) {
					for range b.N {
						drain(b, d, shape.events, shape.subscriptions, mode == "loop")
					}
				})
			}
		}
	}
}

func drain(b *testing.B, d store.Dialect, events, subscriptions int, loop bool) {
	b.StopTimer()
	ctx := context.Background()
	db, queue := benchQueue(b, d)
	opts := func(o webhooks.Options) *webhooks.Options {
		o.SecretKey, o.AllowPrivateHosts, o.AllowInsecureURLs = testKey, true, true
		return &o
	}
	// The loop's clock runs a claim ahead, so the claims of deliveries
	// dispatched without a loop or a job have run out for it.
	var dispatcher, sender *webhooks.Service
	var err error
	if loop {
		dispatcher, err = webhooks.NewService(webhookssql.New(db), opts(webhooks.Options{}))
		if err == nil {
			sender, err = webhooks.NewService(webhookssql.New(db), opts(webhooks.Options{
				Now: func() time.Time { return time.Now().Add(webhooks.ClaimTimeoutDefault + time.Minute) }}))
		}
	} else {
		dispatcher, err = webhooks.NewService(webhookssql.New(db), opts(webhooks.Options{Enqueuer: queue}))
		if err == nil {
			err = webhooks.RegisterWorkers(queue.Workers(), dispatcher)
		}
	}
	if err != nil {
		b.Fatal(err)
	}
	rv := &fanoutReceiver{arrived: map[string]time.Time{}, done: make(chan struct{}), expected: events * subscriptions}
	srv := httptest.NewServer(rv)
	defer srv.Close()
	for i := range subscriptions {
		url := fmt.Sprintf("%s/hook/%d", srv.URL, i)
		if _, err := dispatcher.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: str("bench"), URL: &url, Events: []string{"*"}}); err != nil {
			b.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	work := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range work {
				if _, err := dispatcher.Dispatch(ctx, placed(int64(i))); err != nil {
					b.Error(err)
				}
			}
		})
	}
	for i := range events {
		work <- i
	}
	close(work)
	wg.Wait()

	b.StartTimer()
	start := time.Now()
	if loop {
		loopCtx, stop := context.WithCancel(ctx)
		defer stop()
		go func() { _ = sender.RunDeliveries(loopCtx) }()
	} else {
		if err := queue.Start(ctx); err != nil {
			b.Fatal(err)
		}
		defer func() { _ = queue.Stop(context.Background()) }()
	}
	select {
	case <-rv.done:
	case <-time.After(5 * time.Minute):
		b.Fatalf("only %d of %d deliveries arrived", len(rv.arrived), events*subscriptions)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(events*subscriptions)/elapsed.Seconds(), "deliveries/s")
	b.ReportMetric(float64(rv.dupes), "duplicates")
	if rv.dupes > 0 {
		b.Errorf("%d deliveries arrived twice", rv.dupes)
	}
}
