package reporting_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/driverless"
	"github.com/groundwork-go/groundwork/store/storetest"
)

func TestSharedLinkStore(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		st := reportingsql.New(storetest.Open(t, d, reportingsql.Migrations))
		open, err := reporting.MakeSharedLink(ctx, st, " Investors ", "", "")
		require.NoError(t, err)
		require.Equal(t, "Investors", open.Name)
		require.False(t, open.HasPassword)
		require.Equal(t, "/reporting/shared/"+open.Token, open.Path)
		require.Len(t, open.Token, 32)
		locked, err := reporting.MakeSharedLink(ctx, st, "Board", "correct horse", "/share")
		require.NoError(t, err)
		require.True(t, locked.HasPassword)
		require.True(t, strings.HasPrefix(locked.Path, "/share/"))
		for _, bad := range []struct{ name, password, field string }{{"", "", "name:"}, {"x", "short", "password:"}, {strings.Repeat("n", 121), "", "name:"}} {
			_, err := reporting.MakeSharedLink(ctx, st, bad.name, bad.password, "")
			require.ErrorIs(t, err, reporting.ErrBadSharedLink)
			require.Contains(t, err.Error(), bad.field)
		}
		list, err := st.SharedLinks(ctx)
		require.NoError(t, err)
		require.Equal(t, []string{"Board", "Investors"}, []string{list[0].Name, list[1].Name}, "newest first")
		require.NoError(t, st.RevokeSharedLink(ctx, open.ID))
		require.NoError(t, st.RevokeSharedLink(ctx, open.ID), "again")
		require.ErrorIs(t, st.RevokeSharedLink(ctx, 999), reporting.ErrSharedLinkNotFound)
		list, err = st.SharedLinks(ctx)
		require.NoError(t, err)
		require.NotNil(t, list[1].RevokedAt)
		require.Nil(t, list[0].RevokedAt)
		for i := 2; i < reporting.MaxSharedLinks; i++ {
			_, err := reporting.MakeSharedLink(ctx, st, fmt.Sprint("link ", i), "", "")
			require.NoError(t, err)
		}
		_, err = reporting.MakeSharedLink(ctx, st, "one more", "", "")
		require.ErrorIs(t, err, reporting.ErrBadSharedLink)
	})
}

// sharedSite is the dashboard with shared links and their routes, on one
// store, its pages limited to limit a minute.
type sharedSite struct {
	b      *bundle
	st     *reportingsql.Store
	routes *httptest.Server
	pages  *httptest.Server
}

func newSharedSite(t *testing.T, d store.Dialect, limit int) *sharedSite {
	t.Helper()
	s := &sharedSite{b: setup(t, d)}
	s.st = reportingsql.New(s.b.db)
	seedViews(t, s.b)
	svc, err := reporting.NewService(&reporting.Options{Analytics: s.b.analytics, Search: &fakeSearch{conn: "user-1"}, Now: s.b.clock.Now})
	require.NoError(t, err)
	h, err := reporting.NewHandler(svc, groundwork.RequestAuthorizerFunc(func(_ *http.Request, ability string, _ any) groundwork.Access {
		if ability == reporting.AbilityManage || ability == reporting.AbilityView {
			return groundwork.Allowed
		}
		return groundwork.Forbidden
	}), &reporting.HandlerOptions{SharedLinks: s.st})
	require.NoError(t, err)
	s.routes = httptest.NewServer(apitest.Documented(t, h))
	t.Cleanup(s.routes.Close)
	dash, err := reporting.NewDashboard(svc, &reporting.DashboardOptions{SharedLinks: s.st, SharedLimit: limit,
		HTTPOptions: groundwork.HTTPOptions{RateLimiter: driverless.NewMemoryRateLimiter(nil)}})
	require.NoError(t, err)
	s.pages = httptest.NewServer(dash)
	t.Cleanup(s.pages.Close)
	return s
}

