package openid_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/require"
	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/auth/openid"
	"github.com/groundwork-go/groundwork/auth/openid/openidsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// issuer is an OpenID provider in-process: zitadel's (github.com/zitadel/oidc
// pkg/op, with its example storage and login page), which knows three
// users, "ann", "bo" and "cy" (ann@example.com and so on; cy's address not
// verified), each with the password "verysecure", and two clients: this site ("groundwork") and another
// app ("other-app"), both redirecting to the site's callback. While
// wrongAudience is set, it serves the site's sign-ins as the other app's
// (the authorization request and the code's exchange), so the ID token it
// signs is for another audience.
// quietIssuer is the provider's logger: the example logs each request at
// INFO, through the process's default logger, which SetupServer sets to
// this one.
var quietIssuer = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

type issuer struct {
	url           string
	wrongAudience atomic.Bool
}

func newIssuer(t *testing.T, callback string) *issuer {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	is := &issuer{url: "http://" + srv.Listener.Addr().String()}
	clients := map[string]*storage.Client{
		"groundwork": storage.WebClient("groundwork", "site secret", callback),
		"other-app":  storage.WebClient("other-app", "other secret", callback),
	}
	users := map[string]*storage.User{}
	for i, name := range []string{"ann", "bo", "cy"} {
		id := strconv.Itoa(i + 1)
		users[id] = &storage.User{ID: id, Username: name, Password: "verysecure", FirstName: strings.ToUpper(name[:1]) + name[1:],
			LastName: "Example", Email: name + "@example.com", EmailVerified: name != "cy"}
	}
	file := filepath.Join(t.TempDir(), "users.json")
	data, err := json.Marshal(users)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, data, 0o600))
	userStore, err := storage.StoreFromFile(file)
	require.NoError(t, err)
	router := exampleop.SetupServer(is.url, storage.NewStorageWithClients(userStore, clients), quietIssuer, false)
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if is.wrongAudience.Load() {
			switch r.URL.Path {
			case "/auth":
				q := r.URL.Query()
				q.Set("client_id", "other-app")
				r.URL.RawQuery = q.Encode()
			case "/oauth/token":
				r.SetBasicAuth("other-app", "other secret")
			}
		}
		router.ServeHTTP(w, r)
	})
	srv.Start()
	t.Cleanup(srv.Close)
	return is
}

// site is auth's sign-in with the OpenID handler of one provider, the
// issuer, on a database of dialect d.
type site struct {
	users  *auth.Service
	store  openid.Store
	issuer *issuer
	srv    *httptest.Server
}

func newSite(t *testing.T, d store.Dialect, o openid.Options) *site {
	t.Helper()
	db := storetest.Open(t, d, authsql.Migrations)
	users, err := auth.NewService(authsql.New(db), &auth.Options{Key: []byte("a test key of thirty-two bytes!!"),
		Password: auth.PasswordParams{Memory: 1024, Time: 1, Threads: 1}})
	require.NoError(t, err)
	srv := httptest.NewUnstartedServer(nil)
	s := &site{users: users, store: openidsql.New(db), srv: srv}
	s.issuer = newIssuer(t, "http://"+srv.Listener.Addr().String()+"/login/openid/zitadel/callback")
	o.Providers = []openid.Provider{{Name: "zitadel", Label: "Zitadel", Issuer: s.issuer.url, ClientID: "groundwork", ClientSecret: "site secret"}}
	signIn, err := auth.NewWeb(users, &auth.WebOptions{SignInWith: openid.SignInButtons(o.Providers),
		ProfileLinks: []groundwork.NavLink{{Text: "Accounts you sign in with", URL: openid.PagePath}}})
	require.NoError(t, err)
	o.Users, o.SignIn, o.Navigator, o.Key = users, signIn, signIn, []byte("another test key of 32 bytes!!!!")
	o.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	h, err := openid.New(s.store, &o)
	require.NoError(t, err)
	mux := http.NewServeMux()
	signIn.Mount(mux)
	h.Mount(mux)
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(srv.Close)
	return s
}

