package auth_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authstore"
	"github.com/groundwork-go/groundwork/mail"
)

// cheap are argon2id parameters that keep tests quick.
var cheap = auth.PasswordParams{Memory: 64, Time: 1, Threads: 1}

// site is a host with the sign-in pages mounted and a few guarded pages
// of its own.
type site struct {
	svc    *auth.Service
	web    *auth.Web
	outbox *mail.Outbox
	clock  *clock
	srv    *httptest.Server
}

type siteOptions struct {
	store   auth.Store
	limiter groundwork.RateLimitResetter
	web     auth.WebOptions
	params  auth.PasswordParams
}

func newSite(t *testing.T, o siteOptions) *site {
	t.Helper()
	if o.store == nil {
		o.store = newStore(t)
	}
	if o.params == (auth.PasswordParams{}) {
		o.params = cheap
	}
	c := &clock{}
	c.Set(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	outbox := mail.NewOutbox(&mail.OutboxOptions{From: "site@example.com"})
	svc, err := auth.NewService(o.store, &auth.Options{Now: c.Now, Password: o.params, Mailer: outbox, LoginLimiter: o.limiter,
		Key: []byte("a test key of thirty-two bytes!!")})
	require.NoError(t, err)
	w, err := auth.NewWeb(svc, &o.web)
	require.NoError(t, err)
	mux := http.NewServeMux()
	w.Mount(mux)
	hello := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		u, ok := auth.UserFrom(r.Context())
		if !ok {
			_, _ = io.WriteString(rw, "hello guest")
			return
		}
		_, _ = io.WriteString(rw, "hello "+u.Name)
	})
	mux.Handle("GET /dashboard", w.RequireUser(hello))
	mux.Handle("GET /{$}", w.LoadUser(hello))
	mux.Handle("GET /verified", w.RequireVerified(hello))
	mux.Handle("GET /secret", w.RequirePasswordConfirmed(hello))
	mux.Handle("GET /reports", w.RequireCapability("view_search_reporting")(hello))
	mux.Handle("GET /either", w.RequireAnyCapability("forms:view", "view_search_reporting")(hello))
	mux.Handle("GET /guests", w.RequireGuest(hello))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &site{svc: svc, web: w, outbox: outbox, clock: c, srv: srv}
}

// browser is a client with its own cookies that does not follow
// redirects, and says it posts from the site's own origin.
type browser struct {
	t      *testing.T
	site   *site
	client *http.Client
}

