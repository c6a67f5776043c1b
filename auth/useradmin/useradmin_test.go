package useradmin_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/auth/useradmin"
	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// site is auth's sign-in with the users' page, on a database of dialect
// d; its log is kept.
type site struct {
	users *auth.Service
	srv   *httptest.Server
	log   *testkit.Buffer
}

func newSite(t *testing.T, d store.Dialect, orgs func(context.Context, int64) ([]useradmin.Membership, error)) *site {
	t.Helper()
	db := storetest.Open(t, d, authsql.Migrations)
	users, err := auth.NewService(authsql.New(db), &auth.Options{Key: []byte("a test key of thirty-two bytes!!"),
		Password: auth.PasswordParams{Memory: 1024, Time: 1, Threads: 1}})
	require.NoError(t, err)
	signIn, err := auth.NewWeb(users, &auth.WebOptions{})
	require.NoError(t, err)
	log := &testkit.Buffer{}
	h, err := useradmin.New(&useradmin.Options{Users: users, SignIn: signIn, Navigator: signIn, Organizations: orgs,
		Key: []byte("another test key of 32 bytes!!!!"), Logger: slog.New(slog.NewTextHandler(log, nil))})
	require.NoError(t, err)
	mux := http.NewServeMux()
	signIn.Mount(mux)
	h.Mount(mux)
	mux.Handle("GET /whoami", signIn.LoadUser(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, _ := auth.UserFrom(r.Context())
		_, _ = io.WriteString(w, u.Email)
	})))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &site{users: users, srv: srv, log: log}
}

func (s *site) user(t *testing.T, name, email string, caps ...string) auth.User {
	t.Helper()
	u, err := s.users.CreateUser(t.Context(), auth.NewUser{Name: name, Email: email, Password: "correct horse battery", Capabilities: caps})
	require.NoError(t, err)
	return u
}

// client is a browser that keeps its cookies, follows no redirect and
// posts from the site's origin with the page's CSRF token.
type client struct {
	t    *testing.T
	site *site
	http *http.Client
}

