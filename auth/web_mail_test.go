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
)

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
	require.Contains(t, body, "The passwords do not match: type the same password in both boxes")
	require.Contains(t, body, `<a href="#f-password_confirmation">`, "a mismatch is on Confirm")
	res, body = b.post("/reset-password", url.Values{"token": {"wrong"}, "email": {"ada@example.com"}, "password": {"new horse!"}, "password_confirmation": {"new horse!"}})
	requireSpentLink(t, res, body)

	res, _ = b.post("/reset-password", url.Values{"token": {token}, "email": {"ada@example.com"}, "password": {"new horse!"}, "password_confirmation": {"new horse!"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, "/login?email=ada%40example.com", res.Header.Get("Location"), "sign-in keeps the address")
	_, body = b.get(res.Header.Get("Location"))
	require.Contains(t, body, auth.MsgPasswordReset)
	require.Contains(t, body, `value="ada@example.com"`)

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
