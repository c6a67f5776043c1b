package reportinggoogle

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/oauthflow"
	"github.com/groundwork-go/groundwork/internal/openapi"
	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/internal/seal"
	"github.com/groundwork-go/groundwork/internal/web"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingstore"
)

// OAuth defaults.
const (
	// OAuthPrefixDefault is where the connection routes are.
	OAuthPrefixDefault = "/google/auth"
	// RefreshEarly refreshes an access token this long before it expires.
	RefreshEarly = 60 * time.Second
	// stateCookie carries the flow's state and PKCE verifier, sealed.
	stateCookie = "gw_google_oauth"
)

// BaseScopes are asked for besides the sources' own.
var BaseScopes = []string{"openid", "https://www.googleapis.com/auth/userinfo.email", "https://www.googleapis.com/auth/userinfo.profile"}

// OAuthOptions configures [NewOAuth]; ClientID, ClientSecret,
// RedirectURL, Store, Key and UserID are required.
type OAuthOptions struct {
	ClientID, ClientSecret, RedirectURL string
	// Endpoint is Google's ([Endpoint]) when zero; a test double's
	// otherwise.
	Endpoint oauth2.Endpoint
	// Scopes are the sources' (ScopeSearchConsole, ScopeAnalytics);
	// BaseScopes are added.
	Scopes []string
	Store  reporting.ConnectionStore
	// Key (32 bytes) seals the tokens at rest and the flow's cookie.
	Key []byte
	// UserID is the signed-in user of a request, or false.
	UserID func(r *http.Request) (string, bool)
	// UserFromContext is the signed-in user of a source call's context
	// (the request's); UserID's answer on the request is not available
	// there.
	UserFromContext func(ctx context.Context) (string, bool)
	// Prefix: OAuthPrefixDefault when empty. AfterConnect is where the
	// callback and disconnect send the user ("/" when empty), with
	// ?google=connected or ?google=error.
	Prefix, AfterConnect string
	// HTTPClient sends the token requests; http.DefaultClient when nil.
	HTTPClient *http.Client
	// Now is the clock; time.Now when nil.
	Now    func() time.Time
	Logger *slog.Logger
}

// OAuth is a user's own Google connection: the routes that connect and
// disconnect it (authorization code with PKCE S256, a state checked in
// constant time, offline access), and the Clients that call Google with
// it, refreshing the token RefreshEarly before it expires. A refused
// refresh (invalid_grant) disconnects it. Safe for concurrent use.
type OAuth struct {
	o      OAuthOptions
	cfg    oauth2.Config
	sealer *seal.Sealer
	prefix string
	mux    *http.ServeMux
	flow   *oauthflow.Flow
	mu     sync.Mutex // one refresh at a time per instance
}

// NewOAuth returns the connection routes and clients.
func NewOAuth(o OAuthOptions) (*OAuth, error) {
	if o.ClientID == "" || o.ClientSecret == "" || o.RedirectURL == "" || o.Store == nil || o.UserID == nil || o.UserFromContext == nil {
		return nil, errors.New("reportinggoogle: oauth: the client ID and secret, the redirect URL, a store and the user lookups are required")
	}
	sealer, err := seal.New(o.Key)
	if err != nil {
		return nil, fmt.Errorf("reportinggoogle: oauth: Key: %w", err)
	}
	if o.Endpoint.AuthURL == "" {
		o.Endpoint = Endpoint
	}
	if o.Prefix == "" {
		o.Prefix = OAuthPrefixDefault
	}
	if o.AfterConnect == "" {
		o.AfterConnect = "/"
	}
	if o.HTTPClient == nil {
		o.HTTPClient = http.DefaultClient
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	scopes := slices.Clone(BaseScopes)
	for _, s := range o.Scopes {
		if !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
	}
	a := &OAuth{o: o, sealer: sealer, prefix: strings.TrimSuffix(o.Prefix, "/"), mux: http.NewServeMux(),
		cfg: oauth2.Config{ClientID: o.ClientID, ClientSecret: o.ClientSecret, RedirectURL: o.RedirectURL, Endpoint: o.Endpoint, Scopes: scopes}}
	a.flow = &oauthflow.Flow{Config: &a.cfg, Sealer: sealer, Cookie: stateCookie, Path: a.prefix, HTTPClient: o.HTTPClient, Now: o.Now}
	a.mux.HandleFunc("GET "+a.prefix+"/connect", a.connect)
	a.mux.HandleFunc("GET "+a.prefix+"/reauthorize", a.connect)
	a.mux.HandleFunc("GET "+a.prefix+"/callback", a.callback)
	a.mux.HandleFunc("POST "+a.prefix+"/disconnect", a.disconnect)
	a.mux.HandleFunc("GET "+a.prefix+"/status", a.status)
	return a, nil
}

// ServeHTTP implements http.Handler.
func (a *OAuth) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.mux.ServeHTTP(w, r) }

