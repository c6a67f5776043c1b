package metrics_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/a11y"
	"github.com/groundwork-go/groundwork/metrics"
)

type unlimited struct{}

func (unlimited) Hit(context.Context, string, int, time.Duration) (groundwork.RateLimit, error) {
	return groundwork.RateLimit{Allowed: true, Limit: 1 << 30, Remaining: 1 << 30}, nil
}

// The contrast check's whole handler, plain and wrapped by Instrument
// with a route table the size of the reference server's (the request
// matched among 130 patterns, its duration observed). Run with -count
// to interleave the two.
func BenchmarkInstrument(b *testing.B) {
	body := []byte(`{"foreground":"#767676","background":"#FFFFFF"}`)
	h, err := a11y.NewHandler(nil, &a11y.HandlerOptions{HTTPOptions: groundwork.HTTPOptions{RateLimiter: unlimited{}}})
	if err != nil {
		b.Fatal(err)
	}
	routes := append([]string{}, h.Routes()...)
	for i := range 125 {
		routes = append(routes, "GET /api/other/"+string(rune('a'+i%26))+"/{id}/x"+string(rune('a'+i/26)))
	}
	// check sends one contrast check to h.
	check := func(b *testing.B, h http.Handler) {
		r := httptest.NewRequest(http.MethodPost, "/api/a11y/contrast-check", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code, w.Body)
		}
	}
	run := func(b *testing.B, h http.Handler) {
		b.ReportAllocs()
		for b.Loop() {
			check(b, h)
		}
	}
	b.Run("Plain", func(b *testing.B) { run(b, h) })
	b.Run("Instrumented", func(b *testing.B) { run(b, metrics.New().Instrument(h, routes)) })
	// The two interleaved in blocks of 500 requests, so the machine's
	// drift falls on both alike; reports each one's time per request and
	// their ratio (instrumented / plain).
	b.Run("Interleaved", func(b *testing.B) {
		wrapped := metrics.New().Instrument(h, routes)
		var plain, instrumented time.Duration
		block := func(h http.Handler) time.Duration {
			start := time.Now()
			for range 500 {
				check(b, h)
			}
			return time.Since(start)
		}
		n := 0
		for b.Loop() {
			// Each goes first every other round (a collection started by
			// one block lands on the next).
			if n/500%2 == 0 {
				plain += block(h)
				instrumented += block(wrapped)
			} else {
				instrumented += block(wrapped)
				plain += block(h)
			}
			n += 500
		}
		b.ReportMetric(float64(plain.Nanoseconds())/float64(n), "plain-ns/req")
		b.ReportMetric(float64(instrumented.Nanoseconds())/float64(n), "instrumented-ns/req")
		b.ReportMetric(float64(instrumented)/float64(plain), "ratio")
	})
}

// Instrument around a handler that does nothing: its own cost.
func BenchmarkInstrumentAlone(b *testing.B) {
	routes := []string{"POST /api/a11y/contrast-check"}
	for i := range 129 {
		routes = append(routes, "GET /api/other/"+string(rune('a'+i%26))+"/{id}/x"+string(rune('a'+i/26)))
	}
	h := metrics.New().Instrument(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), routes)
	r := httptest.NewRequest(http.MethodPost, "/api/a11y/contrast-check", nil)
	w := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(w, r)
	}
}
