package auth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/internal/browsertest"
)

// browse runs actions in the tab and fails t on an error.
func browse(t *testing.T, ctx chromedpContext, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, actions...))
}

type chromedpContext = interface {
	Deadline() (time.Time, bool)
	Done() <-chan struct{}
	Err() error
	Value(any) any
}

// submit clicks sel, which sends a form, and waits for the next page.
func submit(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	browsertest.Submit(t, ctx, sel)
}

func bodyText(t *testing.T, ctx chromedpContext) string {
	t.Helper()
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	require.NoError(t, err)
	return strings.TrimSpace(text)
}

func location(t *testing.T, ctx chromedpContext) string {
	t.Helper()
	loc, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	return loc
}

// Register, verify from the mailed link, confirm the password, sign out,
// in a real browser; axe-core finds nothing on any page, errors included.
func TestBrowserRegisterVerifyConfirmSignOut(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second)
	s := newSite(t, siteOptions{web: auth.WebOptions{RequireVerification: true}})
	u := s.srv.URL

	browse(t, ctx, chromedp.Navigate(u+"/register"), chromedp.WaitVisible(chromedp.ID("f-name")))
	browsertest.NoViolations(t, ctx, "the register page")
	browse(t, ctx, chromedp.SendKeys(chromedp.ID("f-email"), "not an address"), chromedp.SendKeys(chromedp.ID("f-password"), "short"),
		chromedp.Click(chromedp.CSS(`button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS(".error-summary")))
	browsertest.NoViolations(t, ctx, "the register page with errors")
	summary, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".error-summary")))
	require.NoError(t, err)
	require.Contains(t, summary, "Enter your name")
	described, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("f-email").ariaDescribedByElements.map(e => e.textContent).join(" | ")`))
	require.NoError(t, err)
	require.Equal(t, "Error: Enter an email address in the correct format, like name@example.com", described, "the error is tied to its input")

	browse(t, ctx, chromedp.SetValue(chromedp.ID("f-name"), "Ada Lovelace"), chromedp.SetValue(chromedp.ID("f-email"), "ada@example.com"),
		chromedp.SetValue(chromedp.ID("f-password"), "correct horse"), chromedp.SetValue(chromedp.ID("f-password_confirmation"), "correct horse"),
	)
	submit(t, ctx, `main button[type=submit]`)
	require.Equal(t, u+"/dashboard", location(t, ctx))
	// /dashboard requires a verified address here: the notice.
	browse(t, ctx, chromedp.Navigate(u+"/verified"), chromedp.WaitVisible(chromedp.CSS("h1")))
	require.Equal(t, u+"/verify-email", location(t, ctx))
	browsertest.NoViolations(t, ctx, "the verify-email notice")
	submit(t, ctx, `form[action="/email/verification-notification"] button`)
	browsertest.NoViolations(t, ctx, "the verify-email notice after a resend")

	link := s.mailedLink(t, 1)
	browse(t, ctx, chromedp.Navigate(u+link), chromedp.WaitReady(chromedp.CSS("body")))
	require.Equal(t, u+"/dashboard?verified=1", location(t, ctx))
	require.Equal(t, "hello Ada Lovelace", bodyText(t, ctx))
	browse(t, ctx, chromedp.Navigate(u+"/verified"), chromedp.WaitReady(chromedp.CSS("body")))
	require.Equal(t, "hello Ada Lovelace", bodyText(t, ctx))

	// A bad link: the error page.
	browse(t, ctx, chromedp.Navigate(u+link+"0"), chromedp.WaitVisible(chromedp.CSS("h1")))
	browsertest.NoViolations(t, ctx, "the invalid-link page")

	// Three hours on (the session kept alive), the secure page asks for
	// the password again.
	for range 4 {
		s.clock.Advance(50 * time.Minute)
		browse(t, ctx, chromedp.Navigate(u+"/"), chromedp.WaitReady(chromedp.CSS("body")))
	}
	browse(t, ctx, chromedp.Navigate(u+"/secret"), chromedp.WaitVisible(chromedp.ID("f-password")))
	require.Equal(t, u+"/confirm-password", location(t, ctx))
	browsertest.NoViolations(t, ctx, "the confirm-password page")
	browse(t, ctx, chromedp.SendKeys(chromedp.ID("f-password"), "wrong horse"), chromedp.Click(chromedp.CSS(`main button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(".error-summary")))
	browsertest.NoViolations(t, ctx, "the confirm-password page with an error")
	browse(t, ctx, chromedp.SendKeys(chromedp.ID("f-password"), "correct horse"))
	submit(t, ctx, `main button[type=submit]`)
	require.Equal(t, u+"/secret", location(t, ctx))

	// The token settings page of a user without capabilities says why
	// there is no form, and who grants access.
	browse(t, ctx, chromedp.Navigate(u+"/settings/tokens"), chromedp.WaitVisible(chromedp.CSS("main h2")))
	require.Contains(t, bodyText(t, ctx), "You cannot make tokens yet")
	require.NotContains(t, bodyText(t, ctx), "reference user grant")
	browsertest.NoViolations(t, ctx, "the tokens page without capabilities")

	// Sign out with the layout's button.
	browse(t, ctx, chromedp.Navigate(u+"/settings/tokens"), chromedp.WaitVisible(chromedp.CSS("form.signout button")))
	submit(t, ctx, "form.signout button")
	require.Equal(t, u+"/", location(t, ctx))
	require.Equal(t, "hello guest", bodyText(t, ctx))
}

// Forgot → reset from the mailed link → sign in with the new password;
// the login page with its errors and the lock-out; remember me surviving
// a new browser.
func TestBrowserForgotResetLoginRemember(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second)
	s := newSite(t, siteOptions{web: auth.WebOptions{TokenAbilities: []string{"forms:*"}}})
	s.user(t, "ada@example.com", "forms:*")
	u := s.srv.URL

	browse(t, ctx, chromedp.Navigate(u+"/forgot-password"), chromedp.WaitVisible(chromedp.ID("f-email")))
	browsertest.NoViolations(t, ctx, "the forgot-password page")
	browse(t, ctx, chromedp.Click(chromedp.CSS(`main button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS(".error-summary")))
	browsertest.NoViolations(t, ctx, "the forgot-password page with an error")
	browse(t, ctx, chromedp.SendKeys(chromedp.ID("f-email"), "ada@example.com"), chromedp.Click(chromedp.CSS(`main button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(".notice")))
	require.Contains(t, bodyText(t, ctx), auth.MsgResetSent)
	browsertest.NoViolations(t, ctx, "the forgot-password page with its notice")

	link := s.mailedLink(t, 1)
	browse(t, ctx, chromedp.Navigate(u+link), chromedp.WaitVisible(chromedp.ID("f-password")))
	browsertest.NoViolations(t, ctx, "the reset-password page")
	browse(t, ctx, chromedp.SendKeys(chromedp.ID("f-password"), "new horse!"), chromedp.SendKeys(chromedp.ID("f-password_confirmation"), "other horse"),
		chromedp.Click(chromedp.CSS(`main button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS(".error-summary")))
	browsertest.NoViolations(t, ctx, "the reset-password page with an error")
	browse(t, ctx, chromedp.SendKeys(chromedp.ID("f-password"), "new horse!"), chromedp.SendKeys(chromedp.ID("f-password_confirmation"), "new horse!"),
		chromedp.Click(chromedp.CSS(`main button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS(".notice")))
	require.Equal(t, u+"/login?email=ada%40example.com", location(t, ctx), "the address kept for signing in")
	value, err := chromedp.Run(ctx, chromedp.Value(chromedp.ID("f-email")))
	require.NoError(t, err)
	require.Equal(t, "ada@example.com", value)
	require.Contains(t, bodyText(t, ctx), auth.MsgPasswordReset)
	browsertest.NoViolations(t, ctx, "the login page with a notice")

	login := func(password string, remember bool) {
		t.Helper()
		browse(t, ctx, chromedp.Navigate(u+"/login"), chromedp.WaitVisible(chromedp.ID("f-email")),
			chromedp.SendKeys(chromedp.ID("f-email"), "ada@example.com"), chromedp.SendKeys(chromedp.ID("f-password"), password))
		if remember {
			browse(t, ctx, chromedp.Click(chromedp.ID("f-remember")))
		}
		submit(t, ctx, `main button[type=submit]`)
	}
	login("correct horse", false)
	require.Contains(t, bodyText(t, ctx), "The email address or password is not right: check them and try again")
	browsertest.NoViolations(t, ctx, "the login page with an error")
	for range 4 {
		login("correct horse", false)
	}
	login("new horse!", false)
	require.Contains(t, bodyText(t, ctx), "Too many sign-in attempts. Please try again in")
	browsertest.NoViolations(t, ctx, "the login page locked out")
	s.clock.Advance(time.Minute)

	login("new horse!", true)
	require.Equal(t, u+"/dashboard", location(t, ctx))
	require.Equal(t, "hello Ada Lovelace", bodyText(t, ctx))

	// A new browser session keeps what outlives the session: the
	// remember-me cookie, not the session cookie.
	cookies, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{u}})
	require.NoError(t, err)
	var kept []*network.CookieParam
	for _, c := range cookies.Cookies {
		if !c.Session {
			kept = append(kept, &network.CookieParam{Name: c.Name, Value: c.Value, URL: u, HTTPOnly: c.HTTPOnly})
		}
	}
	require.Len(t, kept, 1, "only the remember cookie is persistent")
	require.Equal(t, auth.RememberCookie, kept[0].Name)
	fresh := browsertest.New(t, 60*time.Second)
	_, err = chromedp.Call(fresh, network.SetCookies, network.SetCookiesParams{Cookies: kept})
	require.NoError(t, err)
	browse(t, fresh, chromedp.Navigate(u+"/dashboard"), chromedp.WaitReady(chromedp.CSS("body")))
	require.Equal(t, "hello Ada Lovelace", bodyText(t, fresh))

	// The token page: empty, with errors (focused), with a token just
	// made (after a redirect: reloading makes no second one), revoking
	// asked first; and a 403 page.
	browse(t, fresh, chromedp.Navigate(u+"/settings/tokens"), chromedp.WaitVisible(chromedp.ID("f-name")))
	browsertest.NoViolations(t, fresh, "the tokens page")
	submit(t, fresh, `main form[action="/settings/tokens"] button[type=submit]`)
	focused, err := chromedp.Run(fresh, chromedp.Evaluate[string](`document.activeElement.className`))
	require.NoError(t, err)
	require.Equal(t, "error-summary", focused, "the summary has focus")
	browsertest.NoViolations(t, fresh, "the tokens page with errors")
	browse(t, fresh, chromedp.SendKeys(chromedp.ID("f-name"), "deploy"), chromedp.Click(chromedp.ID("f-abilities-1-0")))
	submit(t, fresh, `main form[action="/settings/tokens"] button[type=submit]`)
	require.Equal(t, u+"/settings/tokens", location(t, fresh))
	token := browsertest.Text(t, fresh, "#new-token")
	require.NotEmpty(t, token)
	copyShown, err := chromedp.Run(fresh, chromedp.Evaluate[bool](`!document.querySelector("button[data-copy]").hidden`))
	require.NoError(t, err)
	require.True(t, copyShown, "the script shows the copy button")
	browsertest.NoViolations(t, fresh, "the tokens page with a new token")
	browse(t, fresh, chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("f-name")))
	require.NotContains(t, bodyText(t, fresh), token, "shown once")
	rows, err := chromedp.Run(fresh, chromedp.Evaluate[int](`document.querySelectorAll("main tbody tr").length`))
	require.NoError(t, err)
	require.Equal(t, 1, rows, "reloading made no second token")
	submit(t, fresh, `main tbody a.button`)
	require.Equal(t, u+"/settings/tokens/1/revoke", location(t, fresh))
	browsertest.NoViolations(t, fresh, "the revoke question")
	submit(t, fresh, `main button.danger`)
	require.Contains(t, bodyText(t, fresh), "was revoked")
	browse(t, fresh, chromedp.Navigate(u+"/reports"), chromedp.WaitVisible(chromedp.CSS("h1")))
	browsertest.NoViolations(t, fresh, "the not-allowed page")
}

// A host that mounts the pages and nothing else: registering lands on
// the built-in home page, not on a missing one; axe-core finds nothing.
func TestBrowserBuiltInHome(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 60*time.Second)
	svc, err := auth.NewService(newStore(t), &auth.Options{Password: cheap})
	require.NoError(t, err)
	signIn, err := auth.NewWeb(svc, nil)
	require.NoError(t, err)
	mux := http.NewServeMux()
	signIn.Mount(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	u := srv.URL

	browse(t, ctx, chromedp.Navigate(u+"/dashboard"), chromedp.WaitVisible(chromedp.ID("f-email")))
	require.Equal(t, u+"/login", location(t, ctx), "a guest is sent to sign in")
	browse(t, ctx, chromedp.Navigate(u+"/register"), chromedp.WaitVisible(chromedp.ID("f-name")),
		chromedp.SetValue(chromedp.ID("f-name"), "Ada Lovelace"), chromedp.SetValue(chromedp.ID("f-email"), "ada@example.com"),
		chromedp.SetValue(chromedp.ID("f-password"), "correct horse"), chromedp.SetValue(chromedp.ID("f-password_confirmation"), "correct horse"))
	submit(t, ctx, `main button[type=submit]`)
	require.Equal(t, u+"/dashboard", location(t, ctx))
	require.Contains(t, bodyText(t, ctx), "Welcome, Ada Lovelace")
	require.Contains(t, bodyText(t, ctx), "Your account")
	require.NotContains(t, bodyText(t, ctx), "API tokens", "a user without capabilities is not offered tokens")
	browsertest.NoViolations(t, ctx, "the built-in home page")
}
