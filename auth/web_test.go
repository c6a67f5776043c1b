package auth_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/lite"
	"github.com/groundwork-go/groundwork/store/storetest"
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
	limiter lite.RateLimitResetter
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

func TestRegisterSignsInAndLandsHome(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{})
	b := s.browser(t)
	res, body := b.get("/register")
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, body, "<h1>Create an account</h1>")

	res, body = b.post("/register", url.Values{"name": {""}, "email": {"not an email"}, "password": {"short"}, "password_confirmation": {"short"}})
	require.Equal(t, 422, res.StatusCode)
	require.Contains(t, body, "The name field is required.")
	require.Contains(t, body, "The email field must be a valid email address.")
	require.Contains(t, body, "The password field must be at least 8 characters.")
	require.Contains(t, body, `aria-describedby="f-email-error"`)

	res, body = b.post("/register", url.Values{"name": {"Ada"}, "email": {"Ada@Example.com"}, "password": {"correct horse"}, "password_confirmation": {"wrong horse"}})
	require.Equal(t, 422, res.StatusCode)
	require.Contains(t, body, "The password field confirmation does not match.")
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
	require.Contains(t, body, "The email has already been taken.")
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
	require.Contains(t, body, "The email field is required.")
	require.Contains(t, body, "The password field is required.")
	for i := 1; i <= 5; i++ {
		res, body = b.post("/login", url.Values{"email": {"ada@example.com"}, "password": {"wrong horse"}})
		require.Equal(t, 422, res.StatusCode, "attempt %d", i)
		require.Contains(t, body, auth.MsgBadCredentials)
		require.Contains(t, body, `<p class="error" id="f-email-error">`, "keyed on email")
		// From the 4th failure on, a warning says what the next does.
		warned := strings.Contains(body, "One more failed attempt will pause sign-in to this account for 1 minute.")
		require.Equal(t, i == 4, warned, "attempt %d", i)
		require.Equal(t, i == 5, strings.Contains(body, "That was the last attempt for now"), "attempt %d", i)
	}
	res, body = b.post("/login", url.Values{"email": {"ada@example.com"}, "password": {"correct horse"}})
	require.Equal(t, http.StatusTooManyRequests, res.StatusCode, "the 6th attempt is refused, even with the right password")
	require.Contains(t, body, `<div class="notice notice-error" role="alert" tabindex="-1" autofocus><p>Too many login attempts. Please try again in 60 seconds.</p></div>`,
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

	res, _ = b.get("/verified")
	require.Equal(t, http.StatusFound, res.StatusCode)
	require.Equal(t, "/verify-email", res.Header.Get("Location"))
	res, _ = b.get("/guests")
	require.Equal(t, http.StatusFound, res.StatusCode)

	bob := s.browser(t)
	bob.login("bob@example.com", "correct horse", false)
	res, body = bob.get("/reports")
	require.Equal(t, 403, res.StatusCode)
	require.Contains(t, body, "<h1>Not allowed</h1>")
	res, body = bob.get("/reports", "Accept", "application/json")
	require.Equal(t, 403, res.StatusCode)
	require.JSONEq(t, `{"message":"This action is unauthorized."}`, body)
}

func TestVerificationIsOptionalByDefault(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{})
	s.user(t, "ada@example.com")
	b := s.browser(t)
	b.login("ada@example.com", "correct horse", false)
	res, body := b.get("/verified")
	require.Equal(t, 200, res.StatusCode)
	require.Equal(t, "hello Ada Lovelace", body)
}

