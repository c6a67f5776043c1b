package reporting_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	groundwork "github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/tenant"
)

// instance is one server of the analytics on a shared database: its
// collector and its routes, a request's tenant read from X-Tenant, a
// viewer (X-Role) allowed to read but not to change.
type instance struct {
	analytics       *reporting.Analytics
	collect, routes *httptest.Server
}

func newInstance(t *testing.T, dsn string, clock *clock) *instance {
	t.Helper()
	env, err := store.OpenEnv(context.Background(), dsn, &store.EnvOptions{Secret: []byte("0123456789abcdef0123456789abcdef"),
		Logger: slog.New(slog.DiscardHandler), Queue: &store.QueueOptions{TestOnly: true}})
	require.NoError(t, err)
	t.Cleanup(func() { env.Close() })
	auth := groundwork.RequestAuthorizerFunc(func(r *http.Request, ability string, _ any) groundwork.Access {
		if r.Header.Get("X-Role") == "viewer" && ability == reporting.AbilityManage {
			return groundwork.Forbidden
		}
		return groundwork.Allowed
	})
	m, err := reportingsql.Join(env, &reporting.ModuleOptions{Analytics: reporting.AnalyticsOptions{Now: clock.Now},
		Collect: reporting.CollectOptions{Hosts: []string{"shop.example"}, Limit: -1}, Authorizer: auth})
	require.NoError(t, err)
	require.NoError(t, env.Migrate(context.Background()))
	documented := apitest.Documented(t, m.API)
	in := &instance{analytics: m.Analytics, collect: httptest.NewServer(m.Collect), routes: httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		documented.ServeHTTP(w, r.WithContext(tenant.With(r.Context(), r.Header.Get("X-Tenant"))))
	}))}
	t.Cleanup(in.collect.Close)
	t.Cleanup(in.routes.Close)
	return in
}

func (in *instance) call(t *testing.T, org, method, body string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, in.routes.URL+"/analytics-hosts", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("X-Tenant", org)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(out)
}

func (in *instance) view(t *testing.T, page string) int {
	t.Helper()
	req, err := http.NewRequest("POST", in.collect.URL+"/analytics/collect", strings.NewReader(`{"name":"pageview","url":"`+page+`"}`))
	require.NoError(t, err)
	req.Header.Set("User-Agent", browser)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	return res.StatusCode
}

