package auth

import (
	"context"
	"crypto/sha256"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/auth/authstore"
	"github.com/groundwork-go/groundwork/internal/proxies"
	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/internal/seal"
	"github.com/groundwork-go/groundwork/internal/web"
	"github.com/groundwork-go/groundwork/store/driverless"
)

//go:embed all:templates
var templatesFS embed.FS

// Cookie names and the sign-in pages' paths.
const (
	// SessionCookie holds the session id: HttpOnly, SameSite=Lax, Secure
	// over TLS, ending with the browser session.
	SessionCookie = "gw_session"
	// RememberCookie holds the remember-me token for RememberLifetime.
	RememberCookie = "gw_remember"
	// intendedCookie remembers the page a guest was sent away from, to
	// return there after signing in (a local path only).
	intendedCookie = "gw_intended"
	// AssetPrefix is where the pages' stylesheet is served.
	AssetPrefix = "/auth/_assets"
	// HomePathDefault is where a signed-in user is sent by default.
	HomePathDefault = "/dashboard"
	// VerifyThrottleDefault is how many verification links a user may
	// follow or ask for a minute.
	VerifyThrottleDefault = 6
)

// Template names a host's WebOptions.Templates may replace (beside the
// page layer's, named in the root: groundwork.LayoutTemplate,
// FieldsTemplate, ErrorTemplate and Stylesheet).
const (
	LoginTemplate          = "auth/login.html"
	RegisterTemplate       = "auth/register.html"
	ForgotTemplate         = "auth/forgot-password.html"
	ResetTemplate          = "auth/reset-password.html"
	VerifyTemplate         = "auth/verify-email.html"
	ConfirmTemplate        = "auth/confirm-password.html"
	TokensTemplate         = "auth/tokens.html"
	RevokeTemplate         = "auth/revoke-token.html"
	HomeTemplate           = "auth/home.html"
	maxFormBytes     int64 = 64 << 10
)

// WebOptions configures [NewWeb]. Nil means the defaults.
type WebOptions struct {
	// HTTPOptions: BaseURL is the site's public address, from which the
	// links in reset and verification mails are made (set it in
	// production: when nil, links use the request's own scheme and Host);
	// the RateLimiter counts the verification throttle (VerifyThrottle a
	// minute per user); TrustedProxies may set X-Forwarded-For (the
	// lock-out counts per client IP).
	groundwork.HTTPOptions
	// Templates replaces page templates or the stylesheet by name (the
	// ...Template constants here and in the root, and
	// groundwork.Stylesheet).
	Templates fs.FS
	// DisableRegistration turns /register off (404).
	DisableRegistration bool
	// SignInLinks offers sign-in by a link mailed to the address (GET and
	// POST /login/link, then /login/link/{token}, which asks before it
	// signs in): it works once, for 15 minutes, through the second step
	// where the account has two-factor sign-in; asking is counted per
	// address and client, per account and per client, in the service's
	// Options.LoginLimiter, which also keeps which links were used (a
	// store.SQLRateLimiter makes both hold across instances). Off by
	// default.
	SignInLinks bool
	// SignInWith are other ways to sign in, each a link drawn as a
	// button on the sign-in page: an OpenID provider's
	// (openid.SignInButtons). The flow behind it ends in
	// [Web.CompleteSignIn].
	SignInWith []groundwork.NavLink
	// ProfileLinks are more tiles under "Signing in" on the account page
	// (/settings/profile): the accounts elsewhere a user signs in with
	// (auth/openid's page).
	ProfileLinks []groundwork.NavLink
	// RequireVerification makes registration send a verification mail
	// and [Web.RequireVerified] turn away unverified users. Off by
	// default: then RequireVerified lets every signed-in
	// user through.
	RequireVerification bool
	// HomePath is where sign-in, registration and verification lead when
	// no page was intended, and where a signed-in user visiting a guest
	// page is sent; HomePathDefault when empty. LogoutPath is where
	// signing out leads; "/" when empty.
	HomePath, LogoutPath string
	// Home is the signed-in user's page at HomePath, served by the Web
	// behind RequireUser. When nil and HomePath is the default, a
	// built-in home page is served (the user's name, whether their
	// address is verified, links to their API tokens, and a sign-out
	// button), so a sign-in never lands on a missing page; with another
	// HomePath and no Home, the host serves that path itself.
	Home http.Handler
	// TokenAbilities are the abilities offered on /settings/tokens (each
	// only to users whose capabilities cover it); the user's own
	// capabilities when empty.
	TokenAbilities []string
	VerifyThrottle int
	// SecureCookies marks cookies Secure whatever the request. Without it
	// they are Secure when the request came over TLS (directly, or through
	// one of HTTPOptions.TrustedProxies that says so in X-Forwarded-Proto)
	// or when BaseURL is https.
	SecureCookies bool
	// TrustedOrigins may post to the pages besides their own origin.
	TrustedOrigins []string
	// NavLinks are the signed-in user's links in every page's header
	// (see [Web.Navigation]); a link naming a capability shows only to
	// users who have it. NavLinksDefault when empty.
	NavLinks []groundwork.NavLink
	// AdminContact is how a user reaches whoever grants capabilities (an
	// email address), named on the pages where they lack one.
	AdminContact string
	// Place, when set, says the country a request comes from (an ISO
	// 3166 code, "" when unknown), kept with a session for the list of
	// the user's browsers: reportinggeo.Func is one.
	Place func(r *http.Request) string
}

