package auth

import (
	"context"
	"time"
)

// Store keeps API tokens. Implementations: authsql (SQLite and Postgres)
// and the in-memory fake in authtest; authtest.RunStoreTests pins the
// contract below. Times are stored in UTC to the microsecond.
type Store interface {
	// CreateToken stores t with the SHA-256 hash of its secret and
	// returns it with its new ID. t.ID is ignored.
	CreateToken(ctx context.Context, t Token, secretHash []byte) (Token, error)
	// TokenByID returns a token and the hash of its secret, or ErrNotFound.
	TokenByID(ctx context.Context, id int64) (Token, []byte, error)
	// ListTokens returns every token, revoked and expired ones too, in
	// ID order.
	ListTokens(ctx context.Context) ([]Token, error)
	// RevokeToken marks a token revoked at at, or returns ErrNotFound.
	// Revoking a revoked token keeps the first time and is not an error.
	RevokeToken(ctx context.Context, id int64, at time.Time) error
	// TouchToken records a use at at. It never moves LastUsedAt
	// backwards, and a missing token is not an error.
	TouchToken(ctx context.Context, id int64, at time.Time) error
}
