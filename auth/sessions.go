package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/auth/authstore"
)

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
// A disabled user is ErrDisabled.
// It returns the session id and the remember cookie's value ("" without
// one), both secret and shown only here.
func (s *Service) StartSession(ctx context.Context, u User, remember bool) (sessionID, rememberValue string, err error) {
	return s.startSession(ctx, u, remember, true, browserInfo{})
}

// neverConfirmed is the PasswordConfirmedAt of a session whose user has
// not typed their password in it (one a remember-me cookie started):
// long before any confirm window.
var neverConfirmed = time.Unix(0, 0).UTC()

// browserInfo is what a session keeps of the browser that signed in.
type browserInfo struct{ userAgent, ip, place string }

// startSession is StartSession, keeping the browser's user agent and
// client address for the user's list of sessions. confirmed says the
// user just proved who they are (a password, a passkey): a session a
// remember-me cookie starts is not, so the confirm-password gate asks.
func (s *Service) startSession(ctx context.Context, u User, remember, confirmed bool, b browserInfo) (sessionID, rememberValue string, err error) {
	if u.DisabledAt != nil {
		return "", "", ErrDisabled
	}
	userAgent := b.userAgent
	if sessionID, err = s.randomToken(32); err != nil {
		return "", "", fmt.Errorf("auth: start session: %w", err)
	}
	now := s.now()
	if len(userAgent) > sessionAgentMaxBytes {
		userAgent = strings.ToValidUTF8(userAgent[:sessionAgentMaxBytes], "")
	}
	confirmedAt := neverConfirmed
	if confirmed {
		confirmedAt = now
	}
	if err := s.store.CreateSession(ctx, authstore.Session{IDHash: sum(sessionID), UserID: u.ID, CreatedAt: now, LastSeenAt: now, PasswordConfirmedAt: confirmedAt,
		UserAgent: strings.ToValidUTF8(userAgent, ""), IP: b.ip, Place: b.place}); err != nil {
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
	if err := s.store.CreateRememberToken(ctx, authstore.RememberToken{Selector: selector, ValidatorHash: sum(validator), UserID: userID,
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
func (s *Service) sessionUser(ctx context.Context, sessionID string) (authstore.Session, User, error) {
	if len(sessionID) != 43 {
		return authstore.Session{}, User{}, errNoSession
	}
	sess, u, err := s.store.SessionByHash(ctx, sum(sessionID))
	if errors.Is(err, ErrNotFound) {
		return authstore.Session{}, User{}, errNoSession
	}
	if err != nil {
		return authstore.Session{}, User{}, fmt.Errorf("auth: session: %w", err)
	}
	now := s.now()
	if now.Sub(sess.LastSeenAt) >= s.life.idle || now.Sub(sess.CreatedAt) >= s.life.absolute || u.DisabledAt != nil {
		_ = s.store.DeleteSession(ctx, sess.IDHash)
		return authstore.Session{}, User{}, errNoSession
	}
	if now.Sub(sess.LastSeenAt) >= s.touchInterval {
		if err := s.store.TouchSession(ctx, sess.IDHash, now, false); err != nil {
			return authstore.Session{}, User{}, fmt.Errorf("auth: session: %w", err)
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
	if errors.Is(err, ErrNotFound) || err == nil && u.DisabledAt != nil {
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
	tokens, err := s.store.ListTokens(ctx, userID)
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
	if err := s.store.TouchSession(ctx, sum(sessionID), s.now(), true); err != nil {
		return fmt.Errorf("auth: confirm password: %w", err)
	}
	return nil
}

// PruneSessions deletes ended sessions, expired remember-me tokens and
// stale password resets; the periodic job of [PeriodicJobs] calls it.
func (s *Service) PruneSessions(ctx context.Context) (int64, error) {
	now := s.now()
	n, err := s.store.Prune(ctx, authstore.Prune{Now: now, IdleBefore: now.Add(-s.life.idle), CreatedBefore: now.Add(-s.life.absolute),
		ResetsBefore: now.Add(-s.life.reset)})
	if err != nil {
		return 0, fmt.Errorf("auth: prune: %w", err)
	}
	return n, nil
}
