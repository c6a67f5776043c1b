package a11y

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// The resolver's patterns: rgb() and hsl() take
// integers only, may carry spaces, and are found anywhere after the
// leading "rgb" or "hsl" (so trailing text is tolerated); rgba() and
// decimals do not match.
var (
	rgbPattern = regexp.MustCompile(`rgb\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)`)
	hslPattern = regexp.MustCompile(`hsl\(\s*(\d+)\s*,\s*(\d+)%\s*,\s*(\d+)%\s*\)`)
)

// resolved is a colour as the generator resolves it: its text (what the
// hooks are handed and the cache is keyed by) and its channels.
type resolved struct {
	text string
	rgb  rgb
}

// resolve reads a colour the text-colour generator is given: trim and lower-case,
// then "#rgb"/"#rrggbb" (kept as written, lower-cased), rgb(r, g, b),
// hsl(h, s%, l%), and finally a palette name. ok is false when nothing
// matches.
//
// Two inputs that have no colour are unresolved: rgb() components above
// 255, and hsl() saturation or lightness above 100%. A hue of 360 or
// more falls in no sector and gives the grey of the lightness alone.
func (s *Service) resolve(input string) (resolved, bool) {
	// The common case first: well-formed hex, no space around it.
	if len(input) > 0 && input[0] == '#' && input[len(input)-1] != '\n' {
		if c, ok := parseHex(input); ok {
			return resolved{lowerASCII(input), c}, true
		}
	}
	in := strings.ToLower(strings.TrimSpace(input))
	if strings.HasPrefix(in, "#") {
		if c, ok := parseHex(in); ok {
			return resolved{in, c}, true
		}
		return resolved{}, false
	}
	if strings.HasPrefix(in, "rgb") {
		m := rgbPattern.FindStringSubmatch(in)
		if m == nil {
			return resolved{}, false
		}
		var ch [3]uint8
		for i := range ch {
			v, err := strconv.Atoi(m[i+1])
			if err != nil || v > 255 {
				return resolved{}, false
			}
			ch[i] = uint8(v)
		}
		c := rgb{ch[0], ch[1], ch[2]}
		return resolved{c.hex(), c}, true
	}
	if strings.HasPrefix(in, "hsl") {
		m := hslPattern.FindStringSubmatch(in)
		if m == nil {
			return resolved{}, false
		}
		h, err1 := strconv.Atoi(m[1])
		sat, err2 := strconv.Atoi(m[2])
		light, err3 := strconv.Atoi(m[3])
		if err1 != nil || err2 != nil || err3 != nil || sat > 100 || light > 100 {
			return resolved{}, false
		}
		c := hslToRGB(float64(h), float64(sat)/100, float64(light)/100)
		return resolved{c.hex(), c}, true
	}
	if v, ok := s.paletteMap()[in]; ok {
		if c, ok := parseHex(v); ok {
			return resolved{v, c}, true
		}
	}
	return resolved{}, false
}

// lowerASCII lower-cases hex text, allocating only when it has upper case.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// hslToRGB is the textbook conversion, sector by sector,
// each channel rounded half away from zero. The float64 conversions keep
// products from fusing with the following addition.
func hslToRGB(h, s, l float64) rgb {
	c := float64(1-math.Abs(float64(2*l)-1)) * s
	x := c * (1 - math.Abs(math.Mod(h/60, 2)-1))
	m := l - c/2
	var r, g, b float64
	switch {
	case h < 60:
		r, g, b = c, x, 0
	case h < 120:
		r, g, b = x, c, 0
	case h < 180:
		r, g, b = 0, c, x
	case h < 240:
		r, g, b = 0, x, c
	case h < 300:
		r, g, b = x, 0, c
	case h < 360:
		r, g, b = c, 0, x
	}
	channel := func(v float64) uint8 { return uint8(math.Round(float64((v + m) * 255))) }
	return rgb{channel(r), channel(g), channel(b)}
}

// ResolveColor turns a colour into lower-case "#rrggbb". It accepts
// "#rgb" and "#rrggbb" in any case, rgb(r, g, b) and hsl(h, s%, l%) with
// integers, and palette names such as "blue-500" (Tailwind v3.4, plus any
// names added with OnContrastColorMap), ignoring surrounding space and
// case. ok is false for anything else.
func (s *Service) ResolveColor(input string) (hex string, ok bool) {
	r, ok := s.resolve(input)
	if !ok {
		return "", false
	}
	return r.rgb.hex(), true
}
