// Package seal encrypts short secrets at rest with AES-256-GCM: webhook
// subscription secrets, and the manage tokens a queued mail carries.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// KeySize is the length of a key: an AES-256 key.
const KeySize = 32

// prefix marks the sealing scheme, so a later one can be told apart.
const prefix = "gcm1:"

// Errors of [Sealer.Open].
var (
	ErrUnknownScheme = errors.New("unknown sealing")
	ErrDamaged       = errors.New("damaged sealed value")
	ErrWrongKey      = errors.New("the key does not open this value")
)

// Sealer seals and opens values with one key. Safe for concurrent use.
type Sealer struct{ aead cipher.AEAD }

// New returns a Sealer on a KeySize-byte key.
func New(key []byte) (*Sealer, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("the key must be %d bytes, not %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Sealer{aead: aead}, nil
}

// Seal encrypts plain, bound to context (which Open must be given again;
// nil for none), as printable text.
func (s *Sealer) Seal(plain string, context []byte) string {
	nonce := make([]byte, s.aead.NonceSize())
	rand.Read(nonce)
	return prefix + base64.RawStdEncoding.EncodeToString(s.aead.Seal(nonce, nonce, []byte(plain), context))
}

// Open decrypts what Seal made with the same key and context.
func (s *Sealer) Open(sealed string, context []byte) (string, error) {
	raw, ok := strings.CutPrefix(sealed, prefix)
	if !ok {
		return "", ErrUnknownScheme
	}
	b, err := base64.RawStdEncoding.DecodeString(raw)
	if err != nil || len(b) < s.aead.NonceSize() {
		return "", ErrDamaged
	}
	plain, err := s.aead.Open(nil, b[:s.aead.NonceSize()], b[s.aead.NonceSize():], context)
	if err != nil {
		return "", ErrWrongKey
	}
	return string(plain), nil
}
