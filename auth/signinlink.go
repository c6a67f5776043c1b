package auth

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/proxies"
	"github.com/groundwork-go/groundwork/internal/web"
	"github.com/groundwork-go/groundwork/mail"
)

// Sign-in links (a "magic link"): a link mailed to an address that signs
// its account in, once, within SignInLinkLifetime. The link carries its
// own proof, so nothing is stored until it is used: the address, when it
// stops working, and an HMAC over those, the account's number and its
// password hash (a changed password or address ends every link sent
// before). Using it counts its MAC once in the sign-in limiter for as
// long as it could work, so it serves once, across instances when the
// limiter is shared (store.SQLRateLimiter). Asking for one is counted as
// passwords are: per address and client, per account, per client.
const (
	// signInLinkLifetime is how long a sign-in link works.
	signInLinkLifetime = 15 * time.Minute
	// signInLinkAsks are the links one address may ask for from one
	// client a quarter of an hour; signInLinkAccount from any client.
	signInLinkAsks    = 3
	signInLinkAccount = 5
)

// errBadSignInLink: a sign-in link that is malformed, forged, expired,
// spent, or for an address or password that has changed.
var errBadSignInLink = errors.New("auth: the sign-in link is not valid")

// msgSignInLinkSent is what the page says once a link is asked for,
// whether or not an account has the address.
const msgSignInLinkSent = "If an account has that address, we have emailed it a sign-in link. It works once, for 15 minutes."

// signInLinkLimits are the allowances of asking for a link for email
// from clientIP.
func signInLinkLimits(email, clientIP string) []loginLimit {
	account := NormalizeEmail(email)
	return []loginLimit{{"signin-link:" + account + "|" + clientIP, signInLinkAsks, 15 * time.Minute, false},
		{"signin-link-account:" + account, signInLinkAccount, 15 * time.Minute, false},
		{"login-address:" + clientIP, LoginAddressAttemptsDefault, time.Minute, false}}
}

// signInLinkMAC signs a link for u (whose password hash is hash) that
// works until expires.
func (s *Service) signInLinkMAC(u User, hash string, expires int64) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("groundwork sign-in link\x00" + strconv.FormatInt(u.ID, 10) + "\x00" + u.Email + "\x00" + hash + "\x00" + strconv.FormatInt(expires, 10)))
	return m.Sum(nil)[:20]
}

// sendSignInLink mails a sign-in link to the account with email, if there
// is one, made from linkBase (to which "/<token>" is added); it says
// nothing of whether the account exists. Past the allowances it is
// refused with a *LockoutError.
func (s *Service) sendSignInLink(ctx context.Context, email, clientIP, linkBase string) error {
	wait, _, err := s.spend(ctx, signInLinkLimits(email, clientIP))
	if err != nil {
		return fmt.Errorf("auth: sign-in link: %w", err)
	}
	if wait > 0 {
		return &LockoutError{RetryAfter: wait}
	}
	u, hash, err := s.store.UserByEmail(ctx, NormalizeEmail(email))
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("auth: sign-in link: %w", err)
	}
	expires := s.now().Add(signInLinkLifetime).Unix()
	head := make([]byte, 8, 8+len(u.Email))
	binary.BigEndian.PutUint64(head, uint64(expires))
	token := base64.RawURLEncoding.EncodeToString(append(head, u.Email...)) + "." +
		base64.RawURLEncoding.EncodeToString(s.signInLinkMAC(u, hash, expires))
	link := strings.TrimSuffix(linkBase, "/") + "/" + token
	s.send(mail.Message{To: []string{u.Email}, Subject: "Your sign-in link",
		Text: fmt.Sprintf("Hello %s,\n\nSomeone, we hope you, asked to sign in to %s with this address.\n\nSign in: %s\n\n"+
			"The link works once, for %d minutes. If you did not ask for it, ignore this email: without the link no one can use it.\n",
			u.Name, s.appName, link, int(signInLinkLifetime/time.Minute))})
	return nil
}

// signInLinkUser is the account a sign-in link is for, when it is good:
// well formed, signed by this service's key, not expired, and its address
// and password unchanged since it was sent. spend, when set, uses it up:
// a link already used is errBadSignInLink.
func (s *Service) signInLinkUser(ctx context.Context, token string, spend bool) (User, error) {
	head, mac, ok := strings.Cut(token, ".")
	payload, err1 := base64.RawURLEncoding.DecodeString(head)
	sig, err2 := base64.RawURLEncoding.DecodeString(mac)
	if !ok || err1 != nil || err2 != nil || len(payload) <= 8 {
		return User{}, errBadSignInLink
	}
	expires := int64(binary.BigEndian.Uint64(payload[:8]))
	if s.now().Unix() >= expires {
		return User{}, errBadSignInLink
	}
	u, hash, err := s.store.UserByEmail(ctx, NormalizeEmail(string(payload[8:])))
	if errors.Is(err, ErrNotFound) {
		return User{}, errBadSignInLink
	}
	if err != nil {
		return User{}, fmt.Errorf("auth: sign-in link: %w", err)
	}
	if !hmac.Equal(sig, s.signInLinkMAC(u, hash, expires)) {
		return User{}, errBadSignInLink
	}
	if spend {
		lim, err := s.logins.Hit(ctx, "signin-link-used:"+hex.EncodeToString(sig), 1, signInLinkLifetime)
		if err != nil {
			return User{}, fmt.Errorf("auth: sign-in link: %w", err)
		}
		if !lim.Allowed {
			return User{}, errBadSignInLink
		}
	}
	return u, nil
}

