package reporting_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/store"
)

// The dashboard draws a funnel from the steps its owner types (a page,
// an event, a goal's name), by keyboard and without JavaScript: each
// step's visitors, its share of the first step's and the drop-off; one
// step alone, or one that is nothing, is said beside the form. Axe on
// both, light and dark, and at 320 px.
func TestBrowserDashboardFunnel(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 90*time.Second)
	b := setup(t, store.SQLite)
	ua := func(i int) string {
		return fmt.Sprintf("Mozilla/5.0 (X11; Linux x86_64; rv:%d.0) Gecko/20100101 Firefox/%d.0", 100+i, 100+i)
	}
	for i := range 6 {
		require.Equal(t, 202, b.view(t, "", ua(i), `{"url":"https://shop.example/pricing"}`))
		if i < 4 {
			require.Equal(t, 202, b.view(t, "", ua(i), `{"url":"https://shop.example/contact"}`))
		}
		if i < 3 {
			require.Equal(t, 202, b.view(t, "", ua(i), `{"name":"form_submitted","url":"https://shop.example/contact"}`))
		}
	}
	b.flush(t)
	_, err := b.analytics.AddGoal(t.Context(), reporting.Goal{Name: "Sent the form", Event: "form_submitted"})
	require.NoError(t, err)
	svc, err := reporting.NewService(&reporting.Options{Analytics: b.analytics, Now: b.clock.Now})
	require.NoError(t, err)
	d, err := reporting.NewDashboard(svc, nil)
	require.NoError(t, err)
	srv := httptest.NewServer(d)
	t.Cleanup(srv.Close)
	run := func(actions ...chromedp.Action[chromedp.Void]) { t.Helper(); browsertest.Do(t, ctx, actions...) }
	text := func(sel string) string { t.Helper(); return browsertest.Text(t, ctx, sel) }
	shots := os.Getenv(browsertest.EnvScreenshots)

	run(chromedp.Navigate(srv.URL+"/reporting?days=7"), chromedp.WaitVisible(chromedp.ID("funnel")))
	browsertest.TabTo(t, ctx, "#f-step-1")
	run(chromedp.SendKeys(chromedp.ID("f-step-1"), "/pricing"), chromedp.SendKeys(chromedp.ID("f-step-2"), "/contact"),
		chromedp.SendKeys(chromedp.ID("f-step-3"), "Sent the form"))
	browsertest.TabTo(t, ctx, "#funnel button[type=submit]")
	browsertest.Press(t, ctx, "\r", true)
	report := text("ol.funnel")
	require.Contains(t, report, "Visit /pricing")
	require.Contains(t, report, "6 visitors · 100.0% of the first step")
	require.Contains(t, report, "4 visitors · 66.7% of the first step · 2 dropped off (33.3%)")
	require.Contains(t, report, "Sent the form")
	require.Contains(t, report, "3 visitors · 50.0% of the first step · 1 dropped off (25.0%)")
	require.Contains(t, text("#funnel"), "50.0% of the visitors who took the first step took the last.")
	value, err := chromedp.Run(ctx, chromedp.Value(chromedp.ID("f-step-4")))
	require.NoError(t, err)
	require.Empty(t, value, "one more step to add")
	browsertest.NoViolations(t, ctx, "the dashboard's funnel")
	browsertest.Screenshots(t, ctx, shots, "dashboard-funnel")
	if shots != "" { // the funnel itself, below the fold of the page's shots
		for _, width := range []int64{390, 1280} {
			png, err := browsertest.AtWidth(ctx, width, func(ctx context.Context) ([]byte, error) {
				return chromedp.Run(ctx, chromedp.Screenshot(chromedp.ID("funnel")))
			})
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(shots, fmt.Sprintf("dashboard-funnel-card-%d-light.png", width)), png, 0o644))
		}
	}

	// A step in place filters the whole page as a goal does.
	run(chromedp.Navigate(srv.URL+"/reporting?days=7&goal=page:/contact"), chromedp.WaitVisible(chromedp.CSS(".notice.filter")))
	require.Contains(t, text(".notice.filter"), "visitors who reached “Visit /contact”")
	require.True(t, strings.HasPrefix(text(".totals div:first-child dd"), "4\n"), "the four visitors who saw /contact: %s", text(".totals div:first-child dd"))

	run(chromedp.Navigate(srv.URL+"/reporting?days=7&step=/pricing#funnel"), chromedp.WaitVisible(chromedp.ID("funnel-error")))
	require.Equal(t, "Give at least two steps.", text("#funnel-error"))
	browsertest.NoViolations(t, ctx, "the dashboard's funnel of one step")
}
