package forms_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// benchDialects are SQLite, and Postgres when TEST_DATABASE_URL is set.
func benchDialects(b *testing.B, fn func(b *testing.B, d store.Dialect)) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) { fn(b, d) })
	}
}

// benchService builds a service on a fresh database with the 5-field
// contact form the benchmarks use. It takes submissions without form-load
// tokens (seedSubmissions stores them directly), unless o says otherwise.
func benchService(b *testing.B, d store.Dialect, o ...*forms.Options) (*forms.Service, *store.DB, *forms.Form) {
	b.Helper()
	db := storetest.Open(b, d, formssql.Migrations)
	if d == store.Postgres {
		// Loopback load: let the pool grow as it would in production.
		db.SetMaxOpenConns(store.PostgresMaxOpenConns)
		db.SetMaxIdleConns(store.PostgresMaxOpenConns)
	}
	opts := &forms.Options{FormTokenOptional: true}
	if len(o) > 0 {
		opts = o[0]
	}
	svc, err := forms.NewService(formssql.New(db), opts)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	f := &forms.Form{Name: "Contact", IsActive: true}
	if err := svc.CreateForm(ctx, f); err != nil {
		b.Fatal(err)
	}
	for _, fd := range []*forms.Field{
		{Type: forms.TypeText, Label: "Name", IsRequired: true},
		{Type: forms.TypeEmail, Label: "Email", IsRequired: true},
		{Type: forms.TypePhone, Label: "Phone"},
		{Type: forms.TypeSelect, Label: "Topic", FieldConfig: map[string]any{"options": []any{"sales", "support"}}},
		{Type: forms.TypeTextarea, Label: "Message"},
	} {
		fd.FormID = f.ID
		if err := svc.CreateField(ctx, fd); err != nil {
			b.Fatal(err)
		}
	}
	return svc, db, f
}

// submissionBody is the form's answers, with the form-load token.
func submissionBody(b *testing.B, token string) (string, []byte) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if err := w.SetBoundary("groundwork-bench-boundary"); err != nil { // one Content-Type for every body
		b.Fatal(err)
	}
	for _, kv := range [][2]string{{forms.FormTokenField, token}, {"name", "Ann Example"}, {"email", "ann@example.test"}, {"phone", "+44 20 7946 0000"},
		{"topic", "support"}, {"message", "Hello, I would like to know more about your product and its pricing."}} {
		if err := w.WriteField(kv[0], kv[1]); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return w.FormDataContentType(), buf.Bytes()
}

// BenchmarkSubmitHTTP posts the 5-field form over loopback HTTP from many
// concurrent clients (keep-alive), end to end: routing, multipart
// parsing, validation, the transaction, the 201. Submissions/s =
// 1e9 / ns/op. The per-IP limit is off: all clients share 127.0.0.1.
func BenchmarkSubmitHTTP(b *testing.B) {
	benchDialects(b, func(b *testing.B, d store.Dialect) {
		// Each submission carries a token of its own, issued before the
		// run; the service's clock then runs MinFillTime ahead, as if
		// every visitor had taken that long to fill the form in.
		var skew atomic.Int64
		svc, db, form := benchService(b, d, &forms.Options{Now: func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }})
		postSubmissions(b, svc, form, &skew, func(token string, _ int) (string, []byte) { return submissionBody(b, token) })
		var n int
		if err := db.Get(&n, db.Rebind("SELECT COUNT(*) FROM forms_submissions WHERE is_spam = ?"), false); err != nil {
			b.Fatal(err)
		}
		if n < b.N {
			b.Fatalf("%d stored as real for %d sent", n, b.N)
		}
	})
}

// postSubmissions serves svc's API, makes b.N bodies (body(token, i),
// a form-load token each, issued before the run), lets the service's
// clock (skew) run MinFillTime ahead, as if every visitor took that long,
// and posts them all to the form's submit route (postAll).
func postSubmissions(b *testing.B, svc *forms.Service, form *forms.Form, skew *atomic.Int64, body func(token string, i int) (string, []byte)) {
	b.Helper()
	h, err := forms.NewHandler(svc, &forms.HandlerOptions{Tokens: testTokens, SubmitLimit: -1})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	bodies := make([][]byte, b.N)
	var ct string
	for i := range bodies {
		ct, bodies[i] = body(svc.FormToken(form.ID), i)
	}
	skew.Store(int64(forms.MinFillTime))
	postAll(b, srv.URL+forms.PrefixDefault+"/"+form.Slug+"/submit", ct, bodies)
}

// postAll posts each of bodies to url over loopback HTTP from 32
// clients on 2 cores (keep-alive), the timed part of a benchmark, each
// answered 201, and reports submissions/s.
func postAll(b *testing.B, url, contentType string, bodies [][]byte) {
	b.Helper()
	var next atomic.Int64
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 256}}
	b.SetParallelism(16)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := client.Post(url, contentType, bytes.NewReader(bodies[next.Add(1)-1]))
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusCreated {
				b.Errorf("status %d", res.StatusCode)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "submissions/s")
}