// NavLinksDefault are the header links of a signed-in user: their home
// and their account (whose page leads to their API tokens, password,
// two-factor sign-in and browsers). A host adds its own pages (the
// reports) to these.
func NavLinksDefault(homePath string) []groundwork.NavLink {
	return []groundwork.NavLink{{Text: "Dashboard", URL: homePath}, {Text: "Account", URL: "/settings/profile"}}
}

// Web is web sign-in over HTTP: the pages of the nine flows (and the
// signed-in user's token settings), and the middleware a host puts in
// front of its own pages. Every POST is protected against other origins
// (net/http's CrossOriginProtection) and by the XSRF-TOKEN double-submit
// cookie. Mount it with [Web.Mount]; it is also an http.Handler serving
// exactly its own paths.
type Web struct {
	svc    *Service
	base   *web.Base
	render *web.Renderer
	mux    *http.ServeMux
	o      WebOptions
	// tokenSeal seals a new token across the redirect after it is made.
	tokenSeal *seal.Sealer
	// paths are mounted on a host's mux; patterns are the routes.
	paths    []string
	patterns []string
}

// NewWeb returns the sign-in pages and middleware of svc.
func NewWeb(svc *Service, opts *WebOptions) (*Web, error) {
	if svc == nil {
		return nil, errors.New("auth: new web: service is nil")
	}
	var o WebOptions
	if opts != nil {
		o = *opts
	}
	if o.HomePath == "" {
		o.HomePath = HomePathDefault
	}
	if o.LogoutPath == "" {
		o.LogoutPath = "/"
	}
	if !localPath(o.HomePath) || !localPath(o.LogoutPath) {
		return nil, errors.New("auth: new web: home and logout paths must be local paths")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.RateLimiter == nil {
		o.RateLimiter = driverless.NewMemoryRateLimiter(&driverless.RateLimiterOptions{Now: svc.now})
	}
	if o.VerifyThrottle == 0 {
		o.VerifyThrottle = VerifyThrottleDefault
	}
	for _, a := range o.TokenAbilities {
		if !ValidAbility(a) {
			return nil, fmt.Errorf("auth: new web: ability %q is malformed", a)
		}
	}
	if len(o.NavLinks) == 0 {
		o.NavLinks = NavLinksDefault(o.HomePath)
	}
	w := &Web{svc: svc, o: o}
	if o.Navigator == nil {
		o.Navigator = w
	}
	pages, _ := fs.Sub(templatesFS, "templates")
	base, err := web.NewBase(web.BaseOptions{Domain: "auth", AssetPrefix: AssetPrefix, Pages: pages, Override: o.Templates, Key: svc.key,
		Logger: o.Logger, Brand: o.Brand, Navigator: o.Navigator,
		NotFound: web.ErrorPage{Heading: "Page not found", Message: "There is no page at this address."},
		Failure: web.Problem{JSON: reply.MsgServerError, ErrorPage: web.ErrorPage{Heading: "Something went wrong",
			Message: "The page could not be shown. Please try again in a moment."}},
		Explain: explainPage, Protect: true, TrustedOrigins: o.TrustedOrigins, MaxFormBytes: maxFormBytes})
	if err != nil {
		return nil, err
	}
	w.base, w.render, w.mux = base, base.Render, base.Mux
	key := sha256.Sum256(append([]byte("groundwork new token\x00"), svc.key...))
	if w.tokenSeal, err = seal.New(key[:]); err != nil {
		return nil, fmt.Errorf("auth: new web: %w", err)
	}
	w.routes()
	return w, nil
}

// ServeHTTP implements http.Handler.
func (w *Web) ServeHTTP(rw http.ResponseWriter, r *http.Request) { w.base.ServeHTTP(rw, r) }

// msgDisabled tells a disabled user why they are not signed in.
const msgDisabled = "This account is disabled, so it cannot sign in. Ask whoever runs this site to enable it again."

// explainPage is the page of each error of the sign-in pages: a disabled
// user's sign-in is a 403 saying so; a password
// typed wrong too often in a settings page is a 429 saying how long to
// wait; a flood of password checks is a 503 that says to try again in a
// few seconds.
func explainPage(err error) *web.Problem {
	var lock *LockoutError
	if errors.As(err, &lock) {
		secs := max(int(lock.RetryAfter/time.Second), 1)
		return &web.Problem{Status: http.StatusTooManyRequests, Err: err, Header: http.Header{"Retry-After": {strconv.Itoa(secs)}},
			ErrorPage: web.ErrorPage{Heading: "Too many attempts", Message: lock.Error(), Link: "/settings/profile", LinkText: "Back to your account"}}
	}
	if errors.Is(err, ErrDisabled) {
		return &web.Problem{Status: http.StatusForbidden, Err: err,
			ErrorPage: web.ErrorPage{Heading: "This account is disabled", Message: msgDisabled, Link: "/", LinkText: "Back to the home page"}}
	}
	if errors.Is(err, ErrBusy) {
		return &web.Problem{Status: http.StatusServiceUnavailable, Err: err, Header: http.Header{"Retry-After": {"5"}},
			ErrorPage: web.ErrorPage{Heading: "Signing in is busy for a moment", Message: "Too many people are signing in right now; " +
				"you are not signed in yet, and nothing was changed. Try again in a few seconds."}}
	}
	return nil
}

// Mount registers the pages' paths on mux, each served by w.
func (w *Web) Mount(mux *http.ServeMux) {
	for _, p := range w.paths {
		mux.Handle(p, w)
	}
}

// Routes lists the routes w serves, as "METHOD /path/{param}".
func (w *Web) Routes() []string { return append([]string(nil), w.patterns...) }

// Protect wraps a host's own handler with the same protection the pages
// have: other origins' POSTs and bad double-submit tokens refused (403).
func (w *Web) Protect(h http.Handler) http.Handler {
	p, _ := w.render.Protect(h, w.o.TrustedOrigins...) // the origins were checked by NewWeb
	return p
}

// localPath reports whether p is a path on this site: it starts with one
// slash, holds no control character (browsers drop tabs and newlines, so
// "/\t/evil" reads as "//evil") and no backslash (read as a slash), and
// names no scheme or host.
func localPath(p string) bool {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") {
		return false
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c == 0x7f || c == '\\' {
			return false
		}
	}
	u, err := url.Parse(p)
	return err == nil && u.Scheme == "" && u.Host == ""
}

