// Package metrics keeps groundwork's Prometheus series: how long each
// route takes, by route pattern and status class; the jobs the queue
// finishes, by kind and outcome, and how many wait; and what the services
// count through a [groundwork.Meter] (sign-ins, submissions, bookings,
// webhook deliveries and their lag, inbound events, analytics views).
//
// A *Metrics is a prometheus.Collector: register it in the host's own
// registry, or serve it alone with [Metrics.Handler]. Hand it to each
// service's options as their Meter, wrap the server's handler with
// [Metrics.Instrument], and call [Metrics.WatchQueue] once the queue runs:
//
//	m := metrics.New()
//	prometheus.MustRegister(m)                 // or reg.MustRegister(m)
//	forms.NewService(st, &forms.Options{Meter: m})
//	handler = m.Instrument(handler, routes)    // routes: the handlers' Routes()
//	go m.WatchQueue(ctx, queue)
//
// Importing this package links client_golang; the domain packages count
// through the Meter interface and do not.
package metrics

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/riverqueue/river"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/store"
)

// Series names of what this package measures itself.
const (
	// RequestDuration is a histogram of request durations in seconds, by
	// route ("METHOD /pattern", or "other") and status class ("2xx").
	RequestDuration = "groundwork_http_request_duration_seconds"
	// Jobs counts the jobs the queue finished, by kind and outcome
	// (completed, failed, cancelled, snoozed).
	Jobs = "groundwork_jobs_total"
	// JobsWaiting is how many jobs are in the queue, by queue and state
	// (available, scheduled, retryable, running), read at each scrape.
	JobsWaiting = "groundwork_jobs_waiting"
)

// Metrics is every series. Safe for concurrent use.
type Metrics struct {
	counters   map[string]*prometheus.CounterVec
	histograms map[string]*prometheus.HistogramVec
	requests   *prometheus.Desc
	// routes are the request series of every Instrument, by route.
	routesMu sync.Mutex
	routes   []*routeSeries
	jobs     *prometheus.CounterVec
	waiting  *prometheus.Desc
	queue    atomic.Pointer[store.Queue]
}

var _ groundwork.Meter = (*Metrics)(nil)
var _ prometheus.Collector = (*Metrics)(nil)

// New returns the series, all at zero.
func New() *Metrics {
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	}
	m := &Metrics{
		counters: map[string]*prometheus.CounterVec{
			groundwork.MetricSignIns:     counter(groundwork.MetricSignIns, "Sign-in attempts by outcome.", "outcome"),
			groundwork.MetricSubmissions: counter(groundwork.MetricSubmissions, "Form submissions stored, by outcome.", "outcome"),
			groundwork.MetricBookings:    counter(groundwork.MetricBookings, "Booking attempts by outcome.", "outcome"),
			groundwork.MetricDeliveries:  counter(groundwork.MetricDeliveries, "Webhook delivery attempts by outcome.", "outcome"),
			groundwork.MetricInbound:     counter(groundwork.MetricInbound, "Inbound webhook events by provider and outcome.", "provider", "outcome"),
			groundwork.MetricViews:       counter(groundwork.MetricViews, "Analytics views by stage.", "stage"),
		},
		histograms: map[string]*prometheus.HistogramVec{
			groundwork.MetricDeliveryLag: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: groundwork.MetricDeliveryLag,
				Help:    "Seconds from a webhook event's creation to its delivery.",
				Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14400, 86400}}, nil),
		},
		requests: prometheus.NewDesc(RequestDuration, "Request durations in seconds, by route pattern and status class.",
			[]string{"route", "status"}, nil),
		jobs:    counter(Jobs, "Jobs finished, by kind and outcome.", "kind", "outcome"),
		waiting: prometheus.NewDesc(JobsWaiting, "Jobs in the queue, by queue and state.", []string{"queue", "state"}, nil),
	}
	// The outcomes the services name, at zero before the first, so a
	// rate is defined from the start.
	for name, values := range map[string][]string{
		groundwork.MetricSignIns:     {"success", "failure", "locked_out"},
		groundwork.MetricSubmissions: {"accepted", "spam"},
		groundwork.MetricBookings:    {"created", "conflict"},
		groundwork.MetricDeliveries:  {"delivered", "retrying", "failed", "parked"},
		groundwork.MetricViews:       {"buffered", "flushed", "refused"},
	} {
		for _, v := range values {
			m.counters[name].WithLabelValues(v)
		}
	}
	return m
}

