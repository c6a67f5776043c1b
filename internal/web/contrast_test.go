package web_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/a11y"
)

// The stylesheet's colour pairs meet WCAG AA, checked with our own a11y
// package: 4.5:1 for text, 3:1 for focus outlines and borders that mark
// state (non-text contrast).
func TestStylesheetContrast(t *testing.T) {
	t.Parallel()
	css, err := os.ReadFile("static/groundwork.css")
	require.NoError(t, err)
	for _, c := range []struct {
		what, fg, bg string
		min          float64
	}{
		{"body text", "#111827", "#fff", 4.5},
		{"chart labels", "#374151", "#fff", 4.5},
		{"chart line", "#1d4ed8", "#fff", 3},
		{"help text", "#4b5563", "#fff", 4.5},
		{"error text", "#b91c1c", "#fff", 4.5},
		{"links", "#1d4ed8", "#fff", 4.5},
		{"button text", "#fff", "#1d4ed8", 4.5},
		{"button text, hovered", "#fff", "#1e40af", 4.5},
		{"danger button text", "#fff", "#b91c1c", 4.5},
		{"danger button text, hovered", "#fff", "#991b1b", 4.5},
		{"secondary button, hovered", "#1d4ed8", "#eff6ff", 4.5},
		{"focus outline", "#b45309", "#fff", 3},
		{"input border", "#6b7280", "#fff", 3},
		{"invalid input border", "#b91c1c", "#fff", 3},
		{"notice border", "#15803d", "#fff", 3},
	} {
		require.Contains(t, strings.ToLower(string(css)), c.fg, "%s: the stylesheet uses %s", c.what, c.fg)
		ratio, err := a11y.ContrastRatio(c.fg, c.bg)
		require.NoError(t, err)
		require.GreaterOrEqual(t, ratio, c.min, "%s: %s on %s is %.2f:1", c.what, c.fg, c.bg, ratio)
	}
}
