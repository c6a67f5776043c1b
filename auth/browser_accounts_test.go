package auth_test

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/internal/browsertest"
)

// keyType moves to sel with Tab, as a keyboard user does, and types text.
func keyType(t *testing.T, ctx context.Context, sel, text string) {
	t.Helper()
	browsertest.TabTo(t, ctx, sel)
	browse(t, ctx, chromedp.KeyEvent(text))
}

// keyPress moves to sel with Tab and presses Enter on it, waiting for the
// next page.
func keyPress(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	browsertest.TabTo(t, ctx, sel)
	browsertest.Press(t, ctx, "\r", true)
}

var codesPattern = regexp.MustCompile(`[a-z2-9]{5}-[a-z2-9]{5}`)

// The account pages walked with the keyboard alone, as their user would:
// sign in, turn two-factor sign-in on (its QR code and key, the recovery
// codes shown once), sign out, sign in with the password and a code, a
// recovery code once (a second use refused), change the address with its
// mailed link, sign out the other browsers; what a screen reader
// announces checked on the way, and axe on every page and state.
func TestBrowserAccountWalk(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 180*time.Second)
	s := newSite(t, siteOptions{})
	s.user(t, "ada@example.com")
	u := s.srv.URL
	shots := os.Getenv(browsertest.EnvScreenshots)

	signIn := func(code string) {
		t.Helper()
		browse(t, ctx, chromedp.Navigate(u+"/login"), chromedp.WaitVisible(chromedp.ID("f-email")))
		keyType(t, ctx, "#f-email", "ada@example.com")
		keyType(t, ctx, "#f-password", "correct horse")
		keyPress(t, ctx, `main button[type=submit]`)
		if code != "" {
			require.Equal(t, u+"/two-factor-challenge", location(t, ctx))
			keyType(t, ctx, "#f-code", code)
			keyPress(t, ctx, `main button[type=submit]`)
		}
	}
	signOut := func() { // from the header of a page in the layout
		t.Helper()
		browse(t, ctx, chromedp.Navigate(u+"/settings/profile"), chromedp.WaitVisible(chromedp.CSS("form.signout button")))
		keyPress(t, ctx, "form.signout button")
	}

	signIn("")
	require.Equal(t, u+"/dashboard", location(t, ctx))
	browse(t, ctx, chromedp.Navigate(u+"/settings/profile"), chromedp.WaitVisible(chromedp.ID("f-name")))
	browsertest.NoViolations(t, ctx, "the account page")
	browsertest.Screenshots(t, ctx, shots, "account")
	browsertest.Announced(t, ctx, "#f-email", "textbox", "Email address")

	// Two-factor sign-in: off, then set up.
	keyPress(t, ctx, `a[href="/settings/two-factor"]`)
	browsertest.NoViolations(t, ctx, "two-factor sign-in, off")
	browsertest.Screenshots(t, ctx, shots, "two-factor-off")
	keyPress(t, ctx, `form[action="/settings/two-factor"] button`)
	browsertest.NoViolations(t, ctx, "two-factor sign-in, being set up")
	browsertest.Screenshots(t, ctx, shots, "two-factor-setup")
	browsertest.Announced(t, ctx, "img.qr", "image", "QR code holding your two-factor key")
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("img.qr").naturalWidth === 240`))
	require.NoError(t, err)
	require.True(t, loaded, "the QR code is drawn")
	secret := strings.ReplaceAll(browsertest.Text(t, ctx, "code.secret"), " ", "")
	keyType(t, ctx, "#f-code", "123456")
	keyPress(t, ctx, `form[action="/settings/two-factor/confirm"] button`)
	require.Contains(t, bodyText(t, ctx), auth.MsgTwoFactorConfirm)
	browsertest.NoViolations(t, ctx, "two-factor set-up with a wrong code")
	code, err := totp.GenerateCode(secret, s.clock.Now())
	require.NoError(t, err)
	keyType(t, ctx, "#f-code", code)
	keyPress(t, ctx, `form[action="/settings/two-factor/confirm"] button`)
	codes := codesPattern.FindAllString(browsertest.Text(t, ctx, "ul.codes"), -1)
	require.Len(t, codes, auth.RecoveryCodeCount)
	// They download as a text file, kept nowhere on the server, and copy.
	file, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(h => h.startsWith("data:text/plain;charset=utf-8,") && `+
		`decodeURIComponent(h.slice(h.indexOf(",") + 1)))(document.querySelector("a[download='recovery-codes.txt']").href)`))
	require.NoError(t, err)
	require.Equal(t, strings.Join(codes, "\n")+"\n", file)
	copyShown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!document.querySelector("button[data-copy=recovery-codes]").hidden`))
	require.NoError(t, err)
	require.True(t, copyShown, "the copy button, where the script runs")
	browsertest.NoViolations(t, ctx, "two-factor sign-in, on, with the recovery codes")
	browsertest.Screenshots(t, ctx, shots, "two-factor-codes")

	// Out, and in with the password and a code.
	signOut()
	s.clock.Advance(time.Minute)
	browse(t, ctx, chromedp.Navigate(u+"/login"), chromedp.WaitVisible(chromedp.ID("f-email")))
	keyType(t, ctx, "#f-email", "ada@example.com")
	keyType(t, ctx, "#f-password", "correct horse")
	keyPress(t, ctx, `main button[type=submit]`)
	require.Equal(t, u+"/two-factor-challenge", location(t, ctx))
	codeFocused, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.id`))
	require.NoError(t, err)
	require.Equal(t, "f-code", codeFocused, "the code field focused: the one thing the page asks for")
	browsertest.NoViolations(t, ctx, "the code page")
	browsertest.Screenshots(t, ctx, shots, "two-factor-challenge")
	browsertest.Announced(t, ctx, "#f-code", "textbox", "Code")
	keyType(t, ctx, "#f-code", "000000")
	keyPress(t, ctx, `main button[type=submit]`)
	browsertest.NoViolations(t, ctx, "the code page with an error")
	focused, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.activeElement.closest(".error-summary") !== null`))
	require.NoError(t, err)
	require.True(t, focused, "the error summary takes the focus")
	code, _ = totp.GenerateCode(secret, s.clock.Now())
	keyType(t, ctx, "#f-code", code)
	keyPress(t, ctx, `main button[type=submit]`)
	require.Equal(t, u+"/dashboard", location(t, ctx))

	// A recovery code once; twice is refused.
	signOut()
	signIn(codes[0])
	require.Equal(t, u+"/settings/two-factor", location(t, ctx))
	require.Contains(t, bodyText(t, ctx), "You have 9 codes left")
	signOut()
	signIn(codes[0])
	require.Equal(t, u+"/two-factor-challenge", location(t, ctx))
	require.Contains(t, bodyText(t, ctx), auth.MsgTwoFactorCode)
	s.clock.Advance(time.Minute)
	code, _ = totp.GenerateCode(secret, s.clock.Now())
	keyType(t, ctx, "#f-code", code)
	keyPress(t, ctx, `main button[type=submit]`)
	require.Equal(t, u+"/dashboard", location(t, ctx))

	// A new address, by its mailed link.
	browse(t, ctx, chromedp.Navigate(u+"/settings/profile"), chromedp.WaitVisible(chromedp.ID("f-email")))
	browse(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById("f-email").value = ""`))
	keyType(t, ctx, "#f-email", "king@example.com")
	keyPress(t, ctx, `form[action="/settings/profile"] button`)
	require.Contains(t, bodyText(t, ctx), "We have sent a link to king@example.com.")
	browsertest.NoViolations(t, ctx, "the account page after asking for a new address")
	link := s.mailedLink(t, 2) // after the mail that said two-factor sign-in is on
	browse(t, ctx, chromedp.Navigate(u+link), chromedp.WaitVisible(chromedp.CSS(".notice")))
	require.Contains(t, bodyText(t, ctx), "Your email address is now king@example.com.")

	// Another browser signs in; this one signs it out.
	other := browsertest.New(t, 60*time.Second)
	s.clock.Advance(time.Minute)
	code, _ = totp.GenerateCode(secret, s.clock.Now())
	browse(t, other, chromedp.Navigate(u+"/login"), chromedp.WaitVisible(chromedp.ID("f-email")),
		chromedp.SendKeys(chromedp.ID("f-email"), "king@example.com"), chromedp.SendKeys(chromedp.ID("f-password"), "correct horse"))
	browsertest.Submit(t, other, `main button[type=submit]`)
	browse(t, other, chromedp.SendKeys(chromedp.ID("f-code"), code))
	browsertest.Submit(t, other, `main button[type=submit]`)
	require.Equal(t, u+"/dashboard", location(t, other))
	browse(t, ctx, chromedp.Navigate(u+"/settings/sessions"), chromedp.WaitVisible(chromedp.ID("f-password")))
	browsertest.NoViolations(t, ctx, "the signed-in browsers")
	browsertest.Screenshots(t, ctx, shots, "sessions")
	require.Contains(t, bodyText(t, ctx), "This browser")
	keyPress(t, ctx, `form[action="/settings/sessions"] button`)
	browsertest.NoViolations(t, ctx, "the signed-in browsers with an error")
	keyType(t, ctx, "#f-password", "correct horse")
	keyPress(t, ctx, `form[action="/settings/sessions"] button`)
	require.Contains(t, bodyText(t, ctx), "Signed out 1 other browser.")
	browse(t, other, chromedp.Navigate(u+"/dashboard"), chromedp.WaitReady(chromedp.CSS("body")))
	require.Equal(t, u+"/login", location(t, other), "the other browser is signed out")

	// The password and delete pages, and their errors.
	for _, p := range []struct{ path, name, what string }{
		{"/settings/password", "password", "change your password"}, {"/settings/delete-account", "delete-account", "delete your account"},
	} {
		browse(t, ctx, chromedp.Navigate(u+p.path), chromedp.WaitVisible(chromedp.CSS("main form")))
		browsertest.NoViolations(t, ctx, p.what)
		browsertest.Screenshots(t, ctx, shots, p.name)
		keyPress(t, ctx, "main form button")
		browsertest.NoViolations(t, ctx, p.what+" with errors")
	}
	require.Contains(t, bodyText(t, ctx), "Enter your password")
}
