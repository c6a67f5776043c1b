package orgs_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
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
	c := newClient(t, srv)
	do := c.do
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
	res, err := c.client.Do(req)
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

// browserOf is a cookie-keeping client of srv signed in as user.
type pageClient struct {
	client *http.Client
	do     func(method, path string, form url.Values) (int, string)
}

// newClient is a cookie-keeping client of srv, a guest.
func newClient(t *testing.T, srv *httptest.Server) pageClient {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := pageClient{client: &http.Client{Jar: jar}}
	c.do = func(method, path string, form url.Values) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(form.Encode()))
		require.NoError(t, err)
		if method == "POST" {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", srv.URL)
		}
		res, err := c.client.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res.StatusCode, string(body)
	}
	return c
}

// browserOf is a client of srv signed in as user.
func browserOf(t *testing.T, srv *httptest.Server, user int64) pageClient {
	t.Helper()
	c := newClient(t, srv)
	code, _ := c.do("GET", "/as/"+strconv.FormatInt(user, 10), nil)
	require.Equal(t, 200, code)
	return c
}

var inviteLink = regexp.MustCompile(`/organizations/join\?invitation=[0-9a-f]{64}`)

// Invitations and members on the page, without JavaScript: the owner
// invites (a mistake said at its field; without mail, the page gives the
// link to pass on), the invitee asks, joins and works there; the owner
// makes them an admin, cannot leave as the last owner; an admin cannot
// remove the owner; a withdrawn or used link joins no one, nor does the
// link opened by a user of another address.
func TestOrganizationsPageInvitations(t *testing.T) {
	t.Parallel()
	s, srv := pageSite(t)
	ann, bo, cy := s.user(t, "ann"), s.user(t, "bo"), s.user(t, "cy")
	owner := browserOf(t, srv, ann)
	code, _ := owner.do("POST", "/organizations", url.Values{"name": {"Acme"}})
	require.Equal(t, 200, code)
	mine, err := s.orgs.Organizations(t.Context(), ann)
	require.NoError(t, err)
	org := "/organizations/" + strconv.FormatInt(mine[0].ID, 10)

	code, body := owner.do("POST", org+"/invitations", url.Values{"email": {"nope"}, "role": {"member"}})
	require.Equal(t, http.StatusUnprocessableEntity, code)
	require.Contains(t, body, `<a href="#f-email">The email field must be a valid email address.</a>`)
	require.Contains(t, body, `value="nope"`)
	code, body = owner.do("POST", org+"/invitations", url.Values{"email": {"bo@example.com"}, "role": {"member"}})
	require.Equal(t, 200, code)
	link := inviteLink.FindString(body)
	require.NotEmpty(t, link, body)
	require.Contains(t, body, `<td data-label="Email address">bo@example.com</td>`, "listed until used")

	// Someone else with the link: told it is another address's, no way
	// to join; their post refused; the link still holds.
	stranger := browserOf(t, srv, cy)
	code, body = stranger.do("POST", "/organizations/join", url.Values{"invitation": {strings.TrimPrefix(link, "/organizations/join?invitation=")}})
	require.Equal(t, http.StatusForbidden, code)
	require.Contains(t, body, "<h1>This invitation is for another address</h1>")
	require.Contains(t, body, "was sent to <strong>bo@example.com</strong>; you are signed in with another address.")
	require.Contains(t, body, "The link joins only that address.")
	require.NotContains(t, body, `action="/organizations/join"`, "no way to join")

	invitee := browserOf(t, srv, bo)
	code, body = invitee.do("GET", link, nil)
	require.Equal(t, 200, code)
	require.Contains(t, body, "<h1>Join Acme</h1>")
	code, body = invitee.do("POST", "/organizations/join", url.Values{"invitation": {strings.TrimPrefix(link, "/organizations/join?invitation=")}})
	require.Equal(t, 200, code)
	require.Contains(t, body, "You have joined Acme, as member, and are working in it.")
	code, body = browserOf(t, srv, cy).do("GET", link, nil)
	require.Equal(t, http.StatusNotFound, code, "used")
	require.Contains(t, body, "This invitation does not hold")

	code, body = owner.do("POST", org+"/members/"+strconv.FormatInt(bo, 10), url.Values{"role": {"admin"}})
	require.Equal(t, 200, code)
	require.Contains(t, body, "The role is changed.")
	code, body = owner.do("POST", org+"/members/"+strconv.FormatInt(ann, 10), url.Values{"action": {"remove"}})
	require.Equal(t, 200, code)
	require.Contains(t, body, "The organization keeps at least one owner")
	code, _ = invitee.do("POST", org+"/members/"+strconv.FormatInt(ann, 10), url.Values{"action": {"remove"}})
	require.Equal(t, http.StatusForbidden, code, "an admin removes no owner")

	code, body = invitee.do("POST", org+"/invitations", url.Values{"email": {"cy@example.com"}, "role": {"member"}})
	require.Equal(t, 200, code, "an admin invites")
	withdrawn := inviteLink.FindString(body)
	require.NotEmpty(t, withdrawn)
	list, err := s.orgs.Invitations(t.Context(), mine[0].ID)
	require.NoError(t, err)
	code, _ = invitee.do("POST", org+"/invitations/"+strconv.FormatInt(list[0].ID, 10)+"/revoke", url.Values{})
	require.Equal(t, 200, code)
	code, _ = browserOf(t, srv, cy).do("GET", withdrawn, nil)
	require.Equal(t, http.StatusNotFound, code, "withdrawn")
	code, body = invitee.do("POST", org+"/members/"+strconv.FormatInt(bo, 10), url.Values{"action": {"remove"}})
	require.Equal(t, 200, code)
	require.Contains(t, body, "You have left the organization.")
}