// secure reports whether cookies go out Secure: when the request came
// over TLS (directly, or through a trusted proxy that says so), when the
// site's base URL is https, or when SecureCookies says so.
func (w *Web) secure(r *http.Request) bool {
	return w.o.SecureCookies || w.o.BaseURL != nil && w.o.BaseURL.Scheme == "https" || proxies.ViaTLS(r, w.o.TrustedProxies)
}

func (w *Web) setCookie(rw http.ResponseWriter, r *http.Request, name, value string, maxAge time.Duration) {
	c := &http.Cookie{Name: name, Value: value, Path: "/", HttpOnly: true, Secure: w.secure(r), SameSite: http.SameSiteLaxMode}
	switch {
	case value == "":
		c.MaxAge = -1
	case maxAge > 0:
		c.MaxAge = int(maxAge / time.Second)
	}
	http.SetCookie(rw, c)
}

// browser is what a new session keeps of the request's browser.
func (w *Web) browser(r *http.Request) browserInfo {
	b := browserInfo{userAgent: r.UserAgent(), ip: proxies.ClientIPString(r, w.o.TrustedProxies)}
	if w.o.Place != nil {
		b.place = w.o.Place(r)
	}
	return b
}

// visitor is who a request comes from, worked out once per request.
type visitor struct {
	user      User
	session   authstore.Session
	sessionID string
	signedIn  bool
}