func (s *site) client(t *testing.T) *client {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &client{t: t, site: s, http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (c *client) do(method, path string, form url.Values, header ...string) (*http.Response, string) {
	c.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, c.site.srv.URL+path, body)
	require.NoError(c.t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", c.site.srv.URL)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := c.http.Do(req)
	require.NoError(c.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(c.t, err)
	return res, string(b)
}

func (c *client) get(path string) (*http.Response, string) { return c.do(http.MethodGet, path, nil) }

// post sends a form from the page at from, with its CSRF token.
func (c *client) post(from, path string, form url.Values) (*http.Response, string) {
	c.t.Helper()
	_, page := c.get(from)
	m := csrfRE.FindStringSubmatch(page)
	require.Len(c.t, m, 2, "no CSRF token on %s: %s", from, page)
	form.Set("_token", m[1])
	return c.do(http.MethodPost, path, form)
}

var (
	csrfRE = regexp.MustCompile(`name="_token" value="([^"]+)"`)
	nextRE = regexp.MustCompile(`<a href="([^"]+)" rel="next">`)
)

func (c *client) login(email string) {
	c.t.Helper()
	res, body := c.post("/login", "/login", url.Values{"email": {email}, "password": {"correct horse battery"}})
	require.Equal(c.t, http.StatusSeeOther, res.StatusCode, body)
}

func TestUsersPage(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			s := newSite(t, d, func(_ context.Context, id int64) ([]useradmin.Membership, error) {
				return []useradmin.Membership{{Name: "Acme " + strconv.FormatInt(id, 10), Role: "owner"}}, nil
			})
			admin := s.user(t, "Ada Admin", "ada@example.com", useradmin.Capability)
			bo := s.user(t, "Bo Brown", "bo@example.com", "forms:view")
			for i := range 55 {
				s.user(t, fmt.Sprintf("Member %02d", i), fmt.Sprintf("member%02d@example.org", i))
			}

			// Guests go to sign in; a user without the capability is
			// refused.
			guest := s.client(t)
			res, _ := guest.get(useradmin.PagePath)
			require.Equal(t, http.StatusFound, res.StatusCode)
			require.Equal(t, "/login", res.Header.Get("Location"))
			plain := s.client(t)
			plain.login("bo@example.com")
			res, _ = plain.get(useradmin.PagePath)
			require.Equal(t, http.StatusForbidden, res.StatusCode)
			res, _ = plain.do(http.MethodPost, useradmin.PagePath+"/"+strconv.FormatInt(admin.ID, 10)+"/disable", url.Values{})
			require.Equal(t, http.StatusForbidden, res.StatusCode)

			// The list: 50 a page, in order, searched.
			a := s.client(t)
			a.login("ada@example.com")
			res, body := a.get(useradmin.PagePath)
			require.Equal(t, http.StatusOK, res.StatusCode)
			require.Equal(t, 50, strings.Count(body, `<td data-label="Email address">`))
			require.Contains(t, body, "Ada Admin")
			require.Contains(t, body, "Member 47")
			require.NotContains(t, body, "Member 48")
			next := nextRE.FindStringSubmatch(body)
			require.Len(t, next, 2, "a next page")
			_, body = a.get(strings.ReplaceAll(next[1], "&amp;", "&"))
			require.Equal(t, 7, strings.Count(body, `<td data-label="Email address">`))
			require.Contains(t, body, "Member 54")
			require.Contains(t, body, `rel="first"`)
			require.NotContains(t, body, `rel="next"`)
			_, body = a.get(useradmin.PagePath + "?q=BO%40EXAMPLE")
			require.Equal(t, 1, strings.Count(body, `<td data-label="Email address">`))
			require.Contains(t, body, `href="/admin/users/`+strconv.FormatInt(bo.ID, 10)+`">Bo Brown</a>`)
			res, body = a.get(useradmin.PagePath + "?q=" + url.QueryEscape("a"+strings.Repeat("é", 250)))
			require.Equal(t, http.StatusOK, res.StatusCode)
			require.Contains(t, body, `value="a`+strings.Repeat("é", 199)+`"`, "a long search is cut to 200 characters, between them")
			_, body = a.get(useradmin.PagePath + "?q=" + url.QueryEscape("<script>"))
			require.Contains(t, body, "No user’s name or address holds “&lt;script&gt;”.")

			// One user's page: their state, browsers, organizations.
			boPage := useradmin.PagePath + "/" + strconv.FormatInt(bo.ID, 10)
			boBrowser := s.client(t)
			boBrowser.login("bo@example.com")
			res, body = a.get(boPage)
			require.Equal(t, http.StatusOK, res.StatusCode, body)
			require.Contains(t, body, "<h1>Bo Brown</h1>")
			require.Contains(t, body, "On 2 browsers")
			require.Contains(t, body, "Acme "+strconv.FormatInt(bo.ID, 10)+" (owner)")
			require.Contains(t, body, "<code>forms:view</code>")
			require.NotContains(t, body, "Turn off two-factor sign-in", "only for a user who has it")
			for _, missing := range []string{"/999999", "/abc", "/0"} {
				res, body = a.get(useradmin.PagePath + missing)
				require.Equal(t, http.StatusNotFound, res.StatusCode, missing)
				require.Contains(t, body, "There is no such user")
			}

			// Sign out everywhere.
			res, _ = a.post(boPage, boPage+"/sign-out", url.Values{})
			require.Equal(t, http.StatusSeeOther, res.StatusCode)
			_, who := boBrowser.get("/whoami")
			require.Empty(t, who)
			_, body = a.get(boPage)
			require.Contains(t, body, "Signed out of every browser.")
			require.Contains(t, body, "Nowhere")

			// Disable, and enable again.
			boBrowser.login("bo@example.com")
			res, _ = a.post(boPage, boPage+"/disable", url.Values{})
			require.Equal(t, http.StatusSeeOther, res.StatusCode)
			_, who = boBrowser.get("/whoami")
			require.Empty(t, who, "signed out")
			res, body = boBrowser.post("/login", "/login", url.Values{"email": {"bo@example.com"}, "password": {"correct horse battery"}})
			require.Equal(t, http.StatusForbidden, res.StatusCode)
			require.Contains(t, body, "This account is disabled")
			_, body = a.get(boPage)
			require.Contains(t, body, `<span class="status status-off">Disabled</span> since`)
			require.Contains(t, body, ">Enable</button>")
			_, body = a.get(useradmin.PagePath + "?q=bo%40")
			require.Contains(t, body, `<span class="status status-off">Disabled</span>`)
			res, _ = a.post(boPage, boPage+"/enable", url.Values{})
			require.Equal(t, http.StatusSeeOther, res.StatusCode)
			boBrowser.login("bo@example.com")
			_, who = boBrowser.get("/whoami")
			require.Equal(t, "bo@example.com", who)

			// Two-factor sign-in turned off for one who lost their phone.
			setup, err := s.users.BeginTwoFactor(t.Context(), bo)
			require.NoError(t, err)
			code, err := totp.GenerateCode(setup.Secret, time.Now())
			require.NoError(t, err)
			_, err = s.users.ConfirmTwoFactor(t.Context(), bo, code)
			require.NoError(t, err)
			_, body = a.get(boPage)
			require.Contains(t, body, "Turn off two-factor sign-in")
			res, _ = a.post(boPage, boPage+"/two-factor/off", url.Values{})
			require.Equal(t, http.StatusSeeOther, res.StatusCode)
			u, err := s.users.User(t.Context(), bo.ID)
			require.NoError(t, err)
			require.Nil(t, u.TwoFactorConfirmedAt)

			// Not oneself; and every change is in the log with who made it.
			adminPage := useradmin.PagePath + "/" + strconv.FormatInt(admin.ID, 10)
			_, body = a.get(adminPage)
			require.Contains(t, body, "This is your own account")
			require.NotContains(t, body, ">Disable</button>")
			res, body = a.post(adminPage, adminPage+"/disable", url.Values{})
			require.Equal(t, http.StatusForbidden, res.StatusCode)
			require.Contains(t, body, "You cannot disable yourself")
			u, err = s.users.User(t.Context(), admin.ID)
			require.NoError(t, err)
			require.Nil(t, u.DisabledAt)
			by := fmt.Sprintf("user=%d by=%d", bo.ID, admin.ID)
			for _, what := range []string{"signed out everywhere", "disabled", "enabled", "two-factor sign-in turned off"} {
				require.Contains(t, s.log.String(), `msg="useradmin: user `+what+`" `+by)
			}

			// A change from another site is refused.
			res, _ = a.do(http.MethodPost, boPage+"/disable", url.Values{}, "Origin", "https://evil.example")
			require.Equal(t, http.StatusForbidden, res.StatusCode, "another origin")
			u, err = s.users.User(t.Context(), bo.ID)
			require.NoError(t, err)
			require.Nil(t, u.DisabledAt)
		})
	}
}

