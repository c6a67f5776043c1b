package link_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/store"
)

// A respondent walks a routing form in the browser: their answers send
// them to the enterprise demo's booking page, their name and email
// already there and only the sales team's times offered; they book by
// keyboard; the owner's answer page links to the booking and the
// booking's page to the answer. Every page with axe.
func TestBrowserRoutingFormToBooking(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second)
	s := newRoutingSite(t, store.SQLite)
	bg := context.Background()
	bk := s.bookings.Service
	_, err := bk.CreateService(bg, bookings.OfferingInput{Name: ptr("Enterprise demo"), Slug: ptr("enterprise"), Duration: ptr(30), TimeZone: ptr("UTC")})
	require.NoError(t, err)
	s.provider(t, "enterprise", "sales", "Sales Team")
	s.provider(t, "enterprise", "support", "Support Team")
	fs := s.forms.Service
	// Filled in faster than a person would: the spam check's wait is off.
	form := &forms.Form{Name: "Book a demo", IsActive: true, MinFillSeconds: ptr(int64(0)), FormSettings: forms.FormSettings{Routing: &forms.Routing{Routes: []forms.Route{
		{Service: "enterprise", Providers: []string{"sales"}}}}}}
	require.NoError(t, fs.CreateForm(bg, form))
	for _, f := range []forms.Field{{Type: forms.TypeText, Name: "name", Label: "Your name"}, {Type: forms.TypeEmail, Name: "email", Label: "Email"},
		{Type: forms.TypeNumber, Name: "company_size", Label: "Company size"}} {
		f.FormID, f.IsRequired = form.ID, true
		require.NoError(t, fs.CreateField(bg, &f))
	}
	run := func(actions ...chromedp.Action[chromedp.Void]) { t.Helper(); browsertest.Do(t, ctx, actions...) }
	text := func(sel string) string { t.Helper(); return browsertest.Text(t, ctx, sel) }
	shots := os.Getenv(browsertest.EnvScreenshots)

	run(chromedp.Navigate(s.srv.URL+forms.PagePrefixDefault+"/"+form.Slug), chromedp.WaitVisible(chromedp.CSS("form")))
	run(chromedp.SendKeys(chromedp.ID("f-name"), "Ann Lee"), chromedp.SendKeys(chromedp.ID("f-email"), "ann@example.com"),
		chromedp.SendKeys(chromedp.ID("f-company_size"), "120"))
	browsertest.Submit(t, ctx, `form button[type=submit]`)
	require.Equal(t, "Enterprise demo", text("h1"), "on to the route's booking page")
	here, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	require.Contains(t, here, "/bookings/enterprise?prefill=")
	day := time.Now().UTC().Add(72 * time.Hour).Format(time.DateOnly)
	run(chromedp.Navigate(here+"&tz=UTC&date="+day), chromedp.WaitVisible(chromedp.CSS(".times")))
	require.Contains(t, text(".summary-card"), "Sales Team")
	require.NotContains(t, text(".summary-card"), "Support Team")
	require.Contains(t, text(".summary-card"), "FORM-")
	name, err := chromedp.Run(ctx, chromedp.Value(chromedp.ID("f-customer_name")))
	require.NoError(t, err)
	email, err := chromedp.Run(ctx, chromedp.Value(chromedp.ID("f-customer_email")))
	require.NoError(t, err)
	require.Equal(t, "Ann Lee", name)
	require.Equal(t, "ann@example.com", email)
	browsertest.NoViolations(t, ctx, "a booking page opened from a routing form")
	browsertest.Screenshots(t, ctx, shots, "routing-booking-page")

	// By keyboard: the first time, then the button.
	browsertest.TabTo(t, ctx, `#f-start_time`)
	browsertest.Press(t, ctx, " ", false)
	browsertest.TabTo(t, ctx, `form#book button[type=submit]`)
	browsertest.Press(t, ctx, "\r", true)
	require.Equal(t, "You are booked", text("h1"))
	focused, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.tagName`))
	require.NoError(t, err)
	require.Equal(t, "H1", focused, "the focus on the confirmation's heading")

	list, _, err := bk.ListBookings(bg, bookings.BookingFilter{})
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.NotNil(t, list[0].FromForm)
	run(chromedp.Navigate(s.srv.URL+list[0].FromForm.URL), chromedp.WaitVisible(chromedp.CSS("h1")))
	require.Contains(t, text("main"), "Booked from this answer: "+list[0].Number)
	browsertest.NoViolations(t, ctx, "the answer's page with its booking")
	browsertest.Screenshots(t, ctx, shots, "routing-answer-booked")
	browsertest.Submit(t, ctx, `a[href^="`+bookings.ListPagePrefixDefault+`/"]`)
	require.True(t, strings.HasPrefix(text("h1"), "Enterprise demo"), text("h1"))
	require.Contains(t, text(".details"), "From the form")
	browsertest.NoViolations(t, ctx, "the booking's page with its answer")
}