func TestVerifyEmail(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{web: auth.WebOptions{RequireVerification: true}})
	b := s.browser(t)
	b.post("/register", url.Values{"name": {"Ada"}, "email": {"ada@example.com"}, "password": {"correct horse"}, "password_confirmation": {"correct horse"}})
	link := s.mailedLink(t, 1)
	require.Regexp(t, `^/verify-email/1/[0-9a-f]{40}\?expires=\d+&signature=[0-9a-f]{64}$`, link)
	res, body := b.get("/verify-email")
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, body, "We have sent a verification link to ada@example.com.", "registering says the mail went")
	require.Contains(t, body, "Your address, <strong>ada@example.com</strong>, is not verified yet.")
	_, body = b.get("/verify-email")
	require.NotContains(t, body, "We have sent", "a later visit claims no mail that was not sent")

	// Tampered, for another user, or expired: 403.
	other := s.browser(t)
	s.user(t, "eve@example.com")
	other.login("eve@example.com", "correct horse", false)
	res, _ = other.get(link)
	require.Equal(t, 403, res.StatusCode, "another user's link")
	res, _ = b.get(strings.Replace(link, "signature=", "signature=0", 1))
	require.Equal(t, 403, res.StatusCode)
	res, _ = b.get(strings.Replace(link, "/1/", "/2/", 1))
	require.Equal(t, 403, res.StatusCode)

	res, _ = b.get(link)
	require.Equal(t, http.StatusFound, res.StatusCode)
	require.Equal(t, "/dashboard?verified=1", res.Header.Get("Location"))
	u, err := s.svc.UserByEmail(context.Background(), "ada@example.com")
	require.NoError(t, err)
	require.True(t, u.Verified())
	res, _ = b.get("/verify-email")
	require.Equal(t, http.StatusFound, res.StatusCode, "verified: the notice sends you home")

	// A second link, followed after an hour, is refused.
	res, body = other.post("/email/verification-notification", url.Values{})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, body)
	late := s.mailedLink(t, 2)
	s.clock.Advance(61 * time.Minute)
	other.login("eve@example.com", "correct horse", false)
	res, _ = other.get(late)
	require.Equal(t, 403, res.StatusCode)
}

func TestVerificationResendIsThrottled(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{web: auth.WebOptions{RequireVerification: true}})
	s.user(t, "ada@example.com")
	b := s.browser(t)
	b.login("ada@example.com", "correct horse", false)
	for range 6 {
		res, _ := b.post("/email/verification-notification", url.Values{})
		require.Equal(t, http.StatusSeeOther, res.StatusCode)
	}
	_, body := b.get("/verify-email")
	require.Contains(t, body, auth.MsgVerificationSent)
	res, _ := b.post("/email/verification-notification", url.Values{})
	require.Equal(t, http.StatusTooManyRequests, res.StatusCode)
}

