package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// With --metrics-addr the server keeps Prometheus series on a listener of
// its own: requests by route and status class, jobs, bookings and their
// conflicts, sign-in failures, analytics views; the public address has
// no /metrics.
func TestMetrics(t *testing.T) {
	t.Parallel()
	dsn := storetest.DSN(t, store.SQLite)
	c, _, stderr := runCmd(t, env{"GROUNDWORK_DB": dsn}, "bookings", "seed")
	require.Equal(t, 0, c, stderr)
	metricsAddr := freeAddr(t)
	cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", dsn, "--log-level", "warn", "--uploads", t.TempDir(),
		"--metrics-addr", metricsAddr}, env{"GROUNDWORK_SECRET_KEY": testSecretKey}.get)
	require.NoError(t, err)
	base := startServeConfig(t, cfg)

	// A booking, and the same time again: a conflict.
	var slots struct{ Data []struct{ Start string } }
	for _, month := range nextMonths() {
		_, body := get(t, base+"/api/bookings/services/consultation/slots?date="+month, "")
		require.NoError(t, json.Unmarshal([]byte(body), &slots))
		if len(slots.Data) > 0 {
			break
		}
	}
	require.NotEmpty(t, slots.Data)
	booking := `{"service":"consultation","start_time":"` + slots.Data[0].Start + `","customer_name":"Grace","customer_email":"grace@example.com"}`
	code, body := request(t, "POST", base+"/api/bookings", "", booking)
	require.Equal(t, 201, code, body)
	code, _ = request(t, "POST", base+"/api/bookings", "", booking)
	require.Equal(t, 409, code)
	// A wrong password.
	res, err := http.PostForm(base+"/login", url.Values{"email": {"nobody@example.com"}, "password": {"wrong password"}})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 422, res.StatusCode)
	// A page view, written within a second.
	req, err := http.NewRequest("POST", base+"/analytics/collect", strings.NewReader(`{"name":"pageview","url":"`+base+`/pricing"}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0")
	res, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 202, res.StatusCode)

	scrape := func() string {
		res, err := http.Get("http://" + metricsAddr + "/metrics")
		require.NoError(t, err)
		defer res.Body.Close()
		require.Equal(t, 200, res.StatusCode)
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return string(b)
	}
	// The confirmation mail's job finishes; the view and the booking (an
	// event counted on the server) are flushed.
	require.Eventually(t, func() bool {
		text := scrape()
		return strings.Contains(text, `groundwork_analytics_views_total{stage="flushed"} 2`) &&
			strings.Contains(text, `outcome="completed"`)
	}, 20*time.Second, 100*time.Millisecond, scrape())
	text := scrape()
	for _, want := range []string{
		`groundwork_bookings_total{outcome="created"} 1`,
		`groundwork_bookings_total{outcome="conflict"} 1`,
		`groundwork_auth_sign_ins_total{outcome="failure"} 1`,
		`groundwork_analytics_views_total{stage="buffered"} 2`,
		`groundwork_http_request_duration_seconds_count{route="POST /api/bookings",status="2xx"} 1`,
		`groundwork_http_request_duration_seconds_count{route="POST /api/bookings",status="4xx"} 1`,
		`groundwork_http_request_duration_seconds_count{route="POST /login",status="4xx"} 1`,
		`groundwork_http_request_duration_seconds_count{route="GET /api/bookings/services/{slug}/slots",status="2xx"}`,
		`groundwork_jobs_total{kind="bookings_mail",outcome="completed"}`,
		`groundwork_webhook_deliveries_total{outcome="delivered"} 0`,
		`groundwork_forms_submissions_total{outcome="spam"} 0`,
	} {
		require.Contains(t, text, want)
	}
	code, _ = get(t, base+"/metrics", "")
	require.Equal(t, 404, code, "never on the public address")

	_, err = parseServeFlags([]string{"--addr", "127.0.0.1:9000", "--metrics-addr", "127.0.0.1:9000"}, env{}.get)
	require.ErrorContains(t, err, "must not be the public address")
}
