package auth

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/mail"
)

// Messages of the account settings, word for word on the pages and in
// the JSON answers.
const (
	MsgEmailChangeSent = "We have sent a link to %s. Your address changes when you follow it."
	MsgEmailChanged    = "Your email address is now %s."
	MsgPasswordChanged = "Your password has been changed. Every other browser has been signed out."
	MsgSameEmail       = "That is already your email address."
)

// UserDeletingHook runs inside the transaction that deletes a user,
// before their row goes: it erases the user's data in the host's own
// tables, or keeps it (anonymised, or handed to someone else), through
// tx. An error keeps the account as it was and is the deletion's error.
type UserDeletingHook func(ctx context.Context, tx *sql.Tx, u User) error

// OnUserDeleting registers h to run inside the transaction that deletes
// an account (see [UserDeletingHook]); hooks run in the order registered.
func (s *Service) OnUserDeleting(h UserDeletingHook) { s.hooks.deleting.Add(h) }

// OnUserDeleted registers h to run after an account was deleted.
func (s *Service) OnUserDeleted(h UserHook) { s.hooks.deleted.Add(h) }

// Rename changes a user's name (the register page's rules); a bad name
// is a *ValidationError.
func (s *Service) Rename(ctx context.Context, userID int64, name string) (User, error) {
	v := &api.Validator{}
	name = checkName(v, name)
	if err := v.Err(); err != nil {
		return User{}, err
	}
	if err := s.store.SetName(ctx, userID, name, s.now()); err != nil {
		return User{}, fmt.Errorf("auth: rename user %d: %w", userID, err)
	}
	return s.User(ctx, userID)
}

// emailChangeSignature signs a change of u's address to email until
// expires. The old address is signed too, so a link stops working once
// the address has changed (by this link or another).
func (s *Service) emailChangeSignature(u User, email string, expires int64) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("groundwork change email\x00" + strconv.FormatInt(u.ID, 10) + "\x00" + u.Email + "\x00" + email + "\x00" + strconv.FormatInt(expires, 10)))
	return hex.EncodeToString(m.Sum(nil))
}

// emailChangePath is the signed path of the link that changes u's address
// to email (already checked), under path ("/settings/email"), valid for
// VerifyLifetime.
func (s *Service) emailChangePath(u User, email, path string) string {
	expires := s.now().Add(s.life.verify).Unix()
	q := url.Values{"email": {email}, "expires": {strconv.FormatInt(expires, 10)}, "signature": {s.emailChangeSignature(u, email, expires)}}
	return path + "?" + q.Encode()
}

// RequestEmailChange starts changing u's address: the new one is checked
// (the register page's rules, not another user's) and mailed a link under
// linkURL ("https://example.com/settings/email"); the address changes
// only when the link is followed, by u, signed in. A bad address is a
// *ValidationError. It returns the normalised new address.
func (s *Service) RequestEmailChange(ctx context.Context, u User, email, linkURL string) (string, error) {
	v := &api.Validator{}
	email = checkEmail(v, email)
	if v.Empty() && email == u.Email {
		v.Add("email", MsgSameEmail)
	}
	if err := v.Err(); err != nil {
		return "", err
	}
	if _, _, err := s.store.UserByEmail(ctx, email); err == nil {
		return "", api.Invalid("email", api.MsgTaken("email"))
	} else if !errors.Is(err, ErrNotFound) {
		return "", fmt.Errorf("auth: change email: %w", err)
	}
	base, path, _ := strings.Cut(strings.TrimSuffix(linkURL, "/"), "://")
	host, p, _ := strings.Cut(path, "/")
	link := base + "://" + host + s.emailChangePath(u, email, "/"+p)
	s.send(mail.Message{To: []string{email}, Subject: "Confirm your new email address",
		Text: fmt.Sprintf("Hello %s,\n\nYou asked to use this address for your account at %s. Follow the link below to confirm it:\n\n%s\n\n"+
			"This link will expire in %d minutes. Until you follow it, your account keeps its old address. "+
			"If you did not ask for this, you can ignore this mail.\n", u.Name, s.appName, link, int(s.life.verify/time.Minute))})
	return email, nil
}

