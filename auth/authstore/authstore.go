// Package authstore holds the types only an implementer of auth.Store
// needs: the rows of sessions, two-factor secrets, remember-me tokens and
// password resets as a store keeps them, and what a prune deletes. A
// host that uses an adapter (authsql) never names them; they are kept off
// auth's page so that page is the host's.
//
// The Store interfaces are the library's adapter seam, as River's driver
// is: auth.Store is the whole of what auth asks of its storage, split
// into role interfaces, with the types of its methods in auth (what a
// host also sees) or here (what only an implementer does).
package authstore

import "time"

// Session is a signed-in browser, as stored. Its secret id travels only
// in the session cookie; the Store keeps its SHA-256 hash.
type Session struct {
	// IDHash is the SHA-256 of the cookie's session id.
	IDHash []byte
	UserID int64
	// CreatedAt starts the absolute lifetime; LastSeenAt the idle one
	// (written at most once a minute).
	CreatedAt  time.Time
	LastSeenAt time.Time
	// PasswordConfirmedAt is when the user last typed their password in
	// this session (signing in counts); the confirm-password page asks
	// again once it is older than the confirmation lifetime.
	PasswordConfirmedAt time.Time
	// UserAgent and IP are the browser's User-Agent (at most
	// 512 bytes) and client address when it signed in, and
	// Place its country (an ISO 3166 code, "" when unknown), for the
	// user's list of their sessions.
	UserAgent, IP, Place string
}

// TwoFactorState is a user's two-factor secret, as stored: sealed with
// the service's key, Pending until a code confirms it, and the last time
// step a code was accepted for (a code works once).
type TwoFactorState struct {
	SealedSecret string
	ConfirmedAt  *time.Time
	LastStep     int64
}

// RememberToken is a "remember me" credential, as stored: the cookie
// holds "<selector>.<validator>"; the Store keeps the selector and the
// SHA-256 of the validator. It is used once: signing in with it replaces
// it with a new one.
type RememberToken struct {
	Selector      string
	ValidatorHash []byte
	UserID        int64
	ExpiresAt     time.Time
	CreatedAt     time.Time
}

// PasswordReset is a pending password reset, as stored: at most one per
// user, its token kept as a SHA-256 hash.
type PasswordReset struct {
	UserID    int64
	TokenHash []byte
	CreatedAt time.Time
}

// Prune says what the Prune method of auth.Store deletes.
type Prune struct {
	Now           time.Time
	IdleBefore    time.Time
	CreatedBefore time.Time
	ResetsBefore  time.Time
}