type visitorKey struct{}

// UserFrom returns the signed-in user that a Web middleware found for
// this request's context.
func UserFrom(ctx context.Context) (User, bool) {
	v, ok := ctx.Value(visitorKey{}).(*visitor)
	if !ok || !v.signedIn {
		return User{}, false
	}
	return v.user, true
}

// visit works out the visitor: the session cookie (one indexed read),
// else a remember-me cookie, which starts a new session. The answer is
// kept in the returned request's context.
func (w *Web) visit(rw http.ResponseWriter, r *http.Request) (*http.Request, *visitor, error) {
	if v, ok := r.Context().Value(visitorKey{}).(*visitor); ok {
		return r, v, nil
	}
	v := &visitor{}
	ctx := withTokenMemo(r.Context()) // the request's token, read once (VerifyToken)
	if c, err := r.Cookie(SessionCookie); err == nil {
		sess, u, err := w.svc.sessionUser(ctx, c.Value)
		switch {
		case err == nil:
			v.user, v.session, v.sessionID, v.signedIn = u, sess, c.Value, true
		case errors.Is(err, errNoSession):
			w.setCookie(rw, r, SessionCookie, "", 0)
		default:
			return r, nil, err
		}
	}
	if !v.signedIn {
		if c, err := r.Cookie(RememberCookie); err == nil {
			u, next, err := w.svc.useRememberToken(ctx, c.Value)
			switch {
			case err == nil:
				// A remembered browser is signed in, but has not proved who
				// is at it: the confirm-password gate asks.
				id, _, err := w.svc.startSession(ctx, u, false, false, w.browser(r))
				if err != nil {
					return r, nil, err
				}
				w.setCookie(rw, r, SessionCookie, id, 0)
				w.setCookie(rw, r, RememberCookie, next, w.svc.life.remember)
				v.user, v.sessionID, v.signedIn = u, id, true
				v.session = authstore.Session{IDHash: sum(id), UserID: u.ID, CreatedAt: w.svc.now(), LastSeenAt: w.svc.now(), PasswordConfirmedAt: neverConfirmed}
			case errors.Is(err, errNoSession):
				w.setCookie(rw, r, RememberCookie, "", 0)
			default:
				return r, nil, err
			}
		}
	}
	return r.WithContext(context.WithValue(ctx, visitorKey{}, v)), v, nil
}

