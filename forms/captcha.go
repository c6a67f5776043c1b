package forms

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/outbound"
)

// CAPTCHA as an option: a form with Captcha set asks the service's
// Verifier about each submission before it is stored. A refused token is
// a 422 the person can mend (do the check again); a verifier that cannot
// be reached is ErrCaptchaUnavailable (503, try again), never a silent
// spam mark.

// Verifier checks the token a CAPTCHA widget put in a submission.
type Verifier interface {
	// Verify reports whether response (the widget's token) passes for a
	// request from remoteIP. An error means no verdict could be had.
	Verify(ctx context.Context, response, remoteIP string) (bool, error)
	// Widget is how the page draws it.
	Widget() CaptchaWidget
}

// CaptchaWidget is how a page draws a CAPTCHA: the provider's script,
// the element class and site key it looks for, the input its token posts
// as, and the origins its script and frames come from (allowed by the
// page's Content-Security-Policy).
type CaptchaWidget struct {
	Script, Class, SiteKey, ResponseField string
	Origins                               []string
}

// CaptchaOptions configures [NewTurnstile] and [NewHCaptcha].
type CaptchaOptions struct {
	// SiteKey is drawn in the page; Secret is sent to the provider only.
	SiteKey, Secret string
	// BaseURL replaces the provider's API address (a test server);
	// Cloudflare's or hCaptcha's own when empty.
	BaseURL string
	// HTTPClient sends the checks; nil for a default one.
	HTTPClient *http.Client
}

// The providers' own addresses.
const (
	turnstileBaseURL = "https://challenges.cloudflare.com/turnstile/v0"
	hCaptchaBaseURL  = "https://api.hcaptcha.com"
)

// ErrCaptchaUnavailable: the CAPTCHA provider could not be asked (down,
// slow, or refusing our secret); the submission is not stored and may be
// sent again.
var ErrCaptchaUnavailable = errors.New("forms: the CAPTCHA check could not be made")

// msgCaptchaUnavailable is what a person reads when the check could not
// be made.
const msgCaptchaUnavailable = "The check that you are a person could not be made just now. Please try again in a minute."

// msgCaptchaFailed is the message of a submission whose CAPTCHA token the
// provider refuses, at the widget's response field.
const msgCaptchaFailed = "The check that you are a person did not pass. Please do it again, then send the form."

// checkCaptcha asks the service's Verifier about the widget's token among
// a (the answers by input name), once per req: a refusal is a
// *ValidationError at the widget's field, no verdict
// ErrCaptchaUnavailable.
func (s *Service) checkCaptcha(ctx context.Context, req *SubmitRequest, a answers, sp *speaker) error {
	if req.captchaPassed {
		return nil
	}
	if s.captcha == nil {
		return fmt.Errorf("%w: the form asks for a CAPTCHA and the service has no Verifier", ErrCaptchaUnavailable)
	}
	field := s.captcha.Widget().ResponseField
	var response string
	if given := a[field]; len(given) > 0 {
		response = given[0]
	}
	ok, err := s.captcha.Verify(ctx, response, req.IPAddress)
	if err != nil {
		s.logger.WarnContext(ctx, "forms: CAPTCHA check not made", "error", err)
		return err
	}
	if !ok {
		v := &api.Validator{}
		v.Add(field, sp.say(msgCaptchaFailed))
		return v.Err()
	}
	req.captchaPassed = true
	return nil
}

// siteVerify is a provider's siteverify endpoint: a form-encoded POST of
// the secret, the token and the client's address, answered
// {"success": bool, "error-codes": [...]}.
type siteVerify struct {
	api    *outbound.Client
	secret string
	extra  url.Values
	widget CaptchaWidget
	// broken are the error codes that mean our request (our secret)
	// is wrong, not the person's token: no verdict.
	broken []string
}

// NewTurnstile returns a Verifier for Cloudflare Turnstile.
func NewTurnstile(o CaptchaOptions) (Verifier, error) {
	return newSiteVerify("turnstile", cmp.Or(o.BaseURL, turnstileBaseURL), o, nil, CaptchaWidget{
		Script: "https://challenges.cloudflare.com/turnstile/v0/api.js", Class: "cf-turnstile", SiteKey: o.SiteKey,
		ResponseField: "cf-turnstile-response", Origins: []string{"https://challenges.cloudflare.com"}},
		[]string{"missing-input-secret", "invalid-input-secret", "internal-error", "bad-request"})
}

// NewHCaptcha returns a Verifier for hCaptcha.
func NewHCaptcha(o CaptchaOptions) (Verifier, error) {
	return newSiteVerify("hcaptcha", cmp.Or(o.BaseURL, hCaptchaBaseURL), o, url.Values{"sitekey": {o.SiteKey}}, CaptchaWidget{
		Script: "https://js.hcaptcha.com/1/api.js", Class: "h-captcha", SiteKey: o.SiteKey, ResponseField: "h-captcha-response",
		Origins: []string{"https://hcaptcha.com", "https://*.hcaptcha.com"}},
		[]string{"missing-input-secret", "invalid-input-secret", "sitekey-secret-mismatch", "invalid-or-already-seen-response-secret", "bad-request"})
}

func newSiteVerify(provider, base string, o CaptchaOptions, extra url.Values, w CaptchaWidget, broken []string) (Verifier, error) {
	if o.SiteKey == "" || o.Secret == "" {
		return nil, fmt.Errorf("forms: %s: a site key and a secret are needed", provider)
	}
	api, err := outbound.New(outbound.Options{Provider: provider, BaseURL: base, HTTPClient: o.HTTPClient, Secrets: []string{o.Secret},
		MaxAttempts: 2})
	if err != nil {
		return nil, fmt.Errorf("forms: %s: %w", provider, err)
	}
	return &siteVerify{api: api, secret: o.Secret, extra: extra, widget: w, broken: broken}, nil
}

// Widget implements Verifier.
func (v *siteVerify) Widget() CaptchaWidget { return v.widget }

// Verify implements Verifier.
func (v *siteVerify) Verify(ctx context.Context, response, remoteIP string) (bool, error) {
	if strings.TrimSpace(response) == "" {
		return false, nil // nothing to ask about
	}
	form := url.Values{"secret": {v.secret}, "response": {response}}
	if remoteIP != "" {
		form.Set("remoteip", remoteIP)
	}
	for k, vs := range v.extra {
		form[k] = vs
	}
	res, err := v.api.Do(ctx, &outbound.Request{Method: http.MethodPost, Path: "/siteverify", Body: []byte(form.Encode()),
		Header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}})
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrCaptchaUnavailable, err)
	}
	var out struct {
		Success bool     `json:"success"`
		Codes   []string `json:"error-codes"`
	}
	if err := json.Unmarshal(res.Body, &out); err != nil {
		return false, fmt.Errorf("%w: %s answered %q", ErrCaptchaUnavailable, v.widget.Class, v.api.Redact(string(res.Body)))
	}
	if !out.Success && slices.ContainsFunc(out.Codes, func(c string) bool { return slices.Contains(v.broken, c) }) {
		return false, fmt.Errorf("%w: %s refused the request: %s", ErrCaptchaUnavailable, v.widget.Class, strings.Join(out.Codes, ", "))
	}
	return out.Success, nil
}