// ConfirmEmailChange follows an address-change link (its email, expires
// and signature query values) for u, signed in: the address becomes
// email, verified, and the old address is told. ErrBadLink when the link
// does not hold (forged, expired, another user's, or the address changed
// since); a *ValidationError when another user took the address since.
func (s *Service) ConfirmEmailChange(ctx context.Context, u User, email, expires, signature string) (User, error) {
	exp, err := strconv.ParseInt(expires, 10, 64)
	if err != nil || s.now().Unix() > exp || !hmac.Equal([]byte(signature), []byte(s.emailChangeSignature(u, email, exp))) {
		return User{}, ErrBadLink
	}
	now := s.now()
	switch err := s.store.SetEmail(ctx, u.ID, email, &now, now); {
	case errors.Is(err, ErrEmailTaken):
		return User{}, api.Invalid("email", api.MsgTaken("email"))
	case err != nil:
		return User{}, fmt.Errorf("auth: change email: %w", err)
	}
	s.send(mail.Message{To: []string{u.Email}, Subject: "Your email address was changed",
		Text: fmt.Sprintf("Hello %s,\n\nThe email address of your account at %s is now %s. This address will get no more mail about it.\n\n"+
			"If you did not do this, reset your password from the sign-in page at once and tell the site's administrator.\n", u.Name, s.appName, email)})
	return s.User(ctx, u.ID)
}

// passwordIs checks that password, typed in field, is the user's: a
// *ValidationError on field when it is empty or wrong.
func (s *Service) passwordIs(ctx context.Context, userID int64, field, password string) error {
	if password == "" {
		return api.Invalid(field, api.MsgRequired(strings.ReplaceAll(field, "_", " ")))
	}
	ok, err := s.CheckPassword(ctx, userID, password)
	if err != nil {
		return err
	}
	if !ok {
		return api.Invalid(field, MsgWrongPassword)
	}
	return nil
}

// ChangePassword changes u's password: current must be their password
// (else a *ValidationError on "current_password"), the new one follows
// the register page's rules and matches its confirmation. Every session
// of u but the one with id keepSession ends, with every remember-me
// token, and the owner is mailed.
func (s *Service) ChangePassword(ctx context.Context, u User, current, password, confirmation, keepSession string) error {
	v := &api.Validator{}
	if current == "" {
		v.Add("current_password", api.MsgRequired("current password"))
	}
	checkNewPassword(v, password, &confirmation)
	if err := v.Err(); err != nil {
		return err
	}
	if err := s.passwordIs(ctx, u.ID, "current_password", current); err != nil {
		return err
	}
	hash, err := s.hasher.hash(ctx, password)
	if err != nil {
		return fmt.Errorf("auth: change password: %w", err)
	}
	if err := s.store.SetPasswordHash(ctx, u.ID, hash, s.now()); err != nil {
		return fmt.Errorf("auth: change password: %w", err)
	}
	if _, err := s.store.DeleteOtherSessions(ctx, u.ID, sum(keepSession)); err != nil {
		return fmt.Errorf("auth: change password: %w", err)
	}
	if err := s.store.DeleteUserRememberTokens(ctx, u.ID); err != nil {
		return fmt.Errorf("auth: change password: %w", err)
	}
	s.send(mail.Message{To: []string{u.Email}, Subject: "Your password was changed",
		Text: fmt.Sprintf("Hello %s,\n\nThe password of your account at %s was changed, and every other browser signed in to it was signed out.\n\n"+
			"If you did not do this, reset your password from the sign-in page at once.\n", u.Name, s.appName)})
	for _, h := range s.hooks.passwordSet.All() {
		h(ctx, u)
	}
	return nil
}