func TestForgotAndResetPassword(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{})
	s.user(t, "ada@example.com")
	b := s.browser(t)
	other := s.browser(t)
	other.login("ada@example.com", "correct horse", true)

	for _, email := range []string{"nobody@example.com", "ADA@example.com"} {
		res, _ := b.post("/forgot-password", url.Values{"email": {email}})
		require.Equal(t, http.StatusSeeOther, res.StatusCode)
		_, body := b.get("/forgot-password")
		require.Contains(t, body, auth.MsgResetSent, "the same answer whether or not the account exists")
	}
	link := s.mailedLink(t, 1)
	require.Regexp(t, `^/reset-password/[A-Za-z0-9_-]{43}\?email=ada%40example.com$`, link)
	res, body := b.get(link)
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, body, `value="ada@example.com"`, "the email is filled in")
	token := strings.TrimPrefix(strings.Split(link, "?")[0], "/reset-password/")

	res, body = b.post("/reset-password", url.Values{"token": {token}, "email": {"ada@example.com"}, "password": {"new horse!"}, "password_confirmation": {"other"}})
	require.Equal(t, 422, res.StatusCode)
	require.Contains(t, body, "The password field confirmation does not match.")
	res, body = b.post("/reset-password", url.Values{"token": {"wrong"}, "email": {"ada@example.com"}, "password": {"new horse!"}, "password_confirmation": {"new horse!"}})
	requireSpentLink(t, res, body)

	res, _ = b.post("/reset-password", url.Values{"token": {token}, "email": {"ada@example.com"}, "password": {"new horse!"}, "password_confirmation": {"new horse!"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, "/login", res.Header.Get("Location"))
	_, body = b.get("/login")
	require.Contains(t, body, auth.MsgPasswordReset)

	// Once only: the spent link says so before a password is typed.
	res, body = b.post("/reset-password", url.Values{"token": {token}, "email": {"ada@example.com"}, "password": {"third horse"}, "password_confirmation": {"third horse"}})
	requireSpentLink(t, res, body)
	res, body = b.get(link)
	requireSpentLink(t, res, body)

	require.Equal(t, 422, b.login("ada@example.com", "correct horse", false).StatusCode)
	require.Equal(t, http.StatusSeeOther, b.login("ada@example.com", "new horse!", false).StatusCode)
	// The reset signed the other browser out, remember-me included.
	_, body = other.get("/")
	require.Equal(t, "hello guest", body)
}

func TestResetLinksExpireAfterAnHour(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{})
	s.user(t, "ada@example.com")
	b := s.browser(t)
	b.post("/forgot-password", url.Values{"email": {"ada@example.com"}})
	link := s.mailedLink(t, 1)
	token := strings.TrimPrefix(strings.Split(link, "?")[0], "/reset-password/")

	// A second request within the minute sends nothing.
	b.post("/forgot-password", url.Values{"email": {"ada@example.com"}})
	res, body := b.get("/reset-password?token=" + token + "&email=ada%40example.com")
	require.Equal(t, 200, res.StatusCode, "the plain path takes the token as a query value")
	require.Contains(t, body, `name="token" value="`+token+`"`)
	s.clock.Advance(60 * time.Minute)
	res, body = b.get(link)
	requireSpentLink(t, res, body)
	res, body = b.post("/reset-password", url.Values{"token": {token}, "email": {"ada@example.com"}, "password": {"new horse!"}, "password_confirmation": {"new horse!"}})
	requireSpentLink(t, res, body)
	require.Len(t, s.outbox.Messages(), 1)
	res, body = b.post("/reset-password", url.Values{"token": {token}, "email": {"nobody@example.com"}, "password": {"new horse!"}, "password_confirmation": {"new horse!"}})
	require.Equal(t, http.StatusGone, res.StatusCode, body)
	// Asking for a new link from the page sends one.
	s.clock.Advance(time.Minute)
	res, _ = b.post("/forgot-password", url.Values{"email": {"ada@example.com"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Eventually(t, func() bool { return len(s.outbox.Messages()) == 2 }, 5*time.Second, 10*time.Millisecond)
}

// requireSpentLink: a reset link that can no longer be used is a page
// offering a new link to the same address (a form posting to
// /forgot-password), not an error on a field.
func requireSpentLink(t *testing.T, res *http.Response, body string) {
	t.Helper()
	require.Equal(t, http.StatusGone, res.StatusCode, body)
	require.Contains(t, body, "<h1>This reset link can no longer be used</h1>")
	require.Contains(t, body, `action="/forgot-password"`)
	require.Contains(t, body, `value="ada@example.com"`)
	require.Contains(t, body, "Email me a new link")
	require.NotContains(t, body, `type="password"`)
}

func TestConfirmPassword(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{})
	s.user(t, "ada@example.com")
	b := s.browser(t)
	b.login("ada@example.com", "correct horse", false)
	res, _ := b.get("/secret")
	require.Equal(t, 200, res.StatusCode, "signing in counts as confirming")
	for range 4 { // 200 minutes, the session kept alive
		s.clock.Advance(50 * time.Minute)
		b.get("/")
	}
	res, _ = b.get("/secret")
	require.Equal(t, http.StatusFound, res.StatusCode)
	require.Equal(t, "/confirm-password", res.Header.Get("Location"))
	res, body := b.get("/confirm-password")
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, body, "This is a secure area of the application.")
	res, body = b.post("/confirm-password", url.Values{"password": {"wrong horse"}})
	require.Equal(t, 422, res.StatusCode)
	require.Contains(t, body, auth.MsgWrongPassword)
	res, _ = b.post("/confirm-password", url.Values{"password": {"correct horse"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, "/secret", res.Header.Get("Location"))
	res, _ = b.get("/secret")
	require.Equal(t, 200, res.StatusCode)
	res, body = b.get("/secret", "Accept", "application/json")
	require.Equal(t, 200, res.StatusCode, body)
}

func TestSessionLifetimesAndRememberMe(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{})
	s.user(t, "ada@example.com")
	b := s.browser(t)
	b.login("ada@example.com", "correct horse", false)
	s.clock.Advance(119 * time.Minute)
	_, body := b.get("/")
	require.Equal(t, "hello Ada Lovelace", body, "used within the idle time")
	s.clock.Advance(121 * time.Minute)
	_, body = b.get("/")
	require.Equal(t, "hello guest", body, "idle too long")

	// Remember me: a browser that kept only the remember cookie (a new
	// browser session) is signed in again, and the cookie is rotated.
	b.login("ada@example.com", "correct horse", true)
	remembered := b.cookie(auth.RememberCookie)
	require.NotEmpty(t, remembered)
	later := s.browser(t)
	u, _ := url.Parse(s.srv.URL)
	later.client.Jar.SetCookies(u, []*http.Cookie{{Name: auth.RememberCookie, Value: remembered}})
	s.clock.Advance(30 * 24 * time.Hour)
	_, body = later.get("/")
	require.Equal(t, "hello Ada Lovelace", body)
	rotated := later.cookie(auth.RememberCookie)
	require.NotEqual(t, remembered, rotated)
	require.NotEmpty(t, later.cookie(auth.SessionCookie))
	// The used value does not work again.
	again := s.browser(t)
	again.client.Jar.SetCookies(u, []*http.Cookie{{Name: auth.RememberCookie, Value: remembered}})
	_, body = again.get("/")
	require.Equal(t, "hello guest", body)

	// Pruning removes what ended.
	n, err := s.svc.PruneSessions(context.Background())
	require.NoError(t, err)
	require.Positive(t, n)
}

func TestTokensBelongToUsers(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{web: auth.WebOptions{TokenAbilities: []string{"forms:*", "forms:viewSubmissions", "reporting:view", "*"}}})
	s.user(t, "ada@example.com", "forms:*")
	b := s.browser(t)
	res, _ := b.get("/settings/tokens")
	require.Equal(t, http.StatusFound, res.StatusCode)
	b.login("ada@example.com", "correct horse", false)
	res, body := b.get("/settings/tokens")
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, body, "You have no tokens yet.")
	require.Contains(t, body, `value="forms:*"`)
	require.Contains(t, body, `value="forms:viewSubmissions"`)
	require.NotContains(t, body, `value="reporting:view"`, "only what the user's capabilities cover")
	require.Contains(t, body, "<h3>Forms</h3>", "grouped by domain")
	require.Contains(t, body, `name="abilities" value="forms:*"><span>Everything in forms. <code>forms:*</code>`, "with a sentence each")

	res, body = b.post("/settings/tokens", url.Values{"name": {"ci"}, "abilities": {"*"}})
	require.Equal(t, 422, res.StatusCode)
	require.Contains(t, body, "One of the chosen abilities is beyond what your account may do.", "in the page's words")
	res, body = b.post("/settings/tokens", url.Values{"name": {"ci"}})
	require.Equal(t, 422, res.StatusCode)
	require.Contains(t, body, "Choose at least one thing the token may do.")

	res, _ = b.post("/settings/tokens", url.Values{"name": {"ci"}, "abilities": {"forms:viewSubmissions"}, "expires_in_days": {"30"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, "Post/Redirect/Get")
	require.Equal(t, "/settings/tokens", res.Header.Get("Location"))
	_, body = b.get("/settings/tokens")
	plaintext := regexp.MustCompile(`<code id="new-token">([^<]+)</code>`).FindStringSubmatch(body)
	require.Len(t, plaintext, 2)
	tok, err := s.svc.Authenticate(context.Background(), strings.ReplaceAll(plaintext[1], "&#43;", "+"))
	require.NoError(t, err)
	require.NotNil(t, tok.UserID)
	require.Equal(t, "user:1", auth.CallerID(tok), "throttled as its owner")
	_, body = b.get("/settings/tokens")
	require.NotContains(t, body, plaintext[1], "shown once")
	require.NotContains(t, body, `id="new-token"`)

	// Another user cannot revoke it; the owner can.
	s.user(t, "eve@example.com", "*")
	eve := s.browser(t)
	eve.login("eve@example.com", "correct horse", false)
	res, _ = eve.post("/settings/tokens/1/revoke", url.Values{})
	require.Equal(t, 404, res.StatusCode)
	res, _ = eve.get("/settings/tokens/1/revoke")
	require.Equal(t, 404, res.StatusCode)
	res, body = b.get("/settings/tokens/1/revoke")
	require.Equal(t, 200, res.StatusCode, "revoking asks first")
	require.Contains(t, body, "<h1>Revoke “ci”?</h1>")
	res, _ = b.post("/settings/tokens/1/revoke", url.Values{})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	_, body = b.get("/settings/tokens")
	require.Contains(t, body, "was revoked: it no longer works.")
	require.Contains(t, body, "Revoked")
}

// The lock-out counts in the database: attempts that alternate between
// two instances on one Postgres database share one count.
func TestLockoutAcrossInstances(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		dsn := storetest.DSN(t, d)
		db1 := storetest.OpenDSN(t, dsn, authsql.Migrations)
		db2 := storetest.OpenDSN(t, dsn, authsql.Migrations)
		one := newSite(t, siteOptions{store: authsql.New(db1), limiter: store.NewSQLRateLimiter(db1, nil)})
		two := newSite(t, siteOptions{store: authsql.New(db2), limiter: store.NewSQLRateLimiter(db2, nil)})
		one.user(t, "ada@example.com")
		b1, b2 := one.browser(t), two.browser(t)
		for i := range 5 {
			b := b1
			if i%2 == 1 {
				b = b2
			}
			require.Equal(t, 422, b.login("ada@example.com", "wrong horse", false).StatusCode)
		}
		require.Equal(t, http.StatusTooManyRequests, b2.login("ada@example.com", "correct horse", false).StatusCode)
		require.Equal(t, http.StatusTooManyRequests, b1.login("ada@example.com", "correct horse", false).StatusCode)
		// Another email from the same client is counted apart.
		one.user(t, "bob@example.com")
		require.Equal(t, http.StatusSeeOther, b2.login("bob@example.com", "correct horse", false).StatusCode)
	})
}

