package openid

import (
	"context"
	"errors"
	"time"
)

// Identity is an account at an OpenID provider linked to one of auth's
// users: whoever the provider signs in as it signs in as the user.
type Identity struct {
	ID     int64 `json:"id"`
	UserID int64 `json:"user_id"`
	// Provider is the Provider's Name it was linked through; Issuer and
	// Subject name the account at the provider (the ID token's "iss" and
	// "sub"), which no other user may link.
	Provider string `json:"provider"`
	Issuer   string `json:"issuer"`
	Subject  string `json:"subject"`
	// Email is the address the provider gave when it was linked (shown
	// on the page; never used to sign in).
	Email     string    `json:"email"`
	CreatedAt time.Time `json:"created_at"`
}

var (
	// ErrNotFound: no such identity (of the user).
	ErrNotFound = errors.New("openid: not found")
	// ErrLinked: the provider's account is linked to a user already.
	ErrLinked = errors.New("openid: the account is linked already")
)

// Store keeps the linked identities. Implementation: openidsql, in
// auth's tables (migrated with authsql.Migrations); a user's identities
// go with the user.
type Store interface {
	// LinkIdentity stores id (its ID ignored) and returns it with its new
	// ID; ErrLinked when its Issuer and Subject are linked already, to
	// anyone, ErrNotFound when there is no such user.
	LinkIdentity(ctx context.Context, id Identity) (Identity, error)
	// IdentityBySubject returns the identity of issuer's subject, or
	// ErrNotFound.
	IdentityBySubject(ctx context.Context, issuer, subject string) (Identity, error)
	// Identities returns a user's identities in ID order.
	Identities(ctx context.Context, userID int64) ([]Identity, error)
	// UnlinkIdentity deletes a user's identity; ErrNotFound when the user
	// has none with that ID.
	UnlinkIdentity(ctx context.Context, userID, id int64) error
}