func (s *site) browser(t *testing.T) *browser {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &browser{t: t, site: s, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) do(method, path string, form url.Values, header ...string) (*http.Response, string) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.site.srv.URL+path, body)
	require.NoError(b.t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if method == http.MethodPost {
		req.Header.Set("Origin", b.site.srv.URL)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" { // the site asked for by another name, its port kept
			_, port, _ := strings.Cut(req.URL.Host, ":")
			req.Host = header[i+1] + ":" + port
			if method == http.MethodPost {
				req.Header.Set("Origin", "http://"+req.Host)
			}
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	res, err := b.client.Do(req)
	require.NoError(b.t, err)
	defer res.Body.Close()
	text, err := io.ReadAll(res.Body)
	require.NoError(b.t, err)
	return res, string(text)
}

func (b *browser) get(path string, header ...string) (*http.Response, string) {
	return b.do(http.MethodGet, path, nil, header...)
}

func (b *browser) post(path string, form url.Values, header ...string) (*http.Response, string) {
	return b.do(http.MethodPost, path, form, header...)
}

func (b *browser) cookie(name string) string {
	u, _ := url.Parse(b.site.srv.URL)
	for _, c := range b.client.Jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

func (b *browser) login(email, password string, remember bool) *http.Response {
	b.t.Helper()
	form := url.Values{"email": {email}, "password": {password}}
	if remember {
		form.Set("remember", "1")
	}
	res, _ := b.post("/login", form)
	return res
}

func (s *site) user(t *testing.T, email string, caps ...string) auth.User {
	t.Helper()
	u, err := s.svc.CreateUser(context.Background(), auth.NewUser{Name: "Ada Lovelace", Email: email, Password: "correct horse", Capabilities: caps})
	require.NoError(t, err)
	return u
}

var linkPattern = regexp.MustCompile(`https?://\S+`)

// mailedLink waits for the n-th mail and returns the link in it.
func (s *site) mailedLink(t *testing.T, n int) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	msgs, err := s.outbox.Wait(ctx, n)
	require.NoError(t, err)
	link := linkPattern.FindString(msgs[n-1].Text)
	require.NotEmpty(t, link, msgs[n-1].Text)
	return strings.TrimPrefix(link, s.srv.URL)
}

// mailWithSubject returns the one message of msgs with that subject.
func mailWithSubject(t *testing.T, msgs []mail.Message, subject string) mail.Message {
	t.Helper()
	var found []mail.Message
	for _, m := range msgs {
		if m.Subject == subject {
			found = append(found, m)
		}
	}
	require.Len(t, found, 1, "one mail titled %q", subject)
	return found[0]
}

func TestRegisterSignsInAndLandsHome(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{})
	b := s.browser(t)
	res, body := b.get("/register")
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, body, "<h1>Create an account</h1>")

	res, body = b.post("/register", url.Values{"name": {""}, "email": {"not an email"}, "password": {"short"}, "password_confirmation": {"short"}})
	require.Equal(t, 422, res.StatusCode)
	require.Contains(t, body, "Enter your name")
	require.Contains(t, body, "Enter an email address in the correct format, like name@example.com")
	require.Contains(t, body, "Password must be 8 characters or more")
	require.Contains(t, body, `aria-describedby="f-email-error"`)

	res, body = b.post("/register", url.Values{"name": {"Ada"}, "email": {"Ada@Example.com"}, "password": {"correct horse"}, "password_confirmation": {"wrong horse"}})
	require.Equal(t, 422, res.StatusCode)
	require.Contains(t, body, "The passwords do not match: type the same password in both boxes")
	require.Contains(t, body, `value="Ada@Example.com"`, "the email is kept")

	res, _ = b.post("/register", url.Values{"name": {"Ada"}, "email": {"Ada@Example.com"}, "password": {"correct horse"}, "password_confirmation": {"correct horse"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, "/dashboard", res.Header.Get("Location"))
	_, body = b.get("/dashboard")
	require.Equal(t, "hello Ada", body)
	u, err := s.svc.UserByEmail(context.Background(), "ADA@example.com")
	require.NoError(t, err)
	require.Equal(t, "ada@example.com", u.Email, "stored in lower case")
	require.Empty(t, s.outbox.Messages(), "no verification mail unless verification is required")

	// A signed-in user is sent away from the guest pages.
	res, _ = b.get("/login")
	require.Equal(t, http.StatusFound, res.StatusCode)
	require.Equal(t, "/dashboard", res.Header.Get("Location"))

	// The address is taken, in any case.
	other := s.browser(t)
	res, body = other.post("/register", url.Values{"name": {"Eve"}, "email": {"ADA@example.com"}, "password": {"correct horse"}, "password_confirmation": {"correct horse"}})
	require.Equal(t, 422, res.StatusCode)
	require.Contains(t, body, "That email address is already in use")
}

func TestRegistrationCanBeTurnedOff(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{web: auth.WebOptions{DisableRegistration: true}})
	b := s.browser(t)
	res, _ := b.get("/register")
	require.Equal(t, 404, res.StatusCode)
	_, body := b.get("/login")
	require.NotContains(t, body, `href="/register"`)
}

func TestLoginMessagesAndLockout(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{})
	s.user(t, "ada@example.com")
	b := s.browser(t)
	res, body := b.post("/login", url.Values{"email": {""}, "password": {""}})
	require.Equal(t, 422, res.StatusCode)
	require.Contains(t, body, "Enter your email address")
	require.Contains(t, body, "Enter your password")
	for i := 1; i <= 5; i++ {
		res, body = b.post("/login", url.Values{"email": {"ada@example.com"}, "password": {"wrong horse"}})
		require.Equal(t, 422, res.StatusCode, "attempt %d", i)
		require.Contains(t, body, "The email address or password is not right: check them and try again")
		require.Contains(t, body, `<p class="error" id="f-email-error">`, "keyed on email")
		// From the 4th failure on, a warning says what the next does.
		warned := strings.Contains(body, "One more failed attempt will pause sign-in to this account for 1 minute.")
		require.Equal(t, i == 4, warned, "attempt %d", i)
		require.Equal(t, i == 5, strings.Contains(body, "That was the last attempt for now"), "attempt %d", i)
	}
	res, body = b.post("/login", url.Values{"email": {"ada@example.com"}, "password": {"correct horse"}})
	require.Equal(t, http.StatusTooManyRequests, res.StatusCode, "the 6th attempt is refused, even with the right password")
	require.Contains(t, body, `<div class="notice notice-error" role="alert" tabindex="-1" autofocus><p>Too many sign-in attempts. Please try again in 60 seconds.</p></div>`,
		"a page-level message, focused")
	require.NotContains(t, body, `id="f-email-error"`, "not an error on a correct email field")
	require.Equal(t, "60", res.Header.Get("Retry-After"))

	s.clock.Advance(61 * time.Second)
	require.Equal(t, http.StatusSeeOther, b.login("ada@example.com", "correct horse", false).StatusCode)

	// A success clears the count: four more failures do not lock.
	c := s.browser(t)
	for range 4 {
		c.login("ada@example.com", "nope nope", false)
	}
	require.Equal(t, http.StatusSeeOther, c.login("ada@example.com", "correct horse", false).StatusCode)
	c.post("/logout", url.Values{})
	for range 4 {
		require.Equal(t, 422, c.login("ada@example.com", "nope nope", false).StatusCode)
	}
	require.Equal(t, http.StatusSeeOther, c.login("ada@example.com", "correct horse", false).StatusCode)
}

