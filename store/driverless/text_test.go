package driverless_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store/driverless"
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
		require.Equal(t, c.clean, driverless.CleanText(c.in), "%q", c.in)
		require.Equal(t, c.in == c.clean, driverless.ValidText(c.in), "%q", c.in)
		require.True(t, driverless.ValidText(driverless.CleanText(c.in)))
	}
}

func TestClipText(t *testing.T) {
	t.Parallel()
	require.Equal(t, "abc", driverless.ClipText("abc", 3))
	require.Equal(t, "ab", driverless.ClipText("abc", 2))
	require.Equal(t, "a", driverless.ClipText("a☕", 3), "the split rune is left out")
	require.Equal(t, "a☕", driverless.ClipText("a☕b", 4))
	require.Equal(t, "\uFFFDb", driverless.ClipText("\x00bc", 2))
	require.Equal(t, "", driverless.ClipText("☕", 2))
}
