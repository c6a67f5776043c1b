package store_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

func TestText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in, clean string
	}{
		{"", ""},
		{"café ☕", "café ☕"},
		{"a\x00b", "a\uFFFDb"},
		{"caf\xe9", "caf\uFFFD"},
		{"\xff\xfe\x00", "\uFFFD\uFFFD"}, // a run of invalid bytes is one U+FFFD
		{"cut \xe2\x98", "cut \uFFFD"},
	} {
		require.Equal(t, c.clean, store.CleanText(c.in), "%q", c.in)
		require.Equal(t, c.in == c.clean, store.ValidText(c.in), "%q", c.in)
		require.True(t, store.ValidText(store.CleanText(c.in)))
	}
}

// CleanText's output is stored and read back unchanged on both databases.
func TestTextStores(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		db := storetest.Open(t, d)
		_, err := db.Exec(`CREATE TABLE texts (v TEXT NOT NULL)`)
		require.NoError(t, err)
		in := store.CleanText("a\x00b caf\xe9 \xe2\x98")
		_, err = db.Exec(db.Rebind(`INSERT INTO texts (v) VALUES (?)`), in)
		require.NoError(t, err)
		var out string
		require.NoError(t, db.Get(&out, `SELECT v FROM texts`))
		require.Equal(t, in, out)
	})
}

func TestClipText(t *testing.T) {
	t.Parallel()
	require.Equal(t, "abc", store.ClipText("abc", 3))
	require.Equal(t, "ab", store.ClipText("abc", 2))
	require.Equal(t, "a", store.ClipText("a☕", 3), "the split rune is left out")
	require.Equal(t, "a☕", store.ClipText("a☕b", 4))
	require.Equal(t, "\uFFFDb", store.ClipText("\x00bc", 2))
	require.Equal(t, "", store.ClipText("☕", 2))
}
