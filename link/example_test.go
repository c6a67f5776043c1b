package link_test

import (
	"context"
	"fmt"
	"log"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/link"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

// A host links its forms and bookings to its webhooks in a line each; the
// links add their events to the catalogue, so subscriptions may name them.
func Example() {
	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite::memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if err := store.MigrateWithOptions(ctx, db, &store.MigrateOptions{WithoutQueue: true},
		formssql.Migrations, bookingssql.Migrations, webhookssql.Migrations); err != nil {
		log.Fatal(err)
	}
	keys, err := groundwork.NewKeys([]byte("one secret of at least 32 bytes, random in real life"))
	if err != nil {
		log.Fatal(err)
	}
	hooks, err := webhooks.NewService(webhookssql.New(db), &webhooks.Options{SecretKey: keys.WebhookSecrets(), OmitDefaultEvents: true})
	if err != nil {
		log.Fatal(err)
	}
	f, err := forms.NewService(formssql.New(db), nil)
	if err != nil {
		log.Fatal(err)
	}
	b, err := bookings.NewService(bookingssql.New(db), nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := link.FormsToWebhooks(f, hooks); err != nil {
		log.Fatal(err)
	}
	if err := link.BookingsToWebhooks(b, hooks); err != nil {
		log.Fatal(err)
	}
	for _, e := range hooks.Events() {
		fmt.Println(e)
	}
	// Output:
	// booking.cancelled
	// booking.completed
	// booking.confirmed
	// booking.created
	// booking.erased
	// booking.no_show
	// booking.reassigned
	// booking.refunded
	// booking.rescheduled
	// form.routed_not_booked
	// form.submitted
}

// Submissions and bookings counted as analytics events on the server, as
// the visitor whose request made them: wrap the handlers in
// reporting.CarryVisitor.
func ExampleFormsToAnalytics() {
	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite::memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if err := store.MigrateWithOptions(ctx, db, &store.MigrateOptions{WithoutQueue: true},
		formssql.Migrations, bookingssql.Migrations, reportingsql.Migrations); err != nil {
		log.Fatal(err)
	}
	f, _ := forms.NewService(formssql.New(db), nil)
	b, _ := bookings.NewService(bookingssql.New(db), nil)
	a, _ := reporting.NewAnalytics(reportingsql.New(db), nil)
	if err := link.FormsToAnalytics(f, a, "https://example.com"); err != nil {
		panic(err)
	}
	if err := link.BookingsToAnalytics(b, a, "https://example.com"); err != nil {
		panic(err)
	}
	goal, _ := a.AddGoal(ctx, reporting.Goal{Event: link.EventFormSubmitted, Property: "form", Value: "contact"})
	fmt.Println(goal.Name)
	// Output:
	// form_submitted (form: contact)
}
