package webhooks

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/groundwork-go/groundwork/internal/seal"
)

// SecretKeySize is the length of Options.SecretKey: an AES-256 key.
const SecretKeySize = seal.KeySize

// sealer encrypts subscription secrets at rest with AES-256-GCM.
type sealer struct{ s *seal.Sealer }

func newSealer(key []byte) (*sealer, error) {
	s, err := seal.New(key)
	if err != nil {
		return nil, fmt.Errorf("webhooks: SecretKey: %w", err)
	}
	return &sealer{s: s}, nil
}

func (s *sealer) seal(secret string) string { return s.s.Seal(secret, nil) }

func (s *sealer) open(sealed string) (string, error) {
	plain, err := s.s.Open(sealed, nil)
	switch {
	case errors.Is(err, seal.ErrUnknownScheme):
		return "", errors.New("webhooks: unknown secret sealing")
	case errors.Is(err, seal.ErrDamaged):
		return "", errors.New("webhooks: damaged sealed secret")
	case err != nil:
		return "", errors.New("webhooks: the secret key does not open this secret")
	}
	return plain, nil
}

// GenerateSecretKey returns a new random key for Options.SecretKey.
func GenerateSecretKey() []byte {
	key := make([]byte, SecretKeySize)
	rand.Read(key)
	return key
}

const alphanumeric = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// newSecret makes a subscription secret: "whsec_" and 48 random letters
// and digits, or for Standard Webhooks "whsec_" and the base64 of 32 random
// bytes.
func newSecret(standard bool) string {
	if standard {
		b := make([]byte, 32)
		rand.Read(b)
		return StandardSecretPrefix + base64.StdEncoding.EncodeToString(b)
	}
	return StandardSecretPrefix + randomString(48)
}

// randomString draws n characters from alphanumeric without bias.
func randomString(n int) string {
	out := make([]byte, n)
	var buf [64]byte
	for i := 0; i < n; {
		rand.Read(buf[:])
		for _, b := range buf {
			if i == n {
				break
			}
			if b < 248 { // 248 = 62 * 4: reject the tail that would bias
				out[i] = alphanumeric[b%62]
				i++
			}
		}
	}
	return string(out)
}
