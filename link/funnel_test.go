package link_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// checkout is a payment provider that opens a page and remembers where
// it sends each customer back: the provider's side is bookingsstripe's
// tests'; here only the customer's way back counts.
type checkout struct {
	mu   sync.Mutex
	back map[string]string // booking number: the return address
}

func (c *checkout) Provider() string { return "test" }

func (c *checkout) Checkout(_ context.Context, b bookings.Booking, _, returnURL string) (string, string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.back[b.CustomerName] = returnURL
	return "https://pay.example/session/" + b.Number, "cs_" + b.Number, nil
}

func (c *checkout) Refund(context.Context, bookings.Booking) error { return nil }

func (c *checkout) Paid(context.Context, bookings.Booking) (string, bool, error) {
	return "", false, nil
}

func (c *checkout) Settlement(string, map[string]any) (bookings.Booking, bool) {
	return bookings.Booking{}, false
}

// A funnel across the domains, from a page view to a payment: four
// visitors land on /pricing, three send the contact form, two book the
// paid consultation, one comes back from paying. Each step is counted on
// the server as the visitor whose request it was, so the funnel reads
// 4, 3, 2, 1; a visitor who paid without the form is not in its later
// steps.
func TestFunnelFromAPageViewToAPayment(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		pay := &checkout{back: map[string]string{}}
		s := newVisitSite(t, d, pay)
		fs := s.forms.Service
		form := &forms.Form{Name: "Contact", IsActive: true}
		require.NoError(t, fs.CreateForm(ctx, form))
		require.NoError(t, fs.CreateField(ctx, &forms.Field{FormID: form.ID, Type: forms.TypeText, Name: "name", Label: "Name", IsRequired: true}))
		_, err := s.bookings.Service.CreateService(ctx, bookings.OfferingInput{Name: ptr("Consultation"), Slug: ptr("consult"), Duration: ptr(30),
			TimeZone: ptr("UTC"), Price: ptr("25.00"), Currency: ptr("EUR"), RequiresPayment: ptr(true)})
		require.NoError(t, err)
		openProvider(t, s.bookings.Service, "consult", "sam", "Sam")
		slots, err := s.bookings.Service.Slots(ctx, mustService(t, s.bookings.Service, "consult"),
			bookings.SlotQuery{From: time.Now().Add(48 * time.Hour), To: time.Now().Add(96 * time.Hour)})
		require.NoError(t, err)

		agent := func(name string) string {
			return "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0 " + name
		}
		land := func(name string) {
			view, err := json.Marshal(map[string]string{"url": s.srv.URL + "/pricing?utm_source=newsletter"})
			require.NoError(t, err)
			code, body := s.do(t, agent(name), "POST", "/analytics/collect", "application/json", strings.NewReader(string(view)))
			require.Equal(t, http.StatusAccepted, code, body)
		}
		send := func(name string) {
			code, body := s.do(t, agent(name), "POST", "/forms/"+form.Slug, "application/x-www-form-urlencoded",
				strings.NewReader(url.Values{"name": {name}}.Encode()))
			require.Equal(t, http.StatusSeeOther, code, body)
		}
		book := func(name string, slot int) {
			code, body := s.do(t, agent(name), "POST", "/bookings/consult?tz=UTC", "application/x-www-form-urlencoded",
				strings.NewReader(url.Values{"start_time": {slots[slot].Start.UTC().Format(time.RFC3339)}, "customer_name": {name},
					"customer_email": {strings.ToLower(name) + "@example.com"}}.Encode()))
			require.Equal(t, http.StatusSeeOther, code, body)
		}
		back := func(name string) {
			u, err := url.Parse(pay.back[name])
			require.NoError(t, err, "%s was sent to pay", name)
			code, body := s.do(t, agent(name), "GET", u.Path+"?paid=1", "", nil)
			require.Equal(t, 200, code, body)
		}
		_, err = s.reports.Analytics.AddGoal(ctx, reporting.Goal{Name: "Paid", Event: "booking_paid"})
		require.NoError(t, err)
		for _, name := range []string{"Ann", "Bob", "Cy", "Di"} {
			land(name)
		}
		send("Ann")
		send("Bob")
		send("Cy")
		book("Ann", 0)
		book("Bob", 10)
		book("Eve", 20) // never landed nor sent the form
		back("Ann")
		back("Eve")
		require.NoError(t, s.reports.Analytics.Flush(ctx))

		f, err := s.reports.Analytics.Funnel(ctx, reporting.AnalyticsQuery{Days: 1},
			[]string{"page:/pricing", "event:form_submitted", "event:booking_created", "event:booking_paid"})
		require.NoError(t, err)
		var got []float64
		for _, step := range f.Steps {
			got = append(got, step.Visitors)
		}
		require.Equal(t, []float64{4, 3, 2, 1}, got)
		require.Equal(t, 0.25, f.Conversion)

		// Eve's payment counts for her, and as the consultation's.
		props, err := s.reports.Analytics.EventProperties(ctx, reporting.AnalyticsQuery{Days: 1, Event: "booking_paid"})
		require.NoError(t, err)
		require.Equal(t, []reporting.PropertyValue{{Property: "service", Value: "consult", Count: 2, Users: 2}}, props.Properties)
		// A goal of the payments reports what they earned: the price of each.
		goals, err := s.reports.Analytics.GoalConversions(ctx, reporting.AnalyticsQuery{Days: 1})
		require.NoError(t, err)
		require.Equal(t, map[string]float64{"EUR": 50}, goals.Goals[0].Period.Revenue)
		require.Equal(t, map[string]float64{"EUR": 25}, goals.Goals[0].Period.AverageRevenue)
	})
}
