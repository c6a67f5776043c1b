package auth

import (
	"bytes"
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"image/png"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/medama-io/go-useragent"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/groundwork-go/groundwork/auth/authstore"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/mail"
)

// Two-factor sign-in: a time-based code (RFC 6238, as authenticator apps
// make: six digits, thirty-second steps, SHA-1) or a recovery code.
const (
	// twoFactorAttempts codes a minute may be tried for one user, across
	// instances when the LoginLimiter is shared; the next is refused.
	twoFactorAttempts = 5
	// RecoveryCodeCount recovery codes are made at a time.
	RecoveryCodeCount = 10
	// totpPeriod is the length of a time step; a code of the step before
	// or after the current one is accepted too (a phone's clock drifts).
	totpPeriod = 30
)

// Messages of two-factor sign-in.
const (
	MsgTwoFactorCode    = "The code is not right. Enter the 6-digit code your app shows now, or a recovery code."
	MsgTwoFactorConfirm = "The code is not right. Enter the 6-digit code your app shows now."
	MsgTwoFactorLockout = "Too many codes were tried. Please try again in %d seconds."
)

// ErrTwoFactorNotPending: confirming two-factor sign-in that was not
// begun (or is on already).
var ErrTwoFactorNotPending = errors.New("auth: two-factor sign-in was not begun")

var totpOpts = totp.ValidateOpts{Period: totpPeriod, Skew: 1, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// TwoFactorSetup is what a user's authenticator app needs: the otpauth://
// URI its QR code holds, and the secret to type in by hand.
type TwoFactorSetup struct {
	URI, Secret string
}

// QRCode is the setup's URI as a QR code, a PNG of size pixels square.
func (t TwoFactorSetup) QRCode(size int) ([]byte, error) {
	key, err := otp.NewKeyFromURL(t.URI)
	if err != nil {
		return nil, fmt.Errorf("auth: qr code: %w", err)
	}
	img, err := key.Image(size, size)
	if err != nil {
		return nil, fmt.Errorf("auth: qr code: %w", err)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, fmt.Errorf("auth: qr code: %w", err)
	}
	return b.Bytes(), nil
}

// secretContext binds a sealed secret to its user, so that one user's
// cannot be copied to another's row.
func secretContext(userID int64) []byte {
	return []byte("groundwork two-factor\x00" + strconv.FormatInt(userID, 10))
}

// BeginTwoFactor makes a new secret for u, unconfirmed (sign-in does not
// ask for a code until [Service.ConfirmTwoFactor]), in place of any
// earlier one, and returns what their app needs.
func (s *Service) BeginTwoFactor(ctx context.Context, u User) (TwoFactorSetup, error) {
	key, err := totp.Generate(totp.GenerateOpts{Issuer: s.appName, AccountName: u.Email, Period: totpPeriod, Rand: s.rand})
	if err != nil {
		return TwoFactorSetup{}, fmt.Errorf("auth: begin two-factor: %w", err)
	}
	if err := s.store.BeginTwoFactor(ctx, u.ID, s.secrets.Seal(key.Secret(), secretContext(u.ID)), s.now()); err != nil {
		return TwoFactorSetup{}, fmt.Errorf("auth: begin two-factor: %w", err)
	}
	return TwoFactorSetup{URI: key.URL(), Secret: key.Secret()}, nil
}

// PendingTwoFactor returns the setup of u's unconfirmed secret;
// ErrTwoFactorNotPending when there is none.
func (s *Service) PendingTwoFactor(ctx context.Context, u User) (TwoFactorSetup, error) {
	st, secret, err := s.twoFactor(ctx, u.ID)
	if errors.Is(err, ErrNotFound) || err == nil && st.ConfirmedAt != nil {
		return TwoFactorSetup{}, ErrTwoFactorNotPending
	}
	if err != nil {
		return TwoFactorSetup{}, err
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: s.appName, AccountName: u.Email, Period: totpPeriod, Secret: mustBase32(secret)})
	if err != nil {
		return TwoFactorSetup{}, fmt.Errorf("auth: two-factor: %w", err)
	}
	return TwoFactorSetup{URI: key.URL(), Secret: secret}, nil
}

func mustBase32(s string) []byte {
	b, _ := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(s)
	return b
}

// twoFactor reads and opens a user's secret.
func (s *Service) twoFactor(ctx context.Context, userID int64) (authstore.TwoFactorState, string, error) {
	st, err := s.store.TwoFactorOf(ctx, userID)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return authstore.TwoFactorState{}, "", err
		}
		return authstore.TwoFactorState{}, "", fmt.Errorf("auth: two-factor: %w", err)
	}
	secret, err := s.secrets.Open(st.SealedSecret, secretContext(userID))
	if err != nil {
		return authstore.TwoFactorState{}, "", fmt.Errorf("auth: two-factor: the secret cannot be opened with this key: %w", err)
	}
	return st, secret, nil
}

