package link

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/waitlist"
	"github.com/groundwork-go/groundwork/emaillist"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/webhooks"
)

// Modules are the modules Join links; a nil one is left out.
type Modules struct {
	Forms     *forms.Module
	Bookings  *bookings.Module
	Webhooks  *webhooks.Module
	Reporting *reporting.Module
	Lists     *emaillist.Module
	// Waitlist is bookings' waitlists (bookings/waitlist), joined beside
	// Bookings.
	Waitlist *waitlist.Module
}

// Join makes every link between the modules given, as the functions above
// make them one by one, and tells env, so that Start names none as
// missing: submissions and booking changes become webhooks, and so do
// the analytics goals reached (analytics.goal_reached, once a visitor a
// day a goal, in the transaction that counts them); paid bookings are
// settled by the payment provider's events; a routing form's respondent
// is sent on to the booking page of their route, prefilled and signed,
// and the booking made from it and the submission name each other (in
// the booking's transaction); the waitlists' steps become
// webhooks (booking.waitlist_joined, _offered, _booked, _expired, in the
// transaction of the step: an offer in the cancellation's); submissions
// feed the email
// lists; submissions
// and bookings are counted as analytics events, the form and booking
// pages' views on the server (reporting.Analytics.TrackViews, so a
// form's funnel has its views), and the forms' summaries read those
// views. Call it after joining the modules and before mounting them.
func Join(env *store.Env, m Modules) error {
	if env == nil {
		return errors.New("link: join: no environment")
	}
	var errs []error
	made := func(name string, err error) {
		if err == nil {
			env.Linked(name)
		}
		errs = append(errs, err)
	}
	if m.Forms != nil && m.Webhooks != nil {
		made("forms→webhooks", FormsToWebhooks(m.Forms.Service, m.Webhooks.Service))
	}
	if m.Bookings != nil && m.Webhooks != nil {
		made("bookings→webhooks", BookingsToWebhooks(m.Bookings.Service, m.Webhooks.Service))
	}
	if m.Waitlist != nil && m.Webhooks != nil {
		made("waitlist→webhooks", waitlistToWebhooks(m.Waitlist.Service, m.Webhooks.Service))
	}
	if m.Forms != nil && m.Lists != nil {
		made("forms→emaillist", FormsToEmaillist(m.Forms.Service, m.Lists.Service))
	}
	if m.Forms != nil && m.Bookings != nil {
		var inbox, list string
		if m.Forms.Summary != nil {
			inbox = routePath(m.Forms.Summary.Routes(), "/submissions/{id}")
		}
		if m.Bookings.List != nil {
			list = routePath(m.Bookings.List.Routes(), "/{id}")
		}
		made("forms→bookings", formsToBookings(m.Forms.Service, m.Bookings.Service, inbox, list))
	}
	if m.Reporting != nil && m.Webhooks != nil {
		made("reporting→webhooks", goalsToWebhooks(m.Reporting.Analytics, m.Webhooks.Service))
	}
	if r := m.Reporting; r != nil {
		visitor := reporting.VisitorOptions{TrustedProxies: env.HTTP.TrustedProxies, BaseURL: env.BaseURL}
		track := func(next http.Handler) http.Handler { return r.Analytics.TrackViews(next, visitor, env.Logger) }
		if m.Forms != nil {
			made("forms→reporting", errors.Join(FormsToAnalytics(m.Forms.Service, r.Analytics, env.Origin()),
				AnalyticsToForms(m.Forms.Service, r.Analytics, m.Forms.PagesPrefix())))
			m.Forms.WrapPages(track)
		}
		if m.Bookings != nil {
			made("bookings→reporting", BookingsToAnalytics(m.Bookings.Service, r.Analytics, env.Origin()))
			if m.Bookings.Pages != nil {
				m.Bookings.WrapPages(paidReturns(m.Bookings.Service, r.Analytics, env.Origin(), routePath(m.Bookings.Pages.Routes(), "/manage/{token}")))
			}
			m.Bookings.WrapPages(track)
		}
	}
	return errors.Join(errs...)
}

// eventGoalReached is the webhook of a goal reached, as Join sends it.
const eventGoalReached = "analytics.goal_reached"

// goalReached is an analytics.goal_reached webhook's data: the goal, and
// the hit that reached it as the analytics keeps it (no visitor).
type goalReached struct {
	Goal struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	} `json:"goal"`
	Day       string    `json:"day"`
	ReachedAt time.Time `json:"reached_at"`
	Page      string    `json:"page,omitempty"`
	Event     string    `json:"event,omitempty"`
	Source    string    `json:"source,omitempty"`
	Medium    string    `json:"medium,omitempty"`
	Campaign  string    `json:"campaign,omitempty"`
	Country   string    `json:"country,omitempty"`
	Device    string    `json:"device,omitempty"`
}