// readCounter counts the Store calls a request makes.
type readCounter struct {
	auth.Store
	calls atomic.Int64
}

func (c *readCounter) SessionByHash(ctx context.Context, h []byte) (auth.Session, auth.User, error) {
	c.calls.Add(1)
	return c.Store.SessionByHash(ctx, h)
}

func (c *readCounter) UserByID(ctx context.Context, id int64) (auth.User, string, error) {
	c.calls.Add(1)
	return c.Store.UserByID(ctx, id)
}

func (c *readCounter) TouchSession(ctx context.Context, h []byte, at time.Time) error {
	c.calls.Add(1)
	return c.Store.TouchSession(ctx, h, at)
}

// A signed-in request through RequireUser costs one read: the session
// with its user; the last-seen write comes at most once a minute.
func TestRequireUserCostsOneRead(t *testing.T) {
	t.Parallel()
	counter := &readCounter{Store: newStore(t)}
	s := newSite(t, siteOptions{store: counter})
	s.user(t, "ada@example.com")
	b := s.browser(t)
	b.login("ada@example.com", "correct horse", false)
	for range 3 {
		before := counter.calls.Load()
		_, body := b.get("/dashboard")
		require.Equal(t, "hello Ada Lovelace", body)
		require.Equal(t, before+1, counter.calls.Load())
	}
	s.clock.Advance(2 * time.Minute)
	before := counter.calls.Load()
	b.get("/dashboard")
	require.Equal(t, before+2, counter.calls.Load(), "the read, and the once-a-minute touch")
}

