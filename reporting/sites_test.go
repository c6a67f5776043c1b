package reporting_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	groundwork "github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/tenant"
)

// Each tenant's reports are its own site's: the routes, its goals and
// shared links, and the page a link opens, for a request acting for
// Acme, hold none of Globex's traffic, and the other way round. On both
// databases.
func TestSitesApart(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, d)
		st := reportingsql.New(b.db)
		hit := func(site, visitor, path string) reporting.Hit {
			return reporting.Hit{Site: site, At: now, Day: "2026-06-01", Visitor: visitor, Path: path, Title: path, Source: "Direct", Device: "desktop"}
		}
		require.NoError(t, st.Record(context.Background(), []reporting.Hit{hit("org:1", "a", "/acme-page"), hit("org:2", "a", "/globex-secret"),
			hit("org:2", "b", "/globex-secret")}, nil))
		svc, err := reporting.NewService(&reporting.Options{Analytics: b.analytics, Now: b.clock.Now})
		require.NoError(t, err)
		h, err := reporting.NewHandler(svc, groundwork.RequestAuthorizerFunc(func(*http.Request, string, any) groundwork.Access { return groundwork.Allowed }),
			&reporting.HandlerOptions{SharedLinks: st})
		require.NoError(t, err)
		asTenant := func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h.ServeHTTP(w, r.WithContext(tenant.With(r.Context(), r.Header.Get("X-Tenant"))))
			})
		}
		routes := httptest.NewServer(asTenant(apitest.Documented(t, h)))
		t.Cleanup(routes.Close)
		dash, err := reporting.NewDashboard(svc, &reporting.DashboardOptions{SharedLinks: st})
		require.NoError(t, err)
		pages := httptest.NewServer(dash)
		t.Cleanup(pages.Close)
		call := func(org, method, path, body string) (int, string) {
			req, err := http.NewRequest(method, routes.URL+path, strings.NewReader(body))
			require.NoError(t, err)
			req.Header.Set("X-Tenant", org)
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer res.Body.Close()
			out, _ := io.ReadAll(res.Body)
			return res.StatusCode, string(out)
		}
		code, out := call("org:1", "GET", "/analytics-reporting/top-content?days=7", "")
		require.Equal(t, 200, code, out)
		require.Contains(t, out, "/acme-page")
		require.NotContains(t, out, "globex")
		code, out = call("org:2", "GET", "/analytics-reporting/overview?days=7", "")
		require.Equal(t, 200, code, out)
		require.Contains(t, out, `"page_views":2`, "Globex's two views alone")

		code, out = call("org:2", "POST", "/analytics-goals", `{"name":"Globex goal","page":"/globex-secret"}`)
		require.Equal(t, 201, code, out)
		code, out = call("org:1", "GET", "/analytics-goals", "")
		require.Equal(t, 200, code, out)
		require.NotContains(t, out, "Globex goal")
		code, out = call("org:1", "DELETE", "/analytics-goals/1", "")
		require.Equal(t, 404, code, "Acme cannot remove Globex's goal: %s", out)

		code, out = call("org:1", "POST", "/analytics-shared-links", `{"name":"Acme board"}`)
		require.Equal(t, 201, code, out)
		code, list := call("org:2", "GET", "/analytics-shared-links", "")
		require.Equal(t, 200, code)
		require.NotContains(t, list, "Acme board")
		path := out[strings.Index(out, `"path":"`)+len(`"path":"`):]
		path = path[:strings.Index(path, `"`)]
		res, err := http.Get(pages.URL + path)
		require.NoError(t, err)
		page, _ := io.ReadAll(res.Body)
		res.Body.Close()
		require.Equal(t, 200, res.StatusCode, string(page))
		require.Contains(t, string(page), "/acme-page", "the link opens Acme's reports")
		require.NotContains(t, string(page), "globex", "and none of Globex's")
	})
}

// The collector counts each page for its host's site (SiteOfHost), takes
// a tenant's host beside its own Hosts, and still refuses a host neither
// knows; a tenant's reports hold its own host's views alone.
func TestCollectorSites(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		clock := &clock{}
		clock.Set(now)
		sites := map[string]string{"acme.example": "org:1", "globex.example": "org:2"}
		a, err := reporting.NewAnalytics(reportingsql.New(storetest.Open(t, d, reportingsql.Migrations)), &reporting.AnalyticsOptions{Now: clock.Now,
			SiteOfHost: func(_ context.Context, host string) (string, bool) { site, ok := sites[host]; return site, ok }})
		require.NoError(t, err)
		h, err := reporting.NewCollectHandler(a, &reporting.CollectOptions{Hosts: []string{"shop.example"}, Limit: -1})
		require.NoError(t, err)
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		view := func(page, ua string) int {
			req, err := http.NewRequest("POST", srv.URL+"/analytics/collect", strings.NewReader(`{"name":"pageview","url":"`+page+`"}`))
			require.NoError(t, err)
			req.Header.Set("User-Agent", ua)
			res, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			res.Body.Close()
			return res.StatusCode
		}
		require.Equal(t, 202, view("https://acme.example/pricing", browser))
		require.Equal(t, 202, view("https://globex.example/secret", browser))
		require.Equal(t, 202, view("https://globex.example/secret", phone))
		require.Equal(t, 202, view("https://shop.example/", browser))
		require.Equal(t, 422, view("https://elsewhere.example/", browser), "a host no site knows")
		require.NoError(t, a.Flush(context.Background()))

		for _, c := range []struct {
			ctx   context.Context
			views float64
			page  string
		}{{tenant.With(context.Background(), "org:1"), 1, "/pricing"}, {tenant.With(context.Background(), "org:2"), 2, "/secret"},
			{context.Background(), 1, "/"}} {
			ov, err := a.Overview(c.ctx, reporting.AnalyticsQuery{Days: 1})
			require.NoError(t, err)
			require.Equal(t, c.views, ov.Totals.PageViews)
			top, err := a.TopContent(c.ctx, reporting.AnalyticsQuery{Days: 1, Limit: 10})
			require.NoError(t, err)
			require.Len(t, top.TopPages, 1)
			require.Equal(t, c.page, top.TopPages[0].Path)
		}
	})
}