// Navigation implements groundwork.Navigator: the header of whoever is
// signed in on r (the user a middleware found, else the session cookie's,
// one indexed read), with the NavLinks their capabilities allow and the
// sign-out button; nil for a guest. Hand it to every page handler
// (HTTPOptions.Navigator) so the header follows the user everywhere.
func (w *Web) Navigation(r *http.Request) *groundwork.Navigation {
	u, ok := UserFrom(r.Context())
	if !ok {
		c, err := r.Cookie(SessionCookie)
		if err != nil {
			return nil
		}
		if _, u, err = w.svc.sessionUser(r.Context(), c.Value); err != nil {
			return nil
		}
	}
	nav := &groundwork.Navigation{Name: u.Name, SignOutURL: "/logout"}
	for _, l := range w.o.NavLinks {
		if l.Capability == "" || u.Can(l.Capability) {
			nav.Links = append(nav.Links, l)
		}
	}
	return nav
}

// LoadUser finds the signed-in user, if any, for the handlers behind it
// ([UserFrom]); guests pass through. The Require middlewares do this
// themselves.
func (w *Web) LoadUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		r, _, err := w.visit(rw, r)
		if err != nil {
			w.base.Fail(rw, r, err)
			return
		}
		next.ServeHTTP(rw, r)
	})
}

// guard runs check on the visitor and either lets the request through or
// has answered it. A path or query that is not text is refused first.
func (w *Web) guard(next http.Handler, check func(rw http.ResponseWriter, r *http.Request, v *visitor) bool) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if err := w.base.CheckText(r); err != nil {
			w.base.Fail(rw, r, err)
			return
		}
		r, v, err := w.visit(rw, r)
		if err != nil {
			w.base.Fail(rw, r, err)
			return
		}
		if check(rw, r, v) {
			next.ServeHTTP(rw, r)
		}
	})
}

// toLogin answers a guest: JSON clients get 401 {"message":
// "Unauthenticated."}; browsers are sent to /login, the page they wanted
// remembered (for a GET).
func (w *Web) toLogin(rw http.ResponseWriter, r *http.Request) {
	if web.WantsJSON(r) {
		reply.WriteMessage(rw, http.StatusUnauthorized, reply.MsgUnauthenticated)
		return
	}
	w.remember(rw, r)
	http.Redirect(rw, r, "/login", http.StatusFound)
}

// remember keeps the page a GET asked for, to return to after the flow
// the visitor is sent through.
func (w *Web) remember(rw http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		w.rememberPath(rw, r, r.URL.RequestURI())
	}
}

// rememberPath keeps path, a page of this site, to return to after the
// flow the visitor is sent through.
func (w *Web) rememberPath(rw http.ResponseWriter, r *http.Request, path string) {
	if localPath(path) {
		w.setCookie(rw, r, intendedCookie, url.QueryEscape(path), 10*time.Minute)
	}
}

// intended returns (and forgets) the remembered page, else the home path.
func (w *Web) intended(rw http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(intendedCookie); err == nil {
		w.setCookie(rw, r, intendedCookie, "", 0)
		if p, err := url.QueryUnescape(c.Value); err == nil && localPath(p) {
			return p
		}
	}
	return w.o.HomePath
}

// RequireUser lets signed-in users through; a guest is sent to /login
// (the page remembered for after) or, asking for JSON, gets 401.
func (w *Web) RequireUser(next http.Handler) http.Handler {
	return w.guard(next, func(rw http.ResponseWriter, r *http.Request, v *visitor) bool {
		if !v.signedIn {
			w.toLogin(rw, r)
		}
		return v.signedIn
	})
}

// RequireGuest lets guests through and sends a signed-in user home.
func (w *Web) RequireGuest(next http.Handler) http.Handler {
	return w.guard(next, func(rw http.ResponseWriter, r *http.Request, v *visitor) bool {
		if v.signedIn {
			http.Redirect(rw, r, w.o.HomePath, http.StatusFound)
		}
		return !v.signedIn
	})
}

