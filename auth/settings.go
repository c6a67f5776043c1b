package auth

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/web"
)

// Templates of the account settings and the two-factor challenge, which
// a host's WebOptions.Templates may replace.
const (
	ProfileTemplate      = "auth/profile.html"
	SettingsFormTemplate = "auth/settings-form.html"
	TwoFactorTemplate    = "auth/two-factor.html"
	SessionsTemplate     = "auth/sessions.html"
	ChallengeTemplate    = "auth/two-factor-challenge.html"
)

// passwordHelp states the password rules before anyone types.
var passwordHelp = fmt.Sprintf("At least %d characters. A few words you will remember make a strong password.", PasswordMinLength)

// settingsRoutes registers the account settings pages, behind
// RequireUser, and RequirePasswordConfirmed where they change a way to
// sign in (two-factor, passkeys; a new email address asks in
// saveProfile), and the two-factor challenge.
func (w *Web) settingsRoutes(handle func(string, http.Handler)) {
	user := func(f func(http.ResponseWriter, *http.Request) error) http.Handler {
		return w.RequireUser(w.base.Func(f))
	}
	confirmed := func(f func(http.ResponseWriter, *http.Request) error) http.Handler {
		return w.RequirePasswordConfirmed(w.base.Func(f))
	}
	handle("GET /settings/profile", user(w.profilePage))
	handle("POST /settings/profile", user(w.saveProfile))
	handle("GET /settings/email", user(w.confirmEmailChange))
	handle("GET /settings/password", user(w.passwordPage))
	handle("POST /settings/password", user(w.changePassword))
	handle("GET /settings/two-factor", user(w.twoFactorPage))
	handle("POST /settings/two-factor", confirmed(w.beginTwoFactor))
	handle("GET /settings/two-factor/qr-code", user(w.twoFactorQR))
	handle("POST /settings/two-factor/confirm", user(w.confirmTwoFactor))
	handle("POST /settings/two-factor/recovery-codes", confirmed(w.regenerateCodes))
	handle("POST /settings/two-factor/disable", confirmed(w.disableTwoFactor))
	handle("GET /settings/sessions", user(w.sessionsPage))
	handle("POST /settings/sessions", user(w.signOutOthers))
	handle("GET /settings/delete-account", user(w.deletePage))
	handle("POST /settings/delete-account", user(w.deleteAccount))
	w.passkeyRoutes(handle, confirmed)
	handle("GET /two-factor-challenge", w.RequireGuest(w.base.Func(w.challengePage)))
	handle("POST /two-factor-challenge", w.RequireGuest(w.base.Func(w.challenge)))
}

// settingsPage is the data of a settings page that is one form: the form,
// and where "Back" leads.
type settingsPage struct {
	formPage
	Back pageLink
	// Danger draws the button red (deleting the account).
	Danger bool
}

func backToAccount() pageLink { return pageLink{"/settings/profile", "Back to your account"} }

// ---- profile ----

// profilePage is the data of /settings/profile.
type profilePage struct {
	Form                   formPage
	User                   User
	Sessions               int
	CodesLeft              int
	CanTokens, CanRegister bool
	// More are the host's tiles (WebOptions.ProfileLinks).
	More []groundwork.NavLink
}

func profileForm(r *http.Request, u User) formPage {
	name, email := r.PostFormValue("name"), r.PostFormValue("email")
	if r.Method == http.MethodGet {
		name, email = u.Name, u.Email
	}
	emailField := field("email", "email", "Email address", email, "email", true)
	emailField.Help = "If you change it, we send a link to the new address; the change takes effect when you follow it."
	return formPage{Heading: "Your details", Action: "/settings/profile", Submit: "Save changes",
		Fields: []web.Field{field("text", "name", "Name", name, "name", true), emailField}}
}

func (w *Web) profilePage(rw http.ResponseWriter, r *http.Request) error {
	u, _ := UserFrom(r.Context())
	return w.showProfile(rw, r, http.StatusOK, u, profileForm(r, u))
}

func (w *Web) showProfile(rw http.ResponseWriter, r *http.Request, status int, u User, form formPage) error {
	_, v, _ := w.visit(rw, r)
	sessions, err := w.svc.Sessions(r.Context(), u.ID, v.sessionID)
	if err != nil {
		return err
	}
	left := 0
	if u.TwoFactor() {
		if left, err = w.svc.RecoveryCodesLeft(r.Context(), u.ID); err != nil {
			return err
		}
	}
	w.page(rw, r, status, ProfileTemplate, "Your account", &profilePage{Form: form, User: u, Sessions: len(sessions), CodesLeft: left, More: w.o.ProfileLinks})
	return nil
}

