package auth_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// A disabled user is signed out of every browser, on every instance, and
// cannot sign in again by any way, nor use their API tokens, until they
// are enabled; enabling brings back the tokens but not the sessions.
func TestDisabledUsers(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			one, two := twoInstances(t, d, auth.WebOptions{SignInLinks: true})
			ctx := context.Background()
			u := one.user(t, "ada@example.com", "*")
			other := one.user(t, "bo@example.com")
			plain, _, err := one.svc.CreateUserToken(ctx, u, auth.NewToken{Name: "ci", Abilities: []string{"forms:view"}})
			require.NoError(t, err)

			here, there, remembered := one.browser(t), two.browser(t), two.browser(t)
			require.Equal(t, http.StatusSeeOther, here.login("ada@example.com", "correct horse", false).StatusCode)
			require.Equal(t, http.StatusSeeOther, there.login("ada@example.com", "correct horse", false).StatusCode)
			require.Equal(t, http.StatusSeeOther, remembered.login("ada@example.com", "correct horse", true).StatusCode)
			bo := two.browser(t)
			require.Equal(t, http.StatusSeeOther, bo.login("bo@example.com", "correct horse", false).StatusCode)
			// A sign-in link asked for before, used after.
			res, _ := one.browser(t).post("/login/link", url.Values{"email": {"ada@example.com"}})
			require.Equal(t, http.StatusSeeOther, res.StatusCode)
			link := one.mailedLink(t, 1)

			got, err := one.svc.SetDisabled(ctx, u.ID, true)
			require.NoError(t, err)
			require.NotNil(t, got.DisabledAt)
			for _, b := range []*browser{here, there} {
				_, body := b.get("/")
				require.Equal(t, "hello guest", body, "signed out on every instance")
			}
			// The remember-me cookie alone signs nobody in.
			u2, _ := url.Parse(two.srv.URL)
			fresh := two.browser(t)
			fresh.client.Jar.SetCookies(u2, []*http.Cookie{{Name: auth.RememberCookie, Value: remembered.cookie(auth.RememberCookie)}})
			_, body := fresh.get("/")
			require.Equal(t, "hello guest", body)
			_, body = bo.get("/")
			require.Equal(t, "hello Ada Lovelace", body, "another user is left signed in")

			// The right password says why; a wrong one says no more than
			// for anyone.
			res, body = there.post("/login", url.Values{"email": {"ada@example.com"}, "password": {"correct horse"}})
			require.Equal(t, http.StatusForbidden, res.StatusCode)
			require.Contains(t, body, "This account is disabled, so it cannot sign in.")
			require.Empty(t, there.cookie(auth.SessionCookie))
			res, body = there.post("/login", url.Values{"email": {"ada@example.com"}, "password": {"wrong horse"}})
			require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
			require.NotContains(t, body, "disabled")
			res, body = there.post(link, url.Values{})
			require.Equal(t, http.StatusForbidden, res.StatusCode, body)
			require.Contains(t, body, "This account is disabled")
			_, _, err = two.svc.StartSession(ctx, got, false)
			require.ErrorIs(t, err, auth.ErrDisabled)
			_, err = two.svc.CheckCredentials(ctx, "ada@example.com", "correct horse", "192.0.2.9")
			require.ErrorIs(t, err, auth.ErrDisabled)

			// Its tokens answer nothing, on every route.
			caller, abilities, err := two.svc.VerifyToken(ctx, plain)
			require.NoError(t, err)
			require.Empty(t, caller)
			require.Empty(t, abilities)

			// Enabled again: the password and the tokens work; the
			// browsers signed out stay so.
			got, err = two.svc.SetDisabled(ctx, u.ID, false)
			require.NoError(t, err)
			require.Nil(t, got.DisabledAt)
			caller, _, err = one.svc.VerifyToken(ctx, plain)
			require.NoError(t, err)
			require.Equal(t, "user:"+strconv.FormatInt(u.ID, 10), caller)
			_, body = here.get("/")
			require.Equal(t, "hello guest", body)
			require.Equal(t, http.StatusSeeOther, here.login("ada@example.com", "correct horse", false).StatusCode)
			_, body = here.get("/")
			require.Equal(t, "hello Ada Lovelace", body)

			_, err = one.svc.SetDisabled(ctx, 987654, true)
			require.ErrorIs(t, err, auth.ErrNotFound)
			list, err := one.svc.ListUsers(ctx, auth.UserQuery{Search: "BO@"})
			require.NoError(t, err)
			require.Len(t, list, 1)
			require.Equal(t, other.ID, list[0].ID)
		})
	}
}

// SignOutEverywhere ends a user's browsers, remembered ones too, and
// leaves their tokens.
func TestSignOutEverywhere(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{})
	u := s.user(t, "ada@example.com", "*")
	a, b := s.browser(t), s.browser(t)
	a.login("ada@example.com", "correct horse", false)
	b.login("ada@example.com", "correct horse", true)
	remembered := b.cookie(auth.RememberCookie)
	plain, _, err := s.svc.CreateUserToken(t.Context(), u, auth.NewToken{Name: "ci", Abilities: []string{"forms:view"}})
	require.NoError(t, err)
	require.NoError(t, s.svc.SignOutEverywhere(t.Context(), u.ID))
	for _, br := range []*browser{a, b} {
		_, body := br.get("/")
		require.Equal(t, "hello guest", body)
	}
	c := s.browser(t)
	su, _ := url.Parse(s.srv.URL)
	c.client.Jar.SetCookies(su, []*http.Cookie{{Name: auth.RememberCookie, Value: remembered}})
	_, body := c.get("/")
	require.Equal(t, "hello guest", body, "the remember-me cookie is gone too")
	caller, _, err := s.svc.VerifyToken(t.Context(), plain)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(caller, "user:"), "the tokens are left")
}
