package link

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/webhooks"
)

// formsToBookings sends the respondents of routing forms on to book: a
// routed submission is answered with its service's booking page,
// prefilled and signed (the name and email answered, every answer as
// the intake, the route's providers, the submission itself); the booking
// made from it records the submission, and the submission the booking,
// in the booking's transaction. inbox and list are the owner's pages' route
// patterns, for the links between the two ("" leaves a link out).
func formsToBookings(f *forms.Service, b *bookings.Service, inbox, list string) error {
	if f == nil || b == nil {
		return errors.New("link: forms to bookings: a service is nil")
	}
	f.RouteWith(func(_ context.Context, e forms.SubmissionEvent) (string, error) {
		sub, r := e.Submission, e.Submission.Routed
		p := bookings.Prefill{Providers: r.Providers, Intake: map[string]any{}, From: &bookings.FromForm{Form: e.Form.Slug, FormID: e.Form.ID,
			SubmissionID: sub.ID, Number: sub.Number(), URL: fill(inbox, "{form}", e.Form.Slug, "{id}", strconv.FormatInt(sub.ID, 10))}}
		for _, v := range sub.Values {
			answer := v.DisplayValue
			if v.Value != nil {
				answer = *v.Value
			}
			if v.ValueArray != nil {
				list := make([]any, len(v.ValueArray))
				for i, a := range v.ValueArray {
					list[i] = a
				}
				p.Intake[v.FieldName] = list
				continue
			}
			p.Intake[v.FieldName] = answer
			if v.FieldType == forms.TypeEmail && p.Email == "" {
				p.Email = answer
			}
		}
		p.Name = personName(sub.Values)
		return b.PrefillURL(r.Service, p)
	})
	b.OnEventTx(func(ctx context.Context, _ *sql.Tx, e bookings.Event) error {
		from := e.Booking.FromForm
		if e.Type != bookings.EventCreated || from == nil {
			return nil
		}
		err := f.Booked(ctx, from.FormID, from.SubmissionID, e.Booking.ID, e.Booking.Number,
			fill(list, "{id}", strconv.FormatInt(e.Booking.ID, 10)))
		if errors.Is(err, forms.ErrNotFound) {
			return nil // the submission was deleted meanwhile: the booking stands
		}
		return err
	})
	return nil
}

// personName is the answer that names the person: a text field called
// name, full_name or your_name, else the first whose name has "name" in it
// but is not a company's; "" for none.
func personName(values []forms.Value) string {
	var loose string
	for _, v := range values {
		if v.FieldType != forms.TypeText || v.Value == nil {
			continue
		}
		switch n := strings.ToLower(v.FieldName); {
		case n == "name" || n == "full_name" || n == "your_name":
			return *v.Value
		case loose == "" && strings.Contains(n, "name") && !strings.Contains(n, "company") && !strings.Contains(n, "business"):
			loose = *v.Value
		}
	}
	return loose
}

// fill is pattern with each name replaced by its value, "" for no pattern.
func fill(pattern string, pairs ...string) string {
	if pattern == "" {
		return ""
	}
	return strings.NewReplacer(pairs...).Replace(pattern)
}

// routePath is the path of the first of routes (as "METHOD /path") that
// is a GET ending in suffix, "" for none.
func routePath(routes []string, suffix string) string {
	for _, r := range routes {
		if path, ok := strings.CutPrefix(r, "GET "); ok && strings.HasSuffix(path, suffix) {
			return path
		}
	}
	return ""
}

// routedNotBooked describes form.routed_not_booked in w's catalogue and
// records it, for each routed submission found not booked, in the
// transaction that marks it.
func routedNotBooked(f *forms.Service, w *webhooks.Service) error {
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	example := forms.Submitted{Form: "book-a-demo", SubmissionID: 42, Number: "FORM-2026-00042", Values: map[string]string{"name": "Ann",
		"email": "ann@example.com", "company_size": "120"}, SubmittedAt: at, Routed: &forms.Routed{Service: "enterprise-demo",
		Providers: []string{"sales"}, At: at}}
	notBooked := at.Add(time.Hour)
	example.Routed.NotBookedAt = &notBooked
	if err := w.DescribeEvent(forms.EventRoutedNotBooked, "A routing form sent a respondent on to book, and no booking was made from "+
		"it within the form's wait (routing.not_booked_after_minutes): the submission, and where it was routed.", example); err != nil {
		return fmt.Errorf("link: forms to webhooks: %w", err)
	}
	f.OnRoutedNotBookedTx(func(ctx context.Context, tx *sql.Tx, e forms.SubmissionEvent) error {
		_, err := w.DispatchTx(tenantOf(ctx, e.Form.Tenant), tx, webhooks.Event{Name: forms.EventRoutedNotBooked, Data: e.Data()})
		return err
	})
	return nil
}
