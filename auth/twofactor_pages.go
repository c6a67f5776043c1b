package auth

import (
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/internal/web"
)

// Cookies of two-factor sign-in.
const (
	// challengeCookie carries a sign-in whose password was right to the
	// code page, sealed, for ChallengeLifetime.
	challengeCookie = "gw_two_factor"
	// deviceCookie marks a browser whose owner chose "remember this
	// browser": sealed for one user, it skips the code for
	// RememberDeviceLifetime, until two-factor sign-in is turned off or on
	// again.
	deviceCookie = "gw_two_factor_device"
	// recoveryCookie carries new recovery codes across the redirect after
	// they are made, sealed for the user, for a minute.
	recoveryCookie = "gw_recovery_codes"
	// ChallengeLifetime is how long the code page waits for a code.
	ChallengeLifetime = 5 * time.Minute
	// RememberDeviceLifetime is how long "remember this browser" lasts.
	RememberDeviceLifetime = 30 * 24 * time.Hour
)

// twoFactorPage is the data of /settings/two-factor.
type twoFactorPage struct {
	// State is "off", "pending" (begun, waiting for a code) or "on".
	State  string
	Secret string // the key to type by hand, in groups of four
	Codes  []string
	// CodesFile is the codes as a text file to download (a data: link,
	// so no copy of them stays on the server).
	CodesFile template.URL
	CodesLeft int
	Since     *time.Time
	Confirm   formPage
	Disable   formPage
}

func confirmCodeForm() formPage {
	code := field("text", "code", "Code from your app", "", "one-time-code", true)
	code.Help = "6 digits; a new one every 30 seconds."
	return formPage{Heading: "Confirm with a code", Action: "/settings/two-factor/confirm", Submit: "Turn on", Fields: []web.Field{code}}
}

func disableForm() formPage {
	pw := field("password", "password", "Your password", "", "current-password", true)
	return formPage{Heading: "Turn off two-factor sign-in", Action: "/settings/two-factor/disable", Submit: "Turn off two-factor sign-in",
		Description: "Signing in will ask for your password only.", Fields: []web.Field{pw}}
}

func (w *Web) twoFactorPage(rw http.ResponseWriter, r *http.Request) error {
	return w.showTwoFactor(rw, r, http.StatusOK, confirmCodeForm(), disableForm())
}

func (w *Web) showTwoFactor(rw http.ResponseWriter, r *http.Request, status int, confirm, disable formPage) error {
	u, _ := UserFrom(r.Context())
	p := &twoFactorPage{State: "off", Confirm: confirm, Disable: disable}
	switch setup, err := w.svc.PendingTwoFactor(r.Context(), u); {
	case u.TwoFactor():
		p.State, p.Since = "on", u.TwoFactorConfirmedAt
		p.Codes = w.takeRecoveryCodes(rw, r, u)
		if len(p.Codes) > 0 {
			// The codes are letters, digits and dashes: the link is only
			// ours, never the reader's text.
			p.CodesFile = template.URL("data:text/plain;charset=utf-8," + url.PathEscape(strings.Join(p.Codes, "\n")+"\n"))
		}
		if p.CodesLeft, err = w.svc.RecoveryCodesLeft(r.Context(), u.ID); err != nil {
			return err
		}
	case err == nil:
		p.State, p.Secret = "pending", groupSecret(setup.Secret)
	case !errors.Is(err, ErrTwoFactorNotPending):
		return err
	}
	w.page(rw, r, status, TwoFactorTemplate, "Two-factor sign-in", p)
	return nil
}

