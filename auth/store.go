package auth

import (
	"context"
	"time"

	"github.com/groundwork-go/groundwork/auth/authstore"
	"github.com/groundwork-go/groundwork/store"
)

// Store keeps API tokens, users, sessions, remember-me tokens and password
// resets. Implementation: authsql (SQLite and Postgres);
// authtest.RunStoreTests pins the contract below. Times
// are stored in UTC to the microsecond. Secrets are never stored: only
// their hashes, which the Service makes.
//
// Store is this domain's adapter seam, as a driver is River's: the one
// interface a storage engine implements, and the only way the service
// reaches its data. A host keeps the SQL adapter (on its own *sql.DB, SQLite
// or Postgres) unless it brings another engine; an adapter is complete when
// the conformance suite passes on it.
//
// The service begins the transactions its steps share with RunInTx
// (store.Transactor) and calls the store with the context it gives: a
// method called with that context runs inside that transaction, so a
// deletion and the hosts' hooks that go with it commit together or not at
// all. Outside one, each method is atomic on its own.
//
// It is the union of five roles, one for each part of the domain, so a
// reader finds a method by what it is for.
type Store interface {
	store.Transactor
	TokenStore
	UserStore
	TwoFactorStore
	PasskeyStore
	SessionStore
}

// TokenStore keeps the API tokens.
type TokenStore interface {
	// CreateToken stores t with the SHA-256 hash of its secret and
	// returns it with its new ID. t.ID is ignored.
	CreateToken(ctx context.Context, t Token, secretHash []byte) (Token, error)
	// TokenByID returns a token and the hash of its secret, or ErrNotFound.
	TokenByID(ctx context.Context, id int64) (Token, []byte, error)
	// ListTokens returns the tokens of one user (every token when userID
	// is 0), revoked and expired ones too, in ID order.
	ListTokens(ctx context.Context, userID int64) ([]Token, error)
	// RevokeToken marks a token revoked at at, or returns ErrNotFound.
	// Revoking a revoked token keeps the first time and is not an error.
	RevokeToken(ctx context.Context, id int64, at time.Time) error
	// TouchToken records a use at at. It never moves LastUsedAt
	// backwards, and a missing token is not an error.
	TouchToken(ctx context.Context, id int64, at time.Time) error
}

// UserStore keeps the users: their accounts, passwords, addresses and
// capabilities.
type UserStore interface {
	// CreateUser stores u (its Email already lower-case) with its
	// password hash and returns it with its new ID; ErrEmailTaken when
	// another user has the address. u.ID is ignored.
	CreateUser(ctx context.Context, u User, passwordHash string) (User, error)
	// UserByID returns a user and their password hash, or ErrNotFound.
	UserByID(ctx context.Context, id int64) (User, string, error)
	// UserByEmail returns the user with this (lower-case) address and
	// their password hash, or ErrNotFound.
	UserByEmail(ctx context.Context, email string) (User, string, error)
	// ListUsers returns the users q asks for in ID order: those past
	// q.After whose address or name holds q.Search (without regard to
	// case; LIKE's wildcards are matched as themselves), at most q.Limit
	// (every one when 0).
	ListUsers(ctx context.Context, q UserQuery) ([]User, error)
	// SetPasswordHash replaces a user's password hash; ErrNotFound when
	// there is no such user.
	SetPasswordHash(ctx context.Context, userID int64, hash string, at time.Time) error
	// MarkEmailVerified sets EmailVerifiedAt to at unless it is set
	// already; ErrNotFound when there is no such user.
	MarkEmailVerified(ctx context.Context, userID int64, at time.Time) error
	// SetCapabilities replaces a user's capabilities; ErrNotFound when
	// there is no such user.
	SetCapabilities(ctx context.Context, userID int64, capabilities []string, at time.Time) error

	// SetDisabled sets or (nil) clears when a user was disabled;
	// ErrNotFound when there is no such user.
	SetDisabled(ctx context.Context, userID int64, disabledAt *time.Time, at time.Time) error

	// SetName replaces a user's name; ErrNotFound when there is no such
	// user.
	SetName(ctx context.Context, userID int64, name string, at time.Time) error
	// SetEmail replaces a user's (lower-case) address and when it was
	// verified; ErrEmailTaken when another user has it, ErrNotFound
	// when there is no such user.
	SetEmail(ctx context.Context, userID int64, email string, verifiedAt *time.Time, at time.Time) error
	// DeleteUser deletes a user and everything of theirs the Store keeps
	// (tokens, sessions, remember-me tokens, resets, two-factor state).
	// ErrNotFound when there is no such user.
	DeleteUser(ctx context.Context, userID int64) error
}

