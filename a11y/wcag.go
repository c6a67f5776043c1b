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

// rgb is a colour as three 8-bit channels.
type rgb struct{ r, g, b uint8 }

// luminance is the WCAG relative luminance: three separately rounded
// products summed left to right. The float64 conversions stop the
// compiler from fusing a multiply and an add (it may on arm64), which
// would change the last bit.
func (c rgb) luminance() float64 {
	return float64(0.2126*linear[c.r]) + float64(0.7152*linear[c.g]) + float64(0.0722*linear[c.b])
}

// ratio is the WCAG contrast ratio of two colours, in either order.
func ratio(a, b rgb) float64 {
	la, lb := a.luminance(), b.luminance()
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

func hexVal(c byte) (uint8, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// parseHex reads "#rgb" or "#rrggbb" in any case, exactly as the
// original's validator does: no surrounding space, except that a single
// trailing newline is accepted (PHP's "$" matches before one).
func parseHex(s string) (rgb, bool) {
	if n := len(s); n > 0 && s[n-1] == '\n' {
		s = s[:n-1]
	}
	if len(s) != 4 && len(s) != 7 || s[0] != '#' {
		return rgb{}, false
	}
	var d [6]uint8
	for i := 1; i < len(s); i++ {
		v, ok := hexVal(s[i])
		if !ok {
			return rgb{}, false
		}
		d[i-1] = v
	}
	if len(s) == 4 {
		return rgb{d[0] * 17, d[1] * 17, d[2] * 17}, true
	}
	return rgb{d[0]<<4 | d[1], d[2]<<4 | d[3], d[4]<<4 | d[5]}, true
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
