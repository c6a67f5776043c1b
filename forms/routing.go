package forms

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/groundwork-go/groundwork/internal/api"
)

// EventRoutedNotBooked is the event of a submission a routing form sent
// on to book (Submission.Routed) that was not booked within the form's
// Routing.NotBookedAfter minutes.
const EventRoutedNotBooked = "form.routed_not_booked"

// Routing sends a form's respondents on to book: the first of Routes
// whose When holds for the answers names the service and the providers,
// and the submission is answered with that booking page's address,
// prefilled with the respondent's answers (see Service.RouteWith).
type Routing struct {
	Routes []Route `json:"routes"`
	// NotBookedAfter is how many minutes a routed submission may go
	// unbooked before EventRoutedNotBooked (60 when zero; at most a week).
	NotBookedAfter int `json:"not_booked_after_minutes"`
}

// Route is one rule of a Routing: when When holds for the answers (always,
// without rules), the respondent books Service (a bookings service's
// slug) with one of Providers (providers' slugs; any of the service's
// when empty). Rules are the fields' conditional logic's.
type Route struct {
	When      *Logic   `json:"when,omitempty"`
	Service   string   `json:"service"`
	Providers []string `json:"providers,omitempty"`
}

// Routed is where a submission was sent to book, and what came of it: the
// booking made from it (as the owner's list of bookings names it), or
// when it was found not booked.
type Routed struct {
	Service       string     `json:"service"`
	Providers     []string   `json:"providers,omitempty"`
	At            time.Time  `json:"routed_at"`
	BookingID     *int64     `json:"booking_id,omitempty"`
	BookingNumber string     `json:"booking_number,omitempty"`
	BookingURL    string     `json:"booking_url,omitempty"`
	NotBookedAt   *time.Time `json:"not_booked_at,omitempty"`
}

// Routing's limits.
const (
	routesMax              = 20
	routingWaitDefault     = 60
	routingWaitMax         = 7 * 24 * 60
	routeProvidersMax      = 20
	msgRouteServiceMissing = "Each route needs the slug of the service to book."
)

// validateRouting checks a form's routing as it is saved.
func validateRouting(v *api.Validator, r *Routing) {
	if r == nil {
		return
	}
	if len(r.Routes) == 0 || len(r.Routes) > routesMax {
		v.Add("routing.routes", fmt.Sprintf("The routing needs 1 to %d routes.", routesMax))
	}
	if r.NotBookedAfter < 0 || r.NotBookedAfter > routingWaitMax {
		v.Add("routing.not_booked_after_minutes", api.MsgBetween("not_booked_after_minutes", 0, routingWaitMax))
	}
	for i, route := range r.Routes {
		at := "routing.routes." + strconv.Itoa(i)
		if strings.TrimSpace(route.Service) == "" {
			v.Add(at+".service", msgRouteServiceMissing)
		}
		if len(route.Providers) > routeProvidersMax {
			v.Add(at+".providers", fmt.Sprintf("A route names at most %d providers.", routeProvidersMax))
		}
		if route.When == nil {
			continue
		}
		if l := route.When.Logic; l != "" && l != "all" && l != "any" {
			v.Add(at+".when.logic", "The logic must be all or any.")
		}
		for j, rule := range route.When.Rules {
			if strings.TrimSpace(rule.Field) == "" {
				v.Add(at+".when.rules."+strconv.Itoa(j)+".field", "Each rule names the field it reads.")
			}
		}
	}
}

// route is the route form sends answers a on, nil for none.
func (r *Routing) route(a answers, names map[string]string) *Route {
	if r == nil {
		return nil
	}
	for i := range r.Routes {
		if r.Routes[i].When.holds(a, names) {
			return &r.Routes[i]
		}
	}
	return nil
}

// wait is how long a routed submission may go unbooked.
func (r *Routing) wait() time.Duration {
	if r == nil || r.NotBookedAfter == 0 {
		return routingWaitDefault * time.Minute
	}
	return time.Duration(r.NotBookedAfter) * time.Minute
}

// RouteFunc makes the booking page's address a routed submission is
// answered with (link.FormsToBookings makes one: the page prefilled and
// signed); called once the submission has committed.
type RouteFunc func(ctx context.Context, e SubmissionEvent) (string, error)

// RouteWith registers fn as the maker of the booking address a routed
// submission is answered with (SubmitResult.BookingURL); without one a
// routed submission is stored with its route and answered as any other.
func (s *Service) RouteWith(fn RouteFunc) { s.router = fn }

