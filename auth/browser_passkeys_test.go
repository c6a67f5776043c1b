package auth_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/internal/browsertest"
)

// A passkey made with Chromium's virtual authenticator (through the
// DevTools protocol) from the passkeys page, then a sign-in with it and
// no address typed; once deleted it signs nobody in. At localhost: a
// passkey's site is a host name, never an IP address.
func TestBrowserPasskey(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second)
	s := newSite(t, siteOptions{})
	s.user(t, "ada@example.com")
	u := strings.Replace(s.srv.URL, "127.0.0.1", "localhost", 1)
	shots := os.Getenv(browsertest.EnvScreenshots)

	no := false
	_, err := chromedp.Call(ctx, webauthn.Enable, webauthn.EnableParams{EnableUI: &no})
	require.NoError(t, err)
	_, err = chromedp.Call(ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{Options: &webauthn.VirtualAuthenticatorOptions{
		Protocol: webauthn.AuthenticatorProtocolCtap2, Ctap2version: webauthn.Ctap2versionCtap21, Transport: webauthn.AuthenticatorTransportInternal,
		HasResidentKey: true, HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true}})
	require.NoError(t, err)

	browse(t, ctx, chromedp.Navigate(u+"/login"), chromedp.WaitVisible(chromedp.ID("f-email")))
	keyType(t, ctx, "#f-email", "ada@example.com")
	keyType(t, ctx, "#f-password", "correct horse")
	keyPress(t, ctx, `main button[type=submit]`)
	require.Equal(t, u+"/dashboard", location(t, ctx))

	browse(t, ctx, chromedp.Navigate(u+"/settings/passkeys"), chromedp.WaitVisible(chromedp.ID("f-name")))
	browsertest.NoViolations(t, ctx, "the passkeys page, none yet")
	browsertest.Screenshots(t, ctx, shots, "passkeys-none")
	browse(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById("f-name").value = ""`))
	keyType(t, ctx, "#f-name", "Test key")
	keyPress(t, ctx, `[data-passkey] button`)
	require.Equal(t, u+"/settings/passkeys", location(t, ctx))
	require.Contains(t, bodyText(t, ctx), "Passkey “Test key” added")
	browsertest.NoViolations(t, ctx, "the passkeys page with one")
	browsertest.Screenshots(t, ctx, shots, "passkeys")
	browsertest.Announced(t, ctx, `form[action$="/delete"] button`, "button", "Delete Test key")
	keys, err := s.svc.Passkeys(t.Context(), 1)
	require.NoError(t, err)
	require.Len(t, keys, 1)

	// Out, and in with the passkey alone.
	browse(t, ctx, chromedp.WaitVisible(chromedp.CSS("form.signout button")))
	keyPress(t, ctx, "form.signout button")
	browse(t, ctx, chromedp.Navigate(u+"/login"), chromedp.WaitVisible(chromedp.CSS(".passkey-signin button")))
	browsertest.NoViolations(t, ctx, "the sign-in page with its passkey button")
	browsertest.Screenshots(t, ctx, shots, "login-passkey")
	keyPress(t, ctx, ".passkey-signin button")
	require.Equal(t, u+"/dashboard", location(t, ctx))
	require.Equal(t, "hello Ada Lovelace", bodyText(t, ctx))
	keys, err = s.svc.Passkeys(t.Context(), 1)
	require.NoError(t, err)
	require.NotNil(t, keys[0].LastUsedAt, "its use is recorded")

	// Deleted, it signs nobody in; the page says so where the button is.
	browse(t, ctx, chromedp.Navigate(u+"/settings/passkeys"), chromedp.WaitVisible(chromedp.CSS(`form[action$="/delete"] button`)))
	keyPress(t, ctx, `form[action$="/delete"] button`)
	require.Contains(t, bodyText(t, ctx), "You have no passkeys yet.")
	browse(t, ctx, chromedp.WaitVisible(chromedp.CSS("form.signout button")))
	keyPress(t, ctx, "form.signout button")
	browse(t, ctx, chromedp.Navigate(u+"/login"), chromedp.WaitVisible(chromedp.CSS(".passkey-signin button")))
	browsertest.TabTo(t, ctx, ".passkey-signin button")
	browse(t, ctx, chromedp.KeyEvent("\r"), chromedp.Poll[chromedp.Void](`document.querySelector(".passkey-status").textContent.includes("could not be used")`))
	require.Equal(t, u+"/login", location(t, ctx))
	require.Contains(t, browsertest.Text(t, ctx, ".passkey-status"), auth.ErrPasskey.Error())
	browsertest.NoViolations(t, ctx, "the sign-in page after a refused passkey")
}