func (s *sharedSite) makeLink(t *testing.T, body string) reporting.NewSharedLink {
	t.Helper()
	res, err := http.Post(s.routes.URL+"/analytics-shared-links", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	require.Equal(t, 201, res.StatusCode, string(out))
	require.Equal(t, "no-store", res.Header.Get("Cache-Control"))
	var l struct{ Data reporting.NewSharedLink }
	require.NoError(t, json.Unmarshal(out, &l))
	return l.Data
}

func browse(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func fetch(t *testing.T, c *http.Client, method, u string, form url.Values) (int, http.Header, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	require.NoError(t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := c.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(out)
}

var csrfField = regexp.MustCompile(`name="_token" value="([^"]+)"`)

// A shared link opens the dashboard read-only to anyone with it, behind
// its password when it has one; a revoked link opens nothing.
func TestSharedLinks(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		s := newSharedSite(t, d, -1)
		open := s.makeLink(t, `{"name":"Investors"}`)
		locked := s.makeLink(t, `{"name":"Board","password":"correct horse"}`)
		res, err := http.Post(s.routes.URL+"/analytics-shared-links", "application/json", strings.NewReader(`{"name":"x","password":"short"}`))
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, 422, res.StatusCode)

		c := browse(t)
		code, h, page := fetch(t, c, "GET", s.pages.URL+open.Path+"?days=7", nil)
		require.Equal(t, 200, code)
		require.Equal(t, "same-origin", h.Get("Referrer-Policy"), "the token in the address goes to no other site")
		require.Equal(t, "noindex", h.Get("X-Robots-Tag"))
		require.Contains(t, page, "A read-only view, shared as “Investors”.")
		require.Contains(t, page, `<dd>98 `, "the week's page views")
		require.NotContains(t, page, `id="search"`, "no search reports on a shared link")
		require.Contains(t, page, `href="`+open.Path+`?days=7&amp;source=news.example#sources"`, "its links stay under the link")
		code, h, csv := fetch(t, c, "GET", s.pages.URL+open.Path+"?days=7&export=sources", nil)
		require.Equal(t, 200, code)
		require.Equal(t, "text/csv; charset=utf-8", h.Get("Content-Type"))
		require.True(t, strings.HasPrefix(csv, "source,views,visitors,share\n"), csv)

		code, _, page = fetch(t, c, "GET", s.pages.URL+locked.Path, nil)
		require.Equal(t, 401, code)
		require.Contains(t, page, "needs the password you were given")
		token := csrfField.FindStringSubmatch(page)[1]
		code, _, page = fetch(t, c, "POST", s.pages.URL+locked.Path, url.Values{"_token": {token}, "password": {"wrong horse"}})
		require.Equal(t, 422, code)
		require.Contains(t, page, "That password does not open these reports.")
		code, _, page = fetch(t, c, "POST", s.pages.URL+locked.Path, url.Values{"_token": {token}})
		require.Equal(t, 422, code)
		require.Contains(t, page, "Enter the password you were given with the link.")
		code, h, _ = fetch(t, c, "POST", s.pages.URL+locked.Path, url.Values{"_token": {token}, "password": {"correct horse"}})
		require.Equal(t, 303, code)
		require.Equal(t, locked.Path, h.Get("Location"))
		require.Contains(t, h.Get("Set-Cookie"), "HttpOnly")
		code, _, page = fetch(t, c, "GET", s.pages.URL+locked.Path, nil)
		require.Equal(t, 200, code, "the browser that gave the password")
		require.Contains(t, page, "shared as “Board”")
		code, _, _ = fetch(t, browse(t), "GET", s.pages.URL+locked.Path, nil)
		require.Equal(t, 401, code, "another browser")

		// Revoked: nothing, even with the cookie.
		req, err := http.NewRequest("DELETE", s.routes.URL+fmt.Sprintf("/analytics-shared-links/%d", locked.ID), nil)
		require.NoError(t, err)
		res, err = http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, 204, res.StatusCode)
		code, _, page = fetch(t, c, "GET", s.pages.URL+locked.Path, nil)
		require.Equal(t, 404, code)
		require.Contains(t, page, "This link does not open any reports")
		code, _, _ = fetch(t, c, "GET", s.pages.URL+"/reporting/shared/"+strings.Repeat("A", 32), nil)
		require.Equal(t, 404, code)
		code, _, body := fetch(t, c, "GET", s.routes.URL+"/analytics-shared-links", nil)
		require.Equal(t, 200, code)
		require.NotContains(t, body, open.Token, "tokens are not kept")
		require.Contains(t, body, `"has_password":true`)
	})
}