// RequireVerified lets through signed-in users whose address is verified
// (every signed-in user when WebOptions.RequireVerification is off);
// others are sent to /verify-email, or get 403 as JSON.
func (w *Web) RequireVerified(next http.Handler) http.Handler {
	return w.guard(next, func(rw http.ResponseWriter, r *http.Request, v *visitor) bool {
		switch {
		case !v.signedIn:
			w.toLogin(rw, r)
			return false
		case !w.o.RequireVerification || v.user.Verified():
			return true
		case web.WantsJSON(r):
			reply.WriteMessage(rw, http.StatusForbidden, "Your email address is not verified.")
		default:
			http.Redirect(rw, r, "/verify-email", http.StatusFound)
		}
		return false
	})
}

// RequirePasswordConfirmed lets a signed-in user through if they typed
// their password within ConfirmLifetime (signing in counts); else they
// are sent to /confirm-password, returning here after, or get 423
// {"message": "Password confirmation required."} as JSON.
func (w *Web) RequirePasswordConfirmed(next http.Handler) http.Handler {
	return w.guard(next, func(rw http.ResponseWriter, r *http.Request, v *visitor) bool {
		switch {
		case !v.signedIn:
			w.toLogin(rw, r)
			return false
		case w.confirmedRecently(v):
			return true
		case web.WantsJSON(r):
			reply.WriteMessage(rw, http.StatusLocked, "Password confirmation required.")
		default:
			w.remember(rw, r)
			http.Redirect(rw, r, "/confirm-password", http.StatusFound)
		}
		return false
	})
}

// confirmedRecently reports whether v typed their password (or used a
// passkey) in this session within ConfirmLifetime; a session a
// remember-me cookie started has not.
func (w *Web) confirmedRecently(v *visitor) bool {
	return w.svc.now().Sub(v.session.PasswordConfirmedAt) < w.svc.life.confirm
}

// forbidden is the 403 page of a signed-in user without capability: it
// names the page (by the header link that needs the capability, else its
// address) and whom to ask (WebOptions.AdminContact).
func (w *Web) forbidden(r *http.Request, capability string) web.ErrorPage {
	name := "the page at " + r.URL.Path
	for _, l := range w.o.NavLinks {
		if l.Capability == capability {
			name = l.Text
		}
	}
	e := web.ErrorPage{Heading: "You do not have access to this page", Message: "Your account may not use " + name + " yet.",
		Contact: w.o.AdminContact, Link: w.o.HomePath, LinkText: "Go to your dashboard"}
	if e.Contact == "" {
		e.Message += " Ask the person who runs this site for access."
	}
	return e
}

// RequireAnyCapability is RequireCapability for users who have any of
// capabilities (the 403 page names the page by the first).
func (w *Web) RequireAnyCapability(capabilities ...string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return w.guard(next, func(rw http.ResponseWriter, r *http.Request, v *visitor) bool {
			switch {
			case !v.signedIn:
				w.toLogin(rw, r)
				return false
			case slices.ContainsFunc(capabilities, v.user.Can):
				return true
			case web.WantsJSON(r):
				reply.WriteMessage(rw, http.StatusForbidden, reply.MsgForbidden)
			default:
				w.render.Error(rw, r, http.StatusForbidden, w.forbidden(r, capabilities[0]))
			}
			return false
		})
	}
}

// RequireCapability lets through signed-in users who have capability;
// others get 403: a page, or {"message": "This action is unauthorized."}
// as JSON. Guests are sent to sign in first.
func (w *Web) RequireCapability(capability string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return w.guard(next, func(rw http.ResponseWriter, r *http.Request, v *visitor) bool {
			switch {
			case !v.signedIn:
				w.toLogin(rw, r)
				return false
			case v.user.Can(capability):
				return true
			case web.WantsJSON(r):
				reply.WriteMessage(rw, http.StatusForbidden, reply.MsgForbidden)
			default:
				w.render.Error(rw, r, http.StatusForbidden, w.forbidden(r, capability))
			}
			return false
		})
	}
}
