package webhooks

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// SecretKeySize is the length of Options.SecretKey: an AES-256 key.
const SecretKeySize = 32

// sealPrefix marks the sealing scheme, so a later one can be told apart.
const sealPrefix = "gcm1:"

// sealer encrypts subscription secrets at rest with AES-256-GCM.
type sealer struct{ aead cipher.AEAD }

func newSealer(key []byte) (*sealer, error) {
	if len(key) != SecretKeySize {
		return nil, fmt.Errorf("webhooks: SecretKey must be %d bytes, not %d", SecretKeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &sealer{aead: aead}, nil
}

func (s *sealer) seal(secret string) string {
	nonce := make([]byte, s.aead.NonceSize())
	rand.Read(nonce)
	return sealPrefix + base64.RawStdEncoding.EncodeToString(s.aead.Seal(nonce, nonce, []byte(secret), nil))
}

func (s *sealer) open(sealed string) (string, error) {
	raw, ok := strings.CutPrefix(sealed, sealPrefix)
	if !ok {
		return "", errors.New("webhooks: unknown secret sealing")
	}
	b, err := base64.RawStdEncoding.DecodeString(raw)
	if err != nil || len(b) < s.aead.NonceSize() {
		return "", errors.New("webhooks: damaged sealed secret")
	}
	plain, err := s.aead.Open(nil, b[:s.aead.NonceSize()], b[s.aead.NonceSize():], nil)
	if err != nil {
		return "", errors.New("webhooks: the secret key does not open this secret")
	}
	return string(plain), nil
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