// Only a path of this site is followed after sign-in: the remembered page
// is checked when it is used, so a cookie set by anyone else cannot send
// the user away (a tab or a newline, which browsers drop, a backslash,
// which they read as a slash, or another host).
func TestIntendedIsOnlyALocalPath(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{
		"/settings/tokens": true, "/reports?days=7": true, "/a/b#c": true,
		"/\t/evil.example": false, "/\n/evil.example": false, "/\r/evil.example": false, "//evil.example": false,
		"/\\evil.example": false, "/x\\y": false, "https://evil.example/": false, "evil": false, "": false, "/\x7f/x": false,
		"/\x00": false,
	} {
		require.Equal(t, want, auth.LocalPath(p), "%q", p)
	}
	s := newSite(t, siteOptions{})
	s.user(t, "ada@example.com")
	for _, planted := range []string{"/\t/evil.example", "/\\evil.example", "//evil.example"} {
		b := s.browser(t)
		u, _ := url.Parse(s.srv.URL)
		b.client.Jar.SetCookies(u, []*http.Cookie{{Name: auth.IntendedCookie, Value: url.QueryEscape(planted), Path: "/"}})
		res := b.login("ada@example.com", "correct horse", false)
		require.Equal(t, http.StatusSeeOther, res.StatusCode, planted)
		require.Equal(t, "/dashboard", res.Header.Get("Location"), "%q is not followed", planted)
	}
}

