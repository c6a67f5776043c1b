package auth

import (
	"cmp"
	"errors"
	"net"
	"net/http"
	"strconv"

	"github.com/groundwork-go/groundwork/internal/proxies"
	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/internal/web"
)

// PasskeysTemplate is the page of a user's passkeys.
const PasskeysTemplate = "auth/passkeys.html"

// passkeyCookie carries a passkey ceremony's sealed state from its
// options to its answer.
const passkeyCookie = "gw_passkey"

// passkeyRoutes registers the passkey pages: managing them behind
// confirmed (a passkey signs in with no password and no two-factor code,
// so adding one asks for the password as two-factor does), signing in
// with one for guests.
func (w *Web) passkeyRoutes(handle func(string, http.Handler), confirmed func(func(http.ResponseWriter, *http.Request) error) http.Handler) {
	guest := func(f func(http.ResponseWriter, *http.Request) error) http.Handler {
		return w.RequireGuest(w.base.Func(f))
	}
	handle("GET /settings/passkeys", confirmed(w.passkeysPage))
	handle("POST /settings/passkeys/options", confirmed(w.passkeyRegistrationOptions))
	handle("POST /settings/passkeys", confirmed(w.addPasskey))
	handle("POST /settings/passkeys/{id}/delete", confirmed(w.deletePasskey))
	handle("POST /login/passkey/options", guest(w.passkeySignInOptions))
	handle("POST /login/passkey", guest(w.passkeySignIn))
}