// Invitations in a browser, by keyboard: the owner invites (after a
// mistake); someone else opens the link and is told it is not theirs;
// the invitee opens it and joins; a used link's page.
// No axe violations, light and dark.
func TestBrowserOrganizationInvitations(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 90*time.Second)
	s, srv := pageSite(t)
	ann, bo := s.user(t, "ann"), s.user(t, "bo")
	_, err := s.orgs.Create(t.Context(), "Acme", ann)
	require.NoError(t, err)
	shots := os.Getenv(browsertest.EnvScreenshots)

	browsertest.Do(t, ctx, chromedp.Navigate(srv.URL+"/as/"+strconv.FormatInt(ann, 10)), chromedp.WaitVisible(chromedp.ID("f-email")))
	browsertest.Do(t, ctx, chromedp.SendKeys(chromedp.ID("f-email"), "bo@example"))
	browsertest.TabTo(t, ctx, "form[action$='/invitations'] button[type=submit]")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".error-summary"), "The email field must be a valid email address.")
	browsertest.NoViolations(t, ctx, "an invitation to a bad address")
	browsertest.Do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById("f-email").value = ""`),
		chromedp.SendKeys(chromedp.ID("f-email"), "bo@example.com"))
	browsertest.TabTo(t, ctx, "form[action$='/invitations'] button[type=submit]")
	browsertest.Press(t, ctx, "\r", true)
	link := inviteLink.FindString(browsertest.Text(t, ctx, ".notice"))
	require.NotEmpty(t, link)
	browsertest.NoViolations(t, ctx, "the members and an invitation")
	browsertest.Screenshots(t, ctx, shots, "organization-invite")

	cy := s.user(t, "cy")
	browsertest.Do(t, ctx, chromedp.Navigate(srv.URL+"/as/"+strconv.FormatInt(cy, 10)), chromedp.WaitVisible(chromedp.ID("f-name")))
	browsertest.Do(t, ctx, chromedp.Navigate(srv.URL+link), chromedp.WaitVisible(chromedp.CSS("h1")))
	browsertest.TabTo(t, ctx, "main button[type=submit]")
	browsertest.Press(t, ctx, "\r", true)
	require.Equal(t, "This invitation is for another address", browsertest.Text(t, ctx, "h1"))
	browsertest.NoViolations(t, ctx, "an invitation opened by another address")
	browsertest.Screenshots(t, ctx, shots, "organization-join-other")

	browsertest.Do(t, ctx, chromedp.Navigate(srv.URL+"/as/"+strconv.FormatInt(bo, 10)), chromedp.WaitVisible(chromedp.ID("f-name")))
	browsertest.Do(t, ctx, chromedp.Navigate(srv.URL+link), chromedp.WaitVisible(chromedp.CSS("h1")))
	require.Equal(t, "Join Acme", browsertest.Text(t, ctx, "h1"))
	browsertest.NoViolations(t, ctx, "an invitation's page")
	browsertest.Screenshots(t, ctx, shots, "organization-join")
	browsertest.TabTo(t, ctx, "main button[type=submit]")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".lead"), "You are working in Acme, as member")
	browsertest.Do(t, ctx, chromedp.Navigate(srv.URL+link), chromedp.WaitVisible(chromedp.CSS("h1")))
	require.Equal(t, "This invitation does not hold", browsertest.Text(t, ctx, "h1"))
	browsertest.NoViolations(t, ctx, "a used invitation")

	// The owner makes the new member an admin, by keyboard.
	browsertest.Do(t, ctx, chromedp.Navigate(srv.URL+"/as/"+strconv.FormatInt(ann, 10)), chromedp.WaitVisible(chromedp.ID("f-email")))
	sel := "#role-" + strconv.FormatInt(bo, 10)
	browsertest.TabTo(t, ctx, sel)
	browsertest.Do(t, ctx, chromedp.SetValue(chromedp.CSS(sel), "admin"))
	browsertest.TabTo(t, ctx, sel+" ~ button")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".notice"), "The role is changed.")
	role, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("`+sel+`").value`))
	require.NoError(t, err)
	require.Equal(t, "admin", role)
	browsertest.NoViolations(t, ctx, "the members, one changeable")
	browsertest.Screenshots(t, ctx, shots, "organization-members")
}
