package auth

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/groundwork-go/groundwork"
)

// LockoutError is a sign-in refused before its password was looked at,
// because too many came from that email and client IP. Its Error is the
// message the login page shows.
type LockoutError struct {
	// RetryAfter is how long until the window ends.
	RetryAfter time.Duration
	// twoFactor: the codes of the second step were tried too often;
	// confirm: the password was typed wrong too often in a settings page.
	twoFactor, confirm bool
}

// Error is the login page's message, with the seconds left.
func (e *LockoutError) Error() string {
	switch {
	case e.twoFactor:
		return fmt.Sprintf(MsgTwoFactorLockout, int(e.RetryAfter/time.Second))
	case e.confirm:
		return fmt.Sprintf(MsgPasswordLockout, int(e.RetryAfter/time.Second))
	}
	return fmt.Sprintf(MsgLockout, int(e.RetryAfter/time.Second))
}

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
	return append(append([]loginLimit{{loginKey(email, clientIP), s.loginAttempts, s.loginWindow, true}}, accountLimits(email)...),
		loginLimit{"login-address:" + clientIP, LoginAddressAttemptsDefault, time.Minute, false})
}

// accountLimits are the allowances of every password check of one
// account, from any address: a minute's and a quarter of an hour's.
func accountLimits(email string) []loginLimit {
	account := NormalizeEmail(email)
	return []loginLimit{
		{"login-account:" + account, LoginAccountAttemptsDefault, time.Minute, true},
		{"login-account-15m:" + account, LoginAccountSustainedDefault, 15 * time.Minute, true},
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
// ErrBadCredentials; a flood of checks beyond PasswordWait, ErrBusy; the
// right password of a disabled user, ErrDisabled.
func (s *Service) CheckCredentials(ctx context.Context, email, password, clientIP string) (User, error) {
	// Every allowance counts the attempt; the longest wait of those spent
	// is the answer, before any password is checked.
	limits := s.loginLimits(email, clientIP)
	wait, bad, err := s.spend(ctx, limits)
	if err != nil {
		return User{}, fmt.Errorf("auth: sign in: %w", err)
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
	if err := s.forget(ctx, limits); err != nil {
		return User{}, fmt.Errorf("auth: sign in: %w", err)
	}
	if u.DisabledAt != nil {
		groundwork.Count(s.meter, groundwork.MetricSignIns, "failure")
		return User{}, ErrDisabled
	}
	groundwork.Count(s.meter, groundwork.MetricSignIns, "success")
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
// confirm-password page, and the settings that ask for it: changing the
// password, signing out other browsers, deleting the account). Each
// check is counted as a sign-in attempt is: LoginAttempts a LoginWindow
// for the user, and the account's allowances from any address
// (LoginAccountAttemptsDefault a minute, LoginAccountSustainedDefault a
// quarter of an hour, shared with the sign-in page), so a signed-in
// browser cannot guess the password any faster than the sign-in page
// lets anyone: past them it is refused, unchecked, with a
// *LockoutError. A right password forgets the count.
func (s *Service) CheckPassword(ctx context.Context, userID int64, password string) (bool, error) {
	u, hash, err := s.store.UserByID(ctx, userID)
	if err != nil {
		return false, fmt.Errorf("auth: check password: %w", err)
	}
	limits := append([]loginLimit{{"password-check:" + strconv.FormatInt(u.ID, 10), s.loginAttempts, s.loginWindow, true}}, accountLimits(u.Email)...)
	wait, _, err := s.spend(ctx, limits)
	if err != nil {
		return false, fmt.Errorf("auth: check password: %w", err)
	}
	if wait > 0 {
		return false, &LockoutError{RetryAfter: wait, confirm: true}
	}
	ok, _, err := s.hasher.check(ctx, hash, password)
	if err != nil && !errors.Is(err, errBadHash) {
		return false, fmt.Errorf("auth: check password: %w", err)
	}
	if ok {
		if err := s.forget(ctx, limits); err != nil {
			return false, fmt.Errorf("auth: check password: %w", err)
		}
	}
	return ok, nil
}

// spend counts one attempt against every allowance in limits and returns
// the longest wait of those spent (zero when none is), and what a wrong
// password would leave: the fewest attempts remaining among the
// allowances a success forgets, and their window.
func (s *Service) spend(ctx context.Context, limits []loginLimit) (time.Duration, *CredentialsError, error) {
	var wait time.Duration
	bad := &CredentialsError{Remaining: -1}
	for _, l := range limits {
		lim, err := s.logins.Hit(ctx, l.key, l.limit, l.window)
		if err != nil {
			return 0, nil, err
		}
		if !lim.Allowed {
			wait = max(wait, lim.RetryAfter(s.now()))
		}
		if l.reset && (bad.Remaining < 0 || lim.Remaining < bad.Remaining) {
			bad.Remaining, bad.Window = lim.Remaining, l.window
		}
	}
	return wait, bad, nil
}

// forget clears the allowances in limits that a success forgets.
func (s *Service) forget(ctx context.Context, limits []loginLimit) error {
	for _, l := range limits {
		if l.reset {
			if err := s.logins.Reset(ctx, l.key); err != nil {
				return err
			}
		}
	}
	return nil
}