// A reset link is made from the base URL, else from the address the
// server accepted the connection on: never from the Host header, which
// anyone may forge (a link to their host would carry the reset token).
func TestMailedLinksIgnoreTheHostHeader(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{})
	s.user(t, "ada@example.com")
	form := url.Values{"email": {"ada@example.com"}}
	req, err := http.NewRequest(http.MethodPost, s.srv.URL+"/forgot-password", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Host = "evil.example"
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-Host", "evil.example")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	link := rawLink(t, s)
	require.True(t, strings.HasPrefix(link, s.srv.URL+"/reset-password/"), link)
	require.NotContains(t, link, "evil.example")

	base, _ := url.Parse("https://app.example.com")
	withBase := newSite(t, siteOptions{web: auth.WebOptions{HTTPOptions: groundwork.HTTPOptions{BaseURL: base}}})
	withBase.user(t, "ada@example.com")
	withBase.browser(t).post("/forgot-password", form)
	require.True(t, strings.HasPrefix(rawLink(t, withBase), "https://app.example.com/reset-password/"))
}

// rawLink is the link of the site's first mail, as sent.
func rawLink(t *testing.T, s *site) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	msgs, err := s.outbox.Wait(ctx, 1)
	require.NoError(t, err)
	return linkPattern.FindString(msgs[0].Text)
}

// The session cookie is Secure when the request came over TLS through a
// trusted proxy, or when the base URL is https; a header from anyone else
// changes nothing.
func TestSessionCookieSecure(t *testing.T) {
	t.Parallel()
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	base, _ := url.Parse("https://app.example.com")
	for _, c := range []struct {
		name   string
		web    auth.WebOptions
		proto  string
		secure bool
	}{
		{"plain", auth.WebOptions{}, "", false},
		{"a forged header", auth.WebOptions{}, "https", false},
		{"a trusted proxy over TLS", auth.WebOptions{HTTPOptions: groundwork.HTTPOptions{TrustedProxies: loopback}}, "https", true},
		{"a trusted proxy over http", auth.WebOptions{HTTPOptions: groundwork.HTTPOptions{TrustedProxies: loopback}}, "http", false},
		{"an https base URL", auth.WebOptions{HTTPOptions: groundwork.HTTPOptions{BaseURL: base}}, "", true},
	} {
		s := newSite(t, siteOptions{web: c.web})
		s.user(t, "ada@example.com")
		b := s.browser(t)
		form := url.Values{"email": {"ada@example.com"}, "password": {"correct horse"}}
		var header []string
		if c.proto != "" {
			header = []string{"X-Forwarded-Proto", c.proto}
		}
		res, _ := b.post("/login", form, header...)
		var session *http.Cookie
		for _, ck := range res.Cookies() {
			if ck.Name == auth.SessionCookie {
				session = ck
			}
		}
		require.NotNil(t, session, c.name)
		require.Equal(t, c.secure, session.Secure, c.name)
	}
}

// Credential stuffing across addresses: wrong passwords for one account,
// each from another address, alternating between two instances on one
// database, are stopped after LoginAccountAttemptsDefault a minute; the
// wait grows to a quarter of an hour while the attack goes on, and the
// owner signs in once it is over. One address trying many accounts is
// slowed too.
func TestLockoutPerAccountAndPerAddress(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		dsn := storetest.DSN(t, d)
		clk := testkit.NewClock(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
		meter := &testkit.Meter{}
		instance := func() *auth.Service {
			db := storetest.OpenDSN(t, dsn, authsql.Migrations)
			svc, err := auth.NewService(authsql.New(db), &auth.Options{Now: clk.Now, Password: cheap, Meter: meter,
				LoginLimiter: store.NewSQLRateLimiter(db, &lite.RateLimiterOptions{Now: clk.Now})})
			require.NoError(t, err)
			return svc
		}
		one, two := instance(), instance()
		_, err := one.CreateUser(ctx, auth.NewUser{Name: "Ada", Email: "ada@example.com", Password: "correct horse"})
		require.NoError(t, err)
		attempt := func(i int, password, ip string) error {
			svc := one
			if i%2 == 1 {
				svc = two
			}
			_, err := svc.CheckCredentials(ctx, "ada@example.com", password, ip)
			return err
		}
		checked := 0
		var lock *auth.LockoutError
		for i := range 12 {
			err := attempt(i, "wrong horse", fmt.Sprintf("198.51.100.%d", i))
			if errors.As(err, &lock) {
				continue
			}
			require.ErrorIs(t, err, auth.ErrBadCredentials)
			checked++
		}
		require.Equal(t, auth.LoginAccountAttemptsDefault, checked, "across addresses and instances")
		require.Equal(t, float64(checked), meter.Count(groundwork.MetricSignIns, "failure"))
		require.Equal(t, float64(12-checked), meter.Count(groundwork.MetricSignIns, "locked_out"))
		require.LessOrEqual(t, lock.RetryAfter, time.Minute, "a minute at first")

		// The attack goes on a minute at a time: the wait grows.
		for range 3 {
			clk.Advance(time.Minute)
			for i := range 10 {
				_ = attempt(i, "wrong horse", fmt.Sprintf("203.0.113.%d", i))
			}
		}
		err = attempt(0, "correct horse", "192.0.2.1")
		require.ErrorAs(t, err, &lock)
		require.Greater(t, lock.RetryAfter, time.Minute, "a sustained attack waits longer")
		require.LessOrEqual(t, lock.RetryAfter, 15*time.Minute, "but never more than a quarter of an hour")
		clk.Advance(lock.RetryAfter)
		require.NoError(t, attempt(1, "correct horse", "192.0.2.1"), "the owner signs in once it is over")

		// One address, many accounts.
		refused := 0
		for i := range auth.LoginAddressAttemptsDefault + 5 {
			_, err := one.CheckCredentials(ctx, fmt.Sprintf("user%d@example.com", i), "guess", "198.51.100.250")
			if errors.As(err, &lock) {
				refused++
			}
		}
		require.Equal(t, 5, refused, "past LoginAddressAttemptsDefault a minute from one address")
	})
}

