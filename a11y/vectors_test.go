package a11y_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/a11y"
)

// jsonText is how an endpoint would print a ratio.
func jsonText(t *testing.T, f float64) string {
	t.Helper()
	b, err := json.Marshal(f)
	require.NoError(t, err)
	return string(b)
}

func newService(t *testing.T) *a11y.Service {
	t.Helper()
	s, err := a11y.NewService(nil)
	require.NoError(t, err)
	return s
}

func TestColourVectors(t *testing.T) {
	t.Parallel()
	s := newService(t)
	for _, v := range colourVectors {
		t.Run(v.input, func(t *testing.T) {
			hex, ok := s.ResolveColor(v.input)
			if v.resolved == "" {
				require.False(t, ok)
			} else {
				require.True(t, ok)
				want, ok := s.ResolveColor(v.resolved) // 3-digit resolutions widen
				require.True(t, ok)
				require.Equal(t, want, hex)
				r, err := s.ContrastRatio(hex, "#FFFFFF")
				require.NoError(t, err)
				require.Equal(t, v.vsWhite, jsonText(t, r))
				r, err = s.ContrastRatio(hex, "#000000")
				require.NoError(t, err)
				require.Equal(t, v.vsBlack, jsonText(t, r))
			}
			require.Equal(t, v.checkWhite, s.CheckContrastColor(v.input, "#FFFFFF"))
			require.Equal(t, v.checkBlack, s.CheckContrastColor(v.input, "#000000"))
			require.Equal(t, v.contrast, s.GetContrastColor(v.input))
			require.Equal(t, v.cssVar, s.CSSVarBlackOrWhite(v.input))
			require.Equal(t, v.genFalse, s.GenerateAccessibleTextColor(v.input, false))
			require.Equal(t, v.genTrue, s.GenerateAccessibleTextColor(v.input, true))
			// A second call answers from the cache, identically.
			require.Equal(t, v.genTrue, s.GenerateAccessibleTextColor(v.input, true))
			if v.genTrueRatio != "" {
				r, err := s.ContrastRatio(v.genTrue, hex)
				require.NoError(t, err)
				require.Equal(t, v.genTrueRatio, jsonText(t, r))
			}
		})
	}
}

func TestPairVectors(t *testing.T) {
	t.Parallel()
	s := newService(t)
	for _, v := range pairVectors {
		r, err := s.ContrastRatio(v.a, v.b)
		require.NoError(t, err)
		require.Equal(t, v.ratio, jsonText(t, r), "%s/%s", v.a, v.b)
		back, err := s.ContrastRatio(v.b, v.a)
		require.NoError(t, err)
		require.Equal(t, r, back, "symmetric")
		require.Equal(t, v.aa, s.CheckContrast(v.a, v.b, a11y.AA), "%s/%s aa", v.a, v.b)
		require.Equal(t, v.aaLarge, s.CheckContrast(v.a, v.b, a11y.AALarge), "aa-large")
		require.Equal(t, v.aaa, s.CheckContrast(v.a, v.b, a11y.AAA), "aaa")
		require.Equal(t, v.aaaLarge, s.CheckContrast(v.a, v.b, a11y.AAALarge), "aaa-large")
		require.Equal(t, v.nonText, s.CheckContrast(v.a, v.b, a11y.NonText), "non-text")
		require.Equal(t, v.check, s.CheckContrastColor(v.a, v.b))
	}
}

func TestCheckContrastColorEdgeCases(t *testing.T) {
	t.Parallel()
	s := newService(t)
	cases := []struct {
		a, b string
		want bool
	}{
		{"ffffff", "#000000", false},
		{"#FFFFFF", "000", false},
		{"blue-500", "#fff", false},
		{"#abcd", "#000", false},
		{" #ffffff", "#000000", false},
		{"#ffffff\n", "#000000", true}, // PHP's "$" matches before a final newline
		{"#ffffff\n\n", "#000000", false},
		{"#000", "#fff", true},
	}
	for _, c := range cases {
		require.Equal(t, c.want, s.CheckContrastColor(c.a, c.b), "%q %q", c.a, c.b)
	}
	require.False(t, s.CheckContrast("#000000", "#ffffff", "A"), "an unknown level never passes")
	require.True(t, s.CheckContrast("#000000", "#ffffff", "AAA"), "levels are read in lower case")
	_, err := s.ContrastRatio("blue-500", "#fff")
	require.ErrorIs(t, err, a11y.ErrInvalidColor)
	_, err = s.ContrastRatio("#fff", "nope")
	require.ErrorIs(t, err, a11y.ErrInvalidColor)
}

func TestTintAtOtherLevels(t *testing.T) {
	t.Parallel()
	s := newService(t)
	cases := []struct {
		bg    string
		level a11y.Level
		want  string
	}{
		{"#3b82f6", a11y.AAA, "#000000"},
		{"#3b82f6", a11y.AALarge, "#aef5ff"},
		{"#777777", a11y.AALarge, "#d5d5d5"},
		{"#777777", a11y.AAA, "#000000"},
		{"#808080", a11y.AAA, "#000000"},
		{"#ffffff", a11y.AAA, "#595959"},
		{"#000000", a11y.AAALarge, "#757575"},
		{"#767676", a11y.NonText, "#d2d2d2"},
		{"#3b82f6", "A", "#000000"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, s.GenerateAccessibleTextColorFor(c.bg, true, c.level), "%s %s", c.bg, c.level)
	}
}