// Add implements groundwork.Meter; a name it does not keep, or the wrong
// number of labels, is ignored.
func (m *Metrics) Add(name string, n float64, labels ...string) {
	if c, ok := m.counters[name]; ok {
		if s, err := c.GetMetricWithLabelValues(labels...); err == nil {
			s.Add(n)
		}
	}
}

// Observe implements groundwork.Meter, as Add.
func (m *Metrics) Observe(name string, v float64, labels ...string) {
	if h, ok := m.histograms[name]; ok {
		if s, err := h.GetMetricWithLabelValues(labels...); err == nil {
			s.Observe(v)
		}
	}
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.counters {
		c.Describe(ch)
	}
	for _, h := range m.histograms {
		h.Describe(ch)
	}
	ch <- m.requests
	m.jobs.Describe(ch)
	ch <- m.waiting
}

// Collect implements prometheus.Collector; the jobs waiting are counted
// once WatchQueue was given a queue.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m.counters {
		c.Collect(ch)
	}
	for _, h := range m.histograms {
		h.Collect(ch)
	}
	m.routesMu.Lock()
	routes := slices.Clone(m.routes)
	m.routesMu.Unlock()
	for _, r := range routes {
		r.collect(ch, m.requests)
	}
	m.jobs.Collect(ch)
	q := m.queue.Load()
	if q == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	counts, err := q.Waiting(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(m.waiting, err)
		return
	}
	for _, c := range counts {
		ch <- prometheus.MustNewConstMetric(m.waiting, prometheus.GaugeValue, float64(c.N), c.Queue, c.State)
	}
}

// WatchQueue counts the jobs q finishes, by kind and outcome, until ctx
// ends, and from then on each scrape counts the jobs waiting in q's
// database. Call it once, after q starts; it returns when ctx ends.
func (m *Metrics) WatchQueue(ctx context.Context, q *store.Queue) {
	m.queue.Store(q)
	events, cancel := q.Client().Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed, river.EventKindJobCancelled,
		river.EventKindJobSnoozed)
	defer cancel()
	for {
		select {
		case <-ctx.Done():
			return
		case e, ok := <-events:
			if !ok {
				return
			}
			if e.Job != nil {
				m.jobs.WithLabelValues(e.Job.Kind, strings.TrimPrefix(string(e.Kind), "job_")).Inc()
			}
		}
	}
}

// Instrument wraps next so each request's duration is observed by its
// route: the one of routes ("METHOD /path/{param}", as the handlers'
// Routes() list them) that the request matches as an http.ServeMux would
// match it, else "other" (so unknown paths cannot grow the series).
func (m *Metrics) Instrument(next http.Handler, routes []string) http.Handler {
	match := http.NewServeMux()
	// Each route's series by status class.
	series := map[string]*routeSeries{}
	for _, r := range append(slices.Clone(routes), "other") {
		if _, ok := series[r]; !ok && (r == "other" || registerRoute(match, r)) {
			series[r] = &routeSeries{route: r}
			m.routesMu.Lock()
			m.routes = append(m.routes, series[r])
			m.routesMu.Unlock()
		}
	}
	seen := newRouteCache()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Since(epoch)
		sw := writers.Get().(*api.StatusWriter)
		sw.ResponseWriter, sw.Status = w, 0
		next.ServeHTTP(sw, r)
		status := sw.Status
		sw.ResponseWriter = nil
		writers.Put(sw)
		method := methodIndex(r.Method)
		s := seen.get(method, r.URL.Path)
		if s == nil {
			_, route := match.Handler(r)
			if s = series[route]; s == nil {
				s = series["other"]
			}
			seen.put(method, r.URL.Path, s)
		}
		class := status / 100
		if status == 0 {
			class = 2
		}
		if class < 1 || class > 5 {
			return
		}
		s.byClass[class].observe(time.Since(epoch) - start)
	})
}

