package a11y_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/a11y"
	"github.com/groundwork-go/groundwork/store/driverless"
)

var (
	sinkFloat  float64
	sinkBool   bool
	sinkString string
)

func BenchmarkContrastRatio(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkFloat, _ = a11y.ContrastRatio("#767676", "#FFFFFF")
	}
}

func BenchmarkCheckContrastColor(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkBool = a11y.CheckContrastColor("#767676", "#FFFFFF")
	}
}

func BenchmarkGenerateAccessibleTextColor(b *testing.B) {
	b.Run("TintUncached", func(b *testing.B) {
		s, err := a11y.NewService(&a11y.Options{CacheSize: -1})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			sinkString = s.GenerateAccessibleTextColor("#3b82f6", true)
		}
	})
	b.Run("TintCached", func(b *testing.B) {
		s, err := a11y.NewService(nil)
		if err != nil {
			b.Fatal(err)
		}
		s.GenerateAccessibleTextColor("#3b82f6", true)
		b.ReportAllocs()
		for b.Loop() {
			sinkString = s.GenerateAccessibleTextColor("#3b82f6", true)
		}
	})
	b.Run("BlackOrWhiteCached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkString = a11y.GetContrastColor("#3b82f6")
		}
	})
	b.Run("PaletteNameCached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkString = a11y.GenerateAccessibleTextColor("blue-500", true)
		}
	})
}

// The contrast check through the whole handler (throttle, decoding,
// validation, hooks, encoding) against a bare handler that decodes the
// same JSON and writes a constant.
func BenchmarkContrastCheckHandler(b *testing.B) {
	body := []byte(`{"foreground":"#767676","background":"#FFFFFF"}`)
	run := func(b *testing.B, h http.Handler) {
		b.ReportAllocs()
		for b.Loop() {
			r := httptest.NewRequest(http.MethodPost, "/api/a11y/contrast-check", bytes.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != http.StatusOK {
				b.Fatal(w.Code, w.Body)
			}
		}
	}
	b.Run("Bare", func(b *testing.B) {
		run(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var in struct {
				Foreground string `json:"foreground"`
				Background string `json:"background"`
			}
			if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"ratio":4.542224959605253,"is_accessible":true}`))
		}))
	})
	b.Run("Handler", func(b *testing.B) {
		h, err := a11y.NewHandler(nil, &a11y.HandlerOptions{HTTPOptions: groundwork.HTTPOptions{RateLimiter: unlimited{}}})
		if err != nil {
			b.Fatal(err)
		}
		run(b, h)
	})
	b.Run("HandlerWithThrottle", func(b *testing.B) {
		// The real in-memory "api" throttle. Clients take turns over 64Ki
		// addresses, so none reaches its 60 a minute and every request is
		// served.
		h, err := a11y.NewHandler(nil, &a11y.HandlerOptions{HTTPOptions: groundwork.HTTPOptions{RateLimiter: driverless.NewMemoryRateLimiter(nil)}})
		if err != nil {
			b.Fatal(err)
		}
		addrs := make([]string, 1<<16)
		for i := range addrs {
			addrs[i] = fmt.Sprintf("10.0.%d.%d:1", i>>8, i&255)
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			r := httptest.NewRequest(http.MethodPost, "/api/a11y/contrast-check", bytes.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			r.RemoteAddr = addrs[i&(1<<16-1)]
			i++
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != http.StatusOK {
				b.Fatal(w.Code, w.Body)
			}
		}
	})
}