// client is a browser without JavaScript: its own cookies, following
// redirects across the site and the provider, and saying where its posts
// come from.
type client struct {
	t    *testing.T
	http *http.Client
	// last is the URL of the last answer.
	last *url.URL
	// callbacks are the site's callback URLs the provider sent it to.
	callbacks []string
	// states are the states the site sent it to the provider with.
	states []string
}

func (s *site) client(t *testing.T) *client {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	c := &client{t: t}
	c.http = &http.Client{Jar: jar, CheckRedirect: func(r *http.Request, _ []*http.Request) error {
		if strings.Contains(r.URL.Path, "/callback") && r.URL.Query().Has("code") {
			c.callbacks = append(c.callbacks, r.URL.String())
		}
		if r.URL.Path == "/auth" {
			c.states = append(c.states, r.URL.Query().Get("state"))
		}
		return nil
	}}
	return c
}

func (c *client) do(method, u string, form url.Values) (int, string) {
	c.t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(form.Encode()))
	require.NoError(c.t, err)
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", req.URL.Scheme+"://"+req.URL.Host)
	}
	res, err := c.http.Do(req)
	require.NoError(c.t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(c.t, err)
	c.last = res.Request.URL
	return res.StatusCode, string(body)
}

var authRequestID = regexp.MustCompile(`name="id" value="([^"]+)"`)

// signInAt starts at the site's button and signs in at the provider as
// username; it returns the site's last answer.
func (c *client) signInAt(s *site, start, username string) (int, string) {
	c.t.Helper()
	method := "GET" // the sign-in page's link
	if strings.HasPrefix(start, openid.PagePath) {
		method = "POST" // the linked accounts' page's button
	}
	code, body := c.do(method, s.srv.URL+start, url.Values{})
	require.Equal(c.t, 200, code, body)
	require.True(c.t, strings.HasPrefix(c.last.String(), s.issuer.url+"/login/username"), "at the provider's login page: %s", c.last)
	m := authRequestID.FindStringSubmatch(body)
	require.NotNil(c.t, m, body)
	return c.do("POST", s.issuer.url+"/login/username", url.Values{"id": {m[1]}, "username": {username}, "password": {"verysecure"}})
}

// signedIn is the user the client is signed in as ("" for a guest).
func (c *client) signedIn(s *site) string {
	c.t.Helper()
	code, body := c.do("GET", s.srv.URL+"/settings/profile", nil)
	if code != 200 || !strings.Contains(c.last.Path, "/settings/profile") {
		return ""
	}
	m := regexp.MustCompile(`name="email"[^>]*value="([^"]+)"`).FindStringSubmatch(body)
	require.NotNil(c.t, m, body)
	return m[1]
}

func (s *site) user(t *testing.T, email string) auth.User {
	t.Helper()
	u, err := s.users.UserByEmail(t.Context(), email)
	require.NoError(t, err)
	return u
}

