// Command soak puts a reference server under a steady mixed load for a
// while (form submissions, bookings, page views, sign-ins, and the webhook
// deliveries they cause, to a receiver of its own) and samples, once a
// minute, the server's resident memory, goroutines and open files from
// its Prometheus metrics. bench/soak.sh starts the server and runs it;
// see BENCHMARKS.md.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

// step is a request of the setup.
type step struct {
	method, path string
	body         any
}

// kind is one sort of request the soak makes, at a rate.
type kind struct {
	name  string
	rate  float64 // a second
	do    func(ctx context.Context, n int64) error
	sent  atomic.Int64
	fails atomic.Int64
	first sync.Once
	err   atomic.Value // the first failure, for the report
}

// config is the soak's flags.
type config struct {
	base, metricsURL, token, email, password, hooks string
	duration, every, settle                         time.Duration
	scale                                           float64
}

func readFlags() (config, error) {
	var c config
	flag.StringVar(&c.base, "base", "http://127.0.0.1:18082", "the server")
	flag.StringVar(&c.metricsURL, "metrics", "http://127.0.0.1:18083/metrics", "its Prometheus metrics")
	flag.StringVar(&c.token, "token", "", "an API token with forms:*, bookings:* and webhookSubscription.*")
	flag.StringVar(&c.email, "email", "soak@example.test", "a user who signs in")
	flag.StringVar(&c.password, "password", "", "their password")
	flag.StringVar(&c.hooks, "hooks", "127.0.0.1:18084", "where the webhook receiver listens")
	flag.DurationVar(&c.duration, "duration", 30*time.Minute, "how long")
	flag.DurationVar(&c.every, "every", time.Minute, "how often to sample")
	flag.DurationVar(&c.settle, "settle", 30*time.Second, "how long after the load to sample once more")
	flag.Float64Var(&c.scale, "scale", 1, "times the default rates (20 submissions, 5 bookings, 100 views, 1 sign-in a second)")
	flag.Parse()
	if c.token == "" || c.password == "" {
		return c, errors.New("-token and -password are needed")
	}
	return c, nil
}

func run() error {
	c, err := readFlags()
	if err != nil {
		return err
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	api := func(method, path string, body any) error {
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, c.base+path, bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+c.token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", fmt.Sprintf("soak-%d", time.Now().UnixNano()))
		return expect(client.Do(req))
	}

	var delivered atomic.Int64
	l, err := receive(c.hooks, &delivered)
	if err != nil {
		return err
	}
	if err := prepare(api, l.Addr().String()); err != nil {
		return err
	}
	kinds := loadKinds(c, client)
	ctx, cancel := context.WithTimeout(context.Background(), c.duration)
	defer cancel()
	var wg sync.WaitGroup
	for _, k := range kinds {
		wg.Go(func() { pace(ctx, k) })
	}

	fmt.Println("| minute | resident MiB | goroutines | open files | submissions | bookings | views | sign-ins | failed | webhooks |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	began := time.Now()
	sample := func(label string) {
		m, err := scrape(client, c.metricsURL)
		if err != nil {
			fmt.Fprintln(os.Stderr, "soak: metrics:", err)
			return
		}
		failed := int64(0)
		for _, k := range kinds {
			failed += k.fails.Load()
		}
		if label == "" {
			label = strconv.Itoa(int(time.Since(began).Round(time.Minute) / time.Minute))
		}
		fmt.Printf("| %s | %.1f | %.0f | %.0f | %d | %d | %d | %d | %d | %d |\n", label,
			m["process_resident_memory_bytes"]/(1<<20), m["go_goroutines"], m["process_open_fds"],
			kinds[0].sent.Load(), kinds[1].sent.Load(), kinds[2].sent.Load(), kinds[3].sent.Load(), failed, delivered.Load())
	}
	sample("")
	tick := time.NewTicker(c.every)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-tick.C:
			sample("")
		case <-ctx.Done():
			done = true
		}
	}
	wg.Wait()
	sample("end")
	// Once the last webhooks are out and idle connections closed, what
	// the load leaves behind.
	time.Sleep(c.settle)
	sample(fmt.Sprintf("%s after", c.settle))
	for _, k := range kinds {
		if e, ok := k.err.Load().(error); ok {
			fmt.Fprintf(os.Stderr, "soak: %s: %d of %d failed; the first: %v\n", k.name, k.fails.Load(), k.sent.Load(), e)
		}
	}
	return nil
}

// receive serves the webhook receiver on addr, counting what arrives.
func receive(addr string, delivered *atomic.Int64) (net.Listener, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	go func() {
		_ = http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			delivered.Add(1)
			w.WriteHeader(http.StatusNoContent)
		}))
	}()
	return l, nil
}

