package link_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/groundwork-go/groundwork/bench/traffic"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/link"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// BenchmarkSubmissionVisit submits a one-field form through
// forms.Service.Submit under reporting.CarryVisitor, on a site with forms
// and the analytics joined and linked, the analytics holding a day of
// varied traffic (100,000 hits from 10,000 visitors, bench/traffic) and
// the landing views of the 2,000 visitors who submit, each op another of
// them. "plain" carries the visitor only (the submission counted as
// form_submitted, as before); "visit" also lets the submission read
// where its visit came from (VisitorOptions.Analytics), so each keeps
// it: the day's salt from memory, the visitor's row of the day and their
// landing view's row, by primary key. Interleaved, on both databases.
func BenchmarkSubmissionVisit(b *testing.B) {
	for _, d := range storetest.Dialects() {
		for _, visit := range []bool{false, true} {
			name := string(d) + "/plain"
			if visit {
				name = string(d) + "/visit"
			}
			b.Run(name, func(b *testing.B) { submissionVisit(b, d, visit) })
		}
	}
}

func submissionVisit(b *testing.B, d store.Dialect, visit bool) {
	ctx := context.Background()
	env := benchEnv(b, d)
	f, err := formssql.Join(env, &forms.ModuleOptions{Service: forms.Options{FormTokenOptional: true}})
	if err != nil {
		b.Fatal(err)
	}
	r, err := reportingsql.Join(env, nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := link.Join(env, link.Modules{Forms: f, Reporting: r}); err != nil {
		b.Fatal(err)
	}
	if err := env.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	a := r.Analytics
	now := time.Now().UTC()
	day := traffic.Day(time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC), 100_000, 10_000, 1)
	for len(day) > 0 {
		n := min(len(day), 5000)
		if err := a.Store().Record(ctx, day[:n], nil); err != nil {
			b.Fatal(err)
		}
		day = day[n:]
	}
	const people = 2000
	agent := func(i int) string {
		return fmt.Sprintf("Mozilla/5.0 (X11; Linux x86_64; rv:%d.0) Gecko/20100101 Firefox/%d.0", i, i)
	}
	for i := range people {
		if err := a.Collect(ctx, reporting.View{URL: fmt.Sprintf("https://site.example/p/%d?utm_source=newsletter&utm_campaign=c%d", i%50, i%7),
			IP: "192.0.2.1", UserAgent: agent(i)}); err != nil {
			b.Fatal(err)
		}
		if i%500 == 499 {
			if err := a.Flush(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := a.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	form := &forms.Form{Name: "Contact", IsActive: true, MinFillSeconds: ptr(int64(0))}
	if err := f.Service.CreateForm(ctx, form); err != nil {
		b.Fatal(err)
	}
	if err := f.Service.CreateField(ctx, &forms.Field{FormID: form.ID, Type: forms.TypeText, Name: "name", Label: "Name", IsRequired: true}); err != nil {
		b.Fatal(err)
	}
	fields, err := f.Service.Fields(ctx, form.ID)
	if err != nil {
		b.Fatal(err)
	}
	o := reporting.VisitorOptions{BaseURL: &url.URL{Scheme: "https", Host: "site.example"}}
	if visit {
		o.Analytics = a
	}
	var kept bool
	var failed error
	submit := reporting.CarryVisitor(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res, err := f.Service.Submit(r.Context(), form, fields, &forms.SubmitRequest{Values: map[string][]string{"name": {"Ann"}}})
		if err != nil {
			failed = err
			return
		}
		kept = res.Submission.Visit != nil
	}), o)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", "https://site.example/forms/contact", nil)
		req.RemoteAddr = "192.0.2.1:4000"
		req.Header.Set("User-Agent", agent(i%people))
		i++
		submit.ServeHTTP(httptest.NewRecorder(), req)
		if failed != nil || kept != visit {
			b.Fatalf("visit %v, kept %v: %v", visit, kept, failed)
		}
	}
}