// Opening verification links never spends the resend throttle: each has
// a bucket of its own; a refusal says how long to wait and links back.
func TestVerifyLinksDoNotSpendResends(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{web: auth.WebOptions{RequireVerification: true}})
	b := s.browser(t)
	res, _ := b.post("/register", url.Values{"name": {"Ada"}, "email": {"ada@example.com"}, "password": {"correct horse"}, "password_confirmation": {"correct horse"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	link := s.mailedLink(t, 1)
	forged := link[:len(link)-1] + "0"
	var code int
	var body string
	for range auth.VerifyThrottleDefault + 1 {
		res, body = b.get(forged)
		code = res.StatusCode
	}
	require.Equal(t, http.StatusTooManyRequests, code, "links have their own allowance")
	require.Regexp(t, `Please wait \d+ seconds`, body)
	require.Contains(t, body, `href="/verify-email"`)
	res, _ = b.post("/email/verification-notification", url.Values{})
	require.NotEqual(t, http.StatusTooManyRequests, res.StatusCode, "the resend allowance is untouched")
}

// Signing out lands on the logout path with a notice saying so (when it
// is one of the Web's pages), shown once.
func TestSignedOutNotice(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{web: auth.WebOptions{LogoutPath: "/login"}})
	s.user(t, "ada@example.com")
	b := s.browser(t)
	b.login("ada@example.com", "correct horse", false)
	res, _ := b.post("/logout", url.Values{})
	require.Equal(t, "/login", res.Header.Get("Location"))
	_, body := b.get("/login")
	require.Contains(t, body, `<div class="notice" role="status"><p>You have been signed out.</p></div>`)
	_, body = b.get("/login")
	require.NotContains(t, body, "You have been signed out.")
}

// A user with no capabilities is told why the token form is missing and
// whom to ask, never a command line.
func TestTokensWithoutCapabilities(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{web: auth.WebOptions{AdminContact: "owner@example.com"}})
	s.user(t, "ada@example.com")
	b := s.browser(t)
	b.login("ada@example.com", "correct horse", false)
	res, body := b.get("/settings/tokens")
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, body, "<h2>You cannot make tokens yet</h2>")
	require.Contains(t, body, `<a href="mailto:owner@example.com">owner@example.com</a>`)
	require.NotContains(t, body, `name="abilities"`)
}

// Abilities offered out of their domains' order still get one group each
// and ids no other checkbox has.
func TestTokenAbilityIDsAreUnique(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{web: auth.WebOptions{TokenAbilities: []string{"forms:view", "reporting:view", "forms:create", "reporting:*", "bookings:view"}}})
	s.user(t, "ada@example.com", "*")
	b := s.browser(t)
	b.login("ada@example.com", "correct horse", false)
	_, body := b.get("/settings/tokens")
	ids := regexp.MustCompile(`id="(f-abilities-[^"]+)"`).FindAllStringSubmatch(body, -1)
	require.Len(t, ids, 5)
	seen := map[string]bool{}
	for _, m := range ids {
		require.False(t, seen[m[1]], "id %s twice", m[1])
		seen[m[1]] = true
	}
	require.Equal(t, 1, strings.Count(body, "<h3>Forms</h3>"))
}