// signInLinkForm is the page that asks for the address to mail a link to.
func signInLinkForm(r *http.Request) *formPage {
	return &formPage{Heading: "Sign in with a link", Description: "Enter your email address: we email you a link that signs you in, no password needed.",
		Action: "/login/link", Submit: "Email me a sign-in link",
		Fields: []web.Field{field("email", "email", "Email address", r.PostFormValue("email"), "email", true)},
		Links:  []pageLink{{"/login", "Sign in with your password instead"}}}
}

func (w *Web) signInLinkPage(rw http.ResponseWriter, r *http.Request) {
	w.page(rw, r, http.StatusOK, ForgotTemplate, "Sign in with a link", signInLinkForm(r))
}

// askSignInLink mails the link (or says it did, for an address no account
// has), or says how long to wait.
func (w *Web) askSignInLink(rw http.ResponseWriter, r *http.Request) error {
	v := &api.Validator{}
	email := checkEmail(v, r.PostFormValue("email"))
	if err := v.Err(); err != nil {
		return w.redraw(rw, r, err, signInLinkForm(r), ForgotTemplate, "Sign in with a link")
	}
	err := w.svc.sendSignInLink(r.Context(), email, proxies.ClientIPString(r, w.o.TrustedProxies), w.baseURL(r)+"/login/link")
	var lock *LockoutError
	if errors.As(err, &lock) {
		rw.Header().Set("Retry-After", strconv.Itoa(int(lock.RetryAfter/time.Second)))
		p := signInLinkForm(r)
		p.Alert = "Too many sign-in links were asked for. Please try again in " + duration(lock.RetryAfter.Round(time.Second)) + "."
		w.page(rw, r, http.StatusTooManyRequests, ForgotTemplate, "Sign in with a link", p)
		return nil
	}
	if err != nil {
		return err
	}
	w.render.SetFlash(rw, r, "/login/link", web.Flash{Kind: "success", Message: msgSignInLinkSent})
	web.SeeOther(rw, r, "/login/link")
	return nil
}

// badSignInLink is the page of a link that cannot sign in, with the way
// to a new one.
var badSignInLink = &web.Problem{Status: http.StatusNotFound, Err: errBadSignInLink, ErrorPage: web.ErrorPage{Heading: "Sign-in link not valid",
	Message: "This sign-in link has expired or was used already (each works once, for 15 minutes). Ask for a new one and use the newest email.",
	Link:    "/login/link", LinkText: "Email me a new link"}}

// signInLinkConfirm asks before the link signs in: the GET changes
// nothing (a mail scanner that fetches the link spends nothing), the
// button posts.
func (w *Web) signInLinkConfirm(rw http.ResponseWriter, r *http.Request) error {
	u, err := w.svc.signInLinkUser(r.Context(), r.PathValue("token"), false)
	if errors.Is(err, errBadSignInLink) {
		return badSignInLink
	}
	if err != nil {
		return err
	}
	remember := field("checkbox", "remember", "Remember me", "1", "", false)
	w.page(rw, r, http.StatusOK, ForgotTemplate, "Sign in", &formPage{Heading: "Sign in as " + u.Email,
		Description: "The link is good: sign in to continue.", Action: "/login/link/" + r.PathValue("token"), Submit: "Sign in",
		Fields: []web.Field{remember}})
	return nil
}

// useSignInLink spends the link and signs its account in: through the
// second step where the account has two-factor sign-in, as a password's
// sign-in does.
func (w *Web) useSignInLink(rw http.ResponseWriter, r *http.Request) error {
	u, err := w.svc.signInLinkUser(r.Context(), r.PathValue("token"), true)
	if errors.Is(err, errBadSignInLink) {
		groundwork.Count(w.svc.meter, groundwork.MetricSignIns, "failure")
		return badSignInLink
	}
	if err != nil {
		return err
	}
	return w.CompleteSignIn(rw, r, u, r.PostFormValue("remember") != "")
}

// CompleteSignIn signs u in once something other than a password has
// proved who they are (a mailed link, an OpenID provider): it counts the
// sign-in, sends a user with two-factor sign-in to its second step
// (unless this browser is remembered), or starts their session and
// redirects to the page they meant to see. The caller has answered
// nothing yet; remember keeps the browser signed in. A disabled user is
// ErrDisabled, and nothing is answered.
func (w *Web) CompleteSignIn(rw http.ResponseWriter, r *http.Request, u User, remember bool) error {
	if u.DisabledAt != nil {
		groundwork.Count(w.svc.meter, groundwork.MetricSignIns, "failure")
		return ErrDisabled
	}
	groundwork.Count(w.svc.meter, groundwork.MetricSignIns, "success")
	if u.TwoFactor() && !w.rememberedDevice(r, u) {
		w.startChallenge(rw, r, u, remember)
		web.SeeOther(rw, r, "/two-factor-challenge")
		return nil
	}
	if err := w.signIn(rw, r, u, remember); err != nil {
		return err
	}
	web.SeeOther(rw, r, w.intended(rw, r))
	return nil
}
