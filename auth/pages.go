package auth

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/proxies"
	"github.com/groundwork-go/groundwork/internal/web"
)

// routes registers the pages. Each path is mounted on a host's mux by
// Mount; guests' pages sit behind RequireGuest, the others behind
// RequireUser.
func (w *Web) routes() {
	handle := func(pattern string, h http.Handler) {
		w.mux.Handle(pattern, h)
		w.patterns = append(w.patterns, pattern)
		_, path, _ := strings.Cut(pattern, " ")
		for _, p := range w.paths {
			if p == path {
				return
			}
		}
		w.paths = append(w.paths, path)
	}
	guest := func(f http.HandlerFunc) http.Handler { return w.RequireGuest(f) }
	user := func(f http.HandlerFunc) http.Handler { return w.RequireUser(f) }
	handle("GET /login", guest(w.loginPage))
	handle("POST /login", guest(w.base.Func(w.login)))
	if !w.o.DisableRegistration {
		handle("GET /register", guest(w.registerPage))
		handle("POST /register", guest(w.base.Func(w.register)))
	}
	if w.o.SignInLinks {
		handle("GET /login/link", guest(w.signInLinkPage))
		handle("POST /login/link", guest(w.base.Func(w.askSignInLink)))
		handle("GET /login/link/{token}", guest(w.base.Func(w.signInLinkConfirm)))
		handle("POST /login/link/{token}", guest(w.base.Func(w.useSignInLink)))
	}
	handle("GET /forgot-password", guest(w.forgotPage))
	handle("POST /forgot-password", guest(w.base.Func(w.forgot)))
	handle("GET /reset-password", guest(w.resetPage))
	handle("GET /reset-password/{token}", guest(w.resetPage))
	handle("POST /reset-password", guest(w.base.Func(w.reset)))
	handle("GET /verify-email", user(w.verifyPage))
	handle("GET /verify-email/{id}/{hash}", user(w.base.Func(w.verifyLink)))
	handle("POST /email/verification-notification", user(w.resendVerification))
	handle("GET /confirm-password", user(w.confirmPage))
	handle("POST /confirm-password", user(w.base.Func(w.confirm)))
	handle("POST /logout", w.LoadUser(w.base.Func(w.logout)))
	handle("GET /settings/tokens", user(w.base.Func(w.tokensPage)))
	handle("POST /settings/tokens", user(w.base.Func(w.createToken)))
	handle("GET /settings/tokens/{id}/revoke", user(w.base.Func(w.confirmRevoke)))
	handle("POST /settings/tokens/{id}/revoke", user(w.base.Func(w.revokeToken)))
	w.settingsRoutes(handle)
	w.patterns = append(w.patterns, "GET "+AssetPrefix+"/{file}") // the base serves it
	w.paths = append(w.paths, AssetPrefix+"/{file}")
	switch {
	case w.o.Home != nil:
		handle("GET "+w.o.HomePath, w.RequireUser(w.o.Home))
	case w.o.HomePath == HomePathDefault:
		handle("GET "+w.o.HomePath, user(w.homePage))
	}
}

// homePage is the built-in home of a signed-in user (see WebOptions.Home).
func (w *Web) homePage(rw http.ResponseWriter, r *http.Request) {
	u, _ := UserFrom(r.Context())
	w.page(rw, r, http.StatusOK, HomeTemplate, "Home", u)
}

// formPage is the data of the pages that are one form.
type formPage struct {
	Heading     string
	Description string
	Action      string
	Submit      string
	Fields      []web.Field
	Summary     []web.SummaryItem
	// Links follow the form ("No account yet? Create one"); Beside
	// sits next to its button ("Forgot your password?").
	Links  []pageLink
	Beside *pageLink
	// Alert is a page-level error (a lock-out), Warning a caution (one
	// attempt left).
	Alert, Warning string
	// Passkey, on the sign-in page, is where a passkey signs in: a button
	// the page's script shows where the browser can use one.
	Passkey string
	// Others are the other ways to sign in (WebOptions.SignInWith), each
	// a link drawn as a button.
	Others []pageLink
}

type pageLink struct{ URL, Text string }

// page renders name in the layout (the header of a signed-in user comes
// from the Navigator) with the request's CSRF token.
func (w *Web) page(rw http.ResponseWriter, r *http.Request, status int, name, title string, data any) {
	p := &web.Page{Title: title, Data: data, CSRF: web.CSRFToken(rw, r), Flash: w.render.TakeFlash(rw, r, r.URL.Path), GuestLinks: w.guestLinks()}
	w.render.Render(rw, r, status, name, p)
}