func TestSessionIDChangesAtSignIn(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{})
	s.user(t, "ada@example.com")
	b := s.browser(t)
	u, _ := url.Parse(s.srv.URL)
	planted := strings.Repeat("A", 43)
	b.client.Jar.SetCookies(u, []*http.Cookie{{Name: auth.SessionCookie, Value: planted}})
	res := b.login("ada@example.com", "correct horse", false)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	first := b.cookie(auth.SessionCookie)
	require.NotEqual(t, planted, first)
	require.Len(t, first, 43)
	var set *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == auth.SessionCookie {
			set = c
		}
	}
	require.NotNil(t, set)
	require.True(t, set.HttpOnly)
	require.Equal(t, http.SameSiteLaxMode, set.SameSite)

	// Each sign-in makes a new id.
	b.post("/logout", url.Values{})
	b.login("ada@example.com", "correct horse", false)
	second := b.cookie(auth.SessionCookie)
	require.Len(t, second, 43)
	require.NotEqual(t, first, second)
}

func TestLogoutEndsTheSession(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{})
	s.user(t, "ada@example.com")
	b := s.browser(t)
	b.login("ada@example.com", "correct horse", true)
	id := b.cookie(auth.SessionCookie)
	res, _ := b.post("/logout", url.Values{})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, "/", res.Header.Get("Location"))
	require.Empty(t, b.cookie(auth.SessionCookie))
	require.Empty(t, b.cookie(auth.RememberCookie))
	// The old id no longer works anywhere.
	thief := s.browser(t)
	u, _ := url.Parse(s.srv.URL)
	thief.client.Jar.SetCookies(u, []*http.Cookie{{Name: auth.SessionCookie, Value: id}})
	_, body := thief.get("/")
	require.Equal(t, "hello guest", body)
}

func TestCrossOriginPostsAreRefused(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{})
	s.user(t, "ada@example.com")
	b := s.browser(t)
	res, body := b.post("/login", url.Values{"email": {"ada@example.com"}, "password": {"correct horse"}}, "Origin", "https://evil.example")
	require.Equal(t, http.StatusForbidden, res.StatusCode)
	require.Contains(t, body, "Request refused")
	res, _ = b.post("/login", url.Values{"email": {"ada@example.com"}, "password": {"correct horse"}}, "Sec-Fetch-Site", "cross-site")
	require.Equal(t, http.StatusForbidden, res.StatusCode)
	require.Empty(t, b.cookie(auth.SessionCookie))

	// A single-page app replays the XSRF-TOKEN cookie in X-XSRF-TOKEN.
	b.get("/login")
	token := b.cookie("XSRF-TOKEN")
	require.Len(t, token, 43)
	res, _ = b.post("/login", url.Values{"email": {"ada@example.com"}, "password": {"correct horse"}}, "Origin", "", "X-XSRF-TOKEN", token)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	res, _ = b.post("/logout", nil, "Origin", "", "X-XSRF-TOKEN", "forged-token-forged-token-forged-token-abcd")
	require.Equal(t, http.StatusForbidden, res.StatusCode)
	res, body = b.post("/logout", nil, "Origin", "", "Accept", "application/json")
	require.Equal(t, http.StatusForbidden, res.StatusCode, "cookies and no origin and no token")
	require.Contains(t, body, `"message"`)
}