// routeTo records on sub where its answers send it (nothing for a form
// without routing or answers no route takes).
func routeTo(form *Form, sub *Submission, a answers, names map[string]string, now time.Time) {
	if r := form.Routing.route(a, names); r != nil {
		sub.Routed = &Routed{Service: r.Service, Providers: r.Providers, At: now}
	}
}

// keepRoute queues, in the transaction that stores a routed submission
// (with its route), the look at whether it was booked.
func (s *Service) keepRoute(ctx context.Context, tx *sql.Tx, form *Form, sub *Submission) error {
	if sub.Routed == nil {
		return nil
	}
	return s.queueRoutedCheck(ctx, tx, form, sub)
}

// bookingURL is the booking page a routed submission is answered with,
// "" for none (or when it cannot be made: logged).
func (s *Service) bookingURL(ctx context.Context, e SubmissionEvent) string {
	if e.Submission.Routed == nil || e.Submission.IsSpam || s.router == nil {
		return ""
	}
	u, err := s.router(ctx, e)
	if err != nil {
		s.logger.ErrorContext(ctx, "forms: route to a booking", "form", e.Form.ID, "submission", e.Submission.ID, "error", err)
		return ""
	}
	return u
}

// routedCheckArgs is the job that looks, once a routed submission's wait
// is over, whether it was booked.
type routedCheckArgs struct {
	FormID       int64 `json:"form_id"`
	SubmissionID int64 `json:"submission_id"`
}

// Kind implements river.JobArgs.
func (routedCheckArgs) Kind() string { return "forms_routed_check" }

type routedCheckWorker struct {
	river.WorkerDefaults[routedCheckArgs]
	svc *Service
}

func (w *routedCheckWorker) Work(ctx context.Context, job *river.Job[routedCheckArgs]) error {
	return w.svc.checkRouted(ctx, job.Args.FormID, job.Args.SubmissionID)
}

// queueRoutedCheck queues, in the submission's transaction, the look at
// whether it was booked once form's wait is over.
func (s *Service) queueRoutedCheck(ctx context.Context, tx *sql.Tx, form *Form, sub *Submission) error {
	if sub.Routed == nil || s.enqueuer == nil {
		return nil
	}
	return s.enqueuer.EnqueueTx(ctx, tx, routedCheckArgs{FormID: sub.FormID, SubmissionID: sub.ID},
		&river.InsertOpts{ScheduledAt: sub.Routed.At.Add(form.Routing.wait())})
}

// checkRouted marks a routed submission not booked, when it was not, and
// runs the OnRoutedNotBookedTx hooks in the same transaction.
func (s *Service) checkRouted(ctx context.Context, formID, id int64) error {
	form, err := s.store.Form(ctx, formID, "")
	if errors.Is(err, ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	return s.store.RunInTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		sub, err := s.store.Submission(ctx, formID, id)
		if errors.Is(err, ErrNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		if sub.Routed == nil || sub.Routed.BookingID != nil || sub.Routed.NotBookedAt != nil {
			return nil
		}
		now := s.now()
		sub.Routed.NotBookedAt, sub.UpdatedAt = &now, now
		if err := s.store.UpdateSubmission(ctx, sub); err != nil {
			return err
		}
		for _, h := range s.hooks.routedNotBooked.All() {
			if err := h(ctx, tx, SubmissionEvent{Form: form, Submission: sub}); err != nil {
				return err
			}
		}
		return nil
	})
}

// OnRoutedNotBookedTx registers a hook that runs, inside the transaction
// that marks it, for each routed submission found not booked when its
// form's wait is over (EventRoutedNotBooked).
func (s *Service) OnRoutedNotBookedTx(h SubmissionTxHook) { s.hooks.routedNotBooked.Add(h) }

// Booked records on a routed submission the booking made from it: its
// id, number and address in the owner's list. Called inside the booking's
// transaction (ctx carries it), so the two commit together; ErrNotFound
// for no such submission, and a submission not routed is left alone.
func (s *Service) Booked(ctx context.Context, formID, submissionID, bookingID int64, number, url string) error {
	sub, err := s.store.Submission(ctx, formID, submissionID)
	if err != nil {
		return err
	}
	if sub.Routed == nil {
		return nil
	}
	sub.Routed.BookingID, sub.Routed.BookingNumber, sub.Routed.BookingURL = &bookingID, number, url
	sub.UpdatedAt = s.now()
	return s.store.UpdateSubmission(ctx, sub)
}