// groupSecret writes a key in groups of four, as apps show them.
func groupSecret(s string) string {
	var b strings.Builder
	for i, c := range s {
		if i > 0 && i%4 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func (w *Web) beginTwoFactor(rw http.ResponseWriter, r *http.Request) error {
	u, _ := UserFrom(r.Context())
	if !u.TwoFactor() {
		if _, err := w.svc.BeginTwoFactor(r.Context(), u); err != nil {
			return err
		}
	}
	web.SeeOther(rw, r, "/settings/two-factor")
	return nil
}

// twoFactorQR is the pending setup's QR code, drawn here (no script, no
// other site sees the secret).
func (w *Web) twoFactorQR(rw http.ResponseWriter, r *http.Request) error {
	u, _ := UserFrom(r.Context())
	setup, err := w.svc.PendingTwoFactor(r.Context(), u)
	if errors.Is(err, ErrTwoFactorNotPending) {
		return &web.Problem{Status: http.StatusNotFound, ErrorPage: web.ErrorPage{Heading: "No code to show",
			Message: "Two-factor sign-in is not being set up.", Link: "/settings/two-factor", LinkText: "Two-factor sign-in"}}
	}
	if err != nil {
		return err
	}
	img, err := setup.QRCode(240)
	if err != nil {
		return err
	}
	rw.Header().Set("Content-Type", "image/png")
	rw.Header().Set("Cache-Control", "no-store")
	_, _ = rw.Write(img)
	return nil
}

func (w *Web) confirmTwoFactor(rw http.ResponseWriter, r *http.Request) error {
	u, _ := UserFrom(r.Context())
	codes, err := w.svc.ConfirmTwoFactor(r.Context(), u, r.PostFormValue("code"))
	var ve *ValidationError
	var lock *LockoutError
	switch {
	case errors.Is(err, ErrTwoFactorNotPending):
		web.SeeOther(rw, r, "/settings/two-factor")
		return nil
	case errors.As(err, &lock):
		rw.Header().Set("Retry-After", strconv.Itoa(int(lock.RetryAfter/time.Second)))
		form := confirmCodeForm()
		form.Alert = lock.Error()
		return w.showTwoFactor(rw, r, http.StatusTooManyRequests, form, disableForm())
	case errors.As(err, &ve):
		form := confirmCodeForm()
		withErrors(&form, ve)
		return w.showTwoFactor(rw, r, http.StatusUnprocessableEntity, form, disableForm())
	case err != nil:
		return err
	}
	w.giveRecoveryCodes(rw, r, u, codes)
	w.render.SetFlash(rw, r, "/settings/two-factor", web.Flash{Kind: "success", Message: "Two-factor sign-in is on."})
	web.SeeOther(rw, r, "/settings/two-factor")
	return nil
}

func (w *Web) regenerateCodes(rw http.ResponseWriter, r *http.Request) error {
	u, _ := UserFrom(r.Context())
	codes, err := w.svc.RegenerateRecoveryCodes(r.Context(), u)
	if errors.Is(err, ErrNotFound) {
		web.SeeOther(rw, r, "/settings/two-factor")
		return nil
	}
	if err != nil {
		return err
	}
	w.giveRecoveryCodes(rw, r, u, codes)
	w.render.SetFlash(rw, r, "/settings/two-factor", web.Flash{Kind: "success", Message: "You have new recovery codes; the old ones no longer work."})
	web.SeeOther(rw, r, "/settings/two-factor")
	return nil
}

// giveRecoveryCodes seals new codes into a cookie for the page after the
// redirect, which shows them once.
func (w *Web) giveRecoveryCodes(rw http.ResponseWriter, r *http.Request, u User, codes []string) {
	sealed := w.tokenSeal.Seal(strconv.FormatInt(w.svc.now().Unix(), 10)+"|"+strings.Join(codes, " "), idContext("recovery codes", u.ID))
	http.SetCookie(rw, &http.Cookie{Name: recoveryCookie, Value: sealed, Path: "/settings/two-factor", MaxAge: 60, HttpOnly: true,
		Secure: w.secure(r), SameSite: http.SameSiteStrictMode})
}

// takeRecoveryCodes returns (and forgets) the codes giveRecoveryCodes
// sealed, if they are under a minute old.
func (w *Web) takeRecoveryCodes(rw http.ResponseWriter, r *http.Request, u User) []string {
	c, err := r.Cookie(recoveryCookie)
	if err != nil {
		return nil
	}
	http.SetCookie(rw, &http.Cookie{Name: recoveryCookie, Path: "/settings/two-factor", MaxAge: -1, HttpOnly: true, Secure: w.secure(r),
		SameSite: http.SameSiteStrictMode})
	plain, err := w.tokenSeal.Open(c.Value, idContext("recovery codes", u.ID))
	if err != nil {
		return nil
	}
	at, codes, ok := strings.Cut(plain, "|")
	if t, err := strconv.ParseInt(at, 10, 64); !ok || err != nil || w.svc.now().Sub(time.Unix(t, 0)) >= time.Minute {
		return nil
	}
	return strings.Fields(codes)
}

func (w *Web) disableTwoFactor(rw http.ResponseWriter, r *http.Request) error {
	u, _ := UserFrom(r.Context())
	if !u.TwoFactor() {
		// Only begun: nothing protects the account yet, so no password.
		if err := w.svc.CancelTwoFactor(r.Context(), u); err != nil {
			return err
		}
		web.SeeOther(rw, r, "/settings/two-factor")
		return nil
	}
	err := w.svc.DisableTwoFactor(r.Context(), u, r.PostFormValue("password"))
	var ve *ValidationError
	if errors.As(err, &ve) {
		form := disableForm()
		withErrors(&form, ve)
		return w.showTwoFactor(rw, r, http.StatusUnprocessableEntity, confirmCodeForm(), form)
	}
	if err != nil {
		return err
	}
	w.setCookie(rw, r, deviceCookie, "", 0)
	w.render.SetFlash(rw, r, "/settings/two-factor", web.Flash{Kind: "success", Message: "Two-factor sign-in is off."})
	web.SeeOther(rw, r, "/settings/two-factor")
	return nil
}

// ---- the challenge after the password ----

// startChallenge remembers, sealed in a cookie, that u typed the right
// password (and whether to remember them), for the code page.
func (w *Web) startChallenge(rw http.ResponseWriter, r *http.Request, u User, remember bool) {
	plain := strconv.FormatInt(u.ID, 10) + "|" + strconv.FormatBool(remember) + "|" + strconv.FormatInt(w.svc.now().Add(ChallengeLifetime).Unix(), 10)
	w.setCookie(rw, r, challengeCookie, w.tokenSeal.Seal(plain, []byte("two-factor challenge")), ChallengeLifetime)
}

// challenged returns the user whose password was right and whether they
// asked to be remembered; ok false when there is no live challenge.
func (w *Web) challenged(r *http.Request) (u User, remember, ok bool, err error) {
	c, cerr := r.Cookie(challengeCookie)
	if cerr != nil {
		return User{}, false, false, nil
	}
	plain, oerr := w.tokenSeal.Open(c.Value, []byte("two-factor challenge"))
	parts := strings.Split(plain, "|")
	if oerr != nil || len(parts) != 3 {
		return User{}, false, false, nil
	}
	id, err1 := strconv.ParseInt(parts[0], 10, 64)
	until, err2 := strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil || w.svc.now().Unix() > until {
		return User{}, false, false, nil
	}
	u, err = w.svc.User(r.Context(), id)
	if errors.Is(err, ErrNotFound) {
		return User{}, false, false, nil
	}
	if err != nil {
		return User{}, false, false, err
	}
	return u, parts[1] == "true", u.TwoFactor(), nil
}

// rememberedDevice reports whether this browser was remembered by u since
// they last turned two-factor sign-in on.
func (w *Web) rememberedDevice(r *http.Request, u User) bool {
	c, err := r.Cookie(deviceCookie)
	if err != nil || !u.TwoFactor() {
		return false
	}
	plain, err := w.tokenSeal.Open(c.Value, idContext("two-factor device", u.ID))
	since, until, ok := strings.Cut(plain, "|")
	if err != nil || !ok || since != strconv.FormatInt(u.TwoFactorConfirmedAt.UnixMicro(), 10) {
		return false
	}
	t, err := strconv.ParseInt(until, 10, 64)
	return err == nil && w.svc.now().Unix() < t
}

func (w *Web) rememberDevice(rw http.ResponseWriter, r *http.Request, u User) {
	plain := strconv.FormatInt(u.TwoFactorConfirmedAt.UnixMicro(), 10) + "|" + strconv.FormatInt(w.svc.now().Add(RememberDeviceLifetime).Unix(), 10)
	w.setCookie(rw, r, deviceCookie, w.tokenSeal.Seal(plain, idContext("two-factor device", u.ID)), RememberDeviceLifetime)
}

func challengeForm(r *http.Request) *formPage {
	code := field("text", "code", "Code", "", "one-time-code", true)
	code.Help = "The 6-digit code your authenticator app shows now, or one of your recovery codes."
	code.Autofocus = true // the one thing the page asks for
	device := field("checkbox", "remember_device", "Remember this browser for 30 days", "1", "", false)
	device.Checked = r.PostFormValue("remember_device") != ""
	return &formPage{Heading: "Enter your code", Description: "Your account has two-factor sign-in turned on.", Action: "/two-factor-challenge",
		Submit: "Sign in", Fields: []web.Field{code, device}, Links: []pageLink{{"/login", "Start again with your password"}}}
}

func (w *Web) challengePage(rw http.ResponseWriter, r *http.Request) error {
	if _, _, ok, err := w.challenged(r); err != nil || !ok {
		if err == nil {
			w.setCookie(rw, r, challengeCookie, "", 0)
			w.render.SetFlash(rw, r, "/login", web.Flash{Kind: "info", Message: "Sign in again: the code page waits " + duration(ChallengeLifetime) + "."})
			web.SeeOther(rw, r, "/login")
		}
		return err
	}
	w.page(rw, r, http.StatusOK, ChallengeTemplate, "Enter your code", challengeForm(r))
	return nil
}

func (w *Web) challenge(rw http.ResponseWriter, r *http.Request) error {
	u, remember, ok, err := w.challenged(r)
	if err != nil || !ok {
		if err == nil {
			w.setCookie(rw, r, challengeCookie, "", 0)
			w.render.SetFlash(rw, r, "/login", web.Flash{Kind: "info", Message: "Sign in again: the code page waits " + duration(ChallengeLifetime) + "."})
			web.SeeOther(rw, r, "/login")
		}
		return err
	}
	p := challengeForm(r)
	recovery, err := w.svc.CheckTwoFactor(r.Context(), u, r.PostFormValue("code"))
	var lock *LockoutError
	switch {
	case errors.As(err, &lock):
		rw.Header().Set("Retry-After", strconv.Itoa(int(lock.RetryAfter/time.Second)))
		p.Alert = lock.Error()
		w.page(rw, r, http.StatusTooManyRequests, ChallengeTemplate, "Enter your code", p)
		return nil
	case err != nil:
		return w.redraw(rw, r, err, p, ChallengeTemplate, "Enter your code")
	}
	w.setCookie(rw, r, challengeCookie, "", 0)
	if r.PostFormValue("remember_device") != "" {
		w.rememberDevice(rw, r, u)
	}
	if err := w.signIn(rw, r, u, remember); err != nil {
		return err
	}
	target := w.intended(rw, r)
	if recovery {
		left, err := w.svc.RecoveryCodesLeft(r.Context(), u.ID)
		if err != nil {
			return err
		}
		target = "/settings/two-factor"
		w.render.SetFlash(rw, r, target, web.Flash{Kind: "info",
			Message: "You signed in with a recovery code; it will not work again. You have " + web.Count(left, "code") + " left: make new ones here if you are running out."})
	}
	web.SeeOther(rw, r, target)
	return nil
}