// codeStep returns the time step whose code code is (the current one, or
// the one before or after), or -1 when it is none of them.
func (s *Service) codeStep(secret, code string) int64 {
	code = strings.Join(strings.Fields(code), "")
	if len(code) != 6 {
		return -1
	}
	now := s.now()
	step := now.Unix() / totpPeriod
	for _, d := range []int64{0, -1, 1} {
		want, err := totp.GenerateCodeCustom(secret, time.Unix((step+d)*totpPeriod, 0), totpOpts)
		if err == nil && hmac.Equal([]byte(want), []byte(code)) {
			return step + d
		}
	}
	return -1
}

// ConfirmTwoFactor turns two-factor sign-in on for u with a code from
// their app for the pending secret, and returns their recovery codes
// (shown once: only their hashes are kept). A wrong code is a
// *ValidationError on "code"; ErrTwoFactorNotPending when nothing was
// begun.
func (s *Service) ConfirmTwoFactor(ctx context.Context, u User, code string) ([]string, error) {
	if err := s.throttleCodes(ctx, u.ID); err != nil {
		return nil, err
	}
	st, secret, err := s.twoFactor(ctx, u.ID)
	if errors.Is(err, ErrNotFound) || err == nil && st.ConfirmedAt != nil {
		return nil, ErrTwoFactorNotPending
	}
	if err != nil {
		return nil, err
	}
	step := s.codeStep(secret, code)
	if step < 0 {
		return nil, api.Invalid("code", MsgTwoFactorConfirm)
	}
	codes, hashes, err := s.newRecoveryCodes(u.ID)
	if err != nil {
		return nil, err
	}
	if err := s.store.ConfirmTwoFactor(ctx, u.ID, step, hashes, s.now()); err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, ErrTwoFactorNotPending
		}
		return nil, fmt.Errorf("auth: confirm two-factor: %w", err)
	}
	s.send(mail.Message{To: []string{u.Email}, Subject: "Two-factor sign-in is on",
		Text: fmt.Sprintf("Hello %s,\n\nTwo-factor sign-in is now on for your account at %s: signing in asks for a code from your app after your password.\n\n"+
			"If you did not do this, reset your password from the sign-in page at once.\n", u.Name, s.appName)})
	return codes, nil
}

// recoveryHash is how a recovery code is kept: an HMAC under the
// service's key, so that a copy of the table alone cannot be tried
// offline.
func (s *Service) recoveryHash(userID int64, code string) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("groundwork recovery code\x00" + strconv.FormatInt(userID, 10) + "\x00" + normalizeRecovery(code)))
	return m.Sum(nil)
}

// normalizeRecovery reads a recovery code as typed: case, spaces and
// dashes do not matter.
func normalizeRecovery(code string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '-' || r == ' ' || r == '\t':
			return -1
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return r
	}, code)
}

// recoveryAlphabet leaves out letters and digits read one for another.
const recoveryAlphabet = "abcdefghjkmnpqrstuvwxyz23456789"

// newRecoveryCodes makes RecoveryCodeCount codes ("xxxxx-xxxxx", about 49
// bits each) and their hashes.
func (s *Service) newRecoveryCodes(userID int64) ([]string, [][]byte, error) {
	codes := make([]string, RecoveryCodeCount)
	hashes := make([][]byte, RecoveryCodeCount)
	buf := make([]byte, 10)
	for i := range codes {
		var b strings.Builder
		for j := range buf {
			// Rejection sampling keeps every letter equally likely.
			for {
				if _, err := s.rand.Read(buf[j : j+1]); err != nil {
					return nil, nil, fmt.Errorf("auth: recovery codes: %w", err)
				}
				if int(buf[j]) < 256/len(recoveryAlphabet)*len(recoveryAlphabet) {
					break
				}
			}
			if j == 5 {
				b.WriteByte('-')
			}
			b.WriteByte(recoveryAlphabet[int(buf[j])%len(recoveryAlphabet)])
		}
		codes[i], hashes[i] = b.String(), s.recoveryHash(userID, b.String())
	}
	return codes, hashes, nil
}

// RegenerateRecoveryCodes replaces u's recovery codes with new ones,
// returned once; ErrNotFound when two-factor sign-in is off.
func (s *Service) RegenerateRecoveryCodes(ctx context.Context, u User) ([]string, error) {
	if !u.TwoFactor() {
		return nil, ErrNotFound
	}
	codes, hashes, err := s.newRecoveryCodes(u.ID)
	if err != nil {
		return nil, err
	}
	if err := s.store.ReplaceRecoveryCodes(ctx, u.ID, hashes); err != nil {
		return nil, fmt.Errorf("auth: recovery codes: %w", err)
	}
	return codes, nil
}

// RecoveryCodesLeft counts u's unused recovery codes.
func (s *Service) RecoveryCodesLeft(ctx context.Context, userID int64) (int, error) {
	n, err := s.store.RecoveryCodesLeft(ctx, userID)
	if err != nil {
		return 0, fmt.Errorf("auth: recovery codes: %w", err)
	}
	return n, nil
}

