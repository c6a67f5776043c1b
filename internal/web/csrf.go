package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"mime"
	"net/http"
	"strings"
)

// The double-submit token that backs up the origin check: a random value
// in a cookie that scripts on the page's own origin may read, sent back
// in a header by single-page apps (as Laravel's XSRF-TOKEN) or in a
// hidden field by the pages' forms.
const (
	// XSRFCookie holds the token; not HttpOnly, so that the site's own
	// scripts can copy it into XSRFHeader.
	XSRFCookie = "XSRF-TOKEN"
	// XSRFHeader carries the token on requests made by scripts.
	XSRFHeader = "X-XSRF-TOKEN"
	// CSRFField carries the token in a form's body.
	CSRFField = "_token"
)

// CSRFToken returns the request's token, and sets the cookie with a new
// one when the request has none (or a malformed one). Pages put it in
// every form as the CSRFField hidden input (Page.CSRF, template "csrf").
func CSRFToken(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(XSRFCookie); err == nil && validToken(c.Value) {
		return c.Value
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	token := base64.RawURLEncoding.EncodeToString(b)
	http.SetCookie(w, &http.Cookie{Name: XSRFCookie, Value: token, Path: "/", Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode})
	// Later reads in this request see it too.
	r.AddCookie(&http.Cookie{Name: XSRFCookie, Value: token})
	return token
}

func validToken(s string) bool {
	if len(s) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil
}

// tokenOK applies the token rule to a state-changing request: a token
// given (header or form field) must match the cookie; and a request that
// carries cookies but says nothing of where it came from (neither
// Sec-Fetch-Site nor Origin, so the origin check let it through) must
// give one.
func tokenOK(r *http.Request) bool {
	given := r.Header.Get(XSRFHeader)
	if given == "" && isURLEncodedForm(r) {
		given = r.PostFormValue(CSRFField)
	}
	c, err := r.Cookie(XSRFCookie)
	if given == "" {
		unsure := r.Header.Get("Sec-Fetch-Site") == "" && r.Header.Get("Origin") == ""
		return !(unsure && len(r.Cookies()) > 0)
	}
	return err == nil && subtle.ConstantTimeCompare([]byte(given), []byte(c.Value)) == 1
}

func isURLEncodedForm(r *http.Request) bool {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return ct == "application/x-www-form-urlencoded"
}

// WantsJSON reports whether the client asked for JSON rather than a page
// (a single-page app's fetch): its Accept names JSON and not HTML, or it
// sent X-Requested-With: XMLHttpRequest.
func WantsJSON(r *http.Request) bool {
	accept := r.Header.Get("Accept")
	if r.Header.Get("X-Requested-With") == "XMLHttpRequest" {
		return true
	}
	return strings.Contains(accept, "json") && !strings.Contains(accept, "text/html")
}

// AcceptsHTML reports whether the request's Accept names HTML (a
// browser's navigation), so an error may be answered as a page.
func AcceptsHTML(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "text/html")
}
