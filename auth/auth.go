package auth

import (
	"strconv"
	"time"

	"github.com/groundwork-go/groundwork"
)

// Token is an API token as stored and listed. The secret is never part of
// it: it is shown once, by [Service.CreateToken], and kept only as a
// SHA-256 hash.
type Token struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	// Abilities the token grants, e.g. "forms:*", "webhookSubscription.*",
	// "a11y:ai" or "*" (see [Can]).
	Abilities []string `json:"abilities"`
	// ExpiresAt is when the token stops working; nil for never.
	ExpiresAt *time.Time `json:"expires_at"`
	// LastUsedAt is when the token last authenticated a request, to the
	// minute (see TouchIntervalDefault); nil if never.
	LastUsedAt *time.Time `json:"last_used_at"`
	// RevokedAt is when the token was revoked; nil while it is live.
	RevokedAt *time.Time `json:"revoked_at"`
	// UserID is the user the token belongs to; nil for a token made
	// outside any user's account (by the reference server's CLI, say).
	UserID    *int64    `json:"user_id"`
	CreatedAt time.Time `json:"created_at"`
}

// Active reports whether the token works at now: not revoked, not expired.
func (t Token) Active(now time.Time) bool {
	return t.RevokedAt == nil && (t.ExpiresAt == nil || now.Before(*t.ExpiresAt))
}

// NewToken is what [Service.CreateToken] needs.
type NewToken struct {
	// Name says what the token is for; required, at most 255 characters.
	Name string `json:"name"`
	// Abilities: at least one.
	Abilities []string `json:"abilities"`
	// ExpiresAt is when the token stops working; the zero time for never.
	ExpiresAt time.Time `json:"expires_at,omitzero"`
	// UserID makes the token the user's own: listed and revoked from
	// their settings page, throttled as them, and its abilities limited
	// to their capabilities. Zero for a token of no user.
	UserID int64 `json:"-"` // never from a request body: the host says whose
}

// User is a person who signs in to the site's pages. The password is
// never part of it: only its argon2id hash is stored, and the Store hands
// that back beside the User.
type User struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	// Email is unique among users, compared without regard to case and
	// stored in lower case.
	Email string `json:"email"`
	// EmailVerifiedAt is when the user followed a verification link; nil
	// while the address is unverified.
	EmailVerifiedAt *time.Time `json:"email_verified_at"`
	// Capabilities name what the user may do beyond signing in, e.g.
	// "view_search_reporting", "manage-emailmarketing-feeds", or "*" for
	// everything; see [User.Can].
	Capabilities []string `json:"-"` // never from a request body: the host grants them
	// TwoFactorConfirmedAt is when the user turned two-factor sign-in on
	// (confirmed with a code from their app); nil while it is off.
	TwoFactorConfirmedAt *time.Time `json:"two_factor_confirmed_at"`
	// DisabledAt is when an administrator disabled the user
	// ([Service.SetDisabled]); nil while they may sign in.
	DisabledAt *time.Time `json:"disabled_at,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
}

// Can reports whether the user has capability: "*" covers everything, and
// a granted "forms:*" every "forms:..." one, as for token abilities.
func (u User) Can(capability string) bool { return groundwork.Can(u.Capabilities, capability) }

// TwoFactor reports whether the user signs in with a second factor (a
// code from an authenticator app, or a recovery code).
func (u User) TwoFactor() bool { return u.TwoFactorConfirmedAt != nil }

// Verified reports whether the user's email address is verified.
func (u User) Verified() bool { return u.EmailVerifiedAt != nil }

// NewUser is what [Service.CreateUser] needs.
type NewUser struct {
	// Name: required, at most 255 characters.
	Name string `json:"name"`
	// Email: required, a valid address of at most 255 characters, not
	// already taken (in any case).
	Email string `json:"email"`
	// Password: at least PasswordMinLength characters.
	Password string `json:"password"`
	// PasswordConfirmation, when not nil, must equal Password (the
	// register page's second password field).
	PasswordConfirmation *string `json:"password_confirmation"`
	// Capabilities granted from the start; each must be well formed
	// (see [ValidAbility]).
	Capabilities []string `json:"-"` // never from a request body: the host grants them
	// Verified marks the address verified at once (for users made by an
	// administrator).
	Verified bool `json:"-"` // never from a request body
}

// sessionAgentMaxBytes caps the User-Agent a session keeps.
const sessionAgentMaxBytes = 512

// Passkey is a WebAuthn credential of a user, as stored: its credential
// ID (unique across users), the credential record (public key, signature
// counter, flags) as the WebAuthn library encodes it, opaque to the
// Store, and the name the user gave it.
type Passkey struct {
	ID           int64
	UserID       int64
	CredentialID []byte
	Credential   []byte
	Name         string
	CreatedAt    time.Time
	LastUsedAt   *time.Time
}

// idContext binds a sealed value to a user.
func idContext(kind string, userID int64) []byte {
	return []byte(kind + "\x00" + strconv.FormatInt(userID, 10))
}
