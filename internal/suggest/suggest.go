// Package suggest finds the name closest to a mistyped one, for messages
// that say what was likely meant.
package suggest

import "strings"

// Nearest is the candidate closest to name (fewest letters to change,
// case aside), for a message that says what was likely meant ("did you
// mean booking.created?"); "" when none is near (more than half of name
// would change).
func Nearest(name string, candidates []string) string {
	best, d := Closest(name, candidates)
	if d > len(name)/2 {
		return ""
	}
	return best
}

// Closest is the candidate closest to name and its distance; "" and -1
// for no candidates.
func Closest(name string, candidates []string) (string, int) {
	best, bestDistance := "", -1
	for _, c := range candidates {
		if d := distance(strings.ToLower(name), strings.ToLower(c)); bestDistance < 0 || d < bestDistance {
			best, bestDistance = c, d
		}
	}
	return best, bestDistance
}

// distance is the Levenshtein distance of a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