// Sign-in with the provider, without JavaScript, on both databases: a
// new account is made (its address verified, as the provider said) and
// linked, and signs in as the same user next time; an account whose
// verified address a user has signs in as that user, who is still asked
// for their two-factor code; one whose address the provider has not
// verified does not take over the user who has it. A forged state, a
// replayed callback, a replayed code and an ID token for another
// audience sign no one in.
func TestSignInWithOpenID(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		s := newSite(t, d, openid.Options{})
		ctx := t.Context()

		c := s.client(t)
		code, body := c.do("GET", s.srv.URL+"/login", nil)
		require.Equal(t, 200, code)
		require.Contains(t, body, `<a class="button secondary" href="/login/openid/zitadel">Sign in with Zitadel</a>`)
		code, body = c.signInAt(s, "/login/openid/zitadel", "bo")
		require.Equal(t, 200, code, body)
		require.Equal(t, "bo@example.com", c.signedIn(s))
		bo := s.user(t, "bo@example.com")
		require.Equal(t, "Bo Example", bo.Name)
		require.NotNil(t, bo.EmailVerifiedAt, "the provider verified it")
		ids, err := s.store.Identities(ctx, bo.ID)
		require.NoError(t, err)
		require.Len(t, ids, 1)
		require.Equal(t, openid.Identity{ID: ids[0].ID, UserID: bo.ID, Provider: "zitadel", Issuer: s.issuer.url, Subject: "2",
			Email: "bo@example.com", CreatedAt: ids[0].CreatedAt}, ids[0])

		again := s.client(t)
		again.signInAt(s, "/login/openid/zitadel", "bo")
		require.Equal(t, "bo@example.com", again.signedIn(s))
		all, err := s.users.ListUsers(ctx, auth.UserQuery{})
		require.NoError(t, err)
		require.Len(t, all, 1, "the same user")

		// Replays: the callback the provider sent (its state spent with
		// the flow's cookie), and its code under a new flow's state (the
		// provider refuses a code used once).
		replay := s.client(t)
		code, body = replay.do("GET", c.callbacks[0], nil)
		require.Equal(t, http.StatusBadRequest, code)
		require.Contains(t, body, "This sign-in did not start here")
		code, _ = replay.do("GET", s.srv.URL+"/login/openid/zitadel", nil)
		require.Equal(t, 200, code)
		used, _ := url.Parse(c.callbacks[0])
		q := used.Query()
		q.Set("state", replay.states[0])
		used.RawQuery = q.Encode()
		code, body = replay.do("GET", used.String(), nil)
		require.Equal(t, http.StatusBadRequest, code)
		require.Contains(t, body, "The sign-in could not be confirmed")
		require.Empty(t, replay.signedIn(s))

		forged := s.client(t)
		code, _ = forged.do("GET", s.srv.URL+"/login/openid/zitadel", nil)
		require.Equal(t, 200, code)
		code, body = forged.do("GET", s.srv.URL+"/login/openid/zitadel/callback?code=anything&state=forged", nil)
		require.Equal(t, http.StatusBadRequest, code)
		require.Contains(t, body, "This sign-in did not start here")
		require.Empty(t, forged.signedIn(s))

		s.issuer.wrongAudience.Store(true)
		other := s.client(t)
		code, body = other.signInAt(s, "/login/openid/zitadel", "bo")
		s.issuer.wrongAudience.Store(false)
		require.Equal(t, http.StatusBadRequest, code)
		require.Contains(t, body, "The sign-in could not be confirmed")
		require.Empty(t, other.signedIn(s))

		// Ann has an account with two-factor sign-in: the provider's
		// verified address links it, and her code is still asked.
		ann, err := s.users.CreateUser(ctx, auth.NewUser{Name: "Ann", Email: "ann@example.com", Password: "a long enough password"})
		require.NoError(t, err)
		setup, err := s.users.BeginTwoFactor(ctx, ann)
		require.NoError(t, err)
		totpCode, err := totp.GenerateCode(setup.Secret, time.Now())
		require.NoError(t, err)
		_, err = s.users.ConfirmTwoFactor(ctx, ann, totpCode)
		require.NoError(t, err)
		a := s.client(t)
		code, body = a.signInAt(s, "/login/openid/zitadel", "ann")
		require.Equal(t, 200, code)
		require.Equal(t, "/two-factor-challenge", a.last.Path, body)
		require.Empty(t, a.signedIn(s), "not before the code")
		ids, err = s.store.Identities(ctx, ann.ID)
		require.NoError(t, err)
		require.Len(t, ids, 1, "linked by the verified address")

		// Cy's address is not verified by the provider: it signs no one
		// in as the user who has it.
		_, err = s.users.CreateUser(ctx, auth.NewUser{Name: "Cy", Email: "cy@example.com", Password: "a long enough password"})
		require.NoError(t, err)
		cy := s.client(t)
		code, body = cy.signInAt(s, "/login/openid/zitadel", "cy")
		require.Equal(t, http.StatusForbidden, code)
		require.Contains(t, body, "Sign in with your password first")
		require.Empty(t, cy.signedIn(s))
	})
}

