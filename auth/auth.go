package auth

import "time"

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
	CreatedAt time.Time  `json:"created_at"`
}

// Active reports whether the token works at now: not revoked, not expired.
func (t Token) Active(now time.Time) bool {
	return t.RevokedAt == nil && (t.ExpiresAt == nil || now.Before(*t.ExpiresAt))
}

// NewToken is what [Service.CreateToken] needs.
type NewToken struct {
	// Name says what the token is for; required, at most 255 characters.
	Name string
	// Abilities: at least one.
	Abilities []string
	// ExpiresAt is when the token stops working; the zero time for never.
	ExpiresAt time.Time
}
