package openid_test

import (
	"context"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth/openid"
	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/store"
)

// seen keeps the URLs a browser asked for: the states the site sent it
// to the provider with and the callbacks the provider sent it back to.
type seen struct {
	mu                sync.Mutex
	states, callbacks []string
}

func (s *seen) listen(t *testing.T, ctx context.Context) {
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		e, ok := ev.(*network.EventRequestWillBeSent)
		if !ok {
			return
		}
		u, err := url.Parse(e.Request.URL)
		if err != nil {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		switch {
		case u.Path == "/auth":
			s.states = append(s.states, u.Query().Get("state"))
		case strings.HasSuffix(u.Path, "/callback") && u.Query().Has("code"):
			s.callbacks = append(s.callbacks, e.Request.URL)
		}
	}))
}

func (s *seen) last() (state, callback string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.states) > 0 {
		state = s.states[len(s.states)-1]
	}
	if len(s.callbacks) > 0 {
		callback = s.callbacks[len(s.callbacks)-1]
	}
	return state, callback
}

// signInAtProvider fills the provider's login page (zitadel's own, not
// ours) and sends it.
func signInAtProvider(t *testing.T, ctx context.Context, username string) {
	t.Helper()
	browsertest.Do(t, ctx, chromedp.WaitVisible(chromedp.ID("username")), chromedp.SendKeys(chromedp.ID("username"), username),
		chromedp.SendKeys(chromedp.ID("password"), "verysecure"))
	browsertest.Press(t, ctx, "\r", true)
}

// The flow in a browser, by keyboard: the sign-in page's button, the
// provider's login, back signed in; then a forged state, a replayed code
// and an ID token for another audience, each an error page that signs
// no one in; the linked accounts' page. No axe violations on our pages;
// screenshots light and dark.
func TestBrowserSignInWithOpenID(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second)
	s := newSite(t, store.SQLite, openid.Options{})
	shots := os.Getenv(browsertest.EnvScreenshots)
	var urls seen
	urls.listen(t, ctx)

	browsertest.Do(t, ctx, chromedp.Navigate(s.srv.URL+"/login"), chromedp.WaitVisible(chromedp.ID("f-email")))
	browsertest.NoViolations(t, ctx, "the sign-in page with a provider")
	browsertest.Screenshots(t, ctx, shots, "openid-signin")
	browsertest.TabTo(t, ctx, `a[href="/login/openid/zitadel"]`)
	browsertest.Press(t, ctx, "\r", true)
	signInAtProvider(t, ctx, "bo")
	browsertest.Eventually(t, ctx, `location.pathname === "/dashboard"`, "signed in, at the home page")
	require.Contains(t, browsertest.Text(t, ctx, "main"), "Bo Example")
	_, used := urls.last()
	require.NotEmpty(t, used)

	browsertest.Do(t, ctx, chromedp.Navigate(s.srv.URL+openid.PagePath), chromedp.WaitVisible(chromedp.CSS("table.stack")))
	require.Contains(t, browsertest.Text(t, ctx, "table.stack"), "bo@example.com")
	browsertest.NoViolations(t, ctx, "the linked accounts")
	browsertest.Screenshots(t, ctx, shots, "openid-accounts")

	// Signed out, a forged state is refused.
	browsertest.Do(t, ctx, chromedp.Navigate(s.srv.URL+"/settings/profile"), chromedp.WaitVisible(chromedp.CSS("form.signout button")))
	browsertest.TabTo(t, ctx, "form.signout button")
	browsertest.Press(t, ctx, "\r", true)
	browsertest.Do(t, ctx, chromedp.Navigate(s.srv.URL+"/login/openid/zitadel/callback?code=anything&state=forged"), chromedp.WaitVisible(chromedp.CSS("h1")))
	require.Equal(t, "This sign-in did not start here", browsertest.Text(t, ctx, "h1"))
	browsertest.NoViolations(t, ctx, "a forged state")
	browsertest.Screenshots(t, ctx, shots, "openid-forged")

	// The code used above, under a new flow's state: the provider will
	// not take it twice.
	browsertest.Do(t, ctx, chromedp.Navigate(s.srv.URL+"/login"), chromedp.WaitVisible(chromedp.ID("f-email")))
	browsertest.TabTo(t, ctx, `a[href="/login/openid/zitadel"]`)
	browsertest.Press(t, ctx, "\r", true)
	browsertest.Do(t, ctx, chromedp.WaitVisible(chromedp.ID("username")))
	state, _ := urls.last()
	replay, err := url.Parse(used)
	require.NoError(t, err)
	q := replay.Query()
	q.Set("state", state)
	replay.RawQuery = q.Encode()
	browsertest.Do(t, ctx, chromedp.Navigate(replay.String()), chromedp.WaitVisible(chromedp.CSS("h1")))
	require.Equal(t, "The sign-in could not be confirmed", browsertest.Text(t, ctx, "h1"))
	browsertest.NoViolations(t, ctx, "a replayed code")

	// An ID token the provider made for another app.
	s.issuer.wrongAudience.Store(true)
	browsertest.Do(t, ctx, chromedp.Navigate(s.srv.URL+"/login"), chromedp.WaitVisible(chromedp.ID("f-email")))
	browsertest.TabTo(t, ctx, `a[href="/login/openid/zitadel"]`)
	browsertest.Press(t, ctx, "\r", true)
	signInAtProvider(t, ctx, "bo")
	browsertest.Do(t, ctx, chromedp.WaitVisible(chromedp.CSS("h1")))
	s.issuer.wrongAudience.Store(false)
	require.Equal(t, "The sign-in could not be confirmed", browsertest.Text(t, ctx, "h1"))
	browsertest.Screenshots(t, ctx, shots, "openid-refused")
	browsertest.Do(t, ctx, chromedp.Navigate(s.srv.URL+"/dashboard"), chromedp.WaitVisible(chromedp.ID("f-email")))
	at, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(at, s.srv.URL+"/login"), "not signed in: the dashboard sends to sign in (%s)", at)
}
