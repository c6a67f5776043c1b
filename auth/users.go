package auth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/store/lite"
)

// Web sign-in defaults: those of Laravel Breeze where it has one.
const (
	// LoginAttemptsDefault sign-ins a minute per email and client IP; the
	// next one is locked out.
	LoginAttemptsDefault = 5
	// LoginWindowDefault is the lock-out's window.
	LoginWindowDefault = time.Minute
	// LoginAccountAttemptsDefault sign-ins a minute per account from any
	// address, and LoginAccountSustainedDefault a quarter of an hour: an
	// attack spread over many addresses is slowed, a minute at first and
	// up to fifteen while it goes on, and the owner waits no longer.
	LoginAccountAttemptsDefault  = 10
	LoginAccountSustainedDefault = 30
	// LoginAddressAttemptsDefault sign-ins a minute per client IP across
	// every account: one address trying many accounts is slowed.
	LoginAddressAttemptsDefault = 30
	// SessionIdleDefault ends a session nobody used for this long.
	SessionIdleDefault = 120 * time.Minute
	// SessionLifetimeDefault ends any session this long after sign-in
	// (remember me then signs the user in again, with a new session).
	SessionLifetimeDefault = 24 * time.Hour
	// RememberLifetimeDefault is how long "remember me" lasts: 400 days.
	RememberLifetimeDefault = 400 * 24 * time.Hour
	// ConfirmLifetimeDefault is how long a password confirmation lasts.
	ConfirmLifetimeDefault = 3 * time.Hour
	// ResetLifetimeDefault is how long a password-reset link works.
	ResetLifetimeDefault = 60 * time.Minute
	// VerifyLifetimeDefault is how long an email-verification link works.
	VerifyLifetimeDefault = 60 * time.Minute
	// ResetThrottle is how soon a second reset mail may follow the first
	// for one user; requests in between send nothing (silently).
	ResetThrottle = 60 * time.Second
	// UserNameMaxLength and EmailMaxLength cap a user's name and address.
	UserNameMaxLength = 255
	EmailMaxLength    = 255
)

// Messages of the sign-in flows, as the original's.
const (
	MsgBadCredentials   = "These credentials do not match our records."
	MsgLockout          = "Too many login attempts. Please try again in %d seconds."
	MsgResetSent        = "A reset link will be sent if the account exists."
	MsgPasswordReset    = "Your password has been reset."
	MsgResetInvalid     = "This password reset token is invalid."
	MsgResetNoUser      = "We can't find a user with that email address."
	MsgWrongPassword    = "The provided password is incorrect."
	MsgVerificationSent = "A new verification link has been sent to the email address you provided during registration."
)

