package forms_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/store"
)

// scales are the submission counts the scale benchmarks run at;
// BENCH_SCALES (e.g. "10000,100000") picks others.
func scales() []int {
	if s := os.Getenv("BENCH_SCALES"); s != "" {
		var out []int
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err == nil && n > 0 {
				out = append(out, n)
			}
		}
		return out
	}
	return []int{10_000, 100_000, 1_000_000}
}

// seeded is a database holding n submissions of the contact form.
type seeded struct {
	svc  *forms.Service
	db   *store.DB
	form *forms.Form
	n    int
}

// seedSQL stores n submissions of form with five values each, in SQL (a
// million in seconds rather than minutes through the service). Three
// submissions share each second, so ties on created_at are ordered by
// id, as in life.
func seedSQL(b *testing.B, db *store.DB, form *forms.Form, n int) {
	b.Helper()
	ctx := context.Background()
	var insert string
	if db.Dialect() == store.SQLite {
		insert = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
			INSERT INTO forms_submissions (form_id, page_url, ip_address, user_agent, created_at, updated_at)
			SELECT ?, 'https://example.test/contact', '192.0.2.1', 'bench',
				strftime('%Y-%m-%d %H:%M:%S', '2026-01-01', '+' || (i / 3) || ' seconds') || '+00:00',
				strftime('%Y-%m-%d %H:%M:%S', '2026-01-01', '+' || (i / 3) || ' seconds') || '+00:00' FROM n`
	} else {
		insert = `INSERT INTO forms_submissions (form_id, page_url, ip_address, user_agent, created_at, updated_at)
			SELECT $2, 'https://example.test/contact', '192.0.2.1', 'bench',
				timestamptz '2026-01-01 00:00:00+00' + (i / 3) * interval '1 second',
				timestamptz '2026-01-01 00:00:00+00' + (i / 3) * interval '1 second' FROM generate_series(1, $1) AS i`
	}
	if _, err := db.ExecContext(ctx, insert, n, form.ID); err != nil {
		b.Fatal(err)
	}
	values := `INSERT INTO forms_values (submission_id, field_id, field_name, field_label, field_type, value, display_value, created_at)
		SELECT s.id, f.id, f.name, f.label, f.type, f.name || ' ' || s.id, f.name || ' ' || s.id, s.created_at
		FROM forms_submissions s CROSS JOIN forms_fields f WHERE s.form_id = ? AND f.form_id = ?`
	if _, err := db.ExecContext(ctx, db.Rebind(values), form.ID, form.ID); err != nil {
		b.Fatal(err)
	}
	analyze := "ANALYZE"
	if db.Dialect() == store.Postgres {
		analyze = "VACUUM ANALYZE forms_submissions, forms_values"
	}
	if _, err := db.ExecContext(ctx, analyze); err != nil {
		b.Fatal(err)
	}
}

// seededDB is a fresh database with n submissions, for b's run.
func seededDB(b *testing.B, d store.Dialect, n int) *seeded {
	b.Helper()
	svc, db, form := benchService(b, d)
	start := time.Now()
	seedSQL(b, db, form, n)
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "seeded %d submissions on %s in %s\n", n, d, time.Since(start).Round(time.Millisecond))
	}
	return &seeded{svc: svc, db: db, form: form, n: n}
}

// countingWriter is a ResponseWriter that keeps nothing: the export's
// bytes are counted and dropped, as a client reading them would.
type countingWriter struct {
	header http.Header
	status int
	n      atomic.Int64
}

func (c *countingWriter) Header() http.Header         { return c.header }
func (c *countingWriter) WriteHeader(status int)      { c.status = status }
func (c *countingWriter) Flush()                      {}
func (c *countingWriter) Write(p []byte) (int, error) { c.n.Add(int64(len(p))); return len(p), nil }

// peakHeap samples the live heap while fn runs and returns its peak in
// MiB, to show the export's memory stays flat whatever the row count.
func peakHeap(fn func()) float64 {
	runtime.GC()
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	fn()
	close(done)
	wg.Wait()
	return float64(peak.Load()) / (1 << 20)
}

// BenchmarkExport streams the CSV export of 10k, 100k and 1M submissions
// through the admin handler, in-process: rows/s, and the peak live heap
// (flat, whatever the count).
func BenchmarkExport(b *testing.B) {
	benchDialects(b, func(b *testing.B, d store.Dialect) {
		for _, n := range scales() {
			b.Run(strconv.Itoa(n), func(b *testing.B) {
				s := seededDB(b, d, n)
				h, err := forms.NewHandler(s.svc, &forms.HandlerOptions{Tokens: testTokens})
				if err != nil {
					b.Fatal(err)
				}
				target := forms.PrefixDefault + "/" + s.form.Slug + "/submissions/export"
				var peak float64
				for b.Loop() {
					w := &countingWriter{header: http.Header{}}
					peak = max(peak, peakHeap(func() {
						r := httptest.NewRequest(http.MethodGet, target, nil)
						r.Header.Set("Authorization", "Bearer admin")
						h.ServeHTTP(w, r)
					}))
					if w.status != 0 && w.status != http.StatusOK {
						b.Fatalf("status %d", w.status)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
				b.ReportMetric(peak, "peak-heap-MiB")
			})
		}
	})
}

// BenchmarkListScale reads the first, middle and last page (15 a page,
// values included) of 10k, 100k and 1M submissions through the admin
// handler, in-process: the server's time for one request, once the
// list's index is built (with -v it prints the first request's time and
// how long the index took).
func BenchmarkListScale(b *testing.B) {
	benchDialects(b, func(b *testing.B, d store.Dialect) {
		for _, n := range scales() {
			s := seededDB(b, d, n)
			h, err := forms.NewHandler(s.svc, &forms.HandlerOptions{Tokens: testTokens})
			if err != nil {
				b.Fatal(err)
			}
			last := (n + 14) / 15
			// Warm up as an admin browsing would: the first request
			// counts, and a large list gets its index in the background.
			warm := func(page int) time.Duration {
				r := httptest.NewRequest(http.MethodGet, fmt.Sprintf("%s/%s/submissions?page=%d", forms.PrefixDefault, s.form.Slug, page), nil)
				r.Header.Set("Authorization", "Bearer admin")
				start := time.Now()
				h.ServeHTTP(httptest.NewRecorder(), r)
				return time.Since(start)
			}
			cold := warm(1)
			start := time.Now()
			for warm(last) > 20*time.Millisecond && time.Since(start) < time.Minute {
				time.Sleep(50 * time.Millisecond)
			}
			if testing.Verbose() {
				fmt.Fprintf(os.Stderr, "%s %d: first request %s, index ready after %s\n", d, n, cold.Round(time.Millisecond),
					time.Since(start).Round(time.Millisecond))
			}
			for _, page := range []struct {
				name string
				n    int
			}{{"First", 1}, {"Middle", last / 2}, {"Last", last}} {
				b.Run(fmt.Sprintf("%d/%s", n, page.name), func(b *testing.B) {
					target := fmt.Sprintf("%s/%s/submissions?page=%d", forms.PrefixDefault, s.form.Slug, page.n)
					total := []byte(fmt.Sprintf(`"total":%d`, n))
					for b.Loop() {
						r := httptest.NewRequest(http.MethodGet, target, nil)
						r.Header.Set("Authorization", "Bearer admin")
						w := httptest.NewRecorder()
						h.ServeHTTP(w, r)
						if w.Code != http.StatusOK || !bytes.Contains(w.Body.Bytes(), total) {
							b.Fatalf("%d %.200s", w.Code, w.Body)
						}
					}
				})
			}
		}
	})
}

// BenchmarkListFiltered reads pages of 10k, 100k and 1M submissions
// filtered by answer through the admin handler, in-process, once the
// list's index is built: by an email (one submission has it), by a topic
// (a third have each), by a list's item (days, half have "sat"), by free
// text (a name, which one submission has: not in the index by answer),
// the first page and one in the middle, beside the plain list's first
// page.
func BenchmarkListFiltered(b *testing.B) {
	benchDialects(b, func(b *testing.B, d store.Dialect) {
		for _, n := range scales() {
			s := seededDB(b, d, n)
			// A topic of three values and days of one or two items, as
			// a real form's answers spread.
			if _, err := s.db.ExecContext(context.Background(), s.db.Rebind(`UPDATE forms_values SET value = CASE submission_id % 3
				WHEN 0 THEN 'sales' WHEN 1 THEN 'support' ELSE 'other' END WHERE field_name = 'topic'`)); err != nil {
				b.Fatal(err)
			}
			days := `UPDATE forms_values SET value = NULL, value_array = CASE submission_id % 2 WHEN 0 THEN '["sat","sun"]' ELSE '["sun"]' END
				WHERE field_name = 'message'`
			if d == store.Postgres {
				days = strings.Replace(days, "END", "END::jsonb", 1)
			}
			if _, err := s.db.ExecContext(context.Background(), days); err != nil {
				b.Fatal(err)
			}
			analyze := "ANALYZE"
			if d == store.Postgres {
				analyze = "VACUUM ANALYZE forms_values"
			}
			if _, err := s.db.ExecContext(context.Background(), analyze); err != nil {
				b.Fatal(err)
			}
			h, err := forms.NewHandler(s.svc, &forms.HandlerOptions{Tokens: testTokens})
			if err != nil {
				b.Fatal(err)
			}
			// The message field becomes a list of days for the filter.
			fields, err := s.svc.Fields(context.Background(), s.form.ID)
			if err != nil {
				b.Fatal(err)
			}
			for i := range fields {
				if fields[i].Name == "message" {
					fields[i].Type, fields[i].FieldConfig = forms.TypeCheckboxGroup, map[string]any{"options": []any{"sat", "sun"}}
					if err := s.svc.UpdateField(context.Background(), &fields[i]); err != nil {
						b.Fatal(err)
					}
				}
			}
			third := (n + 2) / 3
			for _, c := range []struct {
				name, query string
				total, page int
			}{
				{"Plain/First", "", n, 1},
				{"Email/First", "field[email]=email%20" + strconv.Itoa(n/2), 1, 1},
				{"Topic/First", "field[topic]=support", third, 1},
				{"Topic/Middle", "field[topic]=support", third, third / 15 / 2},
				{"Item/First", "field[message]=sat", n / 2, 1},
				// Free text is not in the index by answer: a rare answer
				// is found by asking every submission.
				{"Text/First", "field[name]=name%20" + strconv.Itoa(n/2), 1, 1},
			} {
				target := fmt.Sprintf("%s/%s/submissions?page=%d&%s", forms.PrefixDefault, s.form.Slug, max(c.page, 1), c.query)
				get := func() *httptest.ResponseRecorder {
					r := httptest.NewRequest(http.MethodGet, target, nil)
					r.Header.Set("Authorization", "Bearer admin")
					w := httptest.NewRecorder()
					h.ServeHTTP(w, r)
					return w
				}
				// Warm up as ListScale does: the first request counts, and
				// a large list gets its index in the background; wait for
				// the answers to come fast, or half a minute.
				start := time.Now()
				get()
				for time.Since(start) < 30*time.Second {
					t0 := time.Now()
					get()
					if time.Since(t0) < 50*time.Millisecond {
						break
					}
					time.Sleep(100 * time.Millisecond)
				}
				if testing.Verbose() {
					fmt.Fprintf(os.Stderr, "%s %d %s: warm after %s\n", d, n, c.name, time.Since(start).Round(time.Millisecond))
				}
				b.Run(fmt.Sprintf("%d/%s", n, c.name), func(b *testing.B) {
					total := []byte(fmt.Sprintf(`"total":%d`, c.total))
					for b.Loop() {
						w := get()
						if w.Code != http.StatusOK || !bytes.Contains(w.Body.Bytes(), total) {
							b.Fatalf("%d %.300s", w.Code, w.Body)
						}
					}
				})
			}
		}
	})
}
