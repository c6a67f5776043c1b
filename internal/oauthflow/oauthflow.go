// Package oauthflow is the browser half of an OAuth 2.0 authorization
// code flow with PKCE (S256): the state and verifier kept in a sealed,
// short-lived cookie, the consent page's answer checked (state in
// constant time, expiry, whose flow it is), the code traded for tokens.
// The domains that connect a person's Google account use it.
package oauthflow

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"golang.org/x/oauth2"

	"github.com/groundwork-go/groundwork/internal/seal"
)

// GoogleEndpoint is Google's OAuth 2.0 endpoint for a person's consent:
// the values of golang.org/x/oauth2/google.Endpoint, named here so that
// no package links that package's machinery for cloud credentials
// (metadata servers, workload identity), which a web server never uses.
var GoogleEndpoint = oauth2.Endpoint{
	AuthURL:       "https://accounts.google.com/o/oauth2/auth",
	TokenURL:      "https://oauth2.googleapis.com/token",
	DeviceAuthURL: "https://oauth2.googleapis.com/device/code",
	AuthStyle:     oauth2.AuthStyleInParams,
}

// TTL is how long a flow may take from its start to the callback.
const TTL = 10 * time.Minute

// Flow is one kind of consent flow. Its fields are set once.
type Flow struct {
	Config *oauth2.Config
	Sealer *seal.Sealer
	// Cookie names the state cookie; Path is the cookie's path, which must
	// cover the callback.
	Cookie, Path string
	// HTTPClient sends the token request; http.DefaultClient when nil.
	HTTPClient *http.Client
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// AuthOptions are asked of the consent page besides the state and
	// the PKCE challenge; Offline when nil.
	AuthOptions []oauth2.AuthCodeOption
}

// Offline asks for offline access (a refresh token) and consent again,
// so a refresh token is given each time: what connecting an account to
// use it later needs.
var Offline = []oauth2.AuthCodeOption{oauth2.AccessTypeOffline, oauth2.ApprovalForce, oauth2.SetAuthURLParam("include_granted_scopes", "true")}

type state struct {
	State    string    `json:"s"`
	Verifier string    `json:"v"`
	Subject  string    `json:"u"`
	Expires  time.Time `json:"e"`
}

func (f *Flow) now() time.Time {
	if f.Now == nil {
		return time.Now()
	}
	return f.Now()
}

// Begin starts a flow for subject (who, or what, is being connected, and
// whatever else the caller binds to the flow, such as an OpenID nonce):
// it sets the state cookie and sends the browser to the consent page
// with f.AuthOptions and extra.
func (f *Flow) Begin(w http.ResponseWriter, r *http.Request, subject string, extra ...oauth2.AuthCodeOption) {
	b := make([]byte, 30)
	rand.Read(b)
	st := state{State: base64.RawURLEncoding.EncodeToString(b), Verifier: oauth2.GenerateVerifier(), Subject: subject,
		Expires: f.now().Add(TTL)}
	raw, _ := json.Marshal(st)
	http.SetCookie(w, &http.Cookie{Name: f.Cookie, Value: f.Sealer.Seal(string(raw), []byte(f.Cookie)), Path: f.Path,
		MaxAge: int(TTL / time.Second), HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode})
	opts := f.AuthOptions
	if opts == nil {
		opts = Offline
	}
	opts = append(append(append([]oauth2.AuthCodeOption(nil), opts...), extra...), oauth2.S256ChallengeOption(st.Verifier))
	http.Redirect(w, r, f.Config.AuthCodeURL(st.State, opts...), http.StatusFound)
}

// ErrRefused is a callback that is not the answer to a flow this browser
// began: no or a spoilt cookie, another state, too late, or the person
// said no (the provider's error code is in the wrapping text).
var ErrRefused = errors.New("oauthflow: the consent answer was refused")

// Finish checks the callback request against the flow's cookie, clears
// the cookie and trades the code for tokens. It returns the subject the
// flow was begun for, which the caller checks against the request's.
func (f *Flow) Finish(w http.ResponseWriter, r *http.Request) (*oauth2.Token, string, error) {
	http.SetCookie(w, &http.Cookie{Name: f.Cookie, Value: "", Path: f.Path, MaxAge: -1, HttpOnly: true})
	var st state
	c, err := r.Cookie(f.Cookie)
	if err == nil {
		var raw string
		if raw, err = f.Sealer.Open(c.Value, []byte(f.Cookie)); err == nil {
			err = json.Unmarshal([]byte(raw), &st)
		}
	}
	q := r.URL.Query()
	code, given := q.Get("code"), q.Get("state")
	switch {
	case q.Get("error") != "":
		return nil, st.Subject, fmt.Errorf("%w: %s", ErrRefused, q.Get("error"))
	case err != nil, code == "", given == "", f.now().After(st.Expires),
		subtle.ConstantTimeCompare([]byte(given), []byte(st.State)) != 1:
		return nil, st.Subject, ErrRefused
	}
	ctx := r.Context()
	if f.HTTPClient != nil {
		ctx = context.WithValue(ctx, oauth2.HTTPClient, f.HTTPClient)
	}
	tok, err := f.Config.Exchange(ctx, code, oauth2.VerifierOption(st.Verifier))
	if err != nil {
		return nil, st.Subject, fmt.Errorf("oauthflow: code exchange: %w", err)
	}
	return tok, st.Subject, nil
}
