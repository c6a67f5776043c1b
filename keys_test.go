package groundwork_test

import (
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
)

// Each purpose's key is what the reference server has always derived, so
// no sealed secret or live link breaks; the vectors were made apart from
// this code (HMAC-SHA256 of "groundwork " and the purpose, under bytes
// 0..31).
func TestKeys(t *testing.T) {
	t.Parallel()
	secret := make([]byte, 32)
	for i := range secret {
		secret[i] = byte(i)
	}
	keys, err := groundwork.NewKeys(secret)
	require.NoError(t, err)
	for got, want := range map[string]string{
		hex.EncodeToString(keys.FormTokens()):   "f690366b69ab1f22d9c430aae600cc1b059087b0ff0902de57c678330955c3f8",
		hex.EncodeToString(keys.PageFlash()):    "d400c6b6a974f1893224c3e17f1bd15992d2f7ab2c50ab65391d617dc9a3da35",
		hex.EncodeToString(keys.ManageLinks()):  "03af860f81236947327037908515222b8e7b6448246072b1fafbf019636ab58e",
		hex.EncodeToString(keys.SignIn()):       "698433deb0d6f04fcf49d0f9d98d28b69324803c9fa5a5e21050c596235fdfb8",
		hex.EncodeToString(keys.GoogleTokens()): "b94e9149df0cf667ccdc327ce4cc1040f9bc50ff36aefd4002f19f219589c63b",
	} {
		require.Equal(t, want, got)
	}
	require.Equal(t, secret, keys.WebhookSecrets(), "a 32-byte secret seals webhook secrets itself, as it always has")
	secret[0] = 99
	require.NotEqual(t, secret, keys.WebhookSecrets(), "the keys keep their own copy")

	long, err := groundwork.NewKeys(make([]byte, 48))
	require.NoError(t, err)
	require.Len(t, long.WebhookSecrets(), 32, "a longer secret gives a 32-byte key of its own")
	_, err = groundwork.NewKeys(make([]byte, 31))
	require.EqualError(t, err, "groundwork: keys: the secret must be at least 32 bytes, not 31")
}

// One secret gives every domain its key.
func ExampleKeys() {
	secret := []byte("0123456789abcdef0123456789abcdef") // openssl rand -base64 32, decoded
	keys, err := groundwork.NewKeys(secret)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(keys.FormTokens()), len(keys.PageFlash()), len(keys.WebhookSecrets()))
	fmt.Println(hex.EncodeToString(keys.For("my own purpose"))[:16])
	// Output:
	// 32 32 32
	// e5493c4d1ff2693c
}