func goalReachedOf(r reporting.GoalReached) goalReached {
	h := r.Hit
	out := goalReached{Day: h.Day, ReachedAt: h.At.UTC(), Page: h.Path, Event: h.Event, Source: h.Source, Medium: h.Campaign[0],
		Campaign: h.Campaign[1], Country: h.Country, Device: h.Device}
	out.Goal.ID, out.Goal.Name = r.Goal.ID, r.Goal.Name
	return out
}

// goalsToWebhooks records an analytics.goal_reached webhook for each goal
// a visitor reaches, once a day a goal, for the goal's owner, in the
// transaction that counts it, and describes the event in w's catalogue.
func goalsToWebhooks(a *reporting.Analytics, w *webhooks.Service) error {
	example := reporting.GoalReached{Goal: reporting.Goal{ID: 3, Name: "Signed up"}, Hit: reporting.Hit{
		At: time.Date(2026, 11, 23, 9, 30, 0, 0, time.UTC), Day: "2026-11-23", Path: "/welcome", Source: "Newsletter",
		Campaign: [4]string{"email", "november"}, Country: "DE", Device: "mobile"}}
	if err := w.DescribeEvent(eventGoalReached, "A visitor reached an analytics goal, once a visitor a day a goal: the goal, and "+
		"where the hit that reached it came from (the visitor is not named).", goalReachedOf(example)); err != nil {
		return fmt.Errorf("link: goals to webhooks: %w", err)
	}
	a.OnGoalReachedTx(func(ctx context.Context, tx *sql.Tx, rs []reporting.GoalReached) error {
		for _, r := range rs {
			if _, err := w.DispatchForTx(ctx, tx, r.Goal.Owner, webhooks.Event{Name: eventGoalReached, Data: goalReachedOf(r)}); err != nil {
				return err
			}
		}
		return nil
	})
	return nil
}

// waitlistEntry is a booking.waitlist_* webhook's data: the entry, its
// customer as bookings' webhooks name them (customer_id stands for the
// email, so what was sent about them can be found to erase it).
type waitlistEntry struct {
	ID               int64           `json:"id"`
	Status           waitlist.Status `json:"status"`
	ServiceID        int64           `json:"service_id"`
	StartTime        time.Time       `json:"start_time"`
	Length           int             `json:"length,omitempty"`
	CustomerID       string          `json:"customer_id"`
	CustomerName     string          `json:"customer_name"`
	CustomerEmail    string          `json:"customer_email"`
	CustomerTimeZone string          `json:"customer_timezone,omitempty"`
	ProviderID       *int64          `json:"provider_id,omitempty"`
	OfferExpiresAt   *time.Time      `json:"offer_expires_at,omitempty"`
	BookingID        *int64          `json:"booking_id,omitempty"`
}

func waitlistEntryOf(e waitlist.Entry) waitlistEntry {
	return waitlistEntry{ID: e.ID, Status: e.Status, ServiceID: e.ServiceID, StartTime: e.Start.UTC(), Length: e.Length,
		CustomerID: bookings.CustomerID(e.Email), CustomerName: e.Name, CustomerEmail: e.Email, CustomerTimeZone: e.TimeZone,
		ProviderID: e.ProviderID, OfferExpiresAt: e.OfferExpires, BookingID: e.BookingID}
}

// waitlistWords say what each waitlist webhook means.
var waitlistWords = map[string]string{
	waitlist.EventJoined: "A customer joined the waitlist of a full time.",
	waitlist.EventOffered: "A booking of the time was cancelled or moved, and the first in line was offered the freed place: a hold keeps it " +
		"for them until offer_expires_at (sent in the cancellation's transaction).",
	waitlist.EventBooked:  "The customer took the offer: booking_id is the booking (sent in its transaction, with booking.created).",
	waitlist.EventExpired: "An offer was not taken in time (the place goes to the next in line), or the time passed while waiting.",
}

// waitlistToWebhooks records a booking.waitlist_* webhook for each step of
// wl's waitlists, in the transaction of the step, and describes them in
// w's catalogue.
func waitlistToWebhooks(wl *waitlist.Service, w *webhooks.Service) error {
	expires, provider := time.Date(2026, 11, 23, 11, 0, 0, 0, time.UTC), int64(2)
	example := waitlist.Entry{ID: 7, ServiceID: 3, Start: time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC), Name: "Ann Lee",
		Email: "ann@example.com", TimeZone: "Europe/Berlin", Status: waitlist.StatusOffered, ProviderID: &provider, OfferExpires: &expires}
	for _, name := range waitlist.EventTypes {
		if err := w.DescribeEvent(name, waitlistWords[name], waitlistEntryOf(example)); err != nil {
			return fmt.Errorf("link: waitlist to webhooks: %w", err)
		}
	}
	wl.OnEventTx(func(ctx context.Context, tx *sql.Tx, e waitlist.Event) error {
		_, err := w.DispatchTx(ctx, tx, webhooks.Event{Name: e.Type, Data: waitlistEntryOf(e.Entry)})
		return err
	})
	return nil
}