// throttleCodes counts a code tried for a user: past twoFactorAttempts a
// minute, a *LockoutError.
func (s *Service) throttleCodes(ctx context.Context, userID int64) error {
	lim, err := s.logins.Hit(ctx, "two-factor:"+strconv.FormatInt(userID, 10), twoFactorAttempts, time.Minute)
	if err != nil {
		return fmt.Errorf("auth: two-factor: %w", err)
	}
	if !lim.Allowed {
		return &LockoutError{RetryAfter: max(lim.RetryAfter(s.now()), time.Second), twoFactor: true}
	}
	return nil
}

// CheckTwoFactor checks the second factor of u's sign-in: a code from
// their app (each works once: a code of a step already used, on any
// instance, is refused) or one of their recovery codes (used up). A wrong
// code is a *ValidationError on "code"; more than five a
// minute a *LockoutError. It reports whether a recovery code was used.
func (s *Service) CheckTwoFactor(ctx context.Context, u User, code string) (recovery bool, err error) {
	if err := s.throttleCodes(ctx, u.ID); err != nil {
		return false, err
	}
	st, secret, err := s.twoFactor(ctx, u.ID)
	if errors.Is(err, ErrNotFound) || err == nil && st.ConfirmedAt == nil {
		return false, ErrTwoFactorNotPending
	}
	if err != nil {
		return false, err
	}
	if step := s.codeStep(secret, code); step >= 0 {
		took, err := s.store.UseTwoFactorStep(ctx, u.ID, step)
		if err != nil {
			return false, fmt.Errorf("auth: two-factor: %w", err)
		}
		if took {
			return false, nil
		}
		return false, api.Invalid("code", MsgTwoFactorCode) // used already
	}
	if rc := normalizeRecovery(code); len(rc) == 10 {
		used, err := s.store.UseRecoveryCode(ctx, u.ID, s.recoveryHash(u.ID, rc))
		if err != nil {
			return false, fmt.Errorf("auth: two-factor: %w", err)
		}
		if used {
			return true, nil
		}
	}
	return false, api.Invalid("code", MsgTwoFactorCode)
}

// DisableTwoFactor turns two-factor sign-in off for u once password is
// theirs (else a *ValidationError on "password"); their secret and
// recovery codes are dropped and they are mailed.
func (s *Service) DisableTwoFactor(ctx context.Context, u User, password string) error {
	if err := s.passwordIs(ctx, u.ID, "password", password); err != nil {
		return err
	}
	if err := s.store.DisableTwoFactor(ctx, u.ID, s.now()); err != nil {
		return fmt.Errorf("auth: disable two-factor: %w", err)
	}
	if u.TwoFactor() {
		s.send(mail.Message{To: []string{u.Email}, Subject: "Two-factor sign-in is off",
			Text: fmt.Sprintf("Hello %s,\n\nTwo-factor sign-in was turned off for your account at %s: signing in now asks for your password only.\n\n"+
				"If you did not do this, reset your password from the sign-in page at once.\n", u.Name, s.appName)})
	}
	return nil
}

// CancelTwoFactor drops a secret that was begun but never confirmed (no
// password asked: nothing is protected by it yet); it does nothing when
// two-factor sign-in is on (turn it off with DisableTwoFactor).
func (s *Service) CancelTwoFactor(ctx context.Context, u User) error {
	fresh, err := s.User(ctx, u.ID)
	if err != nil || fresh.TwoFactor() {
		return err
	}
	if err := s.store.DisableTwoFactor(ctx, u.ID, s.now()); err != nil {
		return fmt.Errorf("auth: cancel two-factor: %w", err)
	}
	return nil
}

// TurnOffTwoFactor turns a user's two-factor sign-in off without their
// password: an administrator's answer to a lost phone and lost recovery
// codes. The user is mailed; ErrNotFound when there is no such user.
func (s *Service) TurnOffTwoFactor(ctx context.Context, userID int64) error {
	u, err := s.User(ctx, userID)
	if err != nil {
		return err
	}
	if err := s.store.DisableTwoFactor(ctx, u.ID, s.now()); err != nil {
		return fmt.Errorf("auth: turn off two-factor: %w", err)
	}
	if u.TwoFactor() {
		s.send(mail.Message{To: []string{u.Email}, Subject: "Two-factor sign-in is off",
			Text: fmt.Sprintf("Hello %s,\n\nAn administrator of %s turned two-factor sign-in off for your account: signing in now asks for your password only. "+
				"You can set it up again from your account page.\n", u.Name, s.appName)})
	}
	return nil
}

// agents parses user agents for the list of sessions (made on first
// use).
var agents = sync.OnceValue(useragent.NewParser)

// describeAgent names a user agent's browser ("Firefox 133") and device
// ("Windows", "Android, mobile"); "" for what it does not say.
func describeAgent(ua string) (browser, device string) {
	if ua == "" {
		return "", ""
	}
	a := agents().Parse(ua)
	browser = string(a.Browser())
	if v := a.BrowserVersionMajor(); browser != "" && v != "" {
		browser += " " + v
	}
	device = string(a.OS())
	if a.IsMobile() {
		device = strings.TrimPrefix(cmp.Or(device, "")+", mobile", ", ")
	}
	return browser, device
}