func TestGuardsOfHostPages(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{web: auth.WebOptions{RequireVerification: true}})
	s.user(t, "ada@example.com", "view_search_reporting")
	s.user(t, "bob@example.com")
	b := s.browser(t)

	res, body := b.get("/dashboard", "Accept", "application/json")
	require.Equal(t, 401, res.StatusCode)
	require.JSONEq(t, `{"message":"Unauthenticated."}`, body)
	res, _ = b.get("/reports?range=28")
	require.Equal(t, http.StatusFound, res.StatusCode)
	require.Equal(t, "/login", res.Header.Get("Location"))
	res = b.login("ada@example.com", "correct horse", false)
	require.Equal(t, "/reports?range=28", res.Header.Get("Location"), "back to the page intended")
	_, body = b.get("/reports")
	require.Equal(t, "hello Ada Lovelace", body)
	_, body = b.get("/either")
	require.Equal(t, "hello Ada Lovelace", body, "one of the capabilities is enough")

	res, _ = b.get("/verified")
	require.Equal(t, http.StatusFound, res.StatusCode)
	require.Equal(t, "/verify-email", res.Header.Get("Location"))
	res, _ = b.get("/guests")
	require.Equal(t, http.StatusFound, res.StatusCode)

	bob := s.browser(t)
	bob.login("bob@example.com", "correct horse", false)
	res, body = bob.get("/reports")
	require.Equal(t, 403, res.StatusCode)
	require.Contains(t, body, "<h1>You do not have access to this page</h1>")
	require.Contains(t, body, "Your account may not use the page at /reports yet. Ask the person who runs this site for access.")
	res, body = bob.get("/reports", "Accept", "application/json")
	require.Equal(t, 403, res.StatusCode)
	require.JSONEq(t, `{"message":"This action is unauthorized."}`, body)
	res, _ = bob.get("/either")
	require.Equal(t, 403, res.StatusCode, "none of them")
}

// brokenSessions fails every session read once broken is set.
type brokenSessions struct {
	auth.Store
	broken atomic.Bool
}

func (f *brokenSessions) SessionByHash(ctx context.Context, h []byte) (authstore.Session, auth.User, error) {
	if f.broken.Load() {
		return authstore.Session{}, auth.User{}, errors.New("disk on fire")
	}
	return f.Store.SessionByHash(ctx, h)
}

// Every failure of the pages is an error page from the one error path:
// an address that is not text, a body past the limit, another user's
// token, verification asked for too often, a store that fails (500, or
// {"message"} to a client that asked for JSON).
func TestPageErrorPaths(t *testing.T) {
	t.Parallel()
	st := &brokenSessions{Store: newStore(t)}
	s := newSite(t, siteOptions{store: st, web: auth.WebOptions{RequireVerification: true}})
	s.user(t, "ada@example.com")
	b := s.browser(t)
	res, body := b.get("/reset-password/to%00ken")
	require.Equal(t, http.StatusNotFound, res.StatusCode)
	require.Contains(t, body, "<h1>Page not found</h1>")
	res, body = b.get("/login?x=%ff")
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	require.Contains(t, body, "<h1>Address not understood</h1>")
	res, body = b.post("/login", url.Values{"email": {strings.Repeat("a", 70<<10)}})
	require.Equal(t, http.StatusRequestEntityTooLarge, res.StatusCode)
	require.Contains(t, body, "<h1>Form not understood</h1>")

	require.Equal(t, http.StatusSeeOther, b.login("ada@example.com", "correct horse", false).StatusCode)
	for _, id := range []string{"999", "x"} {
		res, body = b.get("/settings/tokens/" + id + "/revoke")
		require.Equal(t, http.StatusNotFound, res.StatusCode, id)
		require.Contains(t, body, "<h1>Token not found</h1>", id)
		require.Contains(t, body, `href="/settings/tokens"`, id)
	}
	for range auth.VerifyThrottleDefault {
		res, _ = b.post("/email/verification-notification", url.Values{})
		require.Equal(t, http.StatusSeeOther, res.StatusCode)
	}
	res, body = b.post("/email/verification-notification", url.Values{})
	require.Equal(t, http.StatusTooManyRequests, res.StatusCode)
	require.NotEmpty(t, res.Header.Get("Retry-After"))
	require.Contains(t, body, "You asked for verification too often. Please wait ")

	st.broken.Store(true)
	res, body = b.get("/settings/tokens")
	require.Equal(t, http.StatusInternalServerError, res.StatusCode)
	require.Contains(t, body, "<h1>Something went wrong</h1>")
	require.NotContains(t, body, "disk on fire")
	res, body = b.get("/settings/tokens", "Accept", "application/json")
	require.Equal(t, http.StatusInternalServerError, res.StatusCode)
	require.JSONEq(t, `{"message":"Server Error."}`, body)
}