// passkeySite is the site passkeys are made for: BaseURL's host when set
// (set it in production), else the address the browser asked for (the
// browser itself holds a passkey to the page's own host).
func (w *Web) passkeySite(r *http.Request) PasskeySite {
	name := cmp.Or(w.o.Brand.Name, w.svc.appName)
	if b := w.o.BaseURL; b != nil {
		return PasskeySite{ID: b.Hostname(), Origin: b.Scheme + "://" + b.Host, Name: name}
	}
	scheme := "http"
	if r.TLS != nil || proxies.ViaTLS(r, w.o.TrustedProxies) {
		scheme = "https"
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return PasskeySite{ID: host, Origin: scheme + "://" + r.Host, Name: name}
}

// errPasskeyAtIP: passkeys belong to host names; a browser refuses them
// at an IP address.
var errPasskeyAtIP = &web.Problem{Status: http.StatusConflict,
	JSON: "Passkeys work on a site reached by its name, not by an IP address: open this page at its domain (or localhost).",
	ErrorPage: web.ErrorPage{Heading: "Passkeys need the site's name",
		Message: "Passkeys work on a site reached by its name, not by an IP address: open this page at its domain (or localhost)."}}

// passkeysHere reports whether passkeys can be made and used at the
// address the page was asked at.
func (w *Web) passkeysHere(r *http.Request) bool { return net.ParseIP(w.passkeySite(r).ID) == nil }

// passkeysPage is the data of /settings/passkeys.
type passkeysPage struct {
	Passkeys []Passkey
	// Name is the name field of a new passkey, its value suggested from
	// the browser.
	Name web.Field
	// Here: passkeys work at this page's address (a name, not an IP).
	Here bool
}

func (w *Web) passkeysPage(rw http.ResponseWriter, r *http.Request) error {
	u, _ := UserFrom(r.Context())
	keys, err := w.svc.Passkeys(r.Context(), u.ID)
	if err != nil {
		return err
	}
	browser, device := describeAgent(r.UserAgent())
	suggested := browser
	if device != "" {
		suggested = cmp.Or(browser, "Browser") + " on " + device
	}
	name := field("text", "name", "Name for the new passkey", suggested, "off", false)
	name.Help = "So that you can tell your passkeys apart, e.g. “Work laptop”."
	w.page(rw, r, http.StatusOK, PasskeysTemplate, "Passkeys", &passkeysPage{Passkeys: keys, Name: name, Here: w.passkeysHere(r)})
	return nil
}

func (w *Web) setCeremony(rw http.ResponseWriter, r *http.Request, state string) {
	http.SetCookie(rw, &http.Cookie{Name: passkeyCookie, Value: state, Path: "/", MaxAge: int(passkeyCeremonyLifetime.Seconds()), HttpOnly: true,
		Secure: w.secure(r), SameSite: http.SameSiteStrictMode})
}

// takeCeremony returns (and forgets) the ceremony's sealed state.
func (w *Web) takeCeremony(rw http.ResponseWriter, r *http.Request) string {
	c, err := r.Cookie(passkeyCookie)
	if err != nil {
		return ""
	}
	http.SetCookie(rw, &http.Cookie{Name: passkeyCookie, Path: "/", MaxAge: -1, HttpOnly: true, Secure: w.secure(r), SameSite: http.SameSiteStrictMode})
	return c.Value
}

// passkeyProblem is the JSON answer of a passkey that does not hold.
func passkeyProblem(err error) error {
	switch {
	case errors.Is(err, ErrPasskey):
		return &web.Problem{Status: http.StatusUnprocessableEntity, JSON: ErrPasskey.Error(), Err: err,
			ErrorPage: web.ErrorPage{Heading: "The passkey could not be used", Message: ErrPasskey.Error()}}
	case errors.Is(err, ErrDisabled):
		return &web.Problem{Status: http.StatusForbidden, JSON: msgDisabled, Err: err,
			ErrorPage: web.ErrorPage{Heading: "This account is disabled", Message: msgDisabled}}
	}
	return err
}

func (w *Web) passkeyRegistrationOptions(rw http.ResponseWriter, r *http.Request) error {
	u, _ := UserFrom(r.Context())
	if !w.passkeysHere(r) {
		return errPasskeyAtIP
	}
	options, state, err := w.svc.BeginPasskeyRegistration(r.Context(), w.passkeySite(r), u)
	var ve *ValidationError
	if errors.As(err, &ve) {
		reply.WriteJSON(rw, http.StatusUnprocessableEntity, ve)
		return nil
	}
	if err != nil {
		return err
	}
	w.setCeremony(rw, r, state)
	rw.Header().Set("Content-Type", "application/json")
	rw.Header().Set("Cache-Control", "no-store")
	_, _ = rw.Write(options)
	return nil
}

func (w *Web) addPasskey(rw http.ResponseWriter, r *http.Request) error {
	u, _ := UserFrom(r.Context())
	p, err := w.svc.FinishPasskeyRegistration(r.Context(), w.passkeySite(r), u, w.takeCeremony(rw, r), r.Body, r.URL.Query().Get("name"))
	var ve *ValidationError
	if errors.As(err, &ve) {
		reply.WriteJSON(rw, http.StatusUnprocessableEntity, ve)
		return nil
	}
	if err != nil {
		return passkeyProblem(err)
	}
	w.render.SetFlash(rw, r, "/settings/passkeys", web.Flash{Kind: "success", Message: "Passkey “" + p.Name + "” added: sign in with it next time."})
	reply.WriteJSON(rw, http.StatusCreated, map[string]string{"redirect": "/settings/passkeys"})
	return nil
}

func (w *Web) deletePasskey(rw http.ResponseWriter, r *http.Request) error {
	u, _ := UserFrom(r.Context())
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err == nil {
		err = w.svc.DeletePasskey(r.Context(), u.ID, id)
	}
	if err != nil && (errors.Is(err, ErrNotFound) || errors.Is(err, strconv.ErrSyntax) || errors.Is(err, strconv.ErrRange)) {
		return &web.Problem{Status: http.StatusNotFound, Err: err, ErrorPage: web.ErrorPage{Heading: "Passkey not found",
			Message: "You have no passkey with that number.", Link: "/settings/passkeys", LinkText: "Back to your passkeys"}}
	}
	if err != nil {
		return err
	}
	w.render.SetFlash(rw, r, "/settings/passkeys", web.Flash{Kind: "success", Message: "The passkey was deleted: it no longer signs you in. Remove it from your device too."})
	web.SeeOther(rw, r, "/settings/passkeys")
	return nil
}

func (w *Web) passkeySignInOptions(rw http.ResponseWriter, r *http.Request) error {
	if !w.passkeysHere(r) {
		return errPasskeyAtIP
	}
	options, state, err := w.svc.BeginPasskeySignIn(w.passkeySite(r))
	if err != nil {
		return err
	}
	w.setCeremony(rw, r, state)
	rw.Header().Set("Content-Type", "application/json")
	rw.Header().Set("Cache-Control", "no-store")
	_, _ = rw.Write(options)
	return nil
}

// passkeySignIn signs in with a passkey: it stands for both factors, so
// no code is asked after it.
func (w *Web) passkeySignIn(rw http.ResponseWriter, r *http.Request) error {
	u, err := w.svc.FinishPasskeySignIn(r.Context(), w.passkeySite(r), w.takeCeremony(rw, r), r.Body)
	if err != nil {
		return passkeyProblem(err)
	}
	if err := w.signIn(rw, r, u, false); err != nil {
		return passkeyProblem(err)
	}
	reply.WriteJSON(rw, http.StatusOK, map[string]string{"redirect": w.intended(rw, r)})
	return nil
}
