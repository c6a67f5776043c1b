package forms_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/internal/browsertest"
)

// siteverify is a CAPTCHA provider's siteverify endpoint as Turnstile and
// hCaptcha document it: a form-encoded POST of secret, response and
// remoteip (and hCaptcha's sitekey), answered {"success", "error-codes"}.
// The token "pass" passes; "stale" is refused as used; any other is an
// invalid response; with the wrong secret every call is refused as such.
type siteverify struct {
	*httptest.Server
	secret string
	mu     sync.Mutex
	calls  []url.Values
}

func newSiteverify(t *testing.T, secret string) *siteverify {
	t.Helper()
	s := &siteverify{secret: secret}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/siteverify" || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
			http.Error(w, "not here", http.StatusNotFound)
			return
		}
		require.NoError(t, r.ParseForm())
		s.mu.Lock()
		s.calls = append(s.calls, r.PostForm)
		s.mu.Unlock()
		answer := map[string]any{"success": false, "error-codes": []string{"invalid-input-response"}}
		switch {
		case r.PostForm.Get("secret") != s.secret:
			answer["error-codes"] = []string{"invalid-input-secret"}
		case r.PostForm.Get("response") == "pass":
			answer = map[string]any{"success": true, "error-codes": []string{}, "challenge_ts": "2026-11-22T10:00:00Z", "hostname": "example.test"}
		case r.PostForm.Get("response") == "stale":
			answer["error-codes"] = []string{"timeout-or-duplicate"}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(answer)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *siteverify) Calls() []url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]url.Values(nil), s.calls...)
}