// Routes lists the routes, as "METHOD /path".
//
//go:embed openapi.json
var openAPIDescription []byte

// OpenAPI describes the connection routes, under the handler's prefix,
// as an OpenAPI 3.1 part to merge into a host's document; see
// groundwork.OpenAPI.
func (a *OAuth) OpenAPI() (*groundwork.OpenAPI, error) {
	return openapi.Part(openAPIDescription, a.prefix, OAuthPrefixDefault, a.Routes())
}

// Routes lists the routes, as "METHOD /path".
func (a *OAuth) Routes() []string {
	return []string{"GET " + a.prefix + "/connect", "GET " + a.prefix + "/reauthorize", "GET " + a.prefix + "/callback",
		"POST " + a.prefix + "/disconnect", "GET " + a.prefix + "/status"}
}

func (a *OAuth) unauthenticated(w http.ResponseWriter) {
	reply.WriteJSON(w, http.StatusUnauthorized, map[string]string{"error": "unauthenticated", "message": "Sign in to connect a Google account."})
}

func (a *OAuth) connect(w http.ResponseWriter, r *http.Request) {
	user, ok := a.o.UserID(r)
	if !ok {
		a.unauthenticated(w)
		return
	}
	a.flow.Begin(w, r, user)
}

func (a *OAuth) back(w http.ResponseWriter, r *http.Request, outcome string) {
	u, _ := url.Parse(a.o.AfterConnect)
	q := u.Query()
	q.Set("google", outcome)
	u.RawQuery = q.Encode()
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}

func (a *OAuth) callback(w http.ResponseWriter, r *http.Request) {
	user, ok := a.o.UserID(r)
	if !ok {
		a.unauthenticated(w)
		return
	}
	tok, subject, err := a.flow.Finish(w, r)
	if err == nil && subject != user {
		err = oauthflow.ErrRefused
	}
	if err != nil {
		a.o.Logger.WarnContext(r.Context(), "reportinggoogle: connect refused", "user", user, "error", err)
		a.back(w, r, "error")
		return
	}
	if err := a.save(r.Context(), user, tok, reportingstore.StatusConnected, "", nil); err != nil {
		a.o.Logger.ErrorContext(r.Context(), "reportinggoogle: save connection", "user", user, "error", err)
		a.back(w, r, "error")
		return
	}
	a.back(w, r, "connected")
}

// save seals and stores a user's tokens; a token without a refresh token
// keeps the stored one.
func (a *OAuth) save(ctx context.Context, user string, tok *oauth2.Token, status reportingstore.ConnectionStatus, reason string, old *reportingstore.GoogleConnection) error {
	c := reportingstore.GoogleConnection{UserID: user, Status: status, DisconnectionReason: reason, UpdatedAt: a.o.Now().UTC(),
		TokenType: tok.Type(), ExpiresAt: tok.Expiry}
	c.SealedAccessToken = a.sealer.Seal(tok.AccessToken, []byte("access:"+user))
	switch {
	case tok.RefreshToken != "":
		c.SealedRefreshToken = a.sealer.Seal(tok.RefreshToken, []byte("refresh:"+user))
	case old != nil:
		c.SealedRefreshToken = old.SealedRefreshToken
	}
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		c.Scopes = strings.Fields(s)
	} else if old != nil {
		c.Scopes = old.Scopes
	} else {
		c.Scopes = a.cfg.Scopes
	}
	return a.o.Store.SaveGoogleConnection(ctx, c)
}

