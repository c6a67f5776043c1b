package a11y

import (
	"math"

	colorful "github.com/lucasb-eyer/go-colorful"
)

// lightnessStep is how far apart, in OkLch lightness, the candidate
// shades of a local alternative are.
const lightnessStep = 0.005

// localAlternatives proposes passing pairs that keep the original hues:
// the foreground made darker or lighter against the original background,
// and the background made darker or lighter under the original
// foreground, each the nearest shade that reaches required.
func localAlternatives(fg, bg rgb, required float64) []ContrastAlternative {
	var out []ContrastAlternative
	for _, dir := range []float64{-1, 1} {
		if c, ok := nearestPassing(fg, bg, dir, required); ok {
			out = append(out, newAlternative(c, bg, fg, bg))
		}
		if c, ok := nearestPassing(bg, fg, dir, required); ok {
			out = append(out, newAlternative(fg, c, fg, bg))
		}
	}
	return out
}

// nearestPassing walks moving's OkLch lightness in direction dir, keeping
// its hue (and as much of its chroma as the sRGB gamut allows), until it
// reaches required against fixed.
func nearestPassing(moving, fixed rgb, dir, required float64) (rgb, bool) {
	l, c, h := toColorful(moving).OkLch()
	for step := 1; ; step++ {
		target := l + dir*lightnessStep*float64(step)
		if target < 0 || target > 1 {
			target = math.Max(0, math.Min(1, target))
		}
		cand := fromColorful(inGamut(target, c, h))
		if ratio(cand, fixed) >= required {
			return cand, true
		}
		if target == 0 || target == 1 {
			return rgb{}, false
		}
	}
}

// inGamut is the OkLch colour at lightness l and hue h with the largest
// chroma up to c that sRGB can show.
func inGamut(l, c, h float64) colorful.Color {
	if col := colorful.OkLch(l, c, h); col.IsValid() {
		return col
	}
	lo, hi := 0.0, c
	for range 24 {
		mid := (lo + hi) / 2
		if colorful.OkLch(l, mid, h).IsValid() {
			lo = mid
		} else {
			hi = mid
		}
	}
	return colorful.OkLch(l, lo, h).Clamped()
}

func toColorful(c rgb) colorful.Color {
	return colorful.Color{R: float64(c.r) / 255, G: float64(c.g) / 255, B: float64(c.b) / 255}
}

func fromColorful(c colorful.Color) rgb {
	r, g, b := c.Clamped().RGB255()
	return rgb{r, g, b}
}

// delta is how far a pair moved from the original: the mean CIEDE2000
// distance of its two colours, which go-colorful already scales by 1/100,
// clamped to [0, 1] and rounded to 3 decimals.
func delta(fg, bg, origFg, origBg rgb) float64 {
	d := (toColorful(fg).DistanceCIEDE2000(toColorful(origFg)) + toColorful(bg).DistanceCIEDE2000(toColorful(origBg))) / 2
	return round(math.Max(0, math.Min(1, d)), 3)
}