func (w *Web) saveProfile(rw http.ResponseWriter, r *http.Request) error {
	u, _ := UserFrom(r.Context())
	form := profileForm(r, u)
	name, email := strings.TrimSpace(r.PostFormValue("name")), NormalizeEmail(r.PostFormValue("email"))
	var msgs []string
	if name != u.Name {
		renamed, err := w.svc.Rename(r.Context(), u.ID, name)
		var ve *ValidationError
		if errors.As(err, &ve) {
			withErrors(&form, ve)
			return w.showProfile(rw, r, http.StatusUnprocessableEntity, u, form)
		}
		if err != nil {
			return err
		}
		u = renamed
		msgs = append(msgs, "Your name is now "+u.Name+".")
	}
	if _, v, _ := w.visit(rw, r); email != u.Email && !w.confirmedRecently(v) {
		// The address signs in and resets the password: changing it asks
		// for the password first, as the sign-in factors do.
		w.rememberPath(rw, r, "/settings/profile")
		w.render.SetFlash(rw, r, "/confirm-password", web.Flash{Kind: "info",
			Message: "Confirm your password to change your email address, then save it again."})
		web.SeeOther(rw, r, "/confirm-password")
		return nil
	}
	if email != u.Email {
		sent, err := w.svc.RequestEmailChange(r.Context(), u, email, w.baseURL(r)+"/settings/email")
		var ve *ValidationError
		if errors.As(err, &ve) {
			withErrors(&form, ve)
			if len(msgs) > 0 {
				form.Warning = msgs[0] + " Your email address did not change."
			}
			return w.showProfile(rw, r, http.StatusUnprocessableEntity, u, form)
		}
		if err != nil {
			return err
		}
		msgs = append(msgs, fmt.Sprintf(MsgEmailChangeSent, sent))
	}
	if len(msgs) == 0 {
		msgs = append(msgs, "Nothing changed.")
	}
	w.render.SetFlash(rw, r, "/settings/profile", web.Flash{Kind: "success", Message: strings.Join(msgs, " ")})
	web.SeeOther(rw, r, "/settings/profile")
	return nil
}

// confirmEmailChange follows the mailed link of an address change.
func (w *Web) confirmEmailChange(rw http.ResponseWriter, r *http.Request) error {
	u, _ := UserFrom(r.Context())
	if err := w.throttleVerify(r, u, "link"); err != nil {
		return err
	}
	q := r.URL.Query()
	changed, err := w.svc.ConfirmEmailChange(r.Context(), u, q.Get("email"), q.Get("expires"), q.Get("signature"))
	var ve *ValidationError
	switch {
	case errors.Is(err, ErrBadLink):
		w.render.Error(rw, r, http.StatusForbidden, web.ErrorPage{Heading: "This link cannot be used",
			Message: "The link has expired, was already used, or belongs to another account. Sign in as that account, or ask for a new link from your account page.",
			Link:    "/settings/profile", LinkText: "Go to your account"})
		return nil
	case errors.As(err, &ve):
		w.render.Error(rw, r, http.StatusConflict, web.ErrorPage{Heading: "That address is taken",
			Message: "Another account now uses " + q.Get("email") + ", so your address did not change.",
			Link:    "/settings/profile", LinkText: "Go to your account"})
		return nil
	case err != nil:
		return err
	}
	w.render.SetFlash(rw, r, "/settings/profile", web.Flash{Kind: "success", Message: fmt.Sprintf(MsgEmailChanged, changed.Email)})
	http.Redirect(rw, r, "/settings/profile", http.StatusFound)
	return nil
}

// ---- password ----

func passwordForm() *settingsPage {
	newPassword := newPasswordField("New password")
	return &settingsPage{formPage: formPage{Heading: "Change your password", Action: "/settings/password", Submit: "Change password",
		Description: "Every other browser signed in to your account is signed out, and we email you to say so.",
		Fields: []web.Field{field("password", "current_password", "Current password", "", "current-password", true), newPassword,
			field("password", "password_confirmation", "Confirm new password", "", "new-password", true)}}, Back: backToAccount()}
}

func (w *Web) passwordPage(rw http.ResponseWriter, r *http.Request) error {
	w.page(rw, r, http.StatusOK, SettingsFormTemplate, "Change your password", passwordForm())
	return nil
}

