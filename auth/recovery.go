package auth

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/auth/authstore"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/mail"
)

// send mails msg: queued as a job when there is an Enqueuer (sealed, and
// tried until it goes), else in the background, so that whether a mail
// goes out (an account exists) does not show in how long the page took;
// failures are logged.
func (s *Service) send(msg mail.Message) {
	if s.mailer == nil {
		s.logger.Warn("auth: no mailer, so a mail was not sent", "subject", msg.Subject)
		return
	}
	if msg.From == "" {
		msg.From = s.mailFrom
	}
	if s.enqueuer != nil {
		err := s.queueMail(msg)
		if err == nil {
			return
		}
		s.logger.Error("auth: queue mail; sending it once now", "subject", msg.Subject, "error", err)
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
// minute per user.
func (s *Service) SendPasswordReset(ctx context.Context, email, resetURL string) error {
	u, _, err := s.store.UserByEmail(ctx, NormalizeEmail(email))
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("auth: password reset: %w", err)
	}
	now := s.now()
	if prev, err := s.store.PasswordResetOf(ctx, u.ID); err == nil && now.Sub(prev.CreatedAt) < resetThrottle {
		return nil
	}
	token, err := s.randomToken(32)
	if err != nil {
		return fmt.Errorf("auth: password reset: %w", err)
	}
	if err := s.store.PutPasswordReset(ctx, authstore.PasswordReset{UserID: u.ID, TokenHash: sum(token), CreatedAt: now}); err != nil {
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
// *ValidationError keyed on "email" with MsgResetInvalid or
// MsgResetNoUser (an invalid or expired token, an unknown address) or
// on "password". The token serves once; the user is signed out
// everywhere.
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
	if err := s.SignOutEverywhere(ctx, u.ID); err != nil {
		return err
	}
	for _, h := range s.hooks.passwordSet.All() {
		h(ctx, u)
	}
	return nil
}

// emailHash is the {hash} of a verification link: SHA-1 of the address
// in hex. It only ties the link to the address; the signature is what
// makes the link unforgeable.
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