// The shared pages are limited per address, and the passwords tried.
func TestSharedLinkLimits(t *testing.T) {
	t.Parallel()
	s := newSharedSite(t, store.SQLite, 3)
	open := s.makeLink(t, `{"name":"Investors"}`)
	c := browse(t)
	for i := range 3 {
		code, _, _ := fetch(t, c, "GET", s.pages.URL+open.Path, nil)
		require.Equal(t, 200, code, "page %d", i)
	}
	code, h, page := fetch(t, c, "GET", s.pages.URL+open.Path, nil)
	require.Equal(t, 429, code)
	require.NotEmpty(t, h.Get("Retry-After"))
	require.Contains(t, page, "Too many requests")

	s = newSharedSite(t, store.SQLite, 100)
	locked := s.makeLink(t, `{"name":"Board","password":"correct horse"}`)
	c = browse(t)
	_, _, page = fetch(t, c, "GET", s.pages.URL+locked.Path, nil)
	token := csrfField.FindStringSubmatch(page)[1]
	for i := range reporting.SharedPasswordLimit {
		code, _, _ := fetch(t, c, "POST", s.pages.URL+locked.Path, url.Values{"_token": {token}, "password": {"guess " + fmt.Sprint(i)}})
		require.Equal(t, 422, code)
	}
	code, _, _ = fetch(t, c, "POST", s.pages.URL+locked.Path, url.Values{"_token": {token}, "password": {"correct horse"}})
	require.Equal(t, 429, code, "even the right one, once the tries are spent")
}

// A link's password is held per link too: guesses spread over many
// addresses, each under its own allowance, are refused once the link's
// is spent, even the right one.
func TestSharedLinkPasswordAcrossAddresses(t *testing.T) {
	t.Parallel()
	s := newSharedSite(t, store.SQLite, 1000)
	dash, err := reporting.NewDashboard(must(reporting.NewService(&reporting.Options{Analytics: s.b.analytics})), &reporting.DashboardOptions{
		SharedLinks: s.st, HTTPOptions: groundwork.HTTPOptions{RateLimiter: driverless.NewMemoryRateLimiter(nil),
			TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}})
	require.NoError(t, err)
	pages := httptest.NewServer(dash)
	t.Cleanup(pages.Close)
	locked := s.makeLink(t, `{"name":"Board","password":"correct horse"}`)
	guess := func(from, password string) int {
		c := browse(t)
		req, err := http.NewRequest("GET", pages.URL+locked.Path, nil)
		require.NoError(t, err)
		req.Header.Set("X-Forwarded-For", from)
		res, err := c.Do(req)
		require.NoError(t, err)
		page, _ := io.ReadAll(res.Body)
		res.Body.Close()
		token := csrfField.FindStringSubmatch(string(page))[1]
		req, err = http.NewRequest("POST", pages.URL+locked.Path, strings.NewReader(url.Values{"_token": {token}, "password": {password}}.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", pages.URL)
		req.Header.Set("X-Forwarded-For", from)
		res, err = c.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		return res.StatusCode
	}
	for i := range reporting.SharedLinkPasswordLimit {
		from := fmt.Sprintf("203.0.113.%d", i/(reporting.SharedPasswordLimit-1)+1)
		require.Equal(t, 422, guess(from, fmt.Sprint("guess ", i)), "guess %d from %s", i, from)
	}
	require.Equal(t, 429, guess("198.51.100.7", "correct horse"), "the link's own allowance is spent")
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
