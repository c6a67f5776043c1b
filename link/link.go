// Package link joins the domains, which never import each other: each
// function is one link, a hook it registers on the source domain's
// service that records the target's work inside the source's own
// transaction, so the two commit together or not at all (a crash between
// them loses nothing). A host and the reference server make the same
// calls:
//
//	if err := link.FormsToWebhooks(formsSvc, webhooksSvc); err != nil { ... }
//	if err := link.BookingsToWebhooks(bookingsSvc, webhooksSvc); err != nil { ... }
//	if err := link.FormsToEmaillist(formsSvc, emaillistSvc); err != nil { ... }
//	if err := link.FormsToAnalytics(formsSvc, analytics, "https://example.com"); err != nil { ... }
//	if err := link.BookingsToAnalytics(bookingsSvc, analytics, "https://example.com"); err != nil { ... }
//
// and give the email list the forms it may feed from with
// emaillist.Options{FormExists: link.FormExists(formsSvc)}. A link adds the
// events it sends to the webhooks catalogue itself.
package link

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/emaillist"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/tenant"
	"github.com/groundwork-go/groundwork/webhooks"
)

// FormsToWebhooks records a form.submitted webhook (forms.Submitted) for
// every accepted submission of f, in the submission's transaction; spam
// sends none. A routing form's submission not booked in time is a
// form.routed_not_booked, in the transaction that finds it so. It adds
// both to w's catalogue. And when f takes payments (forms.Options.Payments),
// the provider's events arriving verified at w's inbound endpoint settle
// them (forms.Service.SettlePayment) in the transaction that claims and
// records the event: a paid submission's form.submitted webhook and
// notifications are queued with it, all or none.
func FormsToWebhooks(f *forms.Service, w *webhooks.Service) error {
	if f == nil || w == nil {
		return errors.New("link: forms to webhooks: a service is nil")
	}
	example := forms.Submitted{Form: "contact-us", SubmissionID: 42, Number: "S-0042", Values: map[string]string{"name": "Ann", "message": "Hello"},
		SubmittedAt: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	if err := w.DescribeEvent(forms.EventSubmitted, "A form submission was accepted (spam sends none): the form's slug, the "+
		"submission's id and number, each field's value as shown, and when.", example); err != nil {
		return fmt.Errorf("link: forms to webhooks: %w", err)
	}
	f.OnSubmissionAcceptedTx(func(ctx context.Context, tx *sql.Tx, e forms.SubmissionEvent) error {
		_, err := w.DispatchTx(tenantOf(ctx, e.Form.Tenant), tx, webhooks.Event{Name: forms.EventSubmitted, Data: e.Data()})
		return err
	})
	// A paid form's payments settle in the transaction of the provider's
	// event (a form that takes none settles nothing).
	w.OnWebhookReceived(func(ctx context.Context, provider string, ev *webhooks.InboundEvent) error {
		_, err := f.SettlePayment(ctx, provider, ev.Type, ev.Payload)
		return err
	})
	return routedNotBooked(f, w)
}

// BookingWebhooks are the booking events BookingsToWebhooks sends: every
// one but booking.manage_token_reissued, whose new link is the
// customer's alone.
var BookingWebhooks = slices.DeleteFunc(slices.Clone(bookings.EventTypes), func(e string) bool {
	return e == bookings.EventManageTokenReissued
})

// bookingWords say what each booking webhook means.
var bookingWords = map[string]string{
	bookings.EventCreated: "A booking was made, with the status it was made with (confirmed; requested when bookings wait for " +
		"confirmation; awaiting_payment when its service takes payment, with what it owes).",
	bookings.EventConfirmed:   "A requested booking was confirmed, or one awaiting payment was paid (payment.paid_at says when).",
	bookings.EventRescheduled: "A booking was moved to another time (previous_start_time and previous_end_time say from when).",
	bookings.EventReassigned:  "A booking was given to another provider (previous_provider_id says from whom).",
	bookings.EventCancelled:   "A booking was cancelled (reason says why, when given).",
	bookings.EventCompleted:   "A booking's time has passed and it was kept.",
	bookings.EventNoShow:      "The customer did not come.",
	bookings.EventErased:      "A booking's customer data was erased: the booking as it is now, without it.",
	bookings.EventRefunded:    "The payment of a cancelled booking was refunded in full (payment.refunded_at says when).",
}

// BookingsToWebhooks links b and w both ways. Each of b's events in
// BookingWebhooks is recorded as a webhook of the same name
// (bookings.EventData), in the transaction of the change that made it,
// and added to w's catalogue. And when b takes payments
// (bookings.Options.Payments), the payment provider's events arriving
// verified at w's inbound endpoint settle them (bookings.Service.SettlePayment)
// in the transaction that claims and records the event: the booking is
// confirmed, its webhooks and mail queued, and the event recorded, all
// or none, so a redelivered or replayed event changes nothing.
func BookingsToWebhooks(b *bookings.Service, w *webhooks.Service) error {
	if b == nil || w == nil {
		return errors.New("link: bookings to webhooks: a service is nil")
	}
	start := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	provider := int64(3)
	example := bookings.EventData{ID: 42, Number: "B-0042", Status: "confirmed", ServiceID: 7, ProviderID: &provider, StartTime: start,
		EndTime: start.Add(30 * time.Minute), CustomerID: bookings.CustomerID("ann@example.com"), CustomerName: "Ann",
		CustomerEmail: "ann@example.com", CustomerTimeZone: "Europe/Berlin", Actor: "customer"}
	for _, name := range BookingWebhooks {
		if err := w.DescribeEvent(name, bookingWords[name], example); err != nil {
			return fmt.Errorf("link: bookings to webhooks: %w", err)
		}
	}
	b.OnEventTx(func(ctx context.Context, tx *sql.Tx, e bookings.Event) error {
		if !slices.Contains(BookingWebhooks, e.Type) {
			return nil
		}
		_, err := w.DispatchTx(ctx, tx, webhooks.Event{Name: e.Type, Data: e.Data()})
		return err
	})
	w.OnWebhookReceived(func(ctx context.Context, provider string, ev *webhooks.InboundEvent) error {
		_, _, err := b.SettlePayment(ctx, provider, ev.Type, ev.Payload)
		return err
	})
	return nil
}

// FormsToEmaillist queues every accepted submission of f for the
// email-list feeds of its form (their conditions decide, in the job), in
// the submission's transaction; spam queues nothing.
func FormsToEmaillist(f *forms.Service, e *emaillist.Service) error {
	if f == nil || e == nil {
		return errors.New("link: forms to emaillist: a service is nil")
	}
	f.OnSubmissionAcceptedTx(func(ctx context.Context, tx *sql.Tx, ev forms.SubmissionEvent) error {
		return e.QueueSubmission(ctx, tx, emaillist.Submission{FormID: ev.Form.ID, ID: ev.Submission.ID,
			PageURL: ev.Submission.PageURL, Values: ev.Submission.Answers()})
	})
	return nil
}

// FormExists is emaillist.Options.FormExists for the forms of f: a feed
// may only be for one of them.
func FormExists(f *forms.Service) func(ctx context.Context, formID int64) (bool, error) {
	return func(ctx context.Context, id int64) (bool, error) {
		_, err := f.Form(ctx, strconv.FormatInt(id, 10))
		if errors.Is(err, forms.ErrNotFound) {
			return false, nil
		}
		return err == nil, err
	}
}

// The events the analytics links count, for goals ({"event":
// "form_submitted"} or with {"property": "form", "value": "contact"}).
const (
	// EventFormSubmitted is an accepted submission; its property "form"
	// is the form's slug.
	EventFormSubmitted = "form_submitted"
	// EventBookingCreated is a booking made; its property "service" is
	// the service's slug, "status" the status it was made with.
	EventBookingCreated = "booking_created"
)

// FormsToAnalytics counts every accepted submission of f as the event
// EventFormSubmitted in a, once it has committed (spam is not counted):
// on the server, so no ad blocker loses it, and as the visitor whose
// request it was when the host's handlers run under
// reporting.CarryVisitor (else as a visitor of its own at site, the
// site's origin). A tenant's form counts for its tenant's site (see
// package tenant); a form of none, for its page's host's.
func FormsToAnalytics(f *forms.Service, a *reporting.Analytics, site string) error {
	if f == nil || a == nil {
		return errors.New("link: forms to analytics: a service is nil")
	}
	f.OnSubmissionAccepted(func(ctx context.Context, e forms.SubmissionEvent) {
		_ = a.CollectServer(siteOf(ctx, e.Form.Tenant), site, reporting.View{Name: EventFormSubmitted, Props: map[string]string{"form": e.Form.Slug}})
	})
	return nil
}

// AnalyticsToForms gives f's summaries (forms.Service.Summary) the views
// of each form's page as a counted them: the page at pages + "/" + the
// form's slug (pages is where the forms' pages are served, such as
// forms.PagePrefixDefault), over the analytics' days of the range.
func AnalyticsToForms(f *forms.Service, a *reporting.Analytics, pages string) error {
	if f == nil || a == nil {
		return errors.New("link: analytics to forms: a service is nil")
	}
	f.CountViewsWith(func(ctx context.Context, form *forms.Form, from, to time.Time) (int64, error) {
		page := reporting.Filters{{Dim: reporting.DimPage, Value: strings.TrimSuffix(pages, "/") + "/" + form.Slug}}
		rows, err := a.Store().Filtered(ctx, page, reporting.DimTotal, from.Format(time.DateOnly), to.Add(-time.Nanosecond).Format(time.DateOnly), 0)
		if err != nil {
			return 0, err
		}
		var views int64
		for _, r := range rows {
			views += r.Views
		}
		return views, nil
	})
	return nil
}

// eventBookingPaid is a paid booking's customer back from paying, counted
// by link.Join; its property "service" is the service's slug, its revenue
// the booking's price. A funnel step ("event:booking_paid") or a goal
// names it (a goal of it reports the revenue).
const eventBookingPaid = "booking_paid"

// paidReturns counts eventBookingPaid in a each time the customer of a
// booking that takes payment comes back to its manage page (the route
// manage, "/bookings/manage/{token}") from paying: the payment page
// sends them there with paid=1 once paid. So the payment counts as the
// visitor who booked and paid, in their session (the payment's own
// event comes from the provider's servers, a visitor of its own).
func paidReturns(b *bookings.Service, a *reporting.Analytics, site, manage string) func(http.Handler) http.Handler {
	prefix := strings.TrimSuffix(manage, "{token}")
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r)
			token, ok := strings.CutPrefix(r.URL.Path, prefix)
			if !ok || prefix == "" || r.Method != http.MethodGet || r.URL.Query().Get("paid") != "1" || strings.Contains(token, "/") {
				return
			}
			booking, _, err := b.Managed(r.Context(), token)
			if err != nil || booking.Payment == nil || booking.Payment.RefundedAt != nil ||
				booking.Status != bookings.StatusAwaitingPayment && booking.Payment.PaidAt == nil {
				return
			}
			props := map[string]string{}
			owner := serviceSlug(tenant.All(r.Context()), b, booking.ServiceID, props)
			_ = a.CollectServer(siteOf(r.Context(), owner), site, reporting.View{Name: eventBookingPaid, Props: props, Revenue: booking.Payment.Amount,
				Currency: booking.Payment.Currency})
		})
	}
}

