// Package openid signs auth's users in with an OpenID Connect provider:
// Google, Microsoft, Okta, Keycloak, or any issuer that publishes its
// discovery document. The sign-in page gets a button per provider; the
// flow is the authorization code flow with PKCE, a state and a nonce,
// and the ID token's signature, issuer, audience and expiry are
// verified (github.com/coreos/go-oidc over golang.org/x/oauth2). The
// provider's account signs in the user it is linked to; else the user
// whose address the provider has verified, to whom it is then linked;
// else a new user (unless registration is off). A user with two-factor
// sign-in is still asked for their code (auth.Web.CompleteSignIn). On
// the page at PagePath a user sees the accounts linked to theirs, links
// another and removes one.
//
// The flow keeps nothing on the server until it ends: its state, nonce
// and PKCE verifier travel in a short-lived cookie signed with the
// handler's key, so any instance may answer the provider's redirect.
package openid

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/internal/oauthflow"
	"github.com/groundwork-go/groundwork/internal/seal"
	"github.com/groundwork-go/groundwork/internal/web"
)

// Provider is an OpenID provider users may sign in with.
type Provider struct {
	// Name names it in the paths ("google": /login/openid/google); lower
	// case letters, digits and hyphens. Its callback, the redirect URI
	// to register with the provider, is the site's address followed by
	// /login/openid/{Name}/callback.
	Name string
	// Label is how the pages name it ("Google").
	Label string
	// Issuer is its issuer URL, from which its discovery document
	// (Issuer + "/.well-known/openid-configuration") is read.
	Issuer string
	// ClientID and ClientSecret are this site's credentials at the
	// provider.
	ClientID, ClientSecret string
	// Scopes asked for; "openid", "email" and "profile" when empty
	// ("read:user" and "user:email" for GitHub).
	Scopes []string
	// GitHub signs in with GitHub's OAuth flow, as GitHub's accounts
	// have no OpenID Connect: Issuer is then GitHub's address
	// ("https://github.com", or a GitHub Enterprise Server's), whose
	// /login/oauth endpoints authorize, and whose API (api.github.com,
	// or the server's /api/v3) gives the account's ID, name and
	// verified primary address.
	GitHub bool
}

// PagePath is the page of a signed-in user's linked accounts.
const PagePath = "/settings/sign-in-accounts"