// guestLinks are the header's links on the sign-in pages for a visitor
// who is not signed in.
func (w *Web) guestLinks() []groundwork.NavLink {
	links := []groundwork.NavLink{{Text: "Sign in", URL: "/login"}}
	if !w.o.DisableRegistration {
		links = append(links, groundwork.NavLink{Text: "Create account", URL: "/register"})
	}
	return links
}

func (p *formPage) hasField(name string) bool {
	for _, f := range p.Fields {
		if f.Name == name {
			return true
		}
	}
	return false
}

// withErrors puts ve's messages beside their fields and in the summary,
// in the pages' voice (messages of fields the form does not show go
// first, unlinked); a mismatch of a password and its confirmation is on
// the confirmation.
func withErrors(p *formPage, ve *ValidationError) {
	if ve == nil {
		return
	}
	errs := ve.Fields()
	var general []string
	for _, name := range ve.FieldNames() {
		found := false
		for _, msg := range errs[name] {
			target := name
			if msg == msgMismatch && p.hasField(name+"_confirmation") {
				target = name + "_confirmation" // the box to fix is the second
			}
			for i := range p.Fields {
				if p.Fields[i].Name == target && p.Fields[i].Type != "hidden" {
					p.Fields[i].Errors, found = append(p.Fields[i].Errors, web.Voice(p.Fields[i], msg)), true
				}
			}
		}
		if !found {
			general = append(general, errs[name]...)
		}
	}
	p.Summary = web.Summary(p.Fields, general...)
}

func field(typ, name, label, value, autocomplete string, required bool) web.Field {
	return web.Field{Type: typ, Name: name, ID: web.FieldID(name), Label: label, Value: value, Autocomplete: autocomplete, Required: required}
}

// redraw draws the form page p again with err's messages when err is a
// validation error (422); any other error is returned, for the 500 page.
func (w *Web) redraw(rw http.ResponseWriter, r *http.Request, err error, p *formPage, name, title string) error {
	var ve *ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	withErrors(p, ve)
	w.page(rw, r, http.StatusUnprocessableEntity, name, title, p)
	return nil
}

func (w *Web) loginForm(r *http.Request) *formPage {
	remember := field("checkbox", "remember", "Remember me", "1", "", false)
	remember.Checked = r.PostFormValue("remember") != ""
	email := r.PostFormValue("email")
	if r.Method == http.MethodGet {
		email = r.URL.Query().Get("email") // after a reset, the address the link was for
	}
	p := &formPage{Heading: "Sign in to your account", Description: "Enter your email address and password", Action: "/login", Submit: "Sign in",
		Fields: []web.Field{field("email", "email", "Email address", email, "email", true),
			field("password", "password", "Password", "", "current-password", true), remember},
		Beside: &pageLink{"/forgot-password", "Forgot your password?"}}
	if w.passkeysHere(r) {
		p.Passkey = "/login/passkey"
	}
	for _, o := range w.o.SignInWith {
		p.Others = append(p.Others, pageLink{o.URL, o.Text})
	}
	if w.o.SignInLinks {
		p.Links = append(p.Links, pageLink{"/login/link", "Email me a sign-in link instead"})
	}
	if !w.o.DisableRegistration {
		p.Links = append(p.Links, pageLink{"/register", "No account yet? Create one"})
	}
	return p
}

func (w *Web) loginPage(rw http.ResponseWriter, r *http.Request) {
	w.page(rw, r, http.StatusOK, LoginTemplate, "Sign in", w.loginForm(r))
}

func (w *Web) login(rw http.ResponseWriter, r *http.Request) error {
	p := w.loginForm(r)
	email, password := r.PostFormValue("email"), r.PostFormValue("password")
	v := &api.Validator{}
	checkEmail(v, email)
	if password == "" {
		v.Add("password", api.MsgRequired("password"))
	}
	if err := v.Err(); err != nil {
		return w.redraw(rw, r, err, p, LoginTemplate, "Sign in")
	}
	u, err := w.svc.CheckCredentials(r.Context(), email, password, proxies.ClientIPString(r, w.o.TrustedProxies))
	var lock *LockoutError
	var bad *CredentialsError
	switch {
	case errors.As(err, &lock):
		rw.Header().Set("Retry-After", strconv.Itoa(int(lock.RetryAfter/time.Second)))
		p.Alert = lock.Error()
		w.page(rw, r, http.StatusTooManyRequests, LoginTemplate, "Sign in", p)
		return nil
	case errors.As(err, &bad):
		p.Warning = attemptsWarning(bad)
		return w.redraw(rw, r, api.Invalid("email", MsgBadCredentials), p, LoginTemplate, "Sign in")
	case errors.Is(err, ErrDisabled):
		p.Alert = msgDisabled
		w.page(rw, r, http.StatusForbidden, LoginTemplate, "Sign in", p)
		return nil
	case err != nil:
		return err
	}
	if u.TwoFactor() && !w.rememberedDevice(r, u) {
		w.startChallenge(rw, r, u, r.PostFormValue("remember") != "")
		web.SeeOther(rw, r, "/two-factor-challenge")
		return nil
	}
	if err := w.signIn(rw, r, u, r.PostFormValue("remember") != ""); err != nil {
		return err
	}
	web.SeeOther(rw, r, w.intended(rw, r))
	return nil
}

