package groundwork

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
)

// KeyMinBytes is how long a secret NewKeys takes must be, at least.
const KeyMinBytes = 32

// Keys gives every key the domains take from one secret, so a host keeps
// one (32 random bytes or more: openssl rand -base64 32) and every
// instance on a database uses the same:
//
//	keys, err := groundwork.NewKeys(secret)
//	webhooks.Options{SecretKey: keys.WebhookSecrets()}
//	forms.Options{FormTokenKey: keys.FormTokens()}
//	forms.PageOptions{FlashKey: keys.PageFlash()}
//	bookings.Options{SecretKey: keys.ManageLinks()}
//	bookings.PageOptions{Key: keys.PageFlash()}
//	auth.Options{Key: keys.SignIn()}
//
// Each purpose's key is HMAC-SHA256 of its label under the secret (a
// pseudo-random function keyed with a uniformly random secret, the expand
// step of HKDF without its counter), so one key tells nothing of another
// or of the secret. The reference server derives its keys so, and they
// stay what they were: no sealed secret or live link breaks.
type Keys struct{ secret []byte }

// NewKeys returns the keys of secret, which must be at least KeyMinBytes
// long.
func NewKeys(secret []byte) (Keys, error) {
	if len(secret) < KeyMinBytes {
		return Keys{}, fmt.Errorf("groundwork: keys: the secret must be at least %d bytes, not %d", KeyMinBytes, len(secret))
	}
	return Keys{secret: append([]byte(nil), secret...)}, nil
}

// For is the 32-byte key of purpose: HMAC-SHA256(secret, "groundwork " +
// purpose). Use it for a purpose of the host's own; the methods below
// name the library's.
func (k Keys) For(purpose string) []byte {
	m := hmac.New(sha256.New, k.secret)
	m.Write([]byte("groundwork " + purpose))
	return m.Sum(nil)
}

// WebhookSecrets seals the webhook subscriptions' signing secrets at rest
// (webhooks.Options.SecretKey): the secret itself, as it has always been,
// when it is 32 bytes; else its key for "webhook secrets".
func (k Keys) WebhookSecrets() []byte {
	if len(k.secret) == KeyMinBytes {
		return append([]byte(nil), k.secret...)
	}
	return k.For("webhook secrets")
}

// FormTokens signs the forms' load tokens (forms.Options.FormTokenKey).
func (k Keys) FormTokens() []byte { return k.For("form load token") }

// PageFlash signs the pages' one-time notices
// (forms.PageOptions.FlashKey, bookings.PageOptions.Key).
func (k Keys) PageFlash() []byte { return k.For("page flash") }

// ManageLinks seals the bookings' manage tokens kept for mail
// (bookings.Options.SecretKey).
func (k Keys) ManageLinks() []byte { return k.For("bookings manage token") }

// SignIn keys the sign-in cookies and tokens (auth.Options.Key).
func (k Keys) SignIn() []byte { return k.For("sign-in") }

// GoogleTokens seals the Google connection's tokens
// (reportinggoogle.OAuthOptions.Key).
func (k Keys) GoogleTokens() []byte { return k.For("google tokens") }