func (w *Web) changePassword(rw http.ResponseWriter, r *http.Request) error {
	_, v, _ := w.visit(rw, r)
	p := passwordForm()
	err := w.svc.ChangePassword(r.Context(), v.user, r.PostFormValue("current_password"), r.PostFormValue("password"),
		r.PostFormValue("password_confirmation"), v.sessionID)
	if err != nil {
		return w.redrawSettings(rw, r, err, p, "Change your password")
	}
	w.setCookie(rw, r, RememberCookie, "", 0) // its token is gone with the others
	w.render.SetFlash(rw, r, "/settings/profile", web.Flash{Kind: "success", Message: MsgPasswordChanged})
	web.SeeOther(rw, r, "/settings/profile")
	return nil
}

// redrawSettings is redraw for the one-form settings pages.
func (w *Web) redrawSettings(rw http.ResponseWriter, r *http.Request, err error, p *settingsPage, title string) error {
	var ve *ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	withErrors(&p.formPage, ve)
	w.page(rw, r, http.StatusUnprocessableEntity, SettingsFormTemplate, title, p)
	return nil
}

// ---- sessions ----

// sessionsPage is the data of /settings/sessions.
type sessionsPage struct {
	Sessions []SessionInfo
	Form     formPage
	Now      time.Time
}

func sessionsForm() formPage {
	pw := field("password", "password", "Your password", "", "current-password", true)
	pw.Help = "To be sure it is you."
	return formPage{Heading: "Sign out your other browsers", Action: "/settings/sessions", Submit: "Sign out other browsers",
		Description: "If you signed in somewhere you no longer use, or think someone else has, sign out everywhere but here. Then change your password.",
		Fields:      []web.Field{pw}}
}

func (w *Web) sessionsPage(rw http.ResponseWriter, r *http.Request) error {
	return w.showSessions(rw, r, http.StatusOK, sessionsForm())
}

func (w *Web) showSessions(rw http.ResponseWriter, r *http.Request, status int, form formPage) error {
	_, v, _ := w.visit(rw, r)
	list, err := w.svc.Sessions(r.Context(), v.user.ID, v.sessionID)
	if err != nil {
		return err
	}
	w.page(rw, r, status, SessionsTemplate, "Signed-in browsers", &sessionsPage{Sessions: list, Form: form, Now: w.svc.now()})
	return nil
}

func (w *Web) signOutOthers(rw http.ResponseWriter, r *http.Request) error {
	_, v, _ := w.visit(rw, r)
	n, err := w.svc.SignOutOtherSessions(r.Context(), v.user, r.PostFormValue("password"), v.sessionID)
	var ve *ValidationError
	if errors.As(err, &ve) {
		form := sessionsForm()
		withErrors(&form, ve)
		return w.showSessions(rw, r, http.StatusUnprocessableEntity, form)
	}
	if err != nil {
		return err
	}
	w.setCookie(rw, r, RememberCookie, "", 0)
	w.render.SetFlash(rw, r, "/settings/sessions", web.Flash{Kind: "success", Message: "Signed out " + web.Count(int(n), "other browser") + "."})
	web.SeeOther(rw, r, "/settings/sessions")
	return nil
}

// ---- delete account ----

func deleteForm() *settingsPage {
	pw := field("password", "password", "Your password", "", "current-password", true)
	pw.Help = "To be sure it is you."
	return &settingsPage{formPage: formPage{Heading: "Delete your account", Action: "/settings/delete-account", Submit: "Delete my account",
		Description: "Your account, its API tokens and every browser signed in to it end at once. This cannot be undone.",
		Fields:      []web.Field{pw}}, Back: backToAccount(), Danger: true}
}

func (w *Web) deletePage(rw http.ResponseWriter, r *http.Request) error {
	w.page(rw, r, http.StatusOK, SettingsFormTemplate, "Delete your account", deleteForm())
	return nil
}

func (w *Web) deleteAccount(rw http.ResponseWriter, r *http.Request) error {
	u, _ := UserFrom(r.Context())
	if err := w.svc.DeleteAccount(r.Context(), u, r.PostFormValue("password")); err != nil {
		return w.redrawSettings(rw, r, err, deleteForm(), "Delete your account")
	}
	w.setCookie(rw, r, SessionCookie, "", 0)
	w.setCookie(rw, r, RememberCookie, "", 0)
	w.render.SetFlash(rw, r, w.o.LogoutPath, web.Flash{Kind: "success", Message: "Your account has been deleted."})
	web.SeeOther(rw, r, w.o.LogoutPath)
	return nil
}
