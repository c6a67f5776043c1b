package auth

import (
	"context"

	"github.com/groundwork-go/groundwork/internal/hooks"
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

// registered are the callbacks a host registers.
type registered struct {
	registered, signedIn, passwordSet, deleted hooks.List[UserHook]
	deleting                                   hooks.List[UserDeletingHook]
	signedOut                                  hooks.List[SignedOutHook]
	tokenCreated, tokenRevoked                 hooks.List[TokenHook]
}

// OnUserRegistered registers h to run after a user is created.
func (s *Service) OnUserRegistered(h UserHook) { s.hooks.registered.Add(h) }

// OnSignedIn registers h to run after a session starts for a user.
func (s *Service) OnSignedIn(h UserHook) { s.hooks.signedIn.Add(h) }

// OnSignedOut registers h to run after a user signs out of a browser.
func (s *Service) OnSignedOut(h SignedOutHook) { s.hooks.signedOut.Add(h) }

// OnPasswordReset registers h to run after a user reset their password
// through a reset link (and was signed out everywhere).
func (s *Service) OnPasswordReset(h UserHook) { s.hooks.passwordSet.Add(h) }

// OnTokenCreated registers h to run after an API token is created.
func (s *Service) OnTokenCreated(h TokenHook) { s.hooks.tokenCreated.Add(h) }

// OnTokenRevoked registers h to run after an API token is revoked.
func (s *Service) OnTokenRevoked(h TokenHook) { s.hooks.tokenRevoked.Add(h) }