func TestResolverVectors(t *testing.T) {
	t.Parallel()
	s := newService(t)
	cases := []struct {
		in, hex, tint string // hex "" means unresolved
	}{
		{"RGB(1,2,3)", "#010203", "#767778"},
		{"rgb( 1 , 2 , 3 )", "#010203", "#767778"},
		{"rgb(1,2,3) trailing", "#010203", "#767778"},
		{"rgba(1,2,3,0.5)", "", "#000000"},
		{"rgb(300,0,0)", "", "#000000"},
		{"hsl(360, 100%, 50%)", "#000000", ""},
		{"hsl(0,0%,50%)", "#808080", "#171717"},
		{"hsl(217, 91%, 60%)", "#3c83f6", "#000174"},
		{"hsl(210.5, 50%, 40%)", "", "#000000"},
		{"hsl(0, 150%, 50%)", "", "#000000"},
		{"#ABCDEF", "#abcdef", "#335577"},
		{"#abcdef ", "#abcdef", "#335577"},
		{"  #ABC", "#aabbcc", "#3a4b5c"},
		{"#abcdef0", "", "#000000"},
		{"blue500", "", ""},
		{"blue-550", "", ""},
		{"Blue 500", "", ""},
		{"indigo-950", "#1e1b4b", ""},
		{"neutral-950", "#0a0a0a", ""},
	}
	for _, c := range cases {
		hex, ok := s.ResolveColor(c.in)
		require.Equal(t, c.hex != "", ok, c.in)
		require.Equal(t, c.hex, hex, c.in)
		if c.tint != "" {
			require.Equal(t, c.tint, s.GenerateAccessibleTextColor(c.in, true), c.in)
		}
	}
}

func TestPaletteHas244Names(t *testing.T) {
	t.Parallel()
	s := newService(t)
	hues := []string{"slate", "gray", "zinc", "neutral", "stone", "red", "orange", "amber", "yellow", "lime", "green",
		"emerald", "teal", "cyan", "sky", "blue", "indigo", "violet", "purple", "fuchsia", "pink", "rose"}
	shades := []string{"50", "100", "200", "300", "400", "500", "600", "700", "800", "900", "950"}
	var seen int
	s.OnContrastColorMap(func(m map[string]string) map[string]string {
		seen = len(m)
		return m
	})
	for _, h := range hues {
		for _, sh := range shades {
			_, ok := s.ResolveColor(h + "-" + sh)
			require.True(t, ok, h+"-"+sh)
		}
	}
	require.Equal(t, 244, seen)
	for name, want := range map[string]string{"slate-900": "#0f172a", "gray-100": "#f3f4f6", "gray-500": "#6b7280",
		"red-500": "#ef4444", "red-600": "#dc2626", "red-700": "#b91c1c", "amber-400": "#fbbf24", "yellow-300": "#fde047",
		"emerald-500": "#10b981", "sky-50": "#f0f9ff", "blue-500": "#3b82f6", "blue-700": "#1d4ed8", "indigo-950": "#1e1b4b",
		"rose-950": "#4c0519", "emerald-950": "#022c22", "amber-950": "#451a03", "white": "#ffffff", "black": "#000000"} {
		got, _ := s.ResolveColor(name)
		require.Equal(t, want, got, name)
	}
	for _, no := range []string{"transparent", "current", "inherit", "lightBlue-500", "warmGray-500"} {
		_, ok := s.ResolveColor(no)
		require.False(t, ok, no)
	}
}

func TestAuditPaletteVectors(t *testing.T) {
	t.Parallel()
	s := newService(t)
	rows := s.AuditPalette([]string{"#000000", "#FFFFFF", "#767676", "#000000"})
	type row struct {
		fg, bg, ratio string
		ok            bool
	}
	var got []row
	for _, r := range rows {
		got = append(got, row{r.Foreground, r.Background, jsonText(t, r.Ratio), r.IsAccessible})
	}
	require.Equal(t, []row{
		{"#000000", "#FFFFFF", "21", true}, {"#000000", "#767676", "4.6232848849972035", true},
		{"#FFFFFF", "#000000", "21", true}, {"#FFFFFF", "#767676", "4.542224959605253", true}, {"#FFFFFF", "#000000", "21", true},
		{"#767676", "#000000", "4.6232848849972035", true}, {"#767676", "#FFFFFF", "4.542224959605253", true}, {"#767676", "#000000", "4.6232848849972035", true},
		{"#000000", "#FFFFFF", "21", true}, {"#000000", "#767676", "4.6232848849972035", true},
	}, got)

	rows = s.AuditPalette([]string{"#fff", "#FFF", "#3b82f6"})
	require.Len(t, rows, 6)
	require.Equal(t, a11y.PaletteAuditRow{Foreground: "#fff", Background: "#FFF", Ratio: 1}, rows[0])
	for _, r := range rows {
		require.False(t, r.IsAccessible)
	}
	require.Empty(t, s.AuditPalette([]string{"#fff"}))
	require.Empty(t, s.AuditPalette(nil))
	require.Len(t, s.AuditPalette([]string{"#fff", "blue-500", "#000"}), 2, "pairs with a non-hex colour are left out")
}

func TestLevelThresholds(t *testing.T) {
	t.Parallel()
	for l, want := range map[a11y.Level]float64{a11y.AA: 4.5, a11y.AALarge: 3, a11y.AAA: 7, a11y.AAALarge: 4.5, a11y.NonText: 3} {
		require.Equal(t, want, l.Threshold())
	}
	require.True(t, math.IsInf(a11y.Level("a").Threshold(), 1))
}
