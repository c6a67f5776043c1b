package metrics_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/metrics"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// What the services count reaches the series; names and label counts it
// does not keep are ignored, not a panic.
func TestMeter(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	groundwork.Count(m, groundwork.MetricSignIns, "failure")
	groundwork.Count(m, groundwork.MetricSignIns, "failure")
	m.Add(groundwork.MetricViews, 250, "flushed")
	m.Add(groundwork.MetricInbound, 1, "stripe", "refused")
	m.Observe(groundwork.MetricDeliveryLag, 0.3)
	m.Add("groundwork_no_such_total", 1, "x")
	m.Add(groundwork.MetricSignIns, 1, "too", "many")
	m.Observe(groundwork.MetricDeliveryLag, 1, "extra")
	groundwork.Count(nil, groundwork.MetricSignIns, "failure") // a nil Meter counts nothing

	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(m), "a host registers it in its own registry")
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP groundwork_auth_sign_ins_total Sign-in attempts by outcome.
# TYPE groundwork_auth_sign_ins_total counter
groundwork_auth_sign_ins_total{outcome="failure"} 2
groundwork_auth_sign_ins_total{outcome="locked_out"} 0
groundwork_auth_sign_ins_total{outcome="success"} 0
# HELP groundwork_analytics_views_total Analytics views by stage.
# TYPE groundwork_analytics_views_total counter
groundwork_analytics_views_total{stage="buffered"} 0
groundwork_analytics_views_total{stage="flushed"} 250
groundwork_analytics_views_total{stage="refused"} 0
# HELP groundwork_inbound_events_total Inbound webhook events by provider and outcome.
# TYPE groundwork_inbound_events_total counter
groundwork_inbound_events_total{outcome="refused",provider="stripe"} 1
`), groundwork.MetricSignIns, groundwork.MetricViews, groundwork.MetricInbound))
	n, err := testutil.GatherAndCount(reg, groundwork.MetricDeliveryLag)
	require.NoError(t, err)
	require.Equal(t, 1, n)
}

// Each request is observed under the route it matched, as a ServeMux
// matches; anything else is "other", so no path grows the series.
func TestInstrument(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	app := http.NewServeMux()
	app.HandleFunc("GET /api/forms/{form}", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") })
	app.HandleFunc("POST /api/forms/{form}/submit", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(422) })
	h := m.Instrument(app, []string{"GET /api/forms/{form}", "POST /api/forms/{form}/submit", "GET /api/forms/{form}", "GET /healthz"})
	// Twice, the second time from the cache of routes seen; the same
	// path by other methods, one the cache does not keep (PROPFIND).
	for range 2 {
		for _, r := range []struct{ method, path string }{{"GET", "/api/forms/a"}, {"GET", "/api/forms/b"}, {"HEAD", "/api/forms/c"},
			{"POST", "/api/forms/a/submit"}, {"GET", "/random/" + strings.Repeat("x", 50)}, {"DELETE", "/api/forms/a"},
			{"PROPFIND", "/api/forms/a"}} {
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(r.method, r.path, nil))
		}
	}
	// More paths than the cache keeps are still each matched.
	for i := range 5000 {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/api/forms/f"+strconv.Itoa(i), nil))
	}
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(m))
	families, err := reg.Gather()
	require.NoError(t, err)
	got := map[string]uint64{}
	for _, f := range families {
		if f.GetName() != metrics.RequestDuration {
			continue
		}
		for _, s := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range s.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			got[labels["route"]+" "+labels["status"]] = s.GetHistogram().GetSampleCount()
		}
	}
	require.Equal(t, map[string]uint64{"GET /api/forms/{form} 2xx": 5006, "POST /api/forms/{form}/submit 4xx": 2, "other 4xx": 6}, got)
}

type pingArgs struct{}

func (pingArgs) Kind() string { return "metrics_ping" }

type pingWorker struct {
	river.WorkerDefaults[pingArgs]
}

func (pingWorker) Work(context.Context, *river.Job[pingArgs]) error { return nil }

// The jobs the queue finishes, by kind and outcome, and those waiting,
// read from the database at each scrape; the handler serves it all as
// Prometheus text.
func TestQueue(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		q, err := store.NewQueue(db, &store.QueueOptions{TestOnly: true})
		require.NoError(t, err)
		river.AddWorker(q.Workers(), pingWorker{})
		m := metrics.New()
		srv := httptest.NewServer(m.Handler())
		t.Cleanup(srv.Close)
		// A job waiting for a client that has not started.
		require.NoError(t, q.Enqueue(ctx, pingArgs{}, nil))
		watchCtx, stop := context.WithCancel(ctx)
		watched := make(chan struct{})
		require.NoError(t, q.Start(ctx))
		t.Cleanup(func() { stop(); <-watched; require.NoError(t, q.Stop(ctx)) })
		go func() { m.WatchQueue(watchCtx, q); close(watched) }()
		scrape := func() string {
			res, err := http.Get(srv.URL)
			require.NoError(t, err)
			defer res.Body.Close()
			require.Equal(t, "text/plain; version=0.0.4; charset=utf-8; escaping=underscores", res.Header.Get("Content-Type"))
			body, err := io.ReadAll(res.Body)
			require.NoError(t, err)
			return string(body)
		}
		require.Eventually(t, func() bool {
			return strings.Contains(scrape(), `groundwork_jobs_total{kind="metrics_ping",outcome="completed"} 1`)
		}, 10*time.Second, 50*time.Millisecond)
		// One more, scheduled later: it waits.
		require.NoError(t, q.Enqueue(ctx, pingArgs{}, &river.InsertOpts{ScheduledAt: time.Now().Add(time.Hour)}))
		text := scrape()
		require.Contains(t, text, `groundwork_jobs_total{kind="metrics_ping",outcome="completed"} 1`)
		require.Contains(t, text, `groundwork_jobs_waiting{queue="default",state="scheduled"} 1`)
		require.Contains(t, text, "go_goroutines ", "the runtime's series beside ours")
	})
}

// With the database down, the scrape still answers 200 with every other
// series; only the jobs waiting are left out.
func TestScrapeWithDatabaseDown(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite)
	q, err := store.NewQueue(db, &store.QueueOptions{TestOnly: true})
	require.NoError(t, err)
	m := metrics.New()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // WatchQueue records the queue and returns
	m.WatchQueue(ctx, q)
	groundwork.Count(m, groundwork.MetricBookings, "created")
	require.NoError(t, db.Close())
	srv := httptest.NewServer(m.Handler())
	t.Cleanup(srv.Close)
	res, err := http.Get(srv.URL)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, 200, res.StatusCode, string(body))
	require.Contains(t, string(body), `groundwork_bookings_total{outcome="created"} 1`)
	require.NotContains(t, string(body), "groundwork_jobs_waiting{")
}
