package link_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/bookings/calendars"
	"github.com/groundwork-go/groundwork/bookings/calendars/calendarssql"
	"github.com/groundwork-go/groundwork/bookings/waitlist"
	"github.com/groundwork-go/groundwork/bookings/waitlist/waitlistsql"
	"github.com/groundwork-go/groundwork/emaillist"
	"github.com/groundwork-go/groundwork/emaillist/emaillistsql"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/link"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

func newEnv(t *testing.T, d store.Dialect, log io.Writer) *store.Env {
	t.Helper()
	env, err := store.OpenEnv(context.Background(), storetest.DSN(t, d), &store.EnvOptions{Secret: []byte("0123456789abcdef0123456789abcdef"),
		BaseURL: &url.URL{Scheme: "https", Host: "site.example"}, Logger: slog.New(slog.NewTextHandler(log, nil)),
		Queue: &store.QueueOptions{TestOnly: true}})
	require.NoError(t, err)
	t.Cleanup(func() { env.Close() })
	return env
}

// Every module joined to one environment, linked in one call: each route
// a module lists is served where its Mount put it, the migrations are every module's, and Start names no link as
// missing.
func TestJoinedModulesServeTheirRoutes(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		var log testkit.Buffer
		env := newEnv(t, d, &log)
		a, err := authsql.Join(env, &auth.ModuleOptions{Web: &auth.WebOptions{}})
		require.NoError(t, err)
		tokens, signIn := a.Service, a.Web
		f, err := formssql.Join(env, &forms.ModuleOptions{API: forms.HandlerOptions{Tokens: tokens}, Summary: &forms.SummaryPageOptions{},
			SummaryGuard: signIn.RequireUser})
		require.NoError(t, err)
		b, err := bookingssql.Join(env, &bookings.ModuleOptions{Tokens: tokens,
			List: &bookings.ListPageOptions{Viewer: func(*http.Request) (bool, int64, bool) { return true, 0, true }}, ListGuard: signIn.RequireUser})
		require.NoError(t, err)
		c, err := calendarssql.Join(env, b.Service, &calendars.ModuleOptions{Tokens: tokens})
		require.NoError(t, err)
		wl, err := waitlistsql.Join(env, b.Service, &waitlist.ModuleOptions{Tokens: tokens})
		require.NoError(t, err)
		w, err := webhookssql.Join(env, &webhooks.ModuleOptions{Tokens: tokens})
		require.NoError(t, err)
		r, err := reportingsql.Join(env, &reporting.ModuleOptions{Authorizer: tokens.Authorizer(nil), LoadUser: signIn.LoadUser,
			Dashboard: &reporting.DashboardOptions{}, DashboardGuard: signIn.RequireCapability(reporting.CapabilityView)})
		require.NoError(t, err)
		kit, err := emaillist.NewKit("a Kit API key", nil)
		require.NoError(t, err)
		l, err := emaillistsql.Join(env, &emaillist.ModuleOptions{Service: emaillist.Options{Provider: kit, FormExists: link.FormExists(f.Service)},
			Authorizer: tokens.Authorizer(nil)})
		require.NoError(t, err)
		require.NoError(t, link.Join(env, link.Modules{Forms: f, Bookings: b, Webhooks: w, Reporting: r, Lists: l, Waitlist: wl}))
		var lines []string
		for _, m := range env.Migrations() {
			lines = append(lines, m.Line)
		}
		require.Equal(t, []string{"auth", "forms", "bookings", "webhooks", "reporting", "emaillist"}, lines)
		require.NoError(t, env.Migrate(ctx))

		mux := http.NewServeMux()
		type mounter interface {
			Mount(*http.ServeMux)
			Routes() []string
		}
		var routes []string
		for _, m := range []mounter{a, f, b, c, wl, w, r, l} {
			m.Mount(mux)
			routes = append(routes, m.Routes()...)
		}
		require.NotEmpty(t, routes)
		param := regexp.MustCompile(`\{[^}]*\}`)
		for _, route := range routes {
			method, path, ok := strings.Cut(route, " ")
			if !ok {
				method, path = "GET", route
			}
			path = strings.TrimSuffix(param.ReplaceAllString(path, "1"), "/")
			if path == "" {
				path = "/"
			}
			_, pattern := mux.Handler(httptest.NewRequest(method, path, nil))
			require.NotEmpty(t, pattern, "%s: the mux has no handler where the module says it serves", route)
		}
		// The calendars' admin routes sit under the bookings admin API's
		// prefix; the mux gives them to the calendars, not to bookings.
		for _, route := range c.Admin.Routes() {
			method, path, _ := strings.Cut(route, " ")
			h, _ := mux.Handler(httptest.NewRequest(method, param.ReplaceAllString(path, "1"), nil))
			require.Same(t, c.Admin, h, route)
		}
		// So do the waitlist's, under the bookings APIs' prefixes.
		for _, route := range wl.API.Routes() {
			method, path, _ := strings.Cut(route, " ")
			h, _ := mux.Handler(httptest.NewRequest(method, param.ReplaceAllString(path, "1"), nil))
			require.Same(t, wl.API, h, route)
		}

		require.NoError(t, env.Start(ctx))
		require.NoError(t, env.Stop(ctx))
		require.NotContains(t, log.String(), "not linked")
	})
}

// A module refuses to put people's data on a page with no guard, and a
// link a host forgot is named when the environment starts.
func TestModulesGuardsAndForgottenLinks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var log testkit.Buffer
	env := newEnv(t, store.SQLite, &log)
	_, err := formssql.Join(env, &forms.ModuleOptions{Summary: &forms.SummaryPageOptions{}})
	require.ErrorContains(t, err, "SummaryGuard")
	_, err = bookingssql.Join(env, &bookings.ModuleOptions{List: &bookings.ListPageOptions{}})
	require.ErrorContains(t, err, "ListGuard")
	_, err = reportingsql.Join(env, &reporting.ModuleOptions{Dashboard: &reporting.DashboardOptions{}})
	require.ErrorContains(t, err, "DashboardGuard")

	env = newEnv(t, store.SQLite, &log)
	b, err := bookingssql.Join(env, nil)
	require.NoError(t, err)
	require.Nil(t, b.Admin, "no tokens, no admin API")
	w, err := webhookssql.Join(env, nil)
	require.NoError(t, err)
	require.Nil(t, w.API, "no tokens, no subscription API")
	require.NoError(t, env.Migrate(ctx))
	require.NoError(t, env.Start(ctx))
	t.Cleanup(func() { require.NoError(t, env.Stop(ctx)) })
	require.Contains(t, log.String(), "bookings and webhooks are joined but not linked")
	require.Contains(t, log.String(), "link.BookingsToWebhooks")
}