// seedSubmissions stores n submissions of the form, five values each,
// concurrently (8 writers) to save time.
func seedSubmissions(b *testing.B, svc *forms.Service, form *forms.Form, n int) {
	b.Helper()
	ctx := context.Background()
	fields, err := svc.Fields(ctx, form.ID)
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	jobs := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range jobs {
				_, err := svc.Submit(ctx, form, fields, &forms.SubmitRequest{Values: map[string][]string{
					"name": {fmt.Sprintf("Person %d", i)}, "email": {fmt.Sprintf("p%d@example.test", i)}, "phone": {"+44 20 7946 0000"},
					"topic": {"sales"}, "message": {"A message of a modest length, as real ones are."}}})
				if err != nil {
					b.Error(err)
				}
			}
		})
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
}

// BenchmarkListSubmissions reads pages 1 and 500 (15 a page, values and
// uploads included) of 10,000 submissions through the admin handler,
// in-process: the server's time for one request.
func BenchmarkListSubmissions(b *testing.B) {
	benchDialects(b, func(b *testing.B, d store.Dialect) {
		svc, db, form := benchService(b, d)
		const n = 10_000
		start := time.Now()
		seedSubmissions(b, svc, form, n)
		if d == store.Postgres && os.Getenv("BENCH_NO_VACUUM") == "" {
			// What autovacuum does to a table after 10,000 inserts
			// (autovacuum_vacuum_insert_threshold is 1,000): it sets the
			// visibility map, which index-only scans need.
			if _, err := db.Exec("VACUUM ANALYZE forms_submissions, forms_values, forms_uploads"); err != nil {
				b.Fatal(err)
			}
		}
		if testing.Verbose() {
			fmt.Fprintf(os.Stderr, "seeded %d submissions on %s in %s\n", n, d, time.Since(start).Round(time.Millisecond))
		}
		h, err := forms.NewHandler(svc, &forms.HandlerOptions{Tokens: testTokens})
		if err != nil {
			b.Fatal(err)
		}
		for _, page := range []int{1, 500} {
			b.Run(fmt.Sprintf("Page%d", page), func(b *testing.B) {
				target := fmt.Sprintf("%s/%s/submissions?page=%d", forms.PrefixDefault, form.Slug, page)
				b.ReportAllocs()
				for b.Loop() {
					r := httptest.NewRequest(http.MethodGet, target, nil)
					r.Header.Set("Authorization", "Bearer admin")
					w := httptest.NewRecorder()
					h.ServeHTTP(w, r)
					if w.Code != http.StatusOK || !bytes.Contains(w.Body.Bytes(), []byte(`"total":10000`)) {
						b.Fatalf("%d %.200s", w.Code, w.Body)
					}
				}
			})
		}
	})
}

// BenchmarkSubmitJumps submits the 5-field form in-process, from 16
// goroutines a core, plain (no steps) and laid out on three steps with
// jumps (the first step's jumps read the topic: support goes on to the
// message's step past the phone's, sales goes through every step), so
// that the cost of following the jumps (the route worked out, the steps
// read with the cached definition) shows as the ratio of the two. Answers
// vary: names, addresses and topics differ submission to submission.
func BenchmarkSubmitJumps(b *testing.B) {
	for _, layout := range []string{"plain", "jumps"} {
		b.Run(layout, func(b *testing.B) {
			benchDialects(b, func(b *testing.B, d store.Dialect) {
				svc, _, form := benchService(b, d)
				ctx := context.Background()
				fields, err := svc.Fields(ctx, form.ID)
				if err != nil {
					b.Fatal(err)
				}
				if layout == "jumps" {
					jumpLayout(b, svc, form, fields)
					if fields, err = svc.Fields(ctx, form.ID); err != nil {
						b.Fatal(err)
					}
				}
				var next atomic.Int64
				b.SetParallelism(16)
				b.ReportAllocs()
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						i := next.Add(1)
						topic := []string{"sales", "support"}[i%2]
						_, err := svc.Submit(ctx, form, fields, &forms.SubmitRequest{Values: map[string][]string{
							"name": {fmt.Sprintf("Person %d", i)}, "email": {fmt.Sprintf("p%d@example.test", i)}, "phone": {"+44 20 7946 0000"},
							"topic": {topic}, "message": {"A message of a modest length, as real ones are."}}})
						if err != nil {
							b.Error(err)
							return
						}
					}
				})
				b.StopTimer()
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "submissions/s")
			})
		})
	}
}

// jumpLayout puts the bench form's fields on three steps (name, email and
// topic; phone; message) with a jump past the phone's step for support.
func jumpLayout(b *testing.B, svc *forms.Service, form *forms.Form, fields []forms.Field) {
	b.Helper()
	ctx := context.Background()
	steps := make([]*forms.Step, 3)
	for i := range steps {
		steps[i] = &forms.Step{FormID: form.ID, Title: fmt.Sprintf("Step %d", i+1)}
		if err := svc.CreateStep(ctx, steps[i]); err != nil {
			b.Fatal(err)
		}
	}
	on := map[string]int{"name": 0, "email": 0, "topic": 0, "phone": 1, "message": 2}
	for i := range fields {
		fields[i].StepID = &steps[on[fields[i].Name]].ID
		if err := svc.UpdateField(ctx, &fields[i]); err != nil {
			b.Fatal(err)
		}
	}
	steps[0].Jumps = []forms.Logic{{Action: "go_to", ToStepID: &steps[2].ID, Rules: []forms.Rule{{Field: "topic", Operator: "equals", Value: "support"}}}}
	if err := svc.UpdateStep(ctx, steps[0]); err != nil {
		b.Fatal(err)
	}
}
