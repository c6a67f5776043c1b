package webhooks_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

// BenchmarkSlowReceivers dispatches events to 1,000 endpoints through the
// delivery loop and measures how fast the healthy ones get theirs: 800
// healthy endpoints alone ("healthy"), and the same 800 beside 100 that
// hang until the attempt's timeout and 100 that refuse connections
// ("with-bad"). healthy-deliveries/s is the 800's deliveries over the
// time until the last of them arrived; bad-attempts, the attempts made
// to the bad endpoints by then. Run with -benchtime 1x, and -count 1 in a
// loop to interleave the cases; BENCH_SLOW_EVENTS sets the events
// (default 10), BENCH_SLOW_TIMEOUT the attempt timeout (default the
// service's, 10 s), BENCH_SLOW_BAD=hang or dead keeps one kind of bad
// endpoint.
func BenchmarkSlowReceivers(b *testing.B) {
	events := 10
	if _, err := fmt.Sscan(os.Getenv("BENCH_SLOW_EVENTS"), &events); err != nil || events < 1 {
		events = 10
	}
	timeout := webhooks.TimeoutDefault
	if d, err := time.ParseDuration(os.Getenv("BENCH_SLOW_TIMEOUT")); err == nil {
		timeout = d
	}
	for _, d := range storetest.Dialects() {
		for _, bad := range []bool{false, true} {
			name := map[bool]string{false: "healthy", true: "with-bad"}[bad]
			b.Run(string(d)+"/"+name, func(b *testing.B) {
				for range b.N {
					slowReceivers(b, d, events, bad, timeout)
				}
			})
		}
	}
}

func slowReceivers(b *testing.B, d store.Dialect, events int, bad bool, timeout time.Duration) {
	b.StopTimer()
	ctx := context.Background()
	db, queue := benchQueue(b, d)
	svc, err := webhooks.NewService(webhookssql.New(db), &webhooks.Options{SecretKey: testKey, Enqueuer: queue,
		AllowPrivateHosts: true, AllowInsecureURLs: true, Timeout: timeout})
	if err != nil {
		b.Fatal(err)
	}
	const healthy = 800
	rv := &fanoutReceiver{arrived: map[string]time.Time{}, done: make(chan struct{}), expected: events * healthy}
	good := httptest.NewServer(rv)
	defer good.Close()
	quit := make(chan struct{})
	var hanging atomic.Int32 // requests under way to the hanging endpoints
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hanging.Add(1)
		defer hanging.Add(-1)
		select { // until the attempt gives up, or the run ends
		case <-r.Context().Done():
		case <-quit:
		}
	}))
	defer hang.Close()
	defer close(quit)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close() // nothing listens: connections are refused
	urls := make([]string, 0, 1000)
	for i := range healthy {
		urls = append(urls, fmt.Sprintf("%s/hook/%d", good.URL, i))
	}
	if bad {
		kinds := os.Getenv("BENCH_SLOW_BAD") // hang, dead, or both (the default)
		for i := range 100 {
			if kinds != "dead" {
				urls = append(urls, fmt.Sprintf("%s/hang/%d", hang.URL, i))
			}
			if kinds != "hang" {
				urls = append(urls, fmt.Sprintf("%s/dead/%d", dead, i))
			}
		}
	}
	for _, url := range urls {
		if _, err := svc.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: str("bench"), URL: &url, Events: []string{"*"}}); err != nil {
			b.Fatal(err)
		}
	}
	if err := webhooks.RegisterWorkers(queue.Workers(), svc); err != nil {
		b.Fatal(err)
	}
	if err := queue.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = queue.Stop(context.Background()) }()
	loopCtx, stop := context.WithCancel(ctx)
	looped := make(chan error, 1)
	go func() { looped <- svc.RunDeliveries(loopCtx) }()
	for !svc.Delivering() {
		time.Sleep(time.Millisecond)
	}
	b.StartTimer()
	start := time.Now()
	for i := range events {
		if _, err := svc.Dispatch(ctx, placed(int64(i))); err != nil {
			b.Fatal(err)
		}
	}
	if os.Getenv("BENCH_SLOW_TRACE") != "" {
		go func() {
			for range time.Tick(100 * time.Millisecond) {
				rv.mu.Lock()
				n := len(rv.arrived)
				rv.mu.Unlock()
				fmt.Fprintf(os.Stderr, "%s: %d healthy arrived\n", time.Since(start).Round(100*time.Millisecond), n)
			}
		}()
	}
	select {
	case <-rv.done:
	case <-time.After(10 * time.Minute):
		b.Fatalf("only %d of %d healthy deliveries arrived", len(rv.arrived), events*healthy)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(events*healthy)/elapsed.Seconds(), "healthy-deliveries/s")
	b.ReportMetric(elapsed.Seconds(), "s-to-last-healthy")
	if bad {
		// How hard the bad endpoints were tried meanwhile: each of their
		// failed attempts is a row, and so is each hanging request still
		// under way.
		var failed int
		if err := db.Get(&failed, `SELECT COUNT(*) FROM webhooks_attempts`); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(failed)+float64(hanging.Load()), "bad-attempts")
	}
	stop()
	hang.CloseClientConnections()
	if err := <-looped; err != nil {
		b.Error(err)
	}
}
