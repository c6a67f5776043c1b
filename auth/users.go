package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/seal"
	"github.com/groundwork-go/groundwork/store/driverless"
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
	// resetThrottle is how soon a second reset mail may follow the first
	// for one user; requests in between send nothing (silently).
	resetThrottle = 60 * time.Second
	// UserNameMaxLength and EmailMaxLength cap a user's name and address.
	UserNameMaxLength = 255
	EmailMaxLength    = 255
)

// Messages of the sign-in flows, word for word on the pages and in the
// JSON answers (clients and tests match on them).
const (
	MsgBadCredentials   = "These credentials do not match our records."
	MsgLockout          = "Too many sign-in attempts. Please try again in %d seconds."
	MsgPasswordLockout  = "The password was typed wrong too many times. Please try again in %d seconds."
	MsgResetSent        = "If an account uses that address, a reset link is on its way to it. It can take a few minutes to arrive."
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
	sealKey := sha256.Sum256(append([]byte("groundwork two-factor secrets\x00"), s.key...))
	if s.secrets, err = seal.New(sealKey[:]); err != nil {
		return err
	}
	s.logins = o.LoginLimiter
	if s.logins == nil {
		s.logins = driverless.NewMemoryRateLimiter(&driverless.RateLimiterOptions{Now: s.now})
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
func NormalizeEmail(email string) string {
	return norm.NFC.String(strings.ToLower(strings.TrimSpace(email)))
}

// lookalike reports why an address could pass for another's: a character
// that shows nothing (a zero-width space, a joiner, a direction mark, a
// soft hyphen, a control), or, in one part (the name or a label of the
// domain), letters of several alphabets ("pаypal" with a Cyrillic а). The
// alphabets Japanese, Chinese and Korean write together, each beside the
// Latin letters, are one. "" when it is neither.
func lookalike(email string) string {
	for _, r := range email {
		if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zs, unicode.Zl, unicode.Zp, unicode.Variation_Selector,
			unicode.Other_Default_Ignorable_Code_Point) {
			return "invisible"
		}
	}
	for _, part := range strings.FieldsFunc(email, func(r rune) bool { return r == '@' || r == '.' }) {
		scripts := map[string]bool{}
		for _, r := range part {
			for name, table := range unicode.Scripts {
				if name != "Common" && name != "Inherited" && unicode.Is(table, r) {
					scripts[name] = true
					break
				}
			}
		}
		if len(scripts) > 1 && !oneWriting(scripts) {
			return "mixed"
		}
	}
	return ""
}

// oneWriting reports whether scripts are written together by one
// language: Han with Hiragana and Katakana, with Bopomofo, or with
// Hangul, each beside Latin.
func oneWriting(scripts map[string]bool) bool {
	for _, set := range [][]string{{"Latin", "Han", "Hiragana", "Katakana"}, {"Latin", "Han", "Bopomofo"}, {"Latin", "Han", "Hangul"}} {
		all := true
		for s := range scripts {
			all = all && slices.Contains(set, s)
		}
		if all {
			return true
		}
	}
	return false
}

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
		v.Add("password", msgMismatch)
	}
}

// checkName adds the name rules to v and returns the trimmed name.
func checkName(v *api.Validator, name string) string {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		v.Add("name", api.MsgRequired("name"))
	case utf8.RuneCountInString(name) > UserNameMaxLength:
		v.Add("name", api.MsgMaxChars("name", UserNameMaxLength))
	}
	return name
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
	default:
		switch lookalike(email) {
		case "invisible":
			v.Add("email", "The email must not hold characters that show nothing (spaces, zero-width or control characters).")
		case "mixed":
			v.Add("email", "The email must not mix letters of different alphabets in one part, as look-alike addresses do.")
		}
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
	name := checkName(v, nu.Name)
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

// UserQuery picks users for [Service.ListUsers]. The zero value picks
// every user.
type UserQuery struct {
	// Search keeps the users whose address or name holds it, without
	// regard to case ("" keeps all).
	Search string
	// After keeps the users with a greater ID: the last ID of the page
	// before.
	After int64
	// Limit is the most users returned; every one when 0.
	Limit int
}

// ListUsers returns the users q picks, in ID order.
func (s *Service) ListUsers(ctx context.Context, q UserQuery) ([]User, error) {
	us, err := s.store.ListUsers(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("auth: list users: %w", err)
	}
	return us, nil
}

// SetDisabled disables a user (disabled true) or enables them again, and
// returns them. A disabled user cannot sign in by any way (password,
// passkey, mailed link, a provider's account, a remember-me cookie):
// their sessions and remember-me tokens end with the change, in its
// transaction, and their API tokens stop working until they are enabled.
// ErrNotFound when there is no such user.
func (s *Service) SetDisabled(ctx context.Context, userID int64, disabled bool) (User, error) {
	var at *time.Time
	if disabled {
		now := s.now()
		at = &now
	}
	err := s.store.RunInTx(ctx, func(ctx context.Context, _ *sql.Tx) error {
		if err := s.store.SetDisabled(ctx, userID, at, s.now()); err != nil {
			return err
		}
		if !disabled {
			return nil
		}
		return s.SignOutEverywhere(ctx, userID)
	})
	if err != nil {
		return User{}, fmt.Errorf("auth: disable user %d: %w", userID, err)
	}
	return s.User(ctx, userID)
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
	return s.SignOutEverywhere(ctx, userID)
}

// SignOutEverywhere ends every session and remember-me token of a user:
// every browser they are signed in on is signed out at its next request.
// Their API tokens are left as they are.
func (s *Service) SignOutEverywhere(ctx context.Context, userID int64) error {
	if err := s.store.DeleteUserSessions(ctx, userID); err != nil {
		return fmt.Errorf("auth: sign out user %d: %w", userID, err)
	}
	if err := s.store.DeleteUserRememberTokens(ctx, userID); err != nil {
		return fmt.Errorf("auth: sign out user %d: %w", userID, err)
	}
	return nil
}

// msgMismatch is the API's message of a password and its confirmation
// that differ.
const msgMismatch = "The password field confirmation does not match."
