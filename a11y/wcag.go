package a11y

import (
	"errors"
	"fmt"
	"math"
)

// ErrInvalidColor is returned, wrapped with the input, by functions that
// need a hex colour and were given something else.
var ErrInvalidColor = errors.New("a11y: invalid color")

// linear is linearBits as float64, indexed by 8-bit channel value.
var linear = func() (t [256]float64) {
	for i, b := range linearBits {
		t[i] = math.Float64frombits(b)
	}
	return t
}()

// weighted holds, per channel value, the three rounded products of the
// luminance sum: 0.2126, 0.7152 and 0.0722 times the linearised value.
// Each is exactly the product the formula rounds, so a table lookup gives
// the same bits as multiplying, and no multiply can fuse with an add
// (arm64 may fuse), which would change the last bit.
var weighted = func() (t [3][256]float64) {
	for i, v := range linear {
		t[0][i], t[1][i], t[2][i] = 0.2126*v, 0.7152*v, 0.0722*v
	}
	return t
}()

// rgb is a colour as three 8-bit channels.
type rgb struct{ r, g, b uint8 }

// luminance is the WCAG relative luminance: three separately rounded
// products summed left to right.
func (c rgb) luminance() float64 {
	return weighted[0][c.r] + weighted[1][c.g] + weighted[2][c.b]
}

// ratio is the WCAG contrast ratio of two colours, in either order.
func ratio(a, b rgb) float64 {
	la, lb := a.luminance(), b.luminance()
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// hexDigit maps a byte to its hex value, or 0xff when it is not a hex
// digit; one OR over the digits then tells whether all were valid.
var hexDigit = func() (t [256]uint8) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = uint8(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = uint8(c-'a') + 10
		t[c-'a'+'A'] = uint8(c-'a') + 10
	}
	return t
}()

// hexHigh and hexLow give a digit's value as the high or low nibble of a
// byte, or 0x100 for a non-digit, so a channel is one OR of two lookups
// and any invalid digit leaves it above 0xff.
var hexHigh, hexLow = func() (hi, lo [256]uint16) {
	for i, d := range hexDigit {
		if d > 15 {
			hi[i], lo[i] = 0x100, 0x100
		} else {
			hi[i], lo[i] = uint16(d)<<4, uint16(d)
		}
	}
	return hi, lo
}()

// parseHex reads "#rgb" or "#rrggbb" in any case: no surrounding space, except that a single
// trailing newline is accepted (PHP's "$" matches before one). The
// common "#rrggbb" is small enough to inline.
func parseHex(s string) (rgb, bool) {
	if len(s) == 7 && s[0] == '#' {
		return hex6(s)
	}
	return parseHexOther(s)
}

// hex6 decodes the six digits of a 7-byte "#rrggbb".
func hex6(s string) (rgb, bool) {
	r, g, b := hexHigh[s[1]]|hexLow[s[2]], hexHigh[s[3]]|hexLow[s[4]], hexHigh[s[5]]|hexLow[s[6]]
	return rgb{uint8(r), uint8(g), uint8(b)}, r|g|b <= 0xff
}

// parseHexOther is parseHex for every form but a plain "#rrggbb".
func parseHexOther(s string) (rgb, bool) {
	if n := len(s); (n == 8 || n == 5) && s[n-1] == '\n' {
		s = s[:n-1]
	}
	if len(s) == 7 && s[0] == '#' {
		return hex6(s)
	}
	if len(s) != 4 || s[0] != '#' {
		return rgb{}, false
	}
	a, b, c := hexDigit[s[1]], hexDigit[s[2]], hexDigit[s[3]]
	return rgb{a * 17, b * 17, c * 17}, a|b|c <= 15
}

// hex formats c as lower-case "#rrggbb".
func (c rgb) hex() string {
	const digits = "0123456789abcdef"
	return string([]byte{'#', digits[c.r>>4], digits[c.r&15], digits[c.g>>4], digits[c.g&15], digits[c.b>>4], digits[c.b&15]})
}

var (
	black = rgb{0, 0, 0}
	white = rgb{255, 255, 255}
)

// Level is a WCAG conformance target. Its string is the context the
// threshold hook receives.
type Level string

// The levels and their default thresholds.
const (
	AA       Level = "aa"        // 4.5:1, normal text
	AALarge  Level = "aa-large"  // 3:1, large text
	AAA      Level = "aaa"       // 7:1, normal text
	AAALarge Level = "aaa-large" // 4.5:1, large text
	NonText  Level = "non-text"  // 3:1, user-interface components and graphics
)

// Threshold is the level's default minimum ratio; +Inf for a level it does
// not know, which no pair meets.
func (l Level) Threshold() float64 {
	switch l {
	case AA, AAALarge:
		return 4.5
	case AALarge, NonText:
		return 3
	case AAA:
		return 7
	}
	return math.Inf(1)
}

func invalidColor(s string) error { return fmt.Errorf("%w: %q", ErrInvalidColor, s) }