// attemptsWarning cautions a user whose next failure (or the one after)
// locks them out; "" while more attempts are left.
func attemptsWarning(bad *CredentialsError) string {
	switch bad.Remaining {
	case 0:
		return "That was the last attempt for now: sign-in to this account is paused for " + duration(bad.Window) + ". You can reset your password meanwhile."
	case 1:
		return "One more failed attempt will pause sign-in to this account for " + duration(bad.Window) + ". Forgotten your password? Reset it instead."
	}
	return ""
}

// duration says d in words: "1 minute", "15 minutes", "30 seconds".
func duration(d time.Duration) string {
	n, unit := int(d/time.Minute), "minute"
	if d < time.Minute || d%time.Minute != 0 {
		n, unit = int(d/time.Second), "second"
	}
	return web.Count(n, unit)
}

// signIn starts a new session for u, ending any the browser had (so a
// session id planted before sign-in is never the signed-in one).
func (w *Web) signIn(rw http.ResponseWriter, r *http.Request, u User, remember bool) error {
	if c, err := r.Cookie(SessionCookie); err == nil {
		if err := w.svc.EndSession(r.Context(), c.Value, 0); err != nil {
			return err
		}
	}
	id, rememberValue, err := w.svc.startSession(r.Context(), u, remember, true, w.browser(r))
	if err != nil {
		return err
	}
	w.setCookie(rw, r, SessionCookie, id, 0)
	if rememberValue != "" {
		w.setCookie(rw, r, RememberCookie, rememberValue, w.svc.life.remember)
	}
	return nil
}

// newPasswordField is a new password's box, its rules said before anyone
// types.
func newPasswordField(label string) web.Field {
	f := field("password", "password", label, "", "new-password", true)
	f.Help = passwordHelp
	return f
}

func registerForm(r *http.Request) *formPage {
	return &formPage{Heading: "Create an account", Description: "Enter your details below to create your account", Action: "/register", Submit: "Create account",
		Fields: []web.Field{field("text", "name", "Name", r.PostFormValue("name"), "name", true),
			field("email", "email", "Email address", r.PostFormValue("email"), "email", true),
			newPasswordField("Password"),
			field("password", "password_confirmation", "Confirm password", "", "new-password", true)},
		Links: []pageLink{{"/login", "Already have an account? Sign in"}}}
}

func (w *Web) registerPage(rw http.ResponseWriter, r *http.Request) {
	w.page(rw, r, http.StatusOK, RegisterTemplate, "Register", registerForm(r))
}

func (w *Web) register(rw http.ResponseWriter, r *http.Request) error {
	confirmation := r.PostFormValue("password_confirmation")
	u, err := w.svc.CreateUser(r.Context(), NewUser{Name: r.PostFormValue("name"), Email: r.PostFormValue("email"),
		Password: r.PostFormValue("password"), PasswordConfirmation: &confirmation})
	if err != nil {
		return w.redraw(rw, r, err, registerForm(r), RegisterTemplate, "Register")
	}
	if err := w.signIn(rw, r, u, false); err != nil {
		return err
	}
	if w.o.RequireVerification {
		w.svc.SendVerification(u, w.baseURL(r), "/verify-email")
		w.render.SetFlash(rw, r, "/verify-email", web.Flash{Kind: "success", Message: "We have sent a verification link to " + u.Email + "."})
	}
	web.SeeOther(rw, r, w.intended(rw, r))
	return nil
}

// baseURL is the site's address for links in mails (web.LinkBase).
func (w *Web) baseURL(r *http.Request) string { return web.LinkBase(r, w.o.BaseURL) }