// An administrator whose password was typed long ago (a remembered
// browser) types it again before the changes.
func TestUserChangesAskForThePassword(t *testing.T) {
	t.Parallel()
	s := newSite(t, store.SQLite, nil)
	s.user(t, "Ada Admin", "ada@example.com", useradmin.Capability)
	bo := s.user(t, "Bo Brown", "bo@example.com")
	a := s.client(t)
	res, _ := a.post("/login", "/login", url.Values{"email": {"ada@example.com"}, "password": {"correct horse battery"}, "remember": {"1"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	// The session goes; the remember-me cookie starts an unconfirmed one.
	u, _ := url.Parse(s.srv.URL)
	var keep []*http.Cookie
	for _, c := range a.http.Jar.Cookies(u) {
		if c.Name == auth.RememberCookie {
			keep = append(keep, c)
		}
	}
	fresh := s.client(t)
	fresh.http.Jar.SetCookies(u, keep)
	res, body := fresh.get(useradmin.PagePath)
	require.Equal(t, http.StatusOK, res.StatusCode, "the list is seen")
	require.Contains(t, body, "Bo Brown")
	res, _ = fresh.get(useradmin.PagePath + "/" + strconv.FormatInt(bo.ID, 10))
	require.Equal(t, http.StatusFound, res.StatusCode)
	require.Equal(t, "/confirm-password", res.Header.Get("Location"))
	_, body = s.client(t).get(useradmin.PagePath)
	require.NotContains(t, body, "Bo Brown")
}