// TwoFactorStore keeps the users' two-factor secrets, the steps used and
// the recovery codes.
type TwoFactorStore interface {
	// TwoFactorOf returns a user's two-factor state; ErrNotFound when the
	// user has none (never began turning it on, or turned it off).
	TwoFactorOf(ctx context.Context, userID int64) (authstore.TwoFactorState, error)
	// BeginTwoFactor stores a new, unconfirmed secret for a user, in place
	// of any earlier one (confirmed or not), and drops their recovery
	// codes; ErrNotFound when there is no such user.
	BeginTwoFactor(ctx context.Context, userID int64, sealedSecret string, at time.Time) error
	// ConfirmTwoFactor turns two-factor sign-in on for a user whose
	// secret is pending: confirmed at at, step used, the recovery codes
	// replaced by codeHashes; ErrNotFound when no pending secret.
	ConfirmTwoFactor(ctx context.Context, userID int64, step int64, codeHashes [][]byte, at time.Time) error
	// UseTwoFactorStep records that a code of time step step was accepted,
	// if no code of that step or a later one was: it reports whether this
	// call took it. Two instances racing with one code: one wins.
	UseTwoFactorStep(ctx context.Context, userID int64, step int64) (bool, error)
	// ReplaceRecoveryCodes replaces a user's recovery codes.
	ReplaceRecoveryCodes(ctx context.Context, userID int64, codeHashes [][]byte) error
	// UseRecoveryCode deletes the user's recovery code with this hash and
	// reports whether there was one: each works once.
	UseRecoveryCode(ctx context.Context, userID int64, codeHash []byte) (bool, error)
	// RecoveryCodesLeft counts a user's unused recovery codes.
	RecoveryCodesLeft(ctx context.Context, userID int64) (int, error)
	// DisableTwoFactor drops a user's two-factor secret and recovery
	// codes; a user without them is not an error.
	DisableTwoFactor(ctx context.Context, userID int64, at time.Time) error
}

// PasskeyStore keeps the users' passkeys.
type PasskeyStore interface {
	// AddPasskey stores a passkey and returns it with its new ID;
	// ErrPasskeyTaken when its credential ID is stored already.
	AddPasskey(ctx context.Context, p Passkey) (Passkey, error)
	// UserPasskeys returns a user's passkeys in ID order.
	UserPasskeys(ctx context.Context, userID int64) ([]Passkey, error)
	// PasskeyByCredential returns the passkey with this credential ID, or
	// ErrNotFound.
	PasskeyByCredential(ctx context.Context, credentialID []byte) (Passkey, error)
	// UsePasskey records a sign-in with a passkey: its updated credential
	// record (the signature counter moves) and when.
	UsePasskey(ctx context.Context, id int64, credential []byte, at time.Time) error
	// DeletePasskey deletes a user's passkey; ErrNotFound when the user
	// has none with that ID.
	DeletePasskey(ctx context.Context, userID, id int64) error
}

// SessionStore keeps the signed-in browsers: sessions, remember-me
// tokens and password resets, and prunes what has expired.
type SessionStore interface {
	// CreateSession stores a new session.
	CreateSession(ctx context.Context, s authstore.Session) error
	// SessionByHash returns the session with this id hash and its user,
	// or ErrNotFound. It is the one read an authenticated page request
	// costs, so it must be one indexed lookup.
	SessionByHash(ctx context.Context, idHash []byte) (authstore.Session, User, error)
	// TouchSession moves a session's LastSeenAt forward to at (never
	// back) and, when confirmed (the user has just typed their password
	// in it), sets its PasswordConfirmedAt to at; a missing session is
	// not an error.
	TouchSession(ctx context.Context, idHash []byte, at time.Time, confirmed bool) error
	// DeleteSession deletes a session; a missing one is not an error.
	DeleteSession(ctx context.Context, idHash []byte) error
	// DeleteUserSessions deletes every session of a user.
	DeleteUserSessions(ctx context.Context, userID int64) error
	// ListUserSessions returns a user's sessions, the most recently seen
	// first.
	ListUserSessions(ctx context.Context, userID int64) ([]authstore.Session, error)
	// DeleteOtherSessions deletes every session of a user but the one
	// with id hash keep, and returns how many went.
	DeleteOtherSessions(ctx context.Context, userID int64, keep []byte) (int64, error)

	// CreateRememberToken stores a remember-me token.
	CreateRememberToken(ctx context.Context, t authstore.RememberToken) error
	// TakeRememberToken deletes the token with this selector and returns
	// it, so that it serves once; ErrNotFound when there is none.
	TakeRememberToken(ctx context.Context, selector string) (authstore.RememberToken, error)
	// DeleteUserRememberTokens deletes every remember-me token of a user.
	DeleteUserRememberTokens(ctx context.Context, userID int64) error

	// PutPasswordReset stores a reset, replacing the user's earlier one.
	PutPasswordReset(ctx context.Context, r authstore.PasswordReset) error
	// PasswordResetOf returns the user's pending reset, or ErrNotFound.
	PasswordResetOf(ctx context.Context, userID int64) (authstore.PasswordReset, error)
	// TakePasswordReset deletes the user's reset if its token hash is
	// tokenHash and returns it; ErrNotFound when the user has none with
	// that hash. Two requests with one token cannot both take it.
	TakePasswordReset(ctx context.Context, userID int64, tokenHash []byte) (authstore.PasswordReset, error)

	// Prune deletes what can no longer be used: sessions idle since
	// before p.IdleBefore or created before p.CreatedBefore, remember-me
	// tokens expired by p.Now, resets made before p.ResetsBefore. It
	// returns how many rows went.
	Prune(ctx context.Context, p authstore.Prune) (int64, error)
}
