package reportingsql

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A visitor's values round-trip through the text their row keeps: each
// claimed once, a value holding the separator kept as its hash (and
// still claimed once), one removed gone from the text.
func TestSeenSet(t *testing.T) {
	var s seenSet
	require.True(t, s.Claim("t:"))
	require.True(t, s.Claim("p:/pricing"))
	require.False(t, s.Claim("p:/pricing"))
	require.True(t, s.Claim("x:a"+rs+"b"))
	require.False(t, s.Claim("x:a"+rs+"b"))
	text := s.String()
	require.Equal(t, 3, len(splitSeen(text)))
	require.NotContains(t, text, "x:a")

	again := seenSet{text: text}
	require.True(t, again.has("t:"))
	require.True(t, again.has("x:a"+rs+"b"))
	require.False(t, again.Claim("p:/pricing"))
	require.True(t, again.Claim("g:7"))
	require.Equal(t, text+"g:7"+rs, again.String())

	require.True(t, again.remove("p:/pricing"))
	require.False(t, again.remove("p:/pricing"))
	require.False(t, again.has("p:/pricing"))
	require.ElementsMatch(t, []string{"t:", seenValue("x:a" + rs + "b"), "g:7"}, splitSeen(again.String()))
	require.True(t, again.Claim("p:/pricing"), "a value removed may be claimed again")
	require.Equal(t, "", (&seenSet{}).String())
}

func splitSeen(text string) []string {
	var out []string
	s := seenSet{text: text}
	s.load()
	for v := range s.m {
		out = append(out, v)
	}
	return out
}
