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
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/store"
)

// A visitor who came from the newsletter sends the contact form and
// books a call in the browser; the owner sees where each came from in the
// inbox, on the answer's page, in the bookings list and on the booking's
// page. Every page with axe, light and dark, and at 320 px.
func TestBrowserWhereEachCameFrom(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second)
	s := newVisitSite(t, store.SQLite)
	bg := context.Background()
	fs := s.forms.Service
	form := &forms.Form{Name: "Contact", IsActive: true, MinFillSeconds: ptr(int64(0))}
	require.NoError(t, fs.CreateForm(bg, form))
	require.NoError(t, fs.CreateField(bg, &forms.Field{FormID: form.ID, Type: forms.TypeText, Name: "name", Label: "Your name", IsRequired: true}))
	require.NoError(t, fs.CreateField(bg, &forms.Field{FormID: form.ID, Type: forms.TypeEmail, Name: "email", Label: "Email", IsRequired: true}))
	_, err := s.bookings.Service.CreateService(bg, bookings.OfferingInput{Name: ptr("Intro call"), Slug: ptr("call"), Duration: ptr(30), TimeZone: ptr("UTC")})
	require.NoError(t, err)
	openProvider(t, s.bookings.Service, "call", "sam", "Sam")
	run := func(actions ...chromedp.Action[chromedp.Void]) { t.Helper(); browsertest.Do(t, ctx, actions...) }
	text := func(sel string) string { t.Helper(); return browsertest.Text(t, ctx, sel) }
	shots := os.Getenv(browsertest.EnvScreenshots)

	// The landing view, as the collector counts it for this browser (a
	// headless browser's own views are a robot's, and left out).
	run(chromedp.Navigate(s.srv.URL + forms.PagePrefixDefault + "/" + form.Slug))
	ua, err := chromedp.Run(ctx, chromedp.Evaluate[string](`navigator.userAgent`))
	require.NoError(t, err)
	landed := reporting.WithVisitor(bg, reporting.Visitor{IP: "127.0.0.1", UserAgent: ua,
		Page: s.srv.URL + "/pricing?utm_source=Newsletter&utm_medium=email&utm_campaign=november"})
	require.NoError(t, s.reports.Analytics.CollectServer(landed, s.srv.URL, reporting.View{}))
	require.NoError(t, s.reports.Analytics.Flush(bg))

	run(chromedp.WaitVisible(chromedp.CSS("form")), chromedp.SendKeys(chromedp.ID("f-name"), "Ann Lee"), chromedp.SendKeys(chromedp.ID("f-email"), "ann@example.com"))
	browsertest.Submit(t, ctx, `form button[type=submit]`)
	day := time.Now().UTC().Add(72 * time.Hour).Format(time.DateOnly)
	run(chromedp.Navigate(s.srv.URL+bookings.PagePrefixDefault+"/call?tz=UTC&date="+day), chromedp.WaitVisible(chromedp.CSS(".times")))
	browsertest.TabTo(t, ctx, `#f-start_time`)
	browsertest.Press(t, ctx, " ", false)
	run(chromedp.SendKeys(chromedp.ID("f-customer_name"), "Ann Lee"), chromedp.SendKeys(chromedp.ID("f-customer_email"), "ann@example.com"))
	browsertest.TabTo(t, ctx, `form#book button[type=submit]`)
	browsertest.Press(t, ctx, "\r", true)
	require.Equal(t, "You are booked", text("h1"))

	run(chromedp.Navigate(s.srv.URL+forms.SummaryPathDefault+"/"+form.Slug+"/submissions/"), chromedp.WaitVisible(chromedp.CSS(".inbox")))
	require.Contains(t, text(".inbox"), "via newsletter, campaign november")
	browsertest.NoViolations(t, ctx, "the inbox with where each answer came from")
	browsertest.Screenshots(t, ctx, shots, "visit-inbox")
	browsertest.Submit(t, ctx, `.inbox a`)
	require.Contains(t, text("main"), "Where it came from")
	require.Contains(t, text("main"), "/pricing")
	reply, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("a[href^='mailto:']").getAttribute("href")`))
	require.NoError(t, err)
	require.Equal(t, "mailto:ann@example.com?subject=Re:%20Contact", reply, "Reply writes to the answer's address")
	browsertest.NoViolations(t, ctx, "an answer's page with where it came from")
	browsertest.Screenshots(t, ctx, shots, "visit-answer")

	run(chromedp.Navigate(s.srv.URL+bookings.ListPagePrefixDefault+"/?tz=UTC"), chromedp.WaitVisible(chromedp.CSS("table")))
	require.Contains(t, text("table"), "via newsletter, campaign november")
	browsertest.NoViolations(t, ctx, "the bookings list with where each booking came from")
	browsertest.Screenshots(t, ctx, shots, "visit-bookings-list")
	browsertest.Submit(t, ctx, `td[data-label="When"] a`)
	require.True(t, strings.HasPrefix(text("h1"), "Intro call"), text("h1"))
	require.Contains(t, text("main"), "Where it came from")
	require.Contains(t, text("main"), "november")
	browsertest.NoViolations(t, ctx, "a booking's page with where it came from")
	browsertest.Screenshots(t, ctx, shots, "visit-booking")
}