// prepare makes what the load needs through the API: a form, a service
// with 20 providers working around the clock, a subscription to every
// event (delivered to hooks).
func prepare(api func(method, path string, body any) error, hooks string) error {
	steps := []step{
		{"POST", "/api/v1/forms", map[string]any{"name": "Soak", "is_active": true}},
		{"POST", "/api/v1/forms/soak/fields", map[string]any{"type": "text", "label": "Name", "is_required": true}},
		{"POST", "/api/v1/forms/soak/fields", map[string]any{"type": "email", "label": "Email", "is_required": true}},
		{"POST", "/api/v1/forms/soak/fields", map[string]any{"type": "textarea", "label": "Message"}},
		{"POST", "/api/bookings/admin/services", map[string]any{"name": "Soak", "slug": "soak", "duration": 15, "timezone": "UTC",
			"min_advance_minutes": 0, "max_advance_minutes": 525600}},
		{"POST", "/api/ecommerce/v1/admin/webhook-subscriptions", map[string]any{"name": "soak",
			"url": "http://" + hooks + "/hooks", "events": []string{"*"}}},
	}
	for p := 1; p <= 20; p++ {
		steps = append(steps,
			step{"POST", "/api/bookings/admin/providers", map[string]any{"name": fmt.Sprintf("Provider %d", p), "timezone": "UTC"}},
			step{"PUT", fmt.Sprintf("/api/bookings/admin/services/soak/providers/%d", p), map[string]any{}})
		for d := range 7 {
			steps = append(steps, step{"POST", fmt.Sprintf("/api/bookings/admin/providers/%d/hours", p),
				map[string]any{"day_of_week": d, "start_time": "00:00", "end_time": "24:00"}})
		}
	}
	for _, s := range steps {
		if err := api(s.method, s.path, s.body); err != nil {
			return fmt.Errorf("%s %s: %w", s.method, s.path, err)
		}
	}
	return nil
}

// loadKinds are the requests the load makes, at their rates.
func loadKinds(c config, client *http.Client) []*kind {
	ip := func(n int64, k int) string { return fmt.Sprintf("10.%d.%d.%d", k, n/256%256, n%256) }
	post := func(ctx context.Context, path, contentType, body, addr string, extra ...string) error {
		req, _ := http.NewRequestWithContext(ctx, "POST", c.base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Accept", "application/json")
		req.Header.Set("X-Forwarded-For", addr)
		for i := 0; i+1 < len(extra); i += 2 {
			req.Header.Set(extra[i], extra[i+1])
		}
		return expect(client.Do(req))
	}
	tomorrow := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	kinds := []*kind{
		{name: "submissions", rate: 20, do: func(ctx context.Context, n int64) error {
			body := url.Values{"name": {"Ann Example"}, "email": {"ann@example.test"}, "message": {"Hello, soak " + strconv.FormatInt(n, 10)}}
			return post(ctx, "/api/v1/forms/soak/submit", "application/x-www-form-urlencoded", body.Encode(), ip(n, 1))
		}},
		{name: "bookings", rate: 5, do: func(ctx context.Context, n int64) error {
			// Each start takes 20 bookings (one a provider) before the next.
			start := tomorrow.Add(time.Duration(n/20) * 15 * time.Minute)
			body := fmt.Sprintf(`{"service":"soak","start_time":%q,"customer_name":"Soak","customer_email":"soak@example.test"}`,
				start.Format(time.RFC3339))
			return post(ctx, "/api/bookings", "application/json", body, ip(n, 2))
		}},
		{name: "views", rate: 100, do: func(ctx context.Context, n int64) error {
			body := fmt.Sprintf(`{"name":"pageview","url":"%s/page/%d","title":"Page","referrer":"https://search.example/"}`, c.base, n%50)
			return post(ctx, "/analytics/collect", "text/plain;charset=UTF-8", body, ip(n, 3),
				"User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0")
		}},
		{name: "sign-ins", rate: 1, do: func(ctx context.Context, n int64) error {
			return signIn(ctx, c.base, c.email, c.password, ip(n, 4))
		}},
	}
	for _, k := range kinds {
		k.rate *= c.scale
	}
	return kinds
}

// pace sends k's requests at its rate until ctx is done, each on its own
// goroutine, and waits for them.
func pace(ctx context.Context, k *kind) {
	var wg sync.WaitGroup
	defer wg.Wait()
	interval := time.Duration(float64(time.Second) / k.rate)
	next := time.Now()
	for n := int64(0); ; n++ {
		next = next.Add(interval)
		select {
		case <-time.After(time.Until(next)):
		case <-ctx.Done():
			return
		}
		wg.Go(func() {
			k.sent.Add(1)
			// A request under way when the soak ends may finish.
			if err := k.do(context.WithoutCancel(ctx), n); err != nil {
				k.fails.Add(1)
				k.first.Do(func() { k.err.Store(err) })
			}
		})
	}
}

// signIn signs in with the web form, opens the dashboard, and signs out,
// as a person in a browser would.
func signIn(ctx context.Context, base, email, password, addr string) error {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	do := func(method, path string, form url.Values) (*http.Response, error) {
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req, _ := http.NewRequestWithContext(ctx, method, base+path, body)
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", base)
		}
		req.Header.Set("X-Forwarded-For", addr)
		return c.Do(req)
	}
	if err := expect(do("GET", "/login", nil)); err != nil {
		return err
	}
	res, err := do("POST", "/login", url.Values{"email": {email}, "password": {password}})
	if err := expect(res, err); err != nil {
		return err
	}
	if res.Request.URL.Path != "/dashboard" {
		return fmt.Errorf("signed in to %s, not the dashboard", res.Request.URL.Path)
	}
	return expect(do("POST", "/logout", url.Values{}))
}

// expect reads and closes a response, and fails unless it is 2xx.
func expect(res *http.Response, err error) error {
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %d %s", res.Request.Method, res.Request.URL.Path, res.StatusCode, bytes.TrimSpace(body[:min(len(body), 200)]))
	}
	return nil
}

// scrape reads the unlabelled samples of a Prometheus text page.
func scrape(c *http.Client, u string) (map[string]float64, error) {
	res, err := c.Get(u)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") || strings.Contains(name, "{") {
			continue
		}
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			out[name] = v
		}
	}
	return out, sc.Err()
}