// With registration off, an account linked to no user and whose
// address no user has is refused; the provider's refusal ("error" on
// the callback) is a page that says so.
func TestOpenIDWithoutRegistration(t *testing.T) {
	t.Parallel()
	s := newSite(t, store.SQLite, openid.Options{DisableRegistration: true})
	c := s.client(t)
	code, body := c.signInAt(s, "/login/openid/zitadel", "bo")
	require.Equal(t, http.StatusForbidden, code)
	require.Contains(t, body, "No account has that address")
	all, err := s.users.ListUsers(t.Context(), auth.UserQuery{})
	require.NoError(t, err)
	require.Empty(t, all)

	code, _ = c.do("GET", s.srv.URL+"/login/openid/zitadel", nil)
	require.Equal(t, 200, code)
	code, body = c.do("GET", s.srv.URL+"/login/openid/zitadel/callback?error=access_denied&state="+url.QueryEscape(c.states[len(c.states)-1]), nil)
	require.Equal(t, http.StatusBadRequest, code)
	require.Contains(t, body, "Sign-in cancelled")

	code, _ = c.do("GET", s.srv.URL+"/login/openid/nobody", nil)
	require.Equal(t, http.StatusNotFound, code)
}

// The linked accounts' page: a guest is sent to sign in; a user links
// the provider's account (then signs in with it), sees it, and removes
// it; an account linked to another user is not linked twice.
func TestLinkedAccountsPage(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		s := newSite(t, d, openid.Options{})
		ctx := t.Context()
		c := s.client(t)
		code, _ := c.do("GET", s.srv.URL+openid.PagePath, nil)
		require.Equal(t, 200, code)
		require.Equal(t, "/login", c.last.Path, "a guest signs in first")

		dee, err := s.users.CreateUser(ctx, auth.NewUser{Name: "Dee", Email: "dee@example.com", Password: "a long enough password"})
		require.NoError(t, err)
		code, _ = c.do("POST", s.srv.URL+"/login", url.Values{"email": {"dee@example.com"}, "password": {"a long enough password"}})
		require.Equal(t, 200, code)
		code, body := c.do("GET", s.srv.URL+"/settings/profile", nil)
		require.Equal(t, 200, code)
		require.Contains(t, body, `<li><a href="/settings/sign-in-accounts">Accounts you sign in with</a></li>`)
		code, body = c.do("GET", s.srv.URL+openid.PagePath, nil)
		require.Equal(t, 200, code)
		require.Contains(t, body, "No account is linked yet.")
		require.Contains(t, body, `<button type="submit" class="secondary">Link your Zitadel account</button>`)

		code, body = c.signInAt(s, openid.PagePath+"/zitadel", "bo")
		require.Equal(t, 200, code, body)
		require.Equal(t, openid.PagePath, c.last.Path)
		require.Contains(t, body, "Your Zitadel account is linked: you may sign in with it.")
		require.Contains(t, body, `<td data-label="Email address there">bo@example.com</td>`)
		ids, err := s.store.Identities(ctx, dee.ID)
		require.NoError(t, err)
		require.Len(t, ids, 1)

		fresh := s.client(t)
		fresh.signInAt(s, "/login/openid/zitadel", "bo")
		require.Equal(t, "dee@example.com", fresh.signedIn(s), "bo's account at the provider signs in as Dee now")

		// Ann's provider account is linked to Ann: Dee cannot link it.
		ann := s.client(t)
		ann.signInAt(s, "/login/openid/zitadel", "ann")
		require.Equal(t, "ann@example.com", ann.signedIn(s))
		code, body = c.signInAt(s, openid.PagePath+"/zitadel", "ann")
		require.Equal(t, http.StatusConflict, code)
		require.Contains(t, body, "Linked to another account")

		code, body = c.do("POST", s.srv.URL+openid.PagePath+"/"+strconv.FormatInt(ids[0].ID, 10)+"/remove", url.Values{})
		require.Equal(t, 200, code)
		require.Contains(t, body, "The account is removed")
		require.Contains(t, body, "No account is linked yet.")
		annUser := s.user(t, "ann@example.com")
		annIDs, err := s.store.Identities(ctx, annUser.ID)
		require.NoError(t, err)
		code, _ = c.do("POST", s.srv.URL+openid.PagePath+"/"+strconv.FormatInt(annIDs[0].ID, 10)+"/remove", url.Values{})
		require.Equal(t, http.StatusNotFound, code, "not Dee's")
	})
}
