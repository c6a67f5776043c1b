package auth_test

import (
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// Sign-in by a mailed link: the same answer whether or not the account
// exists; the link's page asks before it signs in (a mail scanner's GET
// spends nothing); the link signs in once, within 15 minutes, and not
// after the password changed; a forged one is refused; asking is
// throttled per address and client.
func TestSignInLink(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{web: auth.WebOptions{SignInLinks: true}})
	s.user(t, "ada@example.com")
	b := s.browser(t)
	_, body := b.get("/login")
	require.Contains(t, body, `<a href="/login/link">Email me a sign-in link instead</a>`)

	for _, email := range []string{"nobody@example.com", "ADA@example.com"} {
		res, _ := b.post("/login/link", url.Values{"email": {email}})
		require.Equal(t, http.StatusSeeOther, res.StatusCode)
		_, body := b.get("/login/link")
		require.Contains(t, body, "If an account has that address, we have emailed it a sign-in link.", "the same answer either way")
	}
	link := s.mailedLink(t, 1)
	require.Regexp(t, `^/login/link/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{27}$`, link)
	msg := s.outbox.Messages()[0]
	require.Equal(t, []string{"ada@example.com"}, msg.To)
	require.Equal(t, "Your sign-in link", msg.Subject)

	for range 2 { // a scanner's GET, then the person's: nothing spent
		res, body := b.get(link)
		require.Equal(t, 200, res.StatusCode, body)
		require.Contains(t, body, "<h1>Sign in as ada@example.com</h1>")
		require.Contains(t, body, `action="`+link+`"`)
	}
	res, _ := b.post(link, url.Values{})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, auth.HomePathDefault, res.Header.Get("Location"))
	_, body = b.get("/")
	require.Equal(t, "hello Ada Lovelace", body)

	// Once only, from any browser (its page, which spends nothing, cannot
	// tell; its button says so).
	other := s.browser(t)
	res, body = other.post(link, url.Values{})
	requireBadSignInLink(t, res, body)
	for _, forged := range []string{link[:len(link)-3] + "abc", "/login/link/" + strings.Repeat("A", 20) + ".x", "/login/link/nonsense"} {
		res, body = other.post(forged, url.Values{})
		require.Equal(t, http.StatusNotFound, res.StatusCode, forged)
		requireBadSignInLink(t, res, body)
	}

	// A link works for 15 minutes, and not once the password changed.
	res, _ = other.post("/login/link", url.Values{"email": {"ada@example.com"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	late := s.mailedLink(t, 2)
	s.clock.Advance(15 * time.Minute)
	res, body = other.post(late, url.Values{})
	requireBadSignInLink(t, res, body)
	res, _ = other.post("/login/link", url.Values{"email": {"ada@example.com"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	changed := s.mailedLink(t, 3)
	u, err := s.svc.UserByEmail(t.Context(), "ada@example.com")
	require.NoError(t, err)
	require.NoError(t, s.svc.SetPassword(t.Context(), u.ID, "another horse"))
	res, body = other.post(changed, url.Values{})
	requireBadSignInLink(t, res, body)

	// Asking is throttled: three links a quarter of an hour per address
	// and client (one asked above since the clock moved on), then a wait
	// is said.
	for range 2 {
		res, _ = other.post("/login/link", url.Values{"email": {"ada@example.com"}})
		require.Equal(t, http.StatusSeeOther, res.StatusCode)
	}
	res, body = other.post("/login/link", url.Values{"email": {"ada@example.com"}})
	require.Equal(t, http.StatusTooManyRequests, res.StatusCode, body)
	require.NotEmpty(t, res.Header.Get("Retry-After"))
	require.Contains(t, body, "Too many sign-in links were asked for. Please try again in")
	res, body = other.post("/login/link", url.Values{"email": {""}})
	require.Equal(t, 422, res.StatusCode, body)
}

// An account with two-factor sign-in goes through its second step after
// the link, as after a password.
func TestSignInLinkAsksTheSecondStep(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{web: auth.WebOptions{SignInLinks: true}})
	s.user(t, "ada@example.com")
	setup := s.browser(t)
	require.Equal(t, http.StatusSeeOther, setup.login("ada@example.com", "correct horse", false).StatusCode)
	enableTwoFactor(t, s, setup)
	b := s.browser(t)
	b.post("/login/link", url.Values{"email": {"ada@example.com"}})
	res, _ := b.post(s.mailedLink(t, 2), url.Values{}) // the first: two-factor is on
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, "/two-factor-challenge", res.Header.Get("Location"))
	_, body := b.get("/")
	require.Equal(t, "hello guest", body, "not signed in before the second step")
}

// Without the option there are no sign-in links.
func TestSignInLinksAreOffByDefault(t *testing.T) {
	t.Parallel()
	s := newSite(t, siteOptions{})
	b := s.browser(t)
	res, _ := b.get("/login/link")
	require.Equal(t, http.StatusNotFound, res.StatusCode)
	_, body := b.get("/login")
	require.NotContains(t, body, "/login/link")
}

// A link used at once through two instances on one database signs in
// once: the limiter that keeps it spent is the database's.
func TestSignInLinkOnceAcrossInstances(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		one, two := twoInstances(t, d, auth.WebOptions{SignInLinks: true})
		one.user(t, "ada@example.com")
		res, _ := one.browser(t).post("/login/link", url.Values{"email": {"ada@example.com"}})
		require.Equal(t, http.StatusSeeOther, res.StatusCode)
		link := one.mailedLink(t, 1)
		var wg sync.WaitGroup
		codes := make([]int, 4)
		for i := range codes {
			site := one
			if i%2 == 1 {
				site = two
			}
			b := site.browser(t)
			wg.Go(func() {
				res, _ := b.post(link, url.Values{})
				codes[i] = res.StatusCode
			})
		}
		wg.Wait()
		signedIn := 0
		for _, c := range codes {
			if c == http.StatusSeeOther {
				signedIn++
			} else {
				require.Equal(t, http.StatusNotFound, c)
			}
		}
		require.Equal(t, 1, signedIn, "%v", codes)
	})
}

// requireBadSignInLink: a link that cannot sign in is a page offering a
// new one, and signs no one in.
func requireBadSignInLink(t *testing.T, res *http.Response, body string) {
	t.Helper()
	require.Equal(t, http.StatusNotFound, res.StatusCode, body)
	require.Contains(t, body, "<h1>Sign-in link not valid</h1>")
	require.Contains(t, body, `href="/login/link"`)
}

// Sign-in by a link in a real browser, by keyboard: from the sign-in
// page to the link's form, the address mailed a link, the link's page
// and its button, signed in; a spent link's page and the page of too
// many asks. axe-core finds nothing on any of them, light and dark, at
// 320 px.
func TestBrowserSignInLink(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second)
	s := newSite(t, siteOptions{web: auth.WebOptions{SignInLinks: true}})
	s.user(t, "ada@example.com")
	u := s.srv.URL
	shots := os.Getenv(browsertest.EnvScreenshots)

	browse(t, ctx, chromedp.Navigate(u+"/login"), chromedp.WaitVisible(chromedp.ID("f-email")))
	browsertest.TabTo(t, ctx, `a[href="/login/link"]`)
	browsertest.Press(t, ctx, "\r", true)
	require.Equal(t, "Sign in with a link", browsertest.Text(t, ctx, "h1"))
	browsertest.NoViolations(t, ctx, "the sign-in link's form")
	browsertest.Screenshots(t, ctx, shots, "signin-link")
	browsertest.Submit(t, ctx, "button[type=submit]")
	require.Contains(t, browsertest.Text(t, ctx, ".error-summary"), "email")
	browsertest.NoViolations(t, ctx, "the sign-in link's form with its error")
	browse(t, ctx, chromedp.SendKeys(chromedp.ID("f-email"), "ada@example.com"))
	browsertest.TabTo(t, ctx, "button[type=submit]")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, bodyText(t, ctx), "If an account has that address, we have emailed it a sign-in link.")
	browsertest.NoViolations(t, ctx, "the sign-in link sent")
	browsertest.Screenshots(t, ctx, shots, "signin-link-sent")

	link := s.mailedLink(t, 1)
	browse(t, ctx, chromedp.Navigate(u+link), chromedp.WaitVisible(chromedp.CSS("button[type=submit]")))
	require.Equal(t, "Sign in as ada@example.com", browsertest.Text(t, ctx, "h1"))
	browsertest.NoViolations(t, ctx, "the sign-in link's page")
	browsertest.Screenshots(t, ctx, shots, "signin-link-confirm")
	browsertest.TabTo(t, ctx, "button[type=submit]")
	browsertest.Press(t, ctx, "\r", true)
	require.True(t, strings.HasSuffix(location(t, ctx), auth.HomePathDefault), location(t, ctx))

	// The spent link, from another browser's tab: its page, then its button.
	other := browsertest.New(t, 60*time.Second)
	browse(t, other, chromedp.Navigate(u+link), chromedp.WaitVisible(chromedp.CSS("button[type=submit]")))
	browsertest.Submit(t, other, "button[type=submit]")
	require.Equal(t, "Sign-in link not valid", browsertest.Text(t, other, "h1"))
	browsertest.NoViolations(t, other, "a spent sign-in link")
	browsertest.Screenshots(t, other, shots, "signin-link-spent")
	for range 3 {
		browse(t, other, chromedp.Navigate(u+"/login/link"), chromedp.WaitVisible(chromedp.ID("f-email")),
			chromedp.SendKeys(chromedp.ID("f-email"), "ada@example.com"))
		browsertest.Submit(t, other, "button[type=submit]")
	}
	require.Contains(t, browsertest.Text(t, other, "[role=alert]"), "Too many sign-in links were asked for")
	browsertest.NoViolations(t, other, "too many sign-in links")
}