// DeleteAccount deletes u's account once password is theirs (else a
// *ValidationError on "password"): their tokens, sessions and remember-me
// tokens end with it, and the OnUserDeleting hooks run inside its
// transaction.
func (s *Service) DeleteAccount(ctx context.Context, u User, password string) error {
	if err := s.passwordIs(ctx, u.ID, "password", password); err != nil {
		return err
	}
	return s.DeleteUser(ctx, u.ID)
}

// DeleteUser deletes a user without asking for their password (an
// administrator's deletion), as DeleteAccount does; ErrNotFound when
// there is no such user.
func (s *Service) DeleteUser(ctx context.Context, userID int64) error {
	u, err := s.User(ctx, userID)
	if err != nil {
		return err
	}
	// The hosts' hooks and the deletion commit together; the hooks go
	// first, so a host's rows that point at the user go before it.
	if hooks := s.hooks.deleting.All(); len(hooks) == 0 {
		err = s.store.DeleteUser(ctx, userID)
	} else {
		err = s.store.RunInTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
			for _, h := range hooks {
				if err := h(ctx, tx, u); err != nil {
					return err
				}
			}
			return s.store.DeleteUser(ctx, userID)
		})
	}
	if err != nil {
		return fmt.Errorf("auth: delete user %d: %w", userID, err)
	}
	for _, h := range s.hooks.deleted.All() {
		h(ctx, u)
	}
	return nil
}

// SessionInfo is one signed-in browser of a user, for their list.
type SessionInfo struct {
	// Browser and Device are read from the User-Agent ("Firefox 133",
	// "Linux"), "" when unknown; IP is the client address it signed in
	// from, Place its country in words ("" when unknown).
	Browser, Device, IP, Place string
	CreatedAt, LastSeenAt      time.Time
	// Current marks the session the list was asked from.
	Current bool
}

// Sessions lists u's signed-in browsers, the most recently active first,
// the one with id current marked.
func (s *Service) Sessions(ctx context.Context, userID int64, current string) ([]SessionInfo, error) {
	list, err := s.store.ListUserSessions(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("auth: sessions: %w", err)
	}
	cur := sum(current)
	out := make([]SessionInfo, 0, len(list))
	now := s.now()
	for _, ss := range list {
		if now.Sub(ss.LastSeenAt) >= s.life.idle || now.Sub(ss.CreatedAt) >= s.life.absolute {
			continue // ended; the prune job has not got to it yet
		}
		browser, device := describeAgent(ss.UserAgent)
		out = append(out, SessionInfo{Browser: browser, Device: device, IP: ss.IP, Place: countryName(ss.Place), CreatedAt: ss.CreatedAt, LastSeenAt: ss.LastSeenAt,
			Current: hmac.Equal(ss.IDHash, cur)})
	}
	return out, nil
}

// SignOutOtherSessions ends every session of u but the one with id
// current, and their remember-me tokens, once password is theirs (else a
// *ValidationError on "password"). It returns how many sessions ended.
func (s *Service) SignOutOtherSessions(ctx context.Context, u User, password, current string) (int64, error) {
	if err := s.passwordIs(ctx, u.ID, "password", password); err != nil {
		return 0, err
	}
	n, err := s.store.DeleteOtherSessions(ctx, u.ID, sum(current))
	if err != nil {
		return 0, fmt.Errorf("auth: sign out other sessions: %w", err)
	}
	if err := s.store.DeleteUserRememberTokens(ctx, u.ID); err != nil {
		return 0, fmt.Errorf("auth: sign out other sessions: %w", err)
	}
	return n, nil
}

// countryName says an ISO 3166 country code in English ("GB": "United
// Kingdom"); "" for none, the code itself when x/text does not know it.
func countryName(code string) string {
	if code == "" {
		return ""
	}
	region, err := language.ParseRegion(code)
	if err != nil {
		return code
	}
	return display.English.Regions().Name(region)
}