func forgotForm(r *http.Request) *formPage {
	return &formPage{Heading: "Forgot password", Description: "Enter your email to receive a password reset link", Action: "/forgot-password",
		Submit: "Email password reset link", Fields: []web.Field{field("email", "email", "Email address", r.PostFormValue("email"), "email", true)},
		Links: []pageLink{{"/login", "Back to sign in"}}}
}

func (w *Web) forgotPage(rw http.ResponseWriter, r *http.Request) {
	w.page(rw, r, http.StatusOK, ForgotTemplate, "Forgot password", forgotForm(r))
}

func (w *Web) forgot(rw http.ResponseWriter, r *http.Request) error {
	v := &api.Validator{}
	email := checkEmail(v, r.PostFormValue("email"))
	if err := v.Err(); err != nil {
		return w.redraw(rw, r, err, forgotForm(r), ForgotTemplate, "Forgot password")
	}
	if err := w.svc.SendPasswordReset(r.Context(), email, w.baseURL(r)+"/reset-password"); err != nil {
		return err
	}
	w.render.SetFlash(rw, r, "/forgot-password", web.Flash{Kind: "success", Message: MsgResetSent})
	web.SeeOther(rw, r, "/forgot-password")
	return nil
}

func resetForm(token, email string) *formPage {
	return &formPage{Heading: "Reset password", Description: "Please enter your new password below", Action: "/reset-password", Submit: "Reset password",
		Fields: []web.Field{{Type: "hidden", Name: "token", Value: token},
			field("email", "email", "Email address", email, "email", true),
			newPasswordField("New password"),
			field("password", "password_confirmation", "Confirm new password", "", "new-password", true)}}
}

func (w *Web) resetPage(rw http.ResponseWriter, r *http.Request) {
	token := r.PathValue("token")
	if token == "" {
		token = r.URL.Query().Get("token")
	}
	email := r.URL.Query().Get("email")
	usable, err := w.svc.ResetLinkUsable(r.Context(), token, email)
	if err != nil {
		w.base.Fail(rw, r, err)
		return
	}
	if !usable {
		w.spentResetLink(rw, r, email)
		return
	}
	w.page(rw, r, http.StatusOK, ResetTemplate, "Reset password", resetForm(token, email))
}

// spentResetLink answers a reset link that was used, has expired or was
// never sent, before anyone types a password: it says so and offers a new
// link to the same address.
func (w *Web) spentResetLink(rw http.ResponseWriter, r *http.Request, email string) {
	p := forgotForm(r)
	p.Heading, p.Submit = "This reset link can no longer be used", "Email me a new link"
	p.Description = "Reset links work once, for " + duration(w.svc.life.reset) + ". Ask for a new one and use the newest email."
	p.Fields[0].Value = email
	w.page(rw, r, http.StatusGone, ForgotTemplate, "Reset link expired", p)
}

func (w *Web) reset(rw http.ResponseWriter, r *http.Request) error {
	token, email := r.PostFormValue("token"), r.PostFormValue("email")
	if usable, err := w.svc.ResetLinkUsable(r.Context(), token, email); err != nil {
		return err
	} else if !usable && token != "" && email != "" {
		w.spentResetLink(rw, r, email)
		return nil
	}
	err := w.svc.ResetPassword(r.Context(), token, email, r.PostFormValue("password"), r.PostFormValue("password_confirmation"))
	if err != nil {
		return w.redraw(rw, r, err, resetForm(token, email), ResetTemplate, "Reset password")
	}
	w.render.SetFlash(rw, r, "/login", web.Flash{Kind: "success", Message: MsgPasswordReset})
	web.SeeOther(rw, r, "/login?email="+url.QueryEscape(NormalizeEmail(email)))
	return nil
}

// verifyPage is the "please verify" notice.
type verifyPage struct{ Email string }

func (w *Web) verifyPage(rw http.ResponseWriter, r *http.Request) {
	u, _ := UserFrom(r.Context())
	if u.Verified() {
		http.Redirect(rw, r, w.o.HomePath, http.StatusFound)
		return
	}
	w.page(rw, r, http.StatusOK, VerifyTemplate, "Verify email", verifyPage{Email: u.Email})
}

