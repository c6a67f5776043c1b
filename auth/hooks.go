package auth

import (
	"context"
	"sync"
)

// Hook types. Each runs after its change has been stored, in the order
// registered, on the goroutine that made the change; a hook that must not
// slow the request hands its work on.
type (
	// UserHook is told of a user: registered (created, by a page or a
	// command), signed in (a new session: a sign-in, a registration's, or
	// a remembered browser's return), or whose password was reset.
	UserHook func(ctx context.Context, u User)
	// SignedOutHook is told that a user signed out of a browser.
	SignedOutHook func(ctx context.Context, userID int64)
	// TokenHook is told of an API token, created or revoked (never its
	// secret).
	TokenHook func(ctx context.Context, t Token)
)

type hooks struct {
	mu                                sync.RWMutex
	registered, signedIn, passwordSet []UserHook
	signedOut                         []SignedOutHook
	tokenCreated, tokenRevoked        []TokenHook
}

func addHook[H any](s *Service, list *[]H, h H) {
	s.hooks.mu.Lock()
	*list = append(*list, h)
	s.hooks.mu.Unlock()
}

// hooksOf is the hooks registered so far on list.
func hooksOf[H any](s *Service, list *[]H) []H {
	s.hooks.mu.RLock()
	defer s.hooks.mu.RUnlock()
	return *list
}

// OnUserRegistered registers h to run after a user is created.
func (s *Service) OnUserRegistered(h UserHook) { addHook(s, &s.hooks.registered, h) }

// OnSignedIn registers h to run after a session starts for a user.
func (s *Service) OnSignedIn(h UserHook) { addHook(s, &s.hooks.signedIn, h) }

// OnSignedOut registers h to run after a user signs out of a browser.
func (s *Service) OnSignedOut(h SignedOutHook) { addHook(s, &s.hooks.signedOut, h) }

// OnPasswordReset registers h to run after a user reset their password
// through a reset link (and was signed out everywhere).
func (s *Service) OnPasswordReset(h UserHook) { addHook(s, &s.hooks.passwordSet, h) }

// OnTokenCreated registers h to run after an API token is created.
func (s *Service) OnTokenCreated(h TokenHook) { addHook(s, &s.hooks.tokenCreated, h) }

// OnTokenRevoked registers h to run after an API token is revoked.
func (s *Service) OnTokenRevoked(h TokenHook) { addHook(s, &s.hooks.tokenRevoked, h) }
