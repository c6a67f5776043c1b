package link_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/link"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

// BenchmarkRoutedSubmission submits a three-field form through
// forms.Service.Submit on a site with forms, bookings and webhooks joined
// and linked (one subscription to every event), each op another person and
// company size: "plain" has no routing; "routed" has two routes (over 50
// to the enterprise demo with the sales team, the rest to the intro
// call), so each submission also keeps its route and queues the look at
// whether it was booked in its transaction, and is answered with the
// booking page's signed, prefilled address. Interleaved, on both
// databases.
func BenchmarkRoutedSubmission(b *testing.B) {
	for _, d := range storetest.Dialects() {
		for _, routed := range []bool{false, true} {
			name := string(d) + "/plain"
			if routed {
				name = string(d) + "/routed"
			}
			b.Run(name, func(b *testing.B) { routedSubmission(b, d, routed) })
		}
	}
}

func routedSubmission(b *testing.B, d store.Dialect, routed bool) {
	ctx := context.Background()
	env := benchEnv(b, d)
	f, err := formssql.Join(env, &forms.ModuleOptions{Service: forms.Options{FormTokenOptional: true}})
	if err != nil {
		b.Fatal(err)
	}
	bk, err := bookingssql.Join(env, nil)
	if err != nil {
		b.Fatal(err)
	}
	w, err := webhookssql.Join(env, &webhooks.ModuleOptions{Service: webhooks.Options{AllowInsecureURLs: true, AllowPrivateHosts: true}})
	if err != nil {
		b.Fatal(err)
	}
	if err := link.Join(env, link.Modules{Forms: f, Bookings: bk, Webhooks: w}); err != nil {
		b.Fatal(err)
	}
	if err := env.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := w.Service.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: ptr("all"), URL: ptr("http://127.0.0.1:9/hook"),
		Events: []string{"*"}}); err != nil {
		b.Fatal(err)
	}
	for _, slug := range []string{"enterprise", "intro"} {
		if _, err := bk.Service.CreateService(ctx, bookings.OfferingInput{Name: ptr(slug), Slug: ptr(slug), Duration: ptr(30), TimeZone: ptr("UTC")}); err != nil {
			b.Fatal(err)
		}
	}
	form := &forms.Form{Name: "Book a demo", IsActive: true, MinFillSeconds: ptr(int64(0))}
	if routed {
		form.Routing = &forms.Routing{Routes: []forms.Route{
			{When: &forms.Logic{Rules: []forms.Rule{{Field: "company_size", Operator: "greater_than", Value: 50}}}, Service: "enterprise",
				Providers: []string{"sales"}}, {Service: "intro"}}}
	}
	if err := f.Service.CreateForm(ctx, form); err != nil {
		b.Fatal(err)
	}
	for _, fd := range []forms.Field{{Type: forms.TypeText, Name: "name", Label: "Name"}, {Type: forms.TypeEmail, Name: "email", Label: "Email"},
		{Type: forms.TypeNumber, Name: "company_size", Label: "Company size"}} {
		fd.FormID, fd.IsRequired = form.ID, true
		if err := f.Service.CreateField(ctx, &fd); err != nil {
			b.Fatal(err)
		}
	}
	fields, err := f.Service.Fields(ctx, form.ID)
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		res, err := f.Service.Submit(ctx, form, fields, &forms.SubmitRequest{Values: map[string][]string{"name": {fmt.Sprint("Person ", i)},
			"email": {fmt.Sprintf("p%d@example.com", i)}, "company_size": {strconv.Itoa(i * 37 % 200)}}})
		if err != nil {
			b.Fatal(err)
		}
		if routed == (res.BookingURL == "") {
			b.Fatalf("routed %v, booking page %q", routed, res.BookingURL)
		}
	}
}