// Template is the page's template, which Options.Templates may replace.
const Template = "openid/accounts.html"

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`)

// Options configure a Handler.
type Options struct {
	// Providers are the providers offered, in the order of their buttons.
	// At least one.
	Providers []Provider
	// Users makes, finds and signs in the users; SignIn is its web
	// sign-in, which ends every flow (two-factor sign-in included).
	// Both required.
	Users  *auth.Service
	SignIn *auth.Web
	// Key seals the flow's cookie; 32 bytes (the host's
	// groundwork.Keys.For("openid")).
	Key []byte
	// BaseURL is the site's public address, from which the callback URL
	// is made; the request's own scheme and host when nil (set it in
	// production).
	BaseURL *url.URL
	// DisableRegistration refuses a sign-in whose account is linked to
	// no user and whose address no user has, instead of making a user.
	DisableRegistration bool
	// HTTPClient talks to the providers; one with a 10-second timeout
	// when nil.
	HTTPClient *http.Client
	// Templates replace the page's own (Template) and the layout's, by
	// name. Logger, Brand and Navigator are the page's (see
	// groundwork.HTTPOptions); TrustedOrigins may post to it besides its
	// own origin.
	Templates      fs.FS
	Logger         *slog.Logger
	Brand          groundwork.Brand
	Navigator      groundwork.Navigator
	TrustedOrigins []string
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// SignInButtons are the sign-in page's buttons of providers
// (auth.WebOptions.SignInWith).
func SignInButtons(providers []Provider) []groundwork.NavLink {
	out := make([]groundwork.NavLink, len(providers))
	for i, p := range providers {
		out[i] = groundwork.NavLink{Text: "Sign in with " + p.Label, URL: "/login/openid/" + p.Name}
	}
	return out
}

// Handler serves the flow and the linked accounts' page, working
// without JavaScript:
//
//	GET  /login/openid/{provider}           start a sign-in (the sign-in page's link)
//	GET  /login/openid/{provider}/callback  where the provider sends the browser back
//	GET  /settings/sign-in-accounts         the signed-in user's linked accounts
//	POST /settings/sign-in-accounts/{provider}    link another (starts the flow)
//	POST /settings/sign-in-accounts/{id}/remove   remove one
//
// It puts Options.SignIn's LoadUser in front of itself, and its
// RequireUser in front of the page. Posts from other origins are
// refused.
type Handler struct {
	base      *web.Base
	serve     http.Handler
	st        Store
	users     *auth.Service
	signIn    *auth.Web
	sealer    *seal.Sealer
	baseURL   *url.URL
	client    *http.Client
	register  bool
	now       func() time.Time
	providers []*provider
}

// provider is a Provider with its discovery document, read on first use
// (a provider down when the host starts is tried again on the next
// sign-in).
type provider struct {
	Provider
	mu       sync.Mutex
	disc     *oidc.Provider
	verifier *oidc.IDTokenVerifier
}

//go:embed templates
var templatesFS embed.FS

// New returns the handler of the identities kept in st.
func New(st Store, opts *Options) (*Handler, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	switch {
	case st == nil || o.Users == nil || o.SignIn == nil:
		return nil, errors.New("openid: new: a store, Users and SignIn are needed")
	case len(o.Key) != 32:
		return nil, errors.New("openid: new: a Key of 32 bytes is needed")
	case len(o.Providers) == 0:
		return nil, errors.New("openid: new: no provider")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	h := &Handler{st: st, users: o.Users, signIn: o.SignIn, baseURL: o.BaseURL, register: !o.DisableRegistration,
		now: o.Now, client: cmp.Or(o.HTTPClient, &http.Client{Timeout: 10 * time.Second})}
	for _, p := range o.Providers {
		if !nameRE.MatchString(p.Name) {
			return nil, fmt.Errorf("openid: new: provider name %q: lower-case letters, digits and hyphens", p.Name)
		}
		if p.Label == "" || p.Issuer == "" || p.ClientID == "" {
			return nil, fmt.Errorf("openid: new: provider %q needs a Label, an Issuer and a ClientID", p.Name)
		}
		if h.provider(p.Name) != nil {
			return nil, fmt.Errorf("openid: new: two providers named %q", p.Name)
		}
		h.providers = append(h.providers, &provider{Provider: p})
	}
	var err error
	if h.sealer, err = seal.New(o.Key); err != nil {
		return nil, fmt.Errorf("openid: new: %w", err)
	}
	pages, _ := fs.Sub(templatesFS, "templates")
	base, err := web.NewBase(web.BaseOptions{Domain: "openid", Pages: pages, Override: o.Templates, Key: o.Key, Logger: o.Logger,
		Brand: o.Brand, Navigator: o.Navigator, AssetPrefix: PagePath + "/_assets",
		NotFound: web.ErrorPage{Heading: "Page not found", Message: "There is no page at this address."},
		Failure:  web.Problem{ErrorPage: web.ErrorPage{Heading: "Something went wrong", Message: "Please try again in a moment."}},
		Explain:  explain, Protect: true, TrustedOrigins: o.TrustedOrigins, MaxFormBytes: 4 << 10})
	if err != nil {
		return nil, err
	}
	h.base = base
	base.Mux.HandleFunc("GET /login/openid/{provider}", base.Func(h.start))
	base.Mux.HandleFunc("GET /login/openid/{provider}/callback", base.Func(h.callback))
	user := o.SignIn.RequireUser
	base.Mux.Handle("GET "+PagePath, user(base.Func(h.page)))
	base.Mux.Handle("POST "+PagePath+"/{provider}", user(base.Func(h.startLink)))
	base.Mux.Handle("POST "+PagePath+"/{id}/remove", user(base.Func(h.remove)))
	h.serve = o.SignIn.LoadUser(base)
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.serve.ServeHTTP(w, r) }

// Mount puts the handler's routes on mux.
func (h *Handler) Mount(mux *http.ServeMux) {
	for _, p := range []string{"/login/openid/", PagePath, PagePath + "/"} {
		mux.Handle(p, h)
	}
}

// Routes lists the routes, as "METHOD /path/{param}".
func (h *Handler) Routes() []string {
	return []string{"GET /login/openid/{provider}", "GET /login/openid/{provider}/callback", "GET " + PagePath,
		"POST " + PagePath + "/{provider}", "POST " + PagePath + "/{id}/remove", "GET " + PagePath + "/_assets/{file}"}
}

func (h *Handler) provider(name string) *provider {
	for _, p := range h.providers {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// discover reads p's discovery document once it is reachable; a GitHub
// provider has none.
func (h *Handler) discover(ctx context.Context, p *provider) (*oidc.Provider, *oidc.IDTokenVerifier, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.disc == nil && !p.GitHub {
		d, err := oidc.NewProvider(oidc.ClientContext(ctx, h.client), p.Issuer)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: discovery of %s: %w", errProvider, p.Issuer, err)
		}
		p.disc = d
		p.verifier = d.Verifier(&oidc.Config{ClientID: p.ClientID, Now: h.now})
	}
	return p.disc, p.verifier, nil
}

// endpoint is where p authorizes and exchanges codes.
func endpoint(p *provider, d *oidc.Provider) oauth2.Endpoint {
	if p.GitHub {
		return githubEndpoint(p.Issuer)
	}
	return d.Endpoint()
}

func (h *Handler) config(r *http.Request, p *provider, d *oidc.Provider) *oauth2.Config {
	scopes := p.Scopes
	switch {
	case len(scopes) > 0:
	case p.GitHub:
		scopes = []string{"read:user", "user:email"}
	default:
		scopes = []string{oidc.ScopeOpenID, "email", "profile"}
	}
	return &oauth2.Config{ClientID: p.ClientID, ClientSecret: p.ClientSecret, Endpoint: endpoint(p, d), Scopes: scopes,
		RedirectURL: web.LinkBase(r, h.baseURL) + "/login/openid/" + p.Name + "/callback"}
}

// flow is p's authorization code flow for r: its state, PKCE verifier
// and what the caller binds to it kept in a sealed cookie whose path is
// the provider's, so flows with two providers do not meet.
func (h *Handler) flow(r *http.Request, p *provider, d *oidc.Provider) *oauthflow.Flow {
	return &oauthflow.Flow{Config: h.config(r, p, d), Sealer: h.sealer, Cookie: "gw_openid_" + strings.ReplaceAll(p.Name, "-", "_"),
		Path: "/login/openid/" + p.Name, HTTPClient: h.client, Now: h.now, AuthOptions: []oauth2.AuthCodeOption{}}
}

func random() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (h *Handler) start(w http.ResponseWriter, r *http.Request) error { return h.begin(w, r, 0) }

// begin sends the browser to the provider, for linkUser (a signed-in
// user linking an account) or, when 0, to sign in. The flow binds the
// user and the nonce the ID token must carry.
func (h *Handler) begin(w http.ResponseWriter, r *http.Request, linkUser int64) error {
	p := h.provider(r.PathValue("provider"))
	if p == nil {
		return errNoProvider
	}
	d, _, err := h.discover(r.Context(), p)
	if err != nil {
		return err
	}
	nonce := random()
	h.flow(r, p, d).Begin(w, r, strconv.FormatInt(linkUser, 10)+" "+nonce, oidc.Nonce(nonce))
	return nil
}

// claims are what a sign-in learns of the provider's account.
type claims struct {
	Subject       string `json:"sub"`
	Email         string `json:"email"`
	EmailVerified *bool  `json:"email_verified"`
	Name          string `json:"name"`
}

// callback ends a flow: the state must be the one this browser's flow
// sent, the code is exchanged with its PKCE verifier, the ID token
// verified and its nonce matched.
func (h *Handler) callback(w http.ResponseWriter, r *http.Request) (err error) {
	defer func() {
		if errors.Is(err, errRefused) || errors.Is(err, errProvider) { // the host's to mend: a secret, a clock, the network
			h.base.Logger.WarnContext(r.Context(), "openid: sign-in refused", "provider", r.PathValue("provider"), "error", err)
		}
	}()
	p := h.provider(r.PathValue("provider"))
	if p == nil {
		return errNoProvider
	}
	d, verifier, err := h.discover(r.Context(), p)
	if err != nil {
		return err
	}
	tok, bound, err := h.flow(r, p, d).Finish(w, r)
	switch {
	case errors.Is(err, oauthflow.ErrRefused) && r.URL.Query().Has("error"):
		return fmt.Errorf("%w: %w", errCancelled, err)
	case errors.Is(err, oauthflow.ErrRefused):
		return fmt.Errorf("%w: %w", errState, err)
	case err != nil:
		return fmt.Errorf("%w: %w", errRefused, err)
	}
	user, nonce, _ := strings.Cut(bound, " ")
	linkUser, _ := strconv.ParseInt(user, 10, 64)
	ctx := oidc.ClientContext(r.Context(), h.client)
	var id Identity
	var c claims
	if p.GitHub {
		if c, err = h.githubAccount(ctx, p, tok); err != nil {
			return err
		}
		id = Identity{Issuer: p.Issuer}
	} else if id, c, err = h.verify(ctx, d, verifier, tok, nonce); err != nil {
		return err
	}
	id.Provider, id.Subject, id.Email, id.CreatedAt = p.Name, c.Subject, auth.NormalizeEmail(c.Email), h.now().UTC()
	if linkUser != 0 {
		return h.link(w, r, p, linkUser, id)
	}
	u, err := h.userFor(r.Context(), id, c)
	if err != nil {
		return err
	}
	return h.signIn.CompleteSignIn(w, r, u, false)
}

// verify checks an OpenID provider's ID token (its signature, issuer,
// audience, expiry, and the flow's nonce) and reads the account's
// claims from it, else from the userinfo endpoint.
func (h *Handler) verify(ctx context.Context, d *oidc.Provider, verifier *oidc.IDTokenVerifier, tok *oauth2.Token, nonce string) (Identity, claims, error) {
	raw, _ := tok.Extra("id_token").(string)
	var c claims
	if raw == "" {
		return Identity{}, c, fmt.Errorf("%w: no ID token", errRefused)
	}
	idt, err := verifier.Verify(ctx, raw)
	if err != nil {
		return Identity{}, c, fmt.Errorf("%w: ID token: %w", errRefused, err)
	}
	if nonce == "" || subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(nonce)) != 1 {
		return Identity{}, c, fmt.Errorf("%w: the ID token's nonce is not the flow's", errRefused)
	}
	if err := idt.Claims(&c); err != nil {
		return Identity{}, c, fmt.Errorf("%w: ID token claims: %w", errRefused, err)
	}
	if c.Email == "" {
		// Many providers keep the address for the userinfo endpoint.
		info, err := d.UserInfo(ctx, oauth2.StaticTokenSource(tok))
		if err != nil {
			return Identity{}, c, fmt.Errorf("%w: userinfo: %w", errRefused, err)
		}
		if info.Subject != idt.Subject {
			return Identity{}, c, fmt.Errorf("%w: userinfo is of another subject", errRefused)
		}
		if err := info.Claims(&c); err != nil {
			return Identity{}, c, fmt.Errorf("%w: userinfo claims: %w", errRefused, err)
		}
	}
	c.Subject = idt.Subject
	return Identity{Issuer: idt.Issuer}, c, nil
}

// userFor is the user the provider's account signs in as: the one it is
// linked to; else the one whose address it has verified, linking it;
// else a new one, linked.
func (h *Handler) userFor(ctx context.Context, id Identity, c claims) (auth.User, error) {
	for range 2 { // a second time when another instance linked it first
		linked, err := h.st.IdentityBySubject(ctx, id.Issuer, id.Subject)
		if err == nil {
			return h.users.User(ctx, linked.UserID)
		}
		if !errors.Is(err, ErrNotFound) {
			return auth.User{}, err
		}
		verified := c.EmailVerified != nil && *c.EmailVerified
		u, err := h.users.UserByEmail(ctx, id.Email)
		switch {
		case id.Email == "":
			return auth.User{}, errNoEmail
		case err == nil && !verified:
			return auth.User{}, errUnverified
		case errors.Is(err, auth.ErrNotFound) && !h.register:
			return auth.User{}, errNoAccount
		case errors.Is(err, auth.ErrNotFound):
			name := cmp.Or(strings.TrimSpace(c.Name), strings.Split(id.Email, "@")[0])
			u, err = h.users.CreateUser(ctx, auth.NewUser{Name: name, Email: id.Email, Password: random() + random(), Verified: verified})
			if errors.Is(err, auth.ErrEmailTaken) {
				continue
			}
		}
		if err != nil {
			return auth.User{}, err
		}
		id.UserID = u.ID
		if _, err := h.st.LinkIdentity(ctx, id); errors.Is(err, ErrLinked) {
			continue
		} else if err != nil {
			return auth.User{}, err
		}
		return u, nil
	}
	return auth.User{}, errors.New("openid: the account was linked and unlinked while signing in")
}

// link links the provider's account to the user who started the flow,
// who must be the one signed in.
func (h *Handler) link(w http.ResponseWriter, r *http.Request, p *provider, userID int64, id Identity) error {
	u, ok := auth.UserFrom(r.Context())
	if !ok || u.ID != userID {
		return errState
	}
	id.UserID = u.ID
	msg := "Your " + p.Label + " account is linked: you may sign in with it."
	if _, err := h.st.LinkIdentity(r.Context(), id); errors.Is(err, ErrLinked) {
		linked, err := h.st.IdentityBySubject(r.Context(), id.Issuer, id.Subject)
		if err != nil {
			return err
		}
		if linked.UserID != u.ID {
			return errLinkedElsewhere
		}
		msg = "That " + p.Label + " account was linked to yours already."
	} else if err != nil {
		return err
	}
	h.base.Render.SetFlash(w, r, PagePath, web.Flash{Kind: "success", Message: msg})
	web.SeeOther(w, r, PagePath)
	return nil
}
