package orgs_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/auth/orgs"
	"github.com/groundwork-go/groundwork/auth/orgs/orgssql"
	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// pageSite serves the organizations page; GET /as/{id} signs the browser
// in as user id (a cookie the Options.User of the test reads).
func pageSite(t *testing.T) (*site, *httptest.Server) {
	t.Helper()
	db := storetest.Open(t, store.SQLite, authsql.Migrations)
	a, err := auth.NewService(authsql.New(db), nil)
	require.NoError(t, err)
	o, err := orgs.New(orgssql.New(db), &orgs.Options{User: func(r *http.Request) (int64, bool) {
		c, err := r.Cookie("test_user")
		if err != nil {
			return 0, false
		}
		id, err := strconv.ParseInt(c.Value, 10, 64)
		return id, err == nil
	}})
	require.NoError(t, err)
	page, err := orgs.NewPageHandler(o, &orgs.PageOptions{Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/organizations", page)
	mux.Handle("/organizations/", page)
	mux.HandleFunc("/as/{id}", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "test_user", Value: r.PathValue("id"), Path: "/"})
		http.Redirect(w, r, "/organizations", http.StatusSeeOther)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &site{auth: a, orgs: o}, srv
}

// The page without JavaScript: a guest finds nothing; a user makes an
// organization (a mistake said at the field), works in it, sees its
// members, makes another and switches back; another's organization
// cannot be switched to, and a post from another origin is refused.
func TestOrganizationsPage(t *testing.T) {
	t.Parallel()
	s, srv := pageSite(t)
	ann, bo := s.user(t, "ann"), s.user(t, "bo")
	globex, err := s.orgs.Create(t.Context(), "Globex", bo)
	require.NoError(t, err)
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	do := func(method, path string, form url.Values) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(form.Encode()))
		require.NoError(t, err)
		if method == "POST" {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", srv.URL)
		}
		res, err := client.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res.StatusCode, string(body)
	}
	code, _ := do("GET", "/organizations", nil)
	require.Equal(t, http.StatusNotFound, code, "a guest")

	code, body := do("GET", "/as/"+strconv.FormatInt(ann, 10), nil)
	require.Equal(t, 200, code)
	require.Contains(t, body, "You are in no organization")
	code, body = do("POST", "/organizations", url.Values{"name": {"  "}})
	require.Equal(t, http.StatusUnprocessableEntity, code)
	require.Contains(t, body, "<title>Error: Organizations")
	require.Contains(t, body, `<a href="#f-name">The name field is required.</a>`)
	code, body = do("POST", "/organizations", url.Values{"name": {"Acme"}})
	require.Equal(t, 200, code)
	require.Contains(t, body, "Acme is made, and you are working in it.")
	require.Contains(t, body, "You are working in <strong>Acme</strong>, as owner")
	require.Contains(t, body, `<td data-label="Email address">ann@example.com</td>`)
	code, body = do("POST", "/organizations", url.Values{"name": {"Zeta"}})
	require.Equal(t, 200, code)
	require.Contains(t, body, "You are working in <strong>Zeta</strong>")
	mine, err := s.orgs.Organizations(t.Context(), ann)
	require.NoError(t, err)
	code, body = do("POST", "/organizations/"+strconv.FormatInt(mine[0].ID, 10)+"/switch", url.Values{})
	require.Equal(t, 200, code)
	require.Contains(t, body, "You are working in Acme now.")
	require.Contains(t, body, `<button type="submit" class="secondary">Switch<span class="visually-hidden"> to Zeta</span></button>`)
	code, _ = do("POST", "/organizations/"+strconv.FormatInt(globex.ID, 10)+"/switch", url.Values{})
	require.Equal(t, http.StatusNotFound, code, "not a member")
	require.NotContains(t, body, "Globex")

	req, _ := http.NewRequest("POST", srv.URL+"/organizations", strings.NewReader("name=Evil"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	res, err := client.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusForbidden, res.StatusCode)
}

// The page in a browser, by keyboard: make an organization (after a
// mistake), switch between two; no axe violations, light and dark.
func TestBrowserOrganizationsPage(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 90*time.Second)
	s, srv := pageSite(t)
	ann := s.user(t, "ann")
	shots := os.Getenv(browsertest.EnvScreenshots)

	browsertest.Do(t, ctx, chromedp.Navigate(srv.URL+"/as/"+strconv.FormatInt(ann, 10)), chromedp.WaitVisible(chromedp.ID("f-name")))
	require.Equal(t, "Organizations", browsertest.Text(t, ctx, "h1"))
	browsertest.NoViolations(t, ctx, "no organization yet")
	browsertest.TabTo(t, ctx, "button[type=submit]")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".error-summary"), "The name field is required.")
	browsertest.NoViolations(t, ctx, "the name left out")
	browsertest.Screenshots(t, ctx, shots, "organizations-error")
	browsertest.Do(t, ctx, chromedp.SendKeys(chromedp.ID("f-name"), "Acme"))
	browsertest.Press(t, ctx, "\r", true)
	browsertest.Do(t, ctx, chromedp.SendKeys(chromedp.ID("f-name"), "Zeta"))
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".lead"), "You are working in Zeta")
	browsertest.TabTo(t, ctx, "form[action$='/switch'] button")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".lead"), "You are working in Acme")
	browsertest.NoViolations(t, ctx, "two organizations, working in one")
	browsertest.Screenshots(t, ctx, shots, "organizations")
}
