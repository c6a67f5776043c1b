package reporting_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	groundwork "github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/tenant"
)

// The site's addresses on the settings page, by keyboard alone, as two
// tenants name theirs: the server's own address is refused, said at the
// top and at the field with what was typed kept; an address pasted whole
// is saved as its host and listed; the other tenant's naming the same
// host is told it is taken, nothing saved; emptied, the site has none.
// axe-core finds nothing, error states included, in either scheme.
func TestBrowserSiteHosts(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second)
	env, err := store.OpenEnv(context.Background(), storetest.DSN(t, store.SQLite), &store.EnvOptions{Secret: []byte("0123456789abcdef0123456789abcdef"),
		Logger: slog.New(slog.DiscardHandler), Queue: &store.QueueOptions{TestOnly: true}})
	require.NoError(t, err)
	t.Cleanup(func() { env.Close() })
	allowed := groundwork.RequestAuthorizerFunc(func(*http.Request, string, any) groundwork.Access { return groundwork.Allowed })
	m, err := reportingsql.Join(env, &reporting.ModuleOptions{Collect: reporting.CollectOptions{Hosts: []string{"shop.example"}},
		Authorizer: allowed, Dashboard: &reporting.DashboardOptions{Manage: allowed}, DashboardGuard: func(h http.Handler) http.Handler { return h }})
	require.NoError(t, err)
	require.NoError(t, env.Migrate(context.Background()))
	mux := http.NewServeMux()
	m.Mount(mux)
	org := "org:1"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux.ServeHTTP(w, r.WithContext(tenant.With(r.Context(), org)))
	}))
	t.Cleanup(srv.Close)
	text := func(sel string) string { t.Helper(); return browsertest.Text(t, ctx, sel) }
	shots := os.Getenv(browsertest.EnvScreenshots)
	save := func(typed string) {
		t.Helper()
		browsertest.TabTo(t, ctx, "#site-hosts")
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(document.activeElement.value = "") === ""`)) // as a select-all and delete
		require.NoError(t, err)
		browsertest.Do(t, ctx, chromedp.SendKeys(chromedp.ID("site-hosts"), typed))
		browsertest.TabTo(t, ctx, `#hosts-title ~ form button[type="submit"]`)
		browsertest.Press(t, ctx, "\r", true)
	}

	browsertest.Do(t, ctx, chromedp.EmulateViewport(320, 800), chromedp.Navigate(srv.URL+"/reporting/settings"), chromedp.WaitVisible(chromedp.ID("hosts-title")))
	require.Contains(t, text("#hosts-title ~ p + p"), "No addresses of its own yet.")

	save("shop.example")
	require.Contains(t, text(".error-summary"), "This server's own address, shop.example, counts for the server's site: no site may name it.")
	require.Contains(t, text("#site-hosts-error"), "This server's own address, shop.example")
	typed, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("site-hosts").value`))
	require.NoError(t, err)
	require.Equal(t, "shop.example", typed, "what was typed is kept")
	browsertest.NoViolations(t, ctx, "a refused address")
	cardShots(t, ctx, shots, "section[aria-labelledby=hosts-title]", "reports-settings-hosts-errors")

	save("https://Acme.example/\nwww.acme.example")
	require.Contains(t, text(".notice"), "every page of acme.example, www.acme.example counts in these reports")
	require.Equal(t, "acme.example\nwww.acme.example", text("#hosts-title ~ ul"))
	browsertest.NoViolations(t, ctx, "the addresses saved")
	cardShots(t, ctx, shots, "section[aria-labelledby=hosts-title]", "reports-settings-hosts")

	org = "org:2"
	browsertest.Do(t, ctx, chromedp.Navigate(srv.URL+"/reporting/settings"), chromedp.WaitVisible(chromedp.ID("hosts-title")))
	save("globex.example acme.example")
	require.Contains(t, text(".error-summary"), "acme.example is another site's address; nothing was changed.")
	browsertest.NoViolations(t, ctx, "an address another site has")
	require.Contains(t, text("#hosts-title ~ p + p"), "No addresses of its own yet.", "nothing saved")

	org = "org:1"
	browsertest.Do(t, ctx, chromedp.Navigate(srv.URL+"/reporting/settings"), chromedp.WaitVisible(chromedp.ID("hosts-title")))
	save("")
	require.Contains(t, text(".notice"), "The site has no addresses of its own now")
}