func (a *OAuth) disconnect(w http.ResponseWriter, r *http.Request) {
	user, ok := a.o.UserID(r)
	if !ok {
		a.unauthenticated(w)
		return
	}
	c, err := a.o.Store.GoogleConnection(r.Context(), user)
	if err == nil {
		c.Status, c.DisconnectionReason, c.UpdatedAt = reportingstore.StatusDisconnected, "disconnected by the user", a.o.Now().UTC()
		c.SealedAccessToken, c.SealedRefreshToken = "", ""
		err = a.o.Store.SaveGoogleConnection(r.Context(), c)
	}
	if err != nil && !errors.Is(err, reporting.ErrNoConnection) {
		api.WriteError(w, r, a.o.Logger, nil, err)
		return
	}
	if web.WantsJSON(r) {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	a.back(w, r, "disconnected")
}

// Status is GET {prefix}/status.
type Status struct {
	Connected      bool     `json:"connected"`
	Status         string   `json:"status"`
	Scopes         []string `json:"scopes"`
	Reason         string   `json:"disconnect_reason,omitempty"`
	ConnectURL     string   `json:"connect_url"`
	ReauthorizeURL string   `json:"reauthorize_url"`
	DisconnectURL  string   `json:"disconnect_url"`
}

func (a *OAuth) status(w http.ResponseWriter, r *http.Request) {
	user, ok := a.o.UserID(r)
	if !ok {
		a.unauthenticated(w)
		return
	}
	s := Status{Status: "none", Scopes: []string{}, ConnectURL: a.prefix + "/connect", ReauthorizeURL: a.prefix + "/reauthorize",
		DisconnectURL: a.prefix + "/disconnect"}
	c, err := a.o.Store.GoogleConnection(r.Context(), user)
	switch {
	case err == nil:
		s.Connected, s.Status, s.Reason = c.Status == reportingstore.StatusConnected, string(c.Status), c.DisconnectionReason
		if c.Scopes != nil {
			s.Scopes = c.Scopes
		}
	case !errors.Is(err, reporting.ErrNoConnection):
		api.WriteError(w, r, a.o.Logger, nil, err)
		return
	}
	reply.WriteJSON(w, http.StatusOK, s)
}

// Client implements Clients: the calling user's connection, its token
// refreshed RefreshEarly before it expires. ErrNotConnected without one;
// ErrReconnect when Google refuses the refresh (the connection is then
// marked disconnected).
func (a *OAuth) Client(ctx context.Context) (*http.Client, string, error) {
	user, ok := a.o.UserFromContext(ctx)
	if !ok {
		return nil, "", reporting.ErrNotConnected
	}
	c, err := a.o.Store.GoogleConnection(ctx, user)
	if errors.Is(err, reporting.ErrNoConnection) || err == nil && c.Status != reportingstore.StatusConnected {
		return nil, "", reporting.ErrNotConnected
	}
	if err != nil {
		return nil, "", err
	}
	access, err1 := a.sealer.Open(c.SealedAccessToken, []byte("access:"+user))
	refresh, err2 := a.sealer.Open(c.SealedRefreshToken, []byte("refresh:"+user))
	if err1 != nil || err2 != nil {
		return nil, "", &reporting.SourceError{Message: "The stored Google connection cannot be read; connect again.", Err: errors.Join(err1, err2)}
	}
	tok := &oauth2.Token{AccessToken: access, RefreshToken: refresh, TokenType: c.TokenType, Expiry: c.ExpiresAt}
	base := context.WithValue(context.WithoutCancel(ctx), oauth2.HTTPClient, a.o.HTTPClient)
	src := &savingSource{a: a, user: user, old: c, next: a.cfg.TokenSource(base, tok), noRefresh: refresh == ""}
	ts := oauth2.ReuseTokenSourceWithExpiry(tok, src, RefreshEarly)
	return oauth2.NewClient(base, ts), "google:" + user, nil
}

// savingSource stores each refreshed token, and disconnects the user on
// invalid_grant.
type savingSource struct {
	a         *OAuth
	user      string
	old       reportingstore.GoogleConnection
	next      oauth2.TokenSource
	noRefresh bool
}

func (s *savingSource) Token() (*oauth2.Token, error) {
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	ctx := context.Background()
	tok, err := s.next.Token()
	var re *oauth2.RetrieveError
	if err != nil && (s.noRefresh || errors.As(err, &re) && re.ErrorCode == "invalid_grant") {
		c := s.old
		c.Status, c.DisconnectionReason, c.UpdatedAt = reportingstore.StatusDisconnected, "invalid_grant", s.a.o.Now().UTC()
		c.SealedAccessToken, c.SealedRefreshToken = "", ""
		if serr := s.a.o.Store.SaveGoogleConnection(ctx, c); serr != nil {
			s.a.o.Logger.Error("reportinggoogle: disconnect", "user", s.user, "error", serr)
		}
		return nil, fmt.Errorf("%w: %v", reporting.ErrReconnect, err)
	}
	if err != nil {
		return nil, err
	}
	if serr := s.a.save(ctx, s.user, tok, reportingstore.StatusConnected, "", &s.old); serr != nil {
		s.a.o.Logger.Error("reportinggoogle: save refreshed token", "user", s.user, "error", serr)
	}
	return tok, nil
}