type lifetimes struct {
	idle, absolute, remember, confirm, reset, verify time.Duration
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

func (s *Service) initUsers(o Options) error {
	p := o.Password
	if p.Memory == 0 {
		p.Memory = PasswordMemoryDefault
	}
	if p.Time == 0 {
		p.Time = PasswordTimeDefault
	}
	if p.Threads == 0 {
		p.Threads = PasswordThreadsDefault
	}
	conc := o.PasswordConcurrency
	if conc == 0 {
		conc = max(1, runtime.GOMAXPROCS(0)/2)
	}
	for _, d := range []time.Duration{o.PasswordWait, o.LoginWindow, o.SessionIdle, o.SessionLifetime, o.RememberLifetime,
		o.ConfirmLifetime, o.ResetLifetime, o.VerifyLifetime} {
		if d < 0 {
			return errors.New("negative duration")
		}
	}
	if conc < 0 || o.LoginAttempts < 0 {
		return errors.New("negative password concurrency or login attempts")
	}
	var err error
	if s.hasher, err = newHasher(p, conc, orDefault(o.PasswordWait, PasswordWaitDefault)); err != nil {
		return err
	}
	s.key = o.Key
	if s.key == nil {
		s.key = make([]byte, 32)
		_, _ = rand.Read(s.key)
	}
	s.logins = o.LoginLimiter
	if s.logins == nil {
		s.logins = lite.NewMemoryRateLimiter(&lite.RateLimiterOptions{Now: s.now})
	}
	s.loginAttempts, s.loginWindow = o.LoginAttempts, orDefault(o.LoginWindow, LoginWindowDefault)
	if s.loginAttempts == 0 {
		s.loginAttempts = LoginAttemptsDefault
	}
	s.life = lifetimes{idle: orDefault(o.SessionIdle, SessionIdleDefault), absolute: orDefault(o.SessionLifetime, SessionLifetimeDefault),
		remember: orDefault(o.RememberLifetime, RememberLifetimeDefault), confirm: orDefault(o.ConfirmLifetime, ConfirmLifetimeDefault),
		reset: orDefault(o.ResetLifetime, ResetLifetimeDefault), verify: orDefault(o.VerifyLifetime, VerifyLifetimeDefault)}
	s.mailer, s.mailFrom, s.appName, s.logger = o.Mailer, o.MailFrom, o.AppName, o.Logger
	if s.appName == "" {
		s.appName = "groundwork"
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// NormalizeEmail is how addresses are compared and stored: trimmed and
// lower-cased.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// checkNewPassword adds the password rules to v: required, at least
// PasswordMinLength characters, at most PasswordMaxBytes bytes, and equal
// to its confirmation when one is asked for.
func checkNewPassword(v *api.Validator, password string, confirmation *string) {
	switch {
	case password == "":
		v.Add("password", api.MsgRequired("password"))
	case utf8.RuneCountInString(password) < PasswordMinLength:
		v.Add("password", fmt.Sprintf("The password field must be at least %d characters.", PasswordMinLength))
	case len(password) > PasswordMaxBytes:
		v.Add("password", fmt.Sprintf("The password field must not be greater than %d characters.", PasswordMaxBytes))
	case confirmation != nil && *confirmation != password:
		v.Add("password", "The password field confirmation does not match.")
	}
}

// checkEmail adds the email rules to v and returns the normalised address.
func checkEmail(v *api.Validator, email string) string {
	email = NormalizeEmail(email)
	switch {
	case email == "":
		v.Add("email", api.MsgRequired("email"))
	case utf8.RuneCountInString(email) > EmailMaxLength:
		v.Add("email", api.MsgMaxChars("email", EmailMaxLength))
	case !api.ValidEmail(email):
		v.Add("email", api.MsgEmail("email"))
	}
	return email
}

func checkCapabilities(v *api.Validator, caps []string) {
	for i, c := range caps {
		if !ValidAbility(c) {
			v.Add("capabilities."+strconv.Itoa(i), api.MsgFormat("capabilities."+strconv.Itoa(i)))
		}
	}
}

// CreateUser registers a user: the register page's rules (name, email
// unique in any case, password of at least PasswordMinLength characters).
// A bad input, a taken address included, is a *ValidationError.
func (s *Service) CreateUser(ctx context.Context, nu NewUser) (User, error) {
	v := &api.Validator{}
	name := strings.TrimSpace(nu.Name)
	switch {
	case name == "":
		v.Add("name", api.MsgRequired("name"))
	case utf8.RuneCountInString(name) > UserNameMaxLength:
		v.Add("name", api.MsgMaxChars("name", UserNameMaxLength))
	}
	email := checkEmail(v, nu.Email)
	checkNewPassword(v, nu.Password, nu.PasswordConfirmation)
	checkCapabilities(v, nu.Capabilities)
	if err := v.Err(); err != nil {
		return User{}, err
	}
	hash, err := s.hasher.hash(ctx, nu.Password)
	if err != nil {
		return User{}, fmt.Errorf("auth: create user: %w", err)
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	u := User{Name: name, Email: email, Capabilities: dedupe(nu.Capabilities), CreatedAt: now, UpdatedAt: now}
	if nu.Verified {
		u.EmailVerifiedAt = &now
	}
	u, err = s.store.CreateUser(ctx, u, hash)
	if errors.Is(err, ErrEmailTaken) {
		return User{}, api.Invalid("email", api.MsgTaken("email"))
	}
	if err != nil {
		return User{}, fmt.Errorf("auth: create user: %w", err)
	}
	for _, h := range s.hooks.registered.All() {
		h(ctx, u)
	}
	return u, nil
}

// User returns the user with this ID, or ErrNotFound.
func (s *Service) User(ctx context.Context, id int64) (User, error) {
	u, _, err := s.store.UserByID(ctx, id)
	if err != nil {
		return User{}, fmt.Errorf("auth: user %d: %w", id, err)
	}
	return u, nil
}

// UserByEmail returns the user with this address (in any case), or
// ErrNotFound.
func (s *Service) UserByEmail(ctx context.Context, email string) (User, error) {
	u, _, err := s.store.UserByEmail(ctx, NormalizeEmail(email))
	if err != nil {
		return User{}, fmt.Errorf("auth: user %q: %w", email, err)
	}
	return u, nil
}

// ListUsers returns every user in ID order.
func (s *Service) ListUsers(ctx context.Context) ([]User, error) {
	us, err := s.store.ListUsers(ctx)
	if err != nil {
		return nil, fmt.Errorf("auth: list users: %w", err)
	}
	return us, nil
}

// Grant adds a capability to a user (no change if they have it).
func (s *Service) Grant(ctx context.Context, userID int64, capability string) (User, error) {
	return s.changeCapabilities(ctx, userID, capability, func(caps []string) []string {
		if slices.Contains(caps, capability) {
			return caps
		}
		return append(caps, capability)
	})
}

// Revoke takes a capability from a user (no change if they lack it). It
// takes only that exact name: revoking "forms:create" from a user with
// "forms:*" leaves them "forms:*".
func (s *Service) Revoke(ctx context.Context, userID int64, capability string) (User, error) {
	return s.changeCapabilities(ctx, userID, capability, func(caps []string) []string {
		return slices.DeleteFunc(caps, func(c string) bool { return c == capability })
	})
}

func (s *Service) changeCapabilities(ctx context.Context, userID int64, capability string, change func([]string) []string) (User, error) {
	if !ValidAbility(capability) {
		return User{}, api.Invalid("capability", api.MsgFormat("capability"))
	}
	u, err := s.User(ctx, userID)
	if err != nil {
		return User{}, err
	}
	u.Capabilities = change(u.Capabilities)
	if err := s.store.SetCapabilities(ctx, userID, u.Capabilities, s.now()); err != nil {
		return User{}, fmt.Errorf("auth: capabilities of user %d: %w", userID, err)
	}
	return s.User(ctx, userID)
}

// SetPassword gives a user a new password (the rules of the register
// page) and signs them out everywhere: every session and remember-me
// token of theirs ends. A bad password is a *ValidationError.
func (s *Service) SetPassword(ctx context.Context, userID int64, password string) error {
	v := &api.Validator{}
	checkNewPassword(v, password, nil)
	if err := v.Err(); err != nil {
		return err
	}
	hash, err := s.hasher.hash(ctx, password)
	if err != nil {
		return fmt.Errorf("auth: set password: %w", err)
	}
	if err := s.store.SetPasswordHash(ctx, userID, hash, s.now()); err != nil {
		return fmt.Errorf("auth: set password of user %d: %w", userID, err)
	}
	return s.signOutEverywhere(ctx, userID)
}

func (s *Service) signOutEverywhere(ctx context.Context, userID int64) error {
	if err := s.store.DeleteUserSessions(ctx, userID); err != nil {
		return fmt.Errorf("auth: sign out user %d: %w", userID, err)
	}
	if err := s.store.DeleteUserRememberTokens(ctx, userID); err != nil {
		return fmt.Errorf("auth: sign out user %d: %w", userID, err)
	}
	return nil
}

// LockoutError is a sign-in refused before its password was looked at,
// because too many came from that email and client IP. Its Error is the
// message the login page shows.
type LockoutError struct {
	// RetryAfter is how long until the window ends.
	RetryAfter time.Duration
}

// Error is the login page's message, with the seconds left.
func (e *LockoutError) Error() string { return fmt.Sprintf(MsgLockout, int(e.RetryAfter/time.Second)) }

// ErrBadCredentials: no user has that email, or the password is wrong.
// The two are not told apart, and cost the same time. CheckCredentials
// answers a *CredentialsError, which is ErrBadCredentials (errors.Is) and
// says how many attempts are left.
var ErrBadCredentials = errors.New(MsgBadCredentials)

// CredentialsError is a failed sign-in: ErrBadCredentials, with the
// attempts left before the account is locked out from this address.
type CredentialsError struct {
	// Remaining is how many more failures the tightest allowance takes;
	// at 0 the next attempt is refused with a *LockoutError.
	Remaining int
	// Window is how long that allowance lasts.
	Window time.Duration
}

// Error is MsgBadCredentials.
func (e *CredentialsError) Error() string { return MsgBadCredentials }

// Is makes a CredentialsError match ErrBadCredentials.
func (e *CredentialsError) Is(target error) bool { return target == ErrBadCredentials }

func loginKey(email, clientIP string) string {
	return "login:" + NormalizeEmail(email) + "|" + clientIP
}

// loginLimit is one of the allowances a sign-in attempt is counted in.
type loginLimit struct {
	key    string
	limit  int
	window time.Duration
	// reset: forgotten at a good sign-in (the address's count is not:
	// it guards every account).
	reset bool
}

// loginLimits are the allowances of an attempt by email from clientIP:
// per email and address, per account (a minute and a quarter of an hour),
// per address.
func (s *Service) loginLimits(email, clientIP string) []loginLimit {
	account := NormalizeEmail(email)
	return []loginLimit{
		{loginKey(email, clientIP), s.loginAttempts, s.loginWindow, true},
		{"login-account:" + account, LoginAccountAttemptsDefault, time.Minute, true},
		{"login-account-15m:" + account, LoginAccountSustainedDefault, 15 * time.Minute, true},
		{"login-address:" + clientIP, LoginAddressAttemptsDefault, time.Minute, false},
	}
}

// CheckCredentials is a sign-in attempt: it counts it against email and
// clientIP (LoginAttempts a window), against the account from any address
// (LoginAccountAttemptsDefault a minute, LoginAccountSustainedDefault a
// quarter of an hour) and against the address across accounts
// (LoginAddressAttemptsDefault a minute), and refuses it with a
// *LockoutError, saying how long to wait, past any of them;
// checks the password (an unknown email is checked against a dummy hash,
// so costs the same), and on success forgets the failures and rehashes a
// password hashed with other parameters. Wrong credentials are
// ErrBadCredentials; a flood of checks beyond PasswordWait, ErrBusy.
func (s *Service) CheckCredentials(ctx context.Context, email, password, clientIP string) (User, error) {
	// Every allowance counts the attempt; the longest wait of those spent
	// is the answer, before any password is checked.
	limits := s.loginLimits(email, clientIP)
	var wait time.Duration
	bad := &CredentialsError{Remaining: -1}
	for _, l := range limits {
		lim, err := s.logins.Hit(ctx, l.key, l.limit, l.window)
		if err != nil {
			return User{}, fmt.Errorf("auth: sign in: %w", err)
		}
		if !lim.Allowed {
			wait = max(wait, lim.RetryAfter(s.now()))
		}
		if l.reset && (bad.Remaining < 0 || lim.Remaining < bad.Remaining) {
			bad.Remaining, bad.Window = lim.Remaining, l.window
		}
	}
	if wait > 0 {
		groundwork.Count(s.meter, groundwork.MetricSignIns, "locked_out")
		return User{}, &LockoutError{RetryAfter: wait}
	}
	u, hash, err := s.store.UserByEmail(ctx, NormalizeEmail(email))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return User{}, fmt.Errorf("auth: sign in: %w", err)
	}
	ok, rehash, err := s.hasher.check(ctx, hash, password)
	if errors.Is(err, errBadHash) {
		s.logger.ErrorContext(ctx, "auth: a stored password hash cannot be read", "user", u.ID)
		ok, err = false, nil
	}
	if err != nil {
		return User{}, fmt.Errorf("auth: sign in: %w", err)
	}
	if !ok {
		groundwork.Count(s.meter, groundwork.MetricSignIns, "failure")
		return User{}, bad
	}
	groundwork.Count(s.meter, groundwork.MetricSignIns, "success")
	for _, l := range limits {
		if l.reset {
			if err := s.logins.Reset(ctx, l.key); err != nil {
				return User{}, fmt.Errorf("auth: sign in: %w", err)
			}
		}
	}
	if rehash {
		if newHash, err := s.hasher.hash(ctx, password); err == nil {
			if err := s.store.SetPasswordHash(ctx, u.ID, newHash, s.now()); err != nil {
				s.logger.WarnContext(ctx, "auth: rehash password", "user", u.ID, "error", err)
			}
		}
	}
	return u, nil
}

// CheckPassword reports whether password is the user's (the
// confirm-password page).
func (s *Service) CheckPassword(ctx context.Context, userID int64, password string) (bool, error) {
	_, hash, err := s.store.UserByID(ctx, userID)
	if err != nil {
		return false, fmt.Errorf("auth: check password: %w", err)
	}
	ok, _, err := s.hasher.check(ctx, hash, password)
	if err != nil && !errors.Is(err, errBadHash) {
		return false, fmt.Errorf("auth: check password: %w", err)
	}
	return ok, nil
}

func (s *Service) randomToken(n int) (string, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(s.rand, b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func sum(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

// StartSession signs u in: a new session (the old one, if any, should be
// ended by the caller) and, when remember is set, a remember-me token.
// It returns the session id and the remember cookie's value ("" without
// one), both secret and shown only here.
func (s *Service) StartSession(ctx context.Context, u User, remember bool) (sessionID, rememberValue string, err error) {
	if sessionID, err = s.randomToken(32); err != nil {
		return "", "", fmt.Errorf("auth: start session: %w", err)
	}
	now := s.now()
	if err := s.store.CreateSession(ctx, Session{IDHash: sum(sessionID), UserID: u.ID, CreatedAt: now, LastSeenAt: now, PasswordConfirmedAt: now}); err != nil {
		return "", "", fmt.Errorf("auth: start session: %w", err)
	}
	if remember {
		if rememberValue, err = s.newRememberToken(ctx, u.ID); err != nil {
			return "", "", err
		}
	}
	for _, h := range s.hooks.signedIn.All() {
		h(ctx, u)
	}
	return sessionID, rememberValue, nil
}

func (s *Service) newRememberToken(ctx context.Context, userID int64) (string, error) {
	selector, err := s.randomToken(16)
	if err != nil {
		return "", fmt.Errorf("auth: remember token: %w", err)
	}
	validator, err := s.randomToken(32)
	if err != nil {
		return "", fmt.Errorf("auth: remember token: %w", err)
	}
	now := s.now()
	if err := s.store.CreateRememberToken(ctx, RememberToken{Selector: selector, ValidatorHash: sum(validator), UserID: userID,
		ExpiresAt: now.Add(s.life.remember), CreatedAt: now}); err != nil {
		return "", fmt.Errorf("auth: remember token: %w", err)
	}
	return selector + "." + validator, nil
}

// errNoSession: no session, or one that has ended.
var errNoSession = errors.New("auth: no session")

// sessionUser returns the live session with this id and its user, moving
// its last-seen time on at most once per TouchInterval; errNoSession
// when there is none (an ended one is deleted).
func (s *Service) sessionUser(ctx context.Context, sessionID string) (Session, User, error) {
	if len(sessionID) != 43 {
		return Session{}, User{}, errNoSession
	}
	sess, u, err := s.store.SessionByHash(ctx, sum(sessionID))
	if errors.Is(err, ErrNotFound) {
		return Session{}, User{}, errNoSession
	}
	if err != nil {
		return Session{}, User{}, fmt.Errorf("auth: session: %w", err)
	}
	now := s.now()
	if now.Sub(sess.LastSeenAt) >= s.life.idle || now.Sub(sess.CreatedAt) >= s.life.absolute {
		_ = s.store.DeleteSession(ctx, sess.IDHash)
		return Session{}, User{}, errNoSession
	}
	if now.Sub(sess.LastSeenAt) >= s.touchInterval {
		if err := s.store.TouchSession(ctx, sess.IDHash, now); err != nil {
			return Session{}, User{}, fmt.Errorf("auth: session: %w", err)
		}
		sess.LastSeenAt = now
	}
	return sess, u, nil
}

// useRememberToken signs in again from a remember cookie's value: the
// token is used up and a new one returned beside the user; errNoSession
// when the value does not name a live token.
func (s *Service) useRememberToken(ctx context.Context, value string) (User, string, error) {
	selector, validator, ok := strings.Cut(value, ".")
	if !ok || len(selector) != 22 || len(validator) != 43 {
		return User{}, "", errNoSession
	}
	rt, err := s.store.TakeRememberToken(ctx, selector)
	if errors.Is(err, ErrNotFound) {
		return User{}, "", errNoSession
	}
	if err != nil {
		return User{}, "", fmt.Errorf("auth: remember me: %w", err)
	}
	if subtle.ConstantTimeCompare(sum(validator), rt.ValidatorHash) != 1 || !s.now().Before(rt.ExpiresAt) {
		return User{}, "", errNoSession
	}
	u, _, err := s.store.UserByID(ctx, rt.UserID)
	if errors.Is(err, ErrNotFound) {
		return User{}, "", errNoSession
	}
	if err != nil {
		return User{}, "", fmt.Errorf("auth: remember me: %w", err)
	}
	next, err := s.newRememberToken(ctx, u.ID)
	if err != nil {
		return User{}, "", err
	}
	return u, next, nil
}

// UserTokens returns the API tokens of one user, revoked and expired
// ones too, oldest first.
func (s *Service) UserTokens(ctx context.Context, userID int64) ([]Token, error) {
	tokens, err := s.store.ListUserTokens(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("auth: user tokens: %w", err)
	}
	return tokens, nil
}

// EndSession signs a browser out: its session ends, and so does every
// remember-me token of the user (Laravel's sign-out cycles the user's
// remember token, which signs out their other remembered browsers too).
// With a userID it is a sign-out, and the OnSignedOut hooks run; without
// one (a session ended before a sign-in replaces it) it is not.
func (s *Service) EndSession(ctx context.Context, sessionID string, userID int64) error {
	if sessionID != "" {
		if err := s.store.DeleteSession(ctx, sum(sessionID)); err != nil {
			return fmt.Errorf("auth: end session: %w", err)
		}
	}
	if userID != 0 {
		if err := s.store.DeleteUserRememberTokens(ctx, userID); err != nil {
			return fmt.Errorf("auth: end session: %w", err)
		}
		for _, h := range s.hooks.signedOut.All() {
			h(ctx, userID)
		}
	}
	return nil
}

// ConfirmPassword records in a session that its user just typed their
// password.
func (s *Service) confirmPassword(ctx context.Context, sessionID string) error {
	if err := s.store.ConfirmSessionPassword(ctx, sum(sessionID), s.now()); err != nil {
		return fmt.Errorf("auth: confirm password: %w", err)
	}
	return nil
}

// PruneSessions deletes ended sessions, expired remember-me tokens and
// stale password resets; the periodic job of [PeriodicJobs] calls it.
func (s *Service) PruneSessions(ctx context.Context) (int64, error) {
	now := s.now()
	n, err := s.store.Prune(ctx, Prune{Now: now, IdleBefore: now.Add(-s.life.idle), CreatedBefore: now.Add(-s.life.absolute),
		ResetsBefore: now.Add(-s.life.reset)})
	if err != nil {
		return 0, fmt.Errorf("auth: prune: %w", err)
	}
	return n, nil
}

// send mails msg in the background, so that whether a mail goes out (an
// account exists) does not show in how long the page took; failures are
// logged.
func (s *Service) send(msg mail.Message) {
	if s.mailer == nil {
		s.logger.Warn("auth: no mailer, so a mail was not sent", "subject", msg.Subject)
		return
	}
	if msg.From == "" {
		msg.From = s.mailFrom
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := s.mailer.Send(ctx, msg); err != nil {
			s.logger.Error("auth: send mail", "subject", msg.Subject, "error", err)
		}
	}()
}

// SendPasswordReset mails a reset link to the user with this address, if
// there is one, made from resetURL ("https://example.com/reset-password",
// to which "/<token>?email=<address>" is added). It says nothing of
// whether the account exists, and sends at most one mail per
// ResetThrottle per user.
func (s *Service) SendPasswordReset(ctx context.Context, email, resetURL string) error {
	u, _, err := s.store.UserByEmail(ctx, NormalizeEmail(email))
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("auth: password reset: %w", err)
	}
	now := s.now()
	if prev, err := s.store.PasswordResetOf(ctx, u.ID); err == nil && now.Sub(prev.CreatedAt) < ResetThrottle {
		return nil
	}
	token, err := s.randomToken(32)
	if err != nil {
		return fmt.Errorf("auth: password reset: %w", err)
	}
	if err := s.store.PutPasswordReset(ctx, PasswordReset{UserID: u.ID, TokenHash: sum(token), CreatedAt: now}); err != nil {
		return fmt.Errorf("auth: password reset: %w", err)
	}
	link := strings.TrimSuffix(resetURL, "/") + "/" + token + "?email=" + url.QueryEscape(u.Email)
	minutes := int(s.life.reset / time.Minute)
	s.send(mail.Message{To: []string{u.Email}, Subject: "Reset Password Notification",
		Text: fmt.Sprintf("Hello %s,\n\nYou are receiving this email because we received a password reset request for your account at %s.\n\n"+
			"Reset your password: %s\n\nThis password reset link will expire in %d minutes.\n\n"+
			"If you did not request a password reset, no further action is required.\n", u.Name, s.appName, link, minutes)})
	return nil
}

// ResetLinkUsable reports whether a reset link (its token and address)
// would still reset a password: a user has the address, their pending
// reset has this token, and it has not expired. It changes nothing; the
// reset page asks first, so a spent link offers a new one before anyone
// types a password.
func (s *Service) ResetLinkUsable(ctx context.Context, token, email string) (bool, error) {
	if token == "" || email == "" {
		return false, nil
	}
	u, _, err := s.store.UserByEmail(ctx, NormalizeEmail(email))
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("auth: reset link: %w", err)
	}
	r, err := s.store.PasswordResetOf(ctx, u.ID)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("auth: reset link: %w", err)
	}
	return subtle.ConstantTimeCompare(r.TokenHash, sum(token)) == 1 && s.now().Sub(r.CreatedAt) < s.life.reset, nil
}

// ResetPassword sets a new password with a reset token: errors are a
// *ValidationError keyed on "email" with the original's texts (an invalid
// or expired token, an unknown address) or on "password". The token
// serves once; the user is signed out everywhere.
func (s *Service) ResetPassword(ctx context.Context, token, email, password, confirmation string) error {
	v := &api.Validator{}
	if token == "" {
		v.Add("token", api.MsgRequired("token"))
	}
	email = checkEmail(v, email)
	checkNewPassword(v, password, &confirmation)
	if err := v.Err(); err != nil {
		return err
	}
	u, _, err := s.store.UserByEmail(ctx, email)
	if errors.Is(err, ErrNotFound) {
		return api.Invalid("email", MsgResetNoUser)
	}
	if err != nil {
		return fmt.Errorf("auth: reset password: %w", err)
	}
	r, err := s.store.TakePasswordReset(ctx, u.ID, sum(token))
	if errors.Is(err, ErrNotFound) {
		return api.Invalid("email", MsgResetInvalid)
	}
	if err != nil {
		return fmt.Errorf("auth: reset password: %w", err)
	}
	if s.now().Sub(r.CreatedAt) >= s.life.reset {
		return api.Invalid("email", MsgResetInvalid)
	}
	hash, err := s.hasher.hash(ctx, password)
	if err != nil {
		return fmt.Errorf("auth: reset password: %w", err)
	}
	if err := s.store.SetPasswordHash(ctx, u.ID, hash, s.now()); err != nil {
		return fmt.Errorf("auth: reset password: %w", err)
	}
	if err := s.signOutEverywhere(ctx, u.ID); err != nil {
		return err
	}
	for _, h := range s.hooks.passwordSet.All() {
		h(ctx, u)
	}
	return nil
}

// emailHash is the {hash} of a verification link: SHA-1 of the address,
// as the original.
func emailHash(email string) string {
	h := sha1.Sum([]byte(email))
	return hex.EncodeToString(h[:])
}

func (s *Service) verifySignature(path string, expires int64) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("groundwork verify email\x00" + path + "\x00" + strconv.FormatInt(expires, 10)))
	return hex.EncodeToString(m.Sum(nil))
}

// VerificationPath is the signed path of u's verification link under
// prefix ("/verify-email"): {prefix}/{id}/{hash}?expires=...&signature=...,
// valid for VerifyLifetime.
func (s *Service) VerificationPath(u User, prefix string) string {
	path := strings.TrimSuffix(prefix, "/") + "/" + strconv.FormatInt(u.ID, 10) + "/" + emailHash(u.Email)
	expires := s.now().Add(s.life.verify).Unix()
	return path + "?expires=" + strconv.FormatInt(expires, 10) + "&signature=" + s.verifySignature(path, expires)
}

// ErrBadLink: a verification link that is forged, altered, expired, or
// for another user than the one signed in.
var ErrBadLink = errors.New("auth: invalid or expired link")

// VerifyEmail checks a verification link followed by u (its path, and
// the expires and signature query values) and marks u's address
// verified; ErrBadLink when the link does not hold.
func (s *Service) VerifyEmail(ctx context.Context, u User, path, id, hash, expires, signature string) error {
	exp, err := strconv.ParseInt(expires, 10, 64)
	if err != nil || s.now().Unix() > exp || !hmac.Equal([]byte(signature), []byte(s.verifySignature(path, exp))) {
		return ErrBadLink
	}
	if id != strconv.FormatInt(u.ID, 10) || !hmac.Equal([]byte(hash), []byte(emailHash(u.Email))) {
		return ErrBadLink
	}
	if u.Verified() {
		return nil
	}
	if err := s.store.MarkEmailVerified(ctx, u.ID, s.now()); err != nil {
		return fmt.Errorf("auth: verify email: %w", err)
	}
	return nil
}

// SendVerification mails u a verification link; baseURL is the site's
// address ("https://example.com") and prefix the verify path.
func (s *Service) SendVerification(u User, baseURL, prefix string) {
	link := strings.TrimSuffix(baseURL, "/") + s.VerificationPath(u, prefix)
	s.send(mail.Message{To: []string{u.Email}, Subject: "Verify Email Address",
		Text: fmt.Sprintf("Hello %s,\n\nPlease click the link below to verify your email address at %s.\n\n%s\n\n"+
			"This link will expire in %d minutes. If you did not create an account, no further action is required.\n",
			u.Name, s.appName, link, int(s.life.verify/time.Minute))})
}
