package auth

import "context"

// Internals the external tests look at.
var (
	HashPassword  = hashPassword
	CheckPassword = checkPassword
	ErrBadHash    = errBadHash
	LocalPath     = localPath
)

// HashChecks counts the argon2id checks s has run.
func HashChecks(s *Service) int64 { return s.hasher.checks.Load() }

// HashTurn takes one of s's hashing slots.
func HashTurn(s *Service) (func(), error) { return s.hasher.turn(context.Background()) }

// SessionHash is how a session id is stored.
func SessionHash(id string) []byte { return sum(id) }

// Knobs the tests read, by their exported names of before.
const (
	TwoFactorAttempts = twoFactorAttempts
)