// serviceSlug sets props["service"] to the slug of b's service id, the
// property the analytics links give a booking's events, and returns the
// service's tenant; nothing when the services cannot be read.
func serviceSlug(ctx context.Context, b *bookings.Service, id int64, props map[string]string) (owner string) {
	services, err := b.Services(ctx)
	if err != nil {
		return ""
	}
	for _, s := range services {
		if s.ID == id {
			props["service"], owner = s.Slug, s.Tenant
		}
	}
	return owner
}

// siteOf is ctx for the server's events of something of owner's: acting
// for owner (its site counts them) when it has a tenant, else for every
// tenant (its page's host's site counts them), whatever tenant the
// request acted for (a signed-in visitor's own).
func siteOf(ctx context.Context, owner string) context.Context {
	if owner == "" {
		return tenant.All(ctx)
	}
	return tenant.With(ctx, owner)
}

// BookingsToAnalytics counts every booking made with b as the event
// EventBookingCreated in a, once it has committed, as FormsToAnalytics
// counts submissions (each occurrence of a weekly series once), for its
// service's tenant's site.
func BookingsToAnalytics(b *bookings.Service, a *reporting.Analytics, site string) error {
	if b == nil || a == nil {
		return errors.New("link: bookings to analytics: a service is nil")
	}
	b.OnEvent(func(ctx context.Context, e bookings.Event) {
		if e.Type != bookings.EventCreated {
			return
		}
		props := map[string]string{"status": string(e.Booking.Status)}
		owner := serviceSlug(tenant.All(ctx), b, e.Booking.ServiceID, props)
		_ = a.CollectServer(siteOf(ctx, owner), site, reporting.View{Name: EventBookingCreated, Props: props})
	})
	return nil
}

// tenantOf is ctx acting for owner, the tenant a domain's record belongs
// to, when it has one (a tenant is a webhook owner: its subscriptions
// hear of its records, though the public request that made one acts for
// no tenant); ctx as it is otherwise.
func tenantOf(ctx context.Context, owner string) context.Context {
	if owner == "" {
		return ctx
	}
	return tenant.With(ctx, owner)
}