// throttleVerify counts a verification request of the user in its own
// bucket (kind: "resend" for a new mail, "link" for opening one, so that
// opening a link never spends a resend): past VerifyThrottle a minute, a
// 429 Problem that says when to try again.
func (w *Web) throttleVerify(r *http.Request, u User, kind string) error {
	lim, err := w.o.RateLimiter.Hit(r.Context(), "verify-email-"+kind+":"+strconv.FormatInt(u.ID, 10), w.o.VerifyThrottle, time.Minute)
	if err != nil {
		return err
	}
	if lim.Allowed {
		return nil
	}
	wait := int(lim.RetryAfter(w.svc.now()) / time.Second)
	return &web.Problem{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {strconv.Itoa(wait)}},
		ErrorPage: web.ErrorPage{Heading: "Too many requests",
			Message: fmt.Sprintf("You asked for verification too often. Please wait %d seconds and try again.", wait),
			Link:    "/verify-email", LinkText: "Back"}}
}

func (w *Web) verifyLink(rw http.ResponseWriter, r *http.Request) error {
	u, _ := UserFrom(r.Context())
	if err := w.throttleVerify(r, u, "link"); err != nil {
		return err
	}
	q := r.URL.Query()
	err := w.svc.VerifyEmail(r.Context(), u, r.URL.Path, r.PathValue("id"), r.PathValue("hash"), q.Get("expires"), q.Get("signature"))
	if errors.Is(err, ErrBadLink) {
		w.render.Error(rw, r, http.StatusForbidden, web.ErrorPage{Heading: "Invalid verification link",
			Message: "This link is invalid or has expired, or it was sent to another account. Ask for a new one.", Link: "/verify-email", LinkText: "Ask for a new link"})
		return nil
	}
	if err != nil {
		return err
	}
	target := w.intended(rw, r)
	if sep := "?"; target == w.o.HomePath {
		if strings.Contains(target, "?") {
			sep = "&"
		}
		target += sep + "verified=1"
	}
	http.Redirect(rw, r, target, http.StatusFound)
	return nil
}

func (w *Web) resendVerification(rw http.ResponseWriter, r *http.Request) {
	u, _ := UserFrom(r.Context())
	if u.Verified() {
		web.SeeOther(rw, r, w.o.HomePath)
		return
	}
	if err := w.throttleVerify(r, u, "resend"); err != nil {
		w.base.Fail(rw, r, err)
		return
	}
	w.svc.SendVerification(u, w.baseURL(r), "/verify-email")
	w.render.SetFlash(rw, r, "/verify-email", web.Flash{Kind: "success", Message: MsgVerificationSent})
	web.SeeOther(rw, r, "/verify-email")
}

func confirmForm() *formPage {
	return &formPage{Heading: "Confirm password", Description: "This is a secure area of the application. Please confirm your password before continuing.",
		Action: "/confirm-password", Submit: "Confirm", Fields: []web.Field{field("password", "password", "Password", "", "current-password", true)}}
}

func (w *Web) confirmPage(rw http.ResponseWriter, r *http.Request) {
	w.page(rw, r, http.StatusOK, ConfirmTemplate, "Confirm password", confirmForm())
}

func (w *Web) confirm(rw http.ResponseWriter, r *http.Request) error {
	_, v, _ := w.visit(rw, r)
	password := r.PostFormValue("password")
	if password == "" {
		return w.redraw(rw, r, api.Invalid("password", api.MsgRequired("password")), confirmForm(), ConfirmTemplate, "Confirm password")
	}
	ok, err := w.svc.CheckPassword(r.Context(), v.user.ID, password)
	if err != nil {
		return err
	}
	if !ok {
		return w.redraw(rw, r, api.Invalid("password", MsgWrongPassword), confirmForm(), ConfirmTemplate, "Confirm password")
	}
	if err := w.svc.confirmPassword(r.Context(), v.sessionID); err != nil {
		return err
	}
	web.SeeOther(rw, r, w.intended(rw, r))
	return nil
}

func (w *Web) logout(rw http.ResponseWriter, r *http.Request) error {
	_, v, _ := w.visit(rw, r)
	if v != nil && v.signedIn {
		if err := w.svc.EndSession(r.Context(), v.sessionID, v.user.ID); err != nil {
			return err
		}
	}
	w.setCookie(rw, r, SessionCookie, "", 0)
	w.setCookie(rw, r, RememberCookie, "", 0)
	w.render.SetFlash(rw, r, w.o.LogoutPath, web.Flash{Kind: "success", Message: "You have been signed out."})
	// A new CSRF token for the next visitor of this browser.
	http.SetCookie(rw, &http.Cookie{Name: web.XSRFCookie, Value: "", Path: "/", MaxAge: -1, Secure: w.secure(r), SameSite: http.SameSiteLaxMode})
	web.SeeOther(rw, r, w.o.LogoutPath)
	return nil
}
