package auth_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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
	"github.com/groundwork-go/groundwork/auth/authstore"
	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/driverless"
	"github.com/groundwork-go/groundwork/store/storetest"
)

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
	require.Contains(t, body, "Your password is not right: check it and try again")
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
	require.Contains(t, body, `name="abilities" value="forms:*"><span>Everything in forms. <code>forms:<wbr>*</code>`, "with a sentence each, the code breaking only between its words")

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
	caller, _, err := s.svc.VerifyToken(context.Background(), strings.ReplaceAll(plaintext[1], "&#43;", "+"))
	require.NoError(t, err)
	require.Equal(t, "user:1", caller, "throttled as its owner")
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
		one, two := twoInstances(t, d, auth.WebOptions{})
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

// twoInstances are two sites on one database of dialect d, each with its
// own connections and a limiter counting in the database, as two
// instances of one app are.
func twoInstances(t *testing.T, d store.Dialect, web auth.WebOptions) (one, two *site) {
	t.Helper()
	dsn := storetest.DSN(t, d)
	instance := func() *site {
		db := storetest.OpenDSN(t, dsn, authsql.Migrations)
		return newSite(t, siteOptions{store: authsql.New(db), limiter: store.NewSQLRateLimiter(db, nil), web: web})
	}
	return instance(), instance()
}

// readCounter counts the Store calls a request makes.
type readCounter struct {
	auth.Store
	calls atomic.Int64
}

func (c *readCounter) SessionByHash(ctx context.Context, h []byte) (authstore.Session, auth.User, error) {
	c.calls.Add(1)
	return c.Store.SessionByHash(ctx, h)
}

func (c *readCounter) UserByID(ctx context.Context, id int64) (auth.User, string, error) {
	c.calls.Add(1)
	return c.Store.UserByID(ctx, id)
}

func (c *readCounter) TouchSession(ctx context.Context, h []byte, at time.Time, confirmed bool) error {
	c.calls.Add(1)
	return c.Store.TouchSession(ctx, h, at, confirmed)
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
		b.client.Jar.SetCookies(u, []*http.Cookie{{Name: "gw_intended", Value: url.QueryEscape(planted), Path: "/"}})
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
				LoginLimiter: store.NewSQLRateLimiter(db, &driverless.RateLimiterOptions{Now: clk.Now})})
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