// A Turnstile-enabled form refuses a submission whose token the verifier
// rejects, accepts one it passes, and says "try again" (503, Retry-After)
// when the verifier is unreachable or refuses our secret; through the API
// and the page, nothing stored but the one it passed.
func TestTurnstileForm(t *testing.T) {
	t.Parallel()
	provider := newSiteverify(t, "turnstile-secret")
	base := provider.URL
	var verifier forms.Verifier
	b := setup(t, func(o *setupOptions) {
		o.service = func(so *forms.Options) {
			var err error
			verifier, err = forms.NewTurnstile(forms.CaptchaOptions{SiteKey: "0x4AAAA-site", Secret: "turnstile-secret", BaseURL: base})
			require.NoError(t, err)
			so.Captcha = verifier
		}
	})
	slug := b.contactForm(t)
	require.Empty(t, provider.Calls())
	require.Equal(t, 201, b.submit(t, slug, valid()...).status, "a form without a CAPTCHA asks nobody")
	require.Empty(t, provider.Calls())
	r := b.api(t, "PATCH", "/"+slug, map[string]any{"captcha": true})
	require.Equal(t, 200, r.status, r.body)
	require.Equal(t, true, r.data(t)["captcha"])

	def := b.request(t, "GET", forms.PrefixDefault+"/"+slug+"/render", "", "", nil)
	require.JSONEq(t, `{"script":"https://challenges.cloudflare.com/turnstile/v0/api.js","class":"cf-turnstile","site_key":"0x4AAAA-site",
		"response_field":"cf-turnstile-response"}`, mustJSON(t, def.data(t)["config"].(map[string]any)["captcha"]))

	for _, token := range []string{"", "forged", "stale"} {
		r = b.submit(t, slug, valid(part{name: "cf-turnstile-response", content: token})...)
		require.Equal(t, 422, r.status, "%q: %s", token, r.body)
		require.Equal(t, []string{forms.MsgCaptchaFailed}, r.errors(t).Errors["cf-turnstile-response"])
	}
	r = b.submit(t, slug, valid(part{name: "cf-turnstile-response", content: "pass"})...)
	require.Equal(t, 201, r.status, r.body)
	calls := provider.Calls()
	last := calls[len(calls)-1]
	require.Equal(t, "turnstile-secret", last.Get("secret"))
	require.Equal(t, "pass", last.Get("response"))
	require.Equal(t, "127.0.0.1", last.Get("remoteip"))
	require.Len(t, calls, 3, "an empty token is refused without asking")

	// The page draws the widget, its origins allowed, and says why.
	page := b.request(t, "GET", "/forms/"+slug, "", "", nil)
	require.Contains(t, page.body, `<div class="cf-turnstile" data-sitekey="0x4AAAA-site"></div>`)
	require.Contains(t, page.body, `<script src="https://challenges.cloudflare.com/turnstile/v0/api.js" async defer></script>`)
	csp := page.header.Get("Content-Security-Policy")
	require.Contains(t, csp, "script-src 'self' https://challenges.cloudflare.com;")
	require.Contains(t, csp, "frame-src https://challenges.cloudflare.com;")
	token := formTokenOf(t, page.body)
	b.clock.Advance(forms.MinFillTime)
	post := func(captcha string) reply {
		form := url.Values{"name": {"Ann"}, "email": {"ann@example.test"}, forms.FormTokenField: {token}, "cf-turnstile-response": {captcha}}
		return b.request(t, "POST", "/forms/"+slug, "", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	}
	r = post("forged")
	require.Equal(t, 422, r.status)
	require.Contains(t, r.body, "The check that you are a person did not pass")
	require.Contains(t, r.body, `value="Ann"`, "the answers kept")

	// Our secret refused: no verdict, try again.
	bad, err := forms.NewTurnstile(forms.CaptchaOptions{SiteKey: "0x4AAAA-site", Secret: "wrong", BaseURL: base})
	require.NoError(t, err)
	ok, err := bad.Verify(context.Background(), "pass", "")
	require.ErrorIs(t, err, forms.ErrCaptchaUnavailable)
	require.False(t, ok)

	// Unreachable: 503 and try again, through the API and the page.
	provider.Close()
	r = b.submit(t, slug, valid(part{name: "cf-turnstile-response", content: "pass"})...)
	require.Equal(t, 503, r.status, r.body)
	require.Equal(t, "30", r.header.Get("Retry-After"))
	require.JSONEq(t, `{"message":"The check that you are a person could not be made just now. Please try again in a minute."}`, r.body)
	r = post("pass")
	require.Equal(t, 503, r.status)
	require.Contains(t, r.body, "Please try again in a minute.")
	require.Contains(t, r.body, `value="Ann"`, "the answers kept")

	list := b.api(t, "GET", "/"+slug+"/submissions", nil)
	require.EqualValues(t, 2, list.json(t)["meta"].(map[string]any)["total"], "the one before the CAPTCHA and the one it passed")
}

// hCaptcha's verifier sends the site key too; a form cannot ask for a
// CAPTCHA where the service has none.
func TestHCaptchaAndNoVerifier(t *testing.T) {
	t.Parallel()
	provider := newSiteverify(t, "h-secret")
	v, err := forms.NewHCaptcha(forms.CaptchaOptions{SiteKey: "h-site", Secret: "h-secret", BaseURL: provider.URL})
	require.NoError(t, err)
	ok, err := v.Verify(context.Background(), "pass", "203.0.113.9")
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = v.Verify(context.Background(), "forged", "")
	require.NoError(t, err)
	require.False(t, ok)
	calls := provider.Calls()
	require.Equal(t, "h-site", calls[0].Get("sitekey"))
	require.Equal(t, "203.0.113.9", calls[0].Get("remoteip"))
	require.Empty(t, calls[1].Get("remoteip"))
	require.Equal(t, "h-captcha-response", v.Widget().ResponseField)
	_, err = forms.NewHCaptcha(forms.CaptchaOptions{SiteKey: "h-site"})
	require.Error(t, err, "a secret is needed")

	b := setup(t)
	b.createForm(t, map[string]any{"name": "Plain"})
	r := b.api(t, "PATCH", "/plain", map[string]any{"captcha": true})
	require.Equal(t, 422, r.status)
	require.Contains(t, r.errors(t).Errors, "captcha")
}

// The page of a form with a CAPTCHA in Chromium (the provider's script
// does not load here, as on a page whose reader blocks it): axe-core finds
// nothing, light and dark, phone and desktop, and the form is still there.
func TestBrowserCaptchaPage(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 60*time.Second)
	provider := newSiteverify(t, "turnstile-secret")
	b := setup(t, func(o *setupOptions) {
		o.service = func(so *forms.Options) {
			v, err := forms.NewTurnstile(forms.CaptchaOptions{SiteKey: "0x4AAAA-site", Secret: "turnstile-secret", BaseURL: provider.URL})
			require.NoError(t, err)
			so.Captcha = v
		}
	})
	slug := b.contactForm(t)
	require.Equal(t, 200, b.api(t, "PATCH", "/"+slug, map[string]any{"captcha": true}).status)
	browsertest.Do(t, ctx, chromedp.Navigate(b.server.URL+"/forms/"+slug), chromedp.WaitVisible(chromedp.CSS("input[name=name]")))
	axeEverywhere(t, ctx, "a form with a CAPTCHA")
}
