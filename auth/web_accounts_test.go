package auth_test

import (
	"context"
	"database/sql"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/driverless"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// Name and address: a new name at once; a new address only once its
// mailed link is followed (the old one told); a taken address, the same
// address and another user's link refused.
func TestProfileNameAndEmail(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{})
	s.user(t, "ada@example.com")
	s.user(t, "taken@example.com")
	b := s.browser(t)
	b.login("ada@example.com", "correct horse", false)
	res, body := b.get("/settings/profile")
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, body, `value="ada@example.com"`)
	require.Contains(t, body, "1 browser signed in")

	res, _ = b.post("/settings/profile", url.Values{"name": {"Ada King"}, "email": {"ada@example.com"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	_, body = b.get("/settings/profile")
	require.Contains(t, body, "Your name is now Ada King.")
	require.Empty(t, s.outbox.Messages(), "no mail for a name")

	res, body = b.post("/settings/profile", url.Values{"name": {"Ada King"}, "email": {"TAKEN@example.com"}})
	require.Equal(t, 422, res.StatusCode)
	require.Contains(t, body, "That email address is already in use")
	res, _ = b.post("/settings/profile", url.Values{"name": {""}, "email": {"ada@example.com"}})
	require.Equal(t, 422, res.StatusCode)

	res, _ = b.post("/settings/profile", url.Values{"name": {"Ada King"}, "email": {"king@example.com"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	_, body = b.get("/settings/profile")
	require.Contains(t, body, "We have sent a link to king@example.com.")
	require.Contains(t, body, `value="ada@example.com"`, "not changed until the link is followed")
	link := s.mailedLink(t, 1)
	require.Equal(t, []string{"king@example.com"}, s.outbox.Messages()[0].To)

	// Another account's browser cannot use it.
	eve := s.browser(t)
	eve.login("taken@example.com", "correct horse", false)
	res, body = eve.get(link)
	require.Equal(t, http.StatusForbidden, res.StatusCode)
	require.Contains(t, body, "This link cannot be used")

	res, _ = b.get(link)
	require.Equal(t, http.StatusFound, res.StatusCode)
	_, body = b.get("/settings/profile")
	require.Contains(t, body, "Your email address is now king@example.com.")
	u, err := s.svc.UserByEmail(context.Background(), "king@example.com")
	require.NoError(t, err)
	require.True(t, u.Verified(), "the link proved the address")
	msgs, err := s.outbox.Wait(context.Background(), 2)
	require.NoError(t, err)
	require.Equal(t, []string{"ada@example.com"}, msgs[1].To, "the old address is told")
	require.Contains(t, msgs[1].Text, "king@example.com")

	res, _ = b.get(link)
	require.Equal(t, http.StatusForbidden, res.StatusCode, "a link works once: the address it was made from is gone")
	res, _ = b.post("/login", url.Values{"email": {"king@example.com"}, "password": {"correct horse"}})
	require.Equal(t, http.StatusFound, res.StatusCode, "a signed-in user is sent home")
}

// A password change asks for the current one, states the rules first,
// signs every other browser out and mails the owner.
func TestChangePassword(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{})
	s.user(t, "ada@example.com")
	here, there := s.browser(t), s.browser(t)
	here.login("ada@example.com", "correct horse", false)
	there.login("ada@example.com", "correct horse", true)
	res, body := here.get("/settings/password")
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, body, "At least 8 characters.", "the rules before anyone types")

	res, body = here.post("/settings/password", url.Values{"current_password": {"wrong horse"}, "password": {"battery staple"}, "password_confirmation": {"battery staple"}})
	require.Equal(t, 422, res.StatusCode)
	require.Contains(t, body, "Your password is not right: check it and try again")
	res, _ = here.post("/settings/password", url.Values{"current_password": {"correct horse"}, "password": {"battery staple"}, "password_confirmation": {"other"}})
	require.Equal(t, 422, res.StatusCode)

	res, _ = here.post("/settings/password", url.Values{"current_password": {"correct horse"}, "password": {"battery staple"}, "password_confirmation": {"battery staple"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	_, body = here.get("/dashboard")
	require.Equal(t, "hello Ada Lovelace", body, "this browser stays signed in")
	res, _ = there.get("/dashboard")
	require.Equal(t, http.StatusFound, res.StatusCode, "the other browser, remember-me and all, is signed out")
	require.Equal(t, "/login", res.Header.Get("Location"))
	msgs, err := s.outbox.Wait(context.Background(), 1)
	require.NoError(t, err)
	require.Equal(t, "Your password was changed", msgs[0].Subject)
	res, _ = s.browser(t).post("/login", url.Values{"email": {"ada@example.com"}, "password": {"battery staple"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
}

// Deleting the account needs the password; the host's hook runs in the
// transaction (and can refuse); the tokens and sessions end with it.
func TestDeleteAccount(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{})
	u := s.user(t, "ada@example.com", "forms:*")
	token, _, err := s.svc.CreateUserToken(context.Background(), u, auth.NewToken{Name: "ci", Abilities: []string{"forms:*"}, UserID: u.ID})
	require.NoError(t, err)
	var hooked atomic.Int64
	s.svc.OnUserDeleting(func(ctx context.Context, tx *sql.Tx, gone auth.User) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM auth_users WHERE id = ?`, gone.ID).Scan(&n); err != nil {
			return err
		}
		hooked.Add(int64(n))
		return nil
	})
	b := s.browser(t)
	b.login("ada@example.com", "correct horse", true)
	res, body := b.post("/settings/delete-account", url.Values{"password": {"wrong horse"}})
	require.Equal(t, 422, res.StatusCode)
	require.Contains(t, body, "Your password is not right: check it and try again")
	res, _ = b.post("/settings/delete-account", url.Values{"password": {"correct horse"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.EqualValues(t, 1, hooked.Load(), "the hook saw the user, in the transaction")
	_, err = s.svc.User(context.Background(), u.ID)
	require.ErrorIs(t, err, auth.ErrNotFound)
	_, err = s.svc.Authenticate(context.Background(), token)
	require.ErrorIs(t, err, auth.ErrInvalidToken)
	res, _ = b.get("/dashboard")
	require.Equal(t, http.StatusFound, res.StatusCode)
}

var secretPattern = regexp.MustCompile(`<code class="secret">([A-Z2-7 ]+)</code>`)
var codePattern = regexp.MustCompile(`<li><code>([a-z2-9]{5}-[a-z2-9]{5})</code></li>`)

// enableTwoFactor turns two-factor sign-in on from the settings page and
// returns the secret and the recovery codes shown.
func enableTwoFactor(t *testing.T, s *site, b *browser) (string, []string) {
	t.Helper()
	res, body := b.get("/settings/two-factor")
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, body, "It is off")
	res, _ = b.post("/settings/two-factor", url.Values{})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	_, body = b.get("/settings/two-factor")
	m := secretPattern.FindStringSubmatch(body)
	require.NotNil(t, m, body)
	secret := strings.ReplaceAll(m[1], " ", "")
	res, png := b.get("/settings/two-factor/qr-code")
	require.Equal(t, "image/png", res.Header.Get("Content-Type"))
	require.True(t, strings.HasPrefix(png, "\x89PNG"), "a QR code drawn on the server")

	res, body = b.post("/settings/two-factor/confirm", url.Values{"code": {"000000"}})
	require.Equal(t, 422, res.StatusCode)
	require.Contains(t, body, auth.MsgTwoFactorConfirm)
	code, err := totp.GenerateCode(secret, s.clock.Now())
	require.NoError(t, err)
	res, _ = b.post("/settings/two-factor/confirm", url.Values{"code": {code}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	_, body = b.get("/settings/two-factor")
	require.Contains(t, body, "Two-factor sign-in is on.")
	var codes []string
	for _, m := range codePattern.FindAllStringSubmatch(body, -1) {
		codes = append(codes, m[1])
	}
	require.Len(t, codes, auth.RecoveryCodeCount)
	_, body = b.get("/settings/two-factor")
	require.NotContains(t, body, codes[0], "shown once")
	require.Contains(t, body, "You have 10 unused recovery codes.")
	return secret, codes
}

// Two-factor sign-in end to end over HTTP: on, a code after the password,
// a code works once, a recovery code once, "remember this browser", the
// rate limit, off with the password.
func TestTwoFactorSignIn(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{})
	s.user(t, "ada@example.com")
	b := s.browser(t)
	b.login("ada@example.com", "correct horse", false)
	secret, codes := enableTwoFactor(t, s, b)
	u, err := s.svc.UserByEmail(context.Background(), "ada@example.com")
	require.NoError(t, err)
	require.True(t, u.TwoFactor(), "an administrator sees it on")

	s.clock.Advance(time.Minute) // past the step used to confirm
	c := s.browser(t)
	res := c.login("ada@example.com", "correct horse", false)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, "/two-factor-challenge", res.Header.Get("Location"))
	res, _ = c.get("/dashboard")
	require.Equal(t, http.StatusFound, res.StatusCode, "not signed in before the code")
	res, body := c.get("/two-factor-challenge")
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, body, "Enter your code")
	res, body = c.post("/two-factor-challenge", url.Values{"code": {"123456"}})
	require.Equal(t, 422, res.StatusCode)
	require.Contains(t, body, auth.MsgTwoFactorCode)
	code, err := totp.GenerateCode(secret, s.clock.Now())
	require.NoError(t, err)
	res, _ = c.post("/two-factor-challenge", url.Values{"code": {code}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	_, body = c.get("/dashboard")
	require.Equal(t, "hello Ada Lovelace", body)

	// The same code again, in another browser within its 30 seconds: no.
	d := s.browser(t)
	d.login("ada@example.com", "correct horse", false)
	res, _ = d.post("/two-factor-challenge", url.Values{"code": {code}})
	require.Equal(t, 422, res.StatusCode, "a code works once")
	// A recovery code, once, typed loosely.
	res, _ = d.post("/two-factor-challenge", url.Values{"code": {strings.ToUpper(codes[0])}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, "/settings/two-factor", res.Header.Get("Location"))
	_, body = d.get("/settings/two-factor")
	require.Contains(t, body, "You have 9 codes left")
	e := s.browser(t)
	e.login("ada@example.com", "correct horse", false)
	res, _ = e.post("/two-factor-challenge", url.Values{"code": {codes[0]}})
	require.Equal(t, 422, res.StatusCode, "a recovery code works once")
	// Five tries a minute, then a pause, whatever the code.
	for range 2 {
		e.post("/two-factor-challenge", url.Values{"code": {"999999"}})
	}
	res, body = e.post("/two-factor-challenge", url.Values{"code": {codes[1]}})
	require.Equal(t, http.StatusTooManyRequests, res.StatusCode)
	require.NotEmpty(t, res.Header.Get("Retry-After"))
	require.Contains(t, body, "Too many codes were tried.")

	// Remember this browser: its next sign-in skips the code.
	s.clock.Advance(2 * time.Minute)
	f := s.browser(t)
	f.login("ada@example.com", "correct horse", false)
	code, _ = totp.GenerateCode(secret, s.clock.Now())
	res, _ = f.post("/two-factor-challenge", url.Values{"code": {code}, "remember_device": {"1"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	f.post("/logout", url.Values{})
	res = f.login("ada@example.com", "correct horse", false)
	require.Equal(t, "/dashboard", res.Header.Get("Location"), "a remembered browser")

	// The challenge lapses.
	g := s.browser(t)
	g.login("ada@example.com", "correct horse", false)
	s.clock.Advance(auth.ChallengeLifetime + time.Second)
	res, _ = g.get("/two-factor-challenge")
	require.Equal(t, "/login", res.Header.Get("Location"))

	// Off, with the password; the remembered browser no longer counts.
	res, body = b.post("/settings/two-factor/disable", url.Values{"password": {"wrong"}})
	require.Equal(t, 422, res.StatusCode)
	require.Contains(t, body, "Your password is not right: check it and try again")
	res, _ = b.post("/settings/two-factor/disable", url.Values{"password": {"correct horse"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	res = s.browser(t).login("ada@example.com", "correct horse", false)
	require.Equal(t, "/dashboard", res.Header.Get("Location"))
}

// The list of signed-in browsers names them and marks this one; signing
// the others out takes the password.
func TestSessionsPage(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{web: auth.WebOptions{Place: func(r *http.Request) string { return r.Header.Get("X-Test-Country") }}})
	s.user(t, "ada@example.com")
	firefox := "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	iphone := "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
	here, phone := s.browser(t), s.browser(t)
	here.post("/login", url.Values{"email": {"ada@example.com"}, "password": {"correct horse"}}, "User-Agent", firefox, "X-Test-Country", "GB")
	phone.post("/login", url.Values{"email": {"ada@example.com"}, "password": {"correct horse"}}, "User-Agent", iphone)
	res, body := here.get("/settings/sessions")
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, body, "Firefox 133")
	require.Contains(t, body, "Linux")
	require.Contains(t, body, "Safari 18")
	require.Contains(t, body, "iOS, mobile")
	require.Contains(t, body, "127.0.0.1 (United Kingdom)", "the place, where the host can tell")
	require.Equal(t, 1, strings.Count(body, "This browser"))
	require.Equal(t, 1, strings.Count(body, `aria-current="true"`))

	res, body = here.post("/settings/sessions", url.Values{"password": {""}})
	require.Equal(t, 422, res.StatusCode)
	require.Contains(t, body, "Enter your password")
	res, _ = here.post("/settings/sessions", url.Values{"password": {"correct horse"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	_, body = here.get("/settings/sessions")
	require.Contains(t, body, "Signed out 1 other browser.")
	require.Contains(t, body, "No other browser is signed in.")
	res, _ = phone.get("/dashboard")
	require.Equal(t, http.StatusFound, res.StatusCode)
}

// Two instances on one database: one code is accepted once, whichever
// instance sees it first; signing the other browsers out on one instance
// signs out a browser the other instance served.
func TestTwoFactorAndSessionsAcrossInstances(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		dsn := storetest.DSN(t, d)
		db := storetest.OpenDSN(t, dsn, authsql.Migrations)
		other, err := store.Open(context.Background(), dsn)
		require.NoError(t, err)
		t.Cleanup(func() { _ = other.Close() })
		// The limits count on the database, on the sites' clock (the two
		// move together).
		var one *site
		now := &driverless.RateLimiterOptions{Now: func() time.Time { return one.clock.Now() }}
		one = newSite(t, siteOptions{store: authsql.New(db), limiter: store.NewSQLRateLimiter(db, now)})
		two := newSite(t, siteOptions{store: authsql.New(other), limiter: store.NewSQLRateLimiter(other, now)})
		one.user(t, "ada@example.com")
		b := one.browser(t)
		b.login("ada@example.com", "correct horse", false)
		secret, _ := enableTwoFactor(t, one, b)

		for _, s := range []*site{one, two} {
			s.clock.Advance(time.Minute)
		}
		code, err := totp.GenerateCode(secret, one.clock.Now())
		require.NoError(t, err)
		// Ten sign-ins, five on each instance, send the same code at once.
		var accepted, replayed, limited atomic.Int64
		var wg sync.WaitGroup
		for i := range 10 {
			s := []*site{one, two}[i%2]
			c := s.browser(t)
			res := c.login("ada@example.com", "correct horse", false)
			require.Equal(t, "/two-factor-challenge", res.Header.Get("Location"))
			wg.Go(func() {
				switch res, _ := c.post("/two-factor-challenge", url.Values{"code": {code}}); res.StatusCode {
				case http.StatusSeeOther:
					accepted.Add(1)
				case http.StatusUnprocessableEntity:
					replayed.Add(1)
				case http.StatusTooManyRequests:
					limited.Add(1)
				}
			})
		}
		wg.Wait()
		require.EqualValues(t, 1, accepted.Load(), "one code, one sign-in, across instances")
		require.EqualValues(t, auth.TwoFactorAttempts-1, replayed.Load(), "the code again is refused")
		require.EqualValues(t, 10-auth.TwoFactorAttempts, limited.Load(), "the allowance of tries holds across instances")

		// Signed in through each instance, then out from one (a minute
		// on: the ten tries spent the minute's allowance of codes).
		for _, s := range []*site{one, two} {
			s.clock.Advance(2 * time.Minute)
		}
		here, there := one.browser(t), two.browser(t)
		for _, c := range []*browser{here, there} {
			c.login("ada@example.com", "correct horse", false)
			code, err := totp.GenerateCode(secret, c.site.clock.Now())
			require.NoError(t, err)
			res, _ := c.post("/two-factor-challenge", url.Values{"code": {code}, "remember_device": {"1"}})
			if res.StatusCode == 422 { // the other took this step: the next one
				for _, s := range []*site{one, two} {
					s.clock.Advance(30 * time.Second)
				}
				code, _ = totp.GenerateCode(secret, c.site.clock.Now())
				res, _ = c.post("/two-factor-challenge", url.Values{"code": {code}})
			}
			require.Equal(t, http.StatusSeeOther, res.StatusCode)
		}
		_, body := there.get("/dashboard")
		require.Equal(t, "hello Ada Lovelace", body)
		res, _ := here.post("/settings/sessions", url.Values{"password": {"correct horse"}})
		require.Equal(t, http.StatusSeeOther, res.StatusCode)
		res, _ = there.get("/dashboard")
		require.Equal(t, http.StatusFound, res.StatusCode, "signed out on the other instance too")
	})
}

// An administrator turns a user's two-factor sign-in off (a lost phone):
// their next sign-in asks for the password only, and they are told.
func TestTurnOffTwoFactor(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{})
	u := s.user(t, "ada@example.com")
	b := s.browser(t)
	b.login("ada@example.com", "correct horse", false)
	enableTwoFactor(t, s, b)
	require.NoError(t, s.svc.TurnOffTwoFactor(context.Background(), u.ID))
	res := s.browser(t).login("ada@example.com", "correct horse", false)
	require.Equal(t, "/dashboard", res.Header.Get("Location"))
	// Mail goes out through the queue, whose workers may send the two
	// in either order: the one saying it is off is found by its subject.
	msgs, err := s.outbox.Wait(context.Background(), 2)
	require.NoError(t, err)
	off := mailWithSubject(t, msgs, "Two-factor sign-in is off")
	require.Contains(t, off.Text, "An administrator")
	require.ErrorIs(t, s.svc.TurnOffTwoFactor(context.Background(), 999), auth.ErrNotFound)
}

// The passkey endpoints refuse what does not hold, in words the page
// shows, and without a ceremony begun; the options name the site.
func TestPasskeyEndpoints(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{})
	s.user(t, "ada@example.com")
	guest := s.browser(t)
	res, body := guest.do(http.MethodPost, "/login/passkey/options", url.Values{}, "Accept", "application/json")
	require.Equal(t, http.StatusConflict, res.StatusCode, "not at an IP address")
	require.Contains(t, body, "not by an IP address")
	_, body = guest.get("/login")
	require.NotContains(t, body, "Sign in with a passkey")
	named := func(header ...string) []string {
		return append([]string{"Accept", "application/json", "Host", "localhost"}, header...)
	}
	res, body = guest.do(http.MethodPost, "/login/passkey/options", url.Values{}, named()...)
	require.Equal(t, 200, res.StatusCode, body)
	require.Contains(t, body, `"challenge":`)
	require.Contains(t, body, `"rpId":"localhost"`, "the site asked for, without a BaseURL")
	require.Contains(t, body, `"userVerification":"required"`)
	require.NotEmpty(t, res.Header.Values("Set-Cookie"), "the ceremony kept in a cookie")
	res, body = guest.do(http.MethodPost, "/login/passkey", url.Values{"not": {"a credential"}}, named()...)
	require.Equal(t, 422, res.StatusCode)
	require.JSONEq(t, `{"message":"`+auth.ErrPasskey.Error()+`"}`, body)
	res, _ = guest.do(http.MethodPost, "/login/passkey", url.Values{}, named()...)
	require.Equal(t, 422, res.StatusCode, "the ceremony was used up")

	b := s.browser(t) // signed in at localhost: its cookies are that host's
	res, _ = b.do(http.MethodPost, "/login", url.Values{"email": {"ada@example.com"}, "password": {"correct horse"}}, "Host", "localhost")
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	res, body = b.do(http.MethodPost, "/settings/passkeys/options", url.Values{}, named()...)
	require.Equal(t, 200, res.StatusCode, body)
	require.Contains(t, body, `"residentKey":"required"`)
	require.Contains(t, body, `"name":"ada@example.com"`)
	res, _ = b.do(http.MethodPost, "/settings/passkeys?name=x", url.Values{}, named()...)
	require.Equal(t, 422, res.StatusCode)
	res, _ = b.do(http.MethodPost, "/settings/passkeys/99/delete", url.Values{}, "Host", "localhost")
	require.Equal(t, 404, res.StatusCode)
	b.login("ada@example.com", "correct horse", false)
	res, body = b.get("/settings/passkeys")
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, body, "You have no passkeys yet.")
	require.Contains(t, body, "open this page at its domain", "not at an IP address")
	_, body = b.get("/settings/passkeys", "Host", "localhost")
	require.Contains(t, body, "<noscript>", "says why adding one needs JavaScript")
}