// routeCache remembers the route of the first routeCacheSize method and
// path pairs seen (matching is most of Instrument's cost); past that,
// requests are matched each time. It keeps one map of paths per common
// method, so a look-up hashes the path alone; other methods are matched
// each time. Reads take no lock: a new pair replaces the maps with a
// copy.
type routeCache struct {
	mu     sync.Mutex
	routes atomic.Pointer[[cachedMethods]map[string]*routeSeries]
}

// cachedMethods is how many methods the cache keeps routes of: those
// methodIndex numbers.
const cachedMethods = 7

// methodIndex numbers the methods the cache keeps, from 0; any other is -1.
func methodIndex(method string) int {
	switch method {
	case http.MethodGet:
		return 0
	case http.MethodPost:
		return 1
	case http.MethodPut:
		return 2
	case http.MethodPatch:
		return 3
	case http.MethodDelete:
		return 4
	case http.MethodHead:
		return 5
	case http.MethodOptions:
		return 6
	}
	return -1
}

const routeCacheSize = 4096

func newRouteCache() *routeCache {
	c := &routeCache{}
	var maps [cachedMethods]map[string]*routeSeries
	c.routes.Store(&maps)
	return c
}

// get is the route of method (as methodIndex numbers it, or -1) and path,
// or nil when it is not kept.
func (c *routeCache) get(method int, path string) *routeSeries {
	if method < 0 {
		return nil
	}
	return c.routes.Load()[method][path]
}

func (c *routeCache) put(method int, path string, s *routeSeries) {
	if method < 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.routes.Load()
	size := 0
	for _, m := range old {
		size += len(m)
	}
	if size >= routeCacheSize {
		return
	}
	next := *old
	next[method] = maps.Clone(old[method])
	if next[method] == nil {
		next[method] = map[string]*routeSeries{}
	}
	next[method][path] = s
	c.routes.Store(&next)
}

// routeSeries are one route's request durations, by status class.
type routeSeries struct {
	route   string
	byClass [6]durations
}

// durationBuckets are the histogram's upper bounds in seconds
// (Prometheus's default buckets, 5 ms to 10 s), durationBounds the same
// as durations.
var (
	durationBuckets = [...]float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
	durationBounds  = func() (out [len(durationBuckets)]time.Duration) {
		for i, b := range durationBuckets {
			out[i] = time.Duration(b * float64(time.Second))
		}
		return out
	}()
)

// durations is one histogram kept with plain atomics (an observation is
// three additions): counts per bucket (not cumulative; the last is
// beyond every bound) and the sum.
type durations struct {
	counts [len(durationBuckets) + 1]atomic.Uint64
	sum    atomic.Int64 // nanoseconds
}

func (d *durations) observe(v time.Duration) {
	i := 0
	for i < len(durationBounds) && v > durationBounds[i] {
		i++
	}
	d.counts[i].Add(1)
	d.sum.Add(int64(v))
}

// collect sends the route's histograms that have an observation.
func (s *routeSeries) collect(ch chan<- prometheus.Metric, desc *prometheus.Desc) {
	for class := 1; class <= 5; class++ {
		d := &s.byClass[class]
		buckets := make(map[float64]uint64, len(durationBounds))
		var total uint64
		for i, b := range durationBuckets {
			total += d.counts[i].Load()
			buckets[b] = total
		}
		total += d.counts[len(durationBounds)].Load()
		if total == 0 {
			continue
		}
		ch <- prometheus.MustNewConstHistogram(desc, total, time.Duration(d.sum.Load()).Seconds(), buckets, s.route, strconv.Itoa(class)+"xx")
	}
}

// registerRoute adds one pattern to the matcher, and reports whether it
// could: one that clashes with another (two handlers listing the same
// route) is left out.
func registerRoute(mux *http.ServeMux, pattern string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	mux.Handle(pattern, http.NotFoundHandler())
	return true
}

// Handler serves the series alone (a registry of this Metrics and the Go
// runtime's and process's collectors) as Prometheus text: for a listener
// of its own, never the public one.
func (m *Metrics) Handler() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(m, prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	// A series that cannot be read (the jobs waiting, with the database
	// down) is left out; the others are still served.
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// epoch is the monotonic clock's origin: time.Since(epoch) reads that
// clock alone, where time.Now reads the wall clock too.
var epoch = time.Now()

// writers are status writers to reuse.
var writers = sync.Pool{New: func() any { return &api.StatusWriter{} }}
