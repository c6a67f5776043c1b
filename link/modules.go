package link

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/groundwork-go/groundwork/bookings"
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
}

// Join makes every link between the modules given, as the functions above
// make them one by one, and tells env, so that Start names none as
// missing: submissions and booking changes become webhooks, and so do
// the analytics goals reached (analytics.goal_reached, once a visitor a
// day a goal, in the transaction that counts them); paid bookings are
// settled by the payment provider's events; submissions feed the email
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
	if m.Forms != nil && m.Lists != nil {
		made("forms→emaillist", FormsToEmaillist(m.Forms.Service, m.Lists.Service))
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
