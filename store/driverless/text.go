package driverless

import (
	"strings"
	"unicode/utf8"
)

// ValidText reports whether s can be stored in a text column of either
// database as it is: valid UTF-8 without NUL. Postgres refuses anything
// else in TEXT, and \u0000 in JSONB.
func ValidText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// CleanText returns s as ValidText: each invalid byte, cut rune or NUL
// becomes U+FFFD. For text kept as a record of what arrived (headers,
// refused bodies), where refusing it is not an option; an answer a user
// gave is better refused with a validation error.
func CleanText(s string) string {
	if ValidText(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// ClipText is CleanText of at most the first n bytes of s, cut where a
// rune starts (a rune the cut would split is left out).
func ClipText(s string, n int) string {
	if len(s) > n {
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n]
	}
	return CleanText(s)
}