// Each site names its own addresses (GET and PUT /analytics-hosts, for
// the request's tenant): an address given whole is kept as its host; a
// host another site has is refused (409) with nothing changed; a bad
// host, the server's own, too many or no list at all are 422; a viewer
// may read, not change. The collector then counts each named host's
// pages for its site, on the instance that took the change at once and
// on another once it reads the map again, and still refuses a host no
// site names. Two instances on one database, both databases.
func TestSiteHosts(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		clock := &clock{}
		clock.Set(now)
		dsn := storetest.DSN(t, d)
		one, two := newInstance(t, dsn, clock), newInstance(t, dsn, clock)
		reporting.SetHostsFresh(one.analytics, 20*time.Millisecond)

		code, out := one.call(t, "org:1", "GET", "")
		require.Equal(t, 200, code, out)
		require.JSONEq(t, `{"data":{"hosts":[]}}`, out)
		code, out = one.call(t, "org:1", "PUT", `{"hosts":["https://Acme.Example/", "shop.acme.example", "acme.example"]}`)
		require.Equal(t, 200, code, out)
		require.JSONEq(t, `{"data":{"hosts":["acme.example","shop.acme.example"]}}`, out)
		code, out = two.call(t, "org:1", "GET", "", "X-Role", "viewer")
		require.Equal(t, 200, code, out)
		require.JSONEq(t, `{"data":{"hosts":["acme.example","shop.acme.example"]}}`, out, "read on the other instance")
		code, out = one.call(t, "org:2", "GET", "")
		require.JSONEq(t, `{"data":{"hosts":[]}}`, out, "Globex's are its own")

		require.Equal(t, 202, one.view(t, "https://acme.example/pricing"), "counted at once where the change was made")
		require.Equal(t, 422, one.view(t, "https://globex.example/secret"), "no site names it yet")

		var hosts []string
		for i := range 21 {
			hosts = append(hosts, fmt.Sprintf(`"h%d.example"`, i))
		}
		twentyOne := strings.Join(hosts, ",")
		for _, c := range []struct {
			body, code, says string
		}{
			{`{"hosts":["globex.example","acme.example"]}`, "409", "acme.example is another site's address"},
			{`{"hosts":["shop.example"]}`, "422", "This server's own address, shop.example, counts for the server's site"},
			{`{"hosts":["bad host!"]}`, "422", `Not a host name: give one as shop.example.com (\"bad host!\").`},
			{`{"hosts":["globex.example/blog"]}`, "422", "not a path"},
			{`{"hosts":[` + twentyOne + `]}`, "422", "at most 20 addresses"},
			{`{}`, "422", "Give the site's addresses"},
			{`{"hosts":["globex.example"],"site":"org:1"}`, "422", "site"},
		} {
			code, out := two.call(t, "org:2", "PUT", c.body)
			require.Equal(t, c.code, fmt.Sprint(code), "%s: %s", c.body, out)
			require.Contains(t, out, c.says, c.body)
		}
		code, out = two.call(t, "org:2", "PUT", `{"hosts":["globex.example"]}`, "X-Role", "viewer")
		require.Equal(t, 403, code, out)
		code, out = two.call(t, "org:2", "GET", "")
		require.JSONEq(t, `{"data":{"hosts":[]}}`, out, "nothing refused was kept")

		code, out = two.call(t, "org:2", "PUT", `{"hosts":["globex.example"]}`)
		require.Equal(t, 200, code, out)
		require.Eventually(t, func() bool { return one.view(t, "https://globex.example/secret") == 202 }, 5*time.Second, 10*time.Millisecond,
			"the other instance counts it once it reads the map again")
		require.Equal(t, 202, two.view(t, "https://globex.example/secret"))
		require.Equal(t, 202, one.view(t, "https://shop.example/"), "the server's own")
		require.Equal(t, 422, one.view(t, "https://elsewhere.example/"))
		require.NoError(t, one.analytics.Flush(context.Background()))
		require.NoError(t, two.analytics.Flush(context.Background()))

		for _, c := range []struct {
			ctx   context.Context
			views float64
			page  string
		}{{tenant.With(context.Background(), "org:1"), 1, "/pricing"}, {tenant.With(context.Background(), "org:2"), 2, "/secret"},
			{context.Background(), 1, "/"}} {
			top, err := one.analytics.TopContent(c.ctx, reporting.AnalyticsQuery{Days: 1, Limit: 10})
			require.NoError(t, err)
			require.Len(t, top.TopPages, 1)
			require.Equal(t, c.page, top.TopPages[0].Path)
			require.Equal(t, c.views, top.TopPages[0].Views)
		}
	})
}

// Analytics that keep no sites' hosts (no SiteHosts: built by hand on a
// store, not joined) offer none: the settings page has no addresses
// form and its post is not found, the route answers 501.
func TestNoHostsKept(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	svc, err := reporting.NewService(&reporting.Options{Analytics: b.analytics, Now: b.clock.Now})
	require.NoError(t, err)
	allowed := groundwork.RequestAuthorizerFunc(func(*http.Request, string, any) groundwork.Access { return groundwork.Allowed })
	d, err := reporting.NewDashboard(svc, &reporting.DashboardOptions{Manage: allowed})
	require.NoError(t, err)
	pages := httptest.NewServer(d)
	t.Cleanup(pages.Close)
	res, err := http.Get(pages.URL + "/reporting/settings")
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	require.NotContains(t, string(body), "The site's addresses")
	res, err = http.PostForm(pages.URL+"/reporting/settings/hosts", url.Values{"hosts": {"shop.example.com"}})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 404, res.StatusCode)

	h, err := reporting.NewHandler(svc, allowed, nil)
	require.NoError(t, err)
	routes := httptest.NewServer(apitest.Documented(t, h))
	t.Cleanup(routes.Close)
	res, err = http.Get(routes.URL + "/analytics-hosts")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 501, res.StatusCode)
}
