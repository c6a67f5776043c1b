package forms_test

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"sync/atomic"
	"testing"
	"time"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/store"
)

// BenchmarkSubmitPriced posts over loopback HTTP to the public submit
// route, as BenchmarkSubmitHTTP does, the 5-field form plain and the
// same form with a plan (three prices), extra seats (a price each) and a
// total, laid out on three steps with jumps: the cost of following the
// jumps and working the total out shows as the ratio of the two, run
// one after the other in each count. Traffic varies: every submission
// has its own name, address, topic, plan and number of seats, and its
// own form-load token.
func BenchmarkSubmitPriced(b *testing.B) {
	for _, layout := range []string{"plain", "jumps_total"} {
		b.Run(layout, func(b *testing.B) {
			benchDialects(b, func(b *testing.B, d store.Dialect) {
				var skew atomic.Int64
				svc, _, form := benchService(b, d, &forms.Options{Now: func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }})
				priced := layout == "jumps_total"
				if priced {
					pricedLayout(b, svc, form)
				}
				postSubmissions(b, svc, form, &skew, func(token string, i int) (string, []byte) { return pricedBody(b, token, i, priced) })
			})
		})
	}
}

// pricedLayout adds to the bench form a plan with prices, seats with a
// price each and a total, and puts it all on three steps with jumps.
func pricedLayout(b *testing.B, svc *forms.Service, form *forms.Form) {
	b.Helper()
	ctx := context.Background()
	for _, f := range []*forms.Field{
		{FormID: form.ID, Type: forms.TypeRadio, Name: "plan", Label: "Plan", IsRequired: true, FieldConfig: map[string]any{"options": []any{
			map[string]any{"value": "pro", "label": "Pro", "price": 25.0}, map[string]any{"value": "basic", "label": "Basic", "price": "10.00"},
			map[string]any{"value": "free", "label": "Free"}}}},
		{FormID: form.ID, Type: forms.TypeNumber, Name: "seats", Label: "Seats", FieldConfig: map[string]any{"price": 5.5}},
		{FormID: form.ID, Type: forms.TypeTotal, Name: "total", Label: "Total", FieldConfig: map[string]any{"currency": "EUR"}},
	} {
		if err := svc.CreateField(ctx, f); err != nil {
			b.Fatal(err)
		}
	}
	fields, err := svc.Fields(ctx, form.ID)
	if err != nil {
		b.Fatal(err)
	}
	jumpLayout(b, svc, form, fields)
}

// pricedBody is the i-th submission's answers, with its token.
func pricedBody(b *testing.B, token string, i int, priced bool) (string, []byte) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if err := w.SetBoundary("groundwork-bench-boundary"); err != nil {
		b.Fatal(err)
	}
	kv := [][2]string{{forms.FormTokenField, token}, {"name", fmt.Sprintf("Person %d", i)}, {"email", fmt.Sprintf("p%d@example.test", i)},
		{"phone", "+44 20 7946 0000"}, {"topic", []string{"sales", "support"}[i%2]}, {"message", "A message of a modest length, as real ones are."}}
	if priced {
		kv = append(kv, [2]string{"plan", []string{"pro", "basic", "free"}[i%3]}, [2]string{"seats", fmt.Sprint(i % 7)})
	}
	for _, p := range kv {
		if err := w.WriteField(p[0], p[1]); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return w.FormDataContentType(), buf.Bytes()
}
