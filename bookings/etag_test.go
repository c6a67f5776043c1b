package bookings

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A calendar feed answers a conditional GET "not modified" for the tag
// itself, a list holding it, its weak form or *.
func TestETagMatches(t *testing.T) {
	t.Parallel()
	tag := `"5d41402a"`
	for header, want := range map[string]bool{tag: true, `"other", ` + tag: true, "W/" + tag: true, "*": true, `"other"`: false, "": false} {
		require.Equal(t, want, etagMatches(header, tag), header)
	}
}
