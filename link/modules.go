package link

import (
	"errors"
	"net/http"

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
// missing: submissions and booking changes become webhooks; submissions
// feed the email lists; submissions
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
