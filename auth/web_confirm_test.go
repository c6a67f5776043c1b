package auth_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// Adding a passkey (or managing them), turning two-factor off, and
// changing the email address ask for the password when it was typed in
// this session longer ago than the confirm window; a browser signed in
// by its remember-me cookie alone has typed none, so it never passes
// that gate (it could make new recovery codes).
func TestSignInFactorsAskForTheRecentPassword(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{})
	s.user(t, "ada@example.com")
	b := s.browser(t)
	require.Equal(t, http.StatusSeeOther, b.login("ada@example.com", "correct horse", true).StatusCode)

	res, _ := b.get("/settings/passkeys")
	require.Equal(t, 200, res.StatusCode, "the password was just typed")

	// Four hours on, the same session: the gates ask again.
	s.clock.Set(s.clock.Now().Add(4 * time.Hour))
	for _, path := range []string{"/settings/passkeys"} {
		res, _ = b.get(path)
		require.Equal(t, http.StatusFound, res.StatusCode, path)
		require.Equal(t, "/confirm-password", res.Header.Get("Location"), path)
	}
	for _, path := range []string{"/settings/passkeys/options", "/settings/passkeys/1/delete", "/settings/two-factor/disable",
		"/settings/two-factor/recovery-codes"} {
		res, body := b.post(path, url.Values{}, "Accept", "application/json")
		require.Equal(t, http.StatusLocked, res.StatusCode, path)
		require.Contains(t, body, "Password confirmation required.")
	}
	res, _ = b.post("/settings/profile", url.Values{"name": {"Ada Lovelace"}, "email": {"someone-else@example.com"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, "/confirm-password", res.Header.Get("Location"), "a new address asks for the password first")
	_, body := b.get("/confirm-password")
	require.Contains(t, body, "Confirm your password to change your email address, then save it again.")
	require.Empty(t, s.outbox.Messages(), "no change of address was begun")
	res, _ = b.post("/confirm-password", url.Values{"password": {"correct horse"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, "/settings/profile", res.Header.Get("Location"), "back to the form")
	res, _ = b.post("/settings/profile", url.Values{"name": {"Ada Lovelace"}, "email": {"someone-else@example.com"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, "/settings/profile", res.Header.Get("Location"))
	// The mail goes on a goroutine of its own (no queue here): wait for it.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	msgs, err := s.outbox.Wait(ctx, 1)
	require.NoError(t, err, "confirmed: the change is mailed to the new address")
	require.Equal(t, []string{"someone-else@example.com"}, msgs[0].To)

	// A new browser holding only the remember-me cookie is signed in, but
	// never confirmed.
	remembered := s.browser(t)
	u, _ := url.Parse(s.srv.URL)
	remembered.client.Jar.SetCookies(u, []*http.Cookie{{Name: auth.RememberCookie, Value: b.cookie(auth.RememberCookie)}})
	res, body = remembered.get("/dashboard")
	require.Equal(t, 200, res.StatusCode)
	require.Equal(t, "hello Ada Lovelace", body)
	res, _ = remembered.post("/settings/two-factor/recovery-codes", url.Values{})
	require.Equal(t, http.StatusFound, res.StatusCode)
	require.Equal(t, "/confirm-password", res.Header.Get("Location"))
	res, _ = remembered.get("/secret")
	require.Equal(t, "/confirm-password", res.Header.Get("Location"))
}

// Password checks on the settings pages are throttled as sign-in is: a
// run of wrong passwords on the confirm-password page, the password
// change, signing out other browsers or deleting the account is refused
// with 429 and Retry-After once the allowance is spent, before the
// password is looked at; the right password after the wait passes.
func TestSettingsPasswordGuessesAreThrottled(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path string
		form url.Values
	}{
		{"/confirm-password", url.Values{"password": {"wrong"}}},
		{"/settings/password", url.Values{"current_password": {"wrong"}, "password": {"a new horse battery"}, "password_confirmation": {"a new horse battery"}}},
		{"/settings/sessions", url.Values{"password": {"wrong"}}},
		{"/settings/delete-account", url.Values{"password": {"wrong"}}},
	} {
		t.Run(strings.TrimPrefix(tc.path, "/"), func(t *testing.T) {
			t.Parallel()
			s := newSite(t, siteOptions{})
			s.user(t, "ada@example.com")
			b := s.browser(t)
			require.Equal(t, http.StatusSeeOther, b.login("ada@example.com", "correct horse", false).StatusCode)
			var codes []int
			for range 8 {
				res, body := b.post(tc.path, tc.form)
				codes = append(codes, res.StatusCode)
				if res.StatusCode == http.StatusTooManyRequests {
					require.NotEmpty(t, res.Header.Get("Retry-After"))
					require.Contains(t, body, "The password was typed wrong too many times.")
				}
			}
			require.Equal(t, []int{422, 422, 422, 422, 422, 429, 429, 429}, codes)
			s.clock.Set(s.clock.Now().Add(16 * time.Minute))
			res, _ := b.post("/confirm-password", url.Values{"password": {"correct horse"}})
			require.Equal(t, http.StatusSeeOther, res.StatusCode, "after the wait the right password passes")
		})
	}
}

// The settings' password throttle counts in the database, as the sign-in
// lock-out does: wrong passwords typed through two instances on one
// database share one count, and a sign-in's wrong passwords count too.
func TestSettingsPasswordThrottleAcrossInstances(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		one, two := twoInstances(t, d, auth.WebOptions{})
		one.user(t, "ada@example.com")
		b1, b2 := one.browser(t), two.browser(t)
		require.Equal(t, http.StatusSeeOther, b1.login("ada@example.com", "correct horse", false).StatusCode)
		require.Equal(t, http.StatusSeeOther, b2.login("ada@example.com", "correct horse", false).StatusCode)
		for i := range 5 {
			b := []*browser{b1, b2}[i%2]
			res, _ := b.post("/confirm-password", url.Values{"password": {"wrong"}})
			require.Equal(t, 422, res.StatusCode, i)
		}
		res, _ := b1.post("/settings/delete-account", url.Values{"password": {"correct horse"}})
		require.Equal(t, http.StatusTooManyRequests, res.StatusCode, "the count is the database's, not the instance's")
		res, _ = b2.post("/confirm-password", url.Values{"password": {"correct horse"}})
		require.Equal(t, http.StatusTooManyRequests, res.StatusCode)
	})
}
