package a11y_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/a11y"
)

type thresholdCall struct {
	threshold float64
	level     a11y.Level
}

func TestThresholdHook(t *testing.T) {
	t.Parallel()
	s := newService(t)
	var mu sync.Mutex
	var calls []thresholdCall
	s.OnContrastThreshold(func(th float64, l a11y.Level) float64 {
		mu.Lock()
		calls = append(calls, thresholdCall{th, l})
		mu.Unlock()
		return th
	})
	take := func() []thresholdCall {
		mu.Lock()
		defer mu.Unlock()
		out := calls
		calls = nil
		return out
	}

	for _, l := range []a11y.Level{a11y.AA, a11y.AALarge, a11y.AAA, a11y.AAALarge, a11y.NonText} {
		s.CheckContrast("#000", "#fff", l)
		require.Equal(t, []thresholdCall{{l.Threshold(), l}}, take())
	}
	s.CheckContrastColor("#777777", "#ffffff")
	require.Equal(t, []thresholdCall{{4.5, a11y.AA}}, take())
	s.CheckContrast("#000", "#fff", "A")
	got := take()
	require.Len(t, got, 1)
	require.Equal(t, a11y.Level("a"), got[0].level, "the context is the lower-cased level")

	// Not for invalid colours: the check ends before the comparison.
	s.CheckContrastColor("nope", "#fff")
	require.Empty(t, take())

	// Once per probe of the tinted search: at most 7 per direction.
	s.GenerateAccessibleTextColor("#777777", true)
	probes := take()
	require.NotEmpty(t, probes)
	require.LessOrEqual(t, len(probes), 14)
	for _, p := range probes {
		require.Equal(t, thresholdCall{4.5, a11y.AA}, p)
	}
	// A cached answer runs no probe; a black-or-white answer none either.
	s.GenerateAccessibleTextColor("#777777", true)
	s.GenerateAccessibleTextColor("#777777", false)
	require.Empty(t, take())

	// Once per audited pair.
	s.AuditPalette([]string{"#000", "#fff", "#777"})
	require.Len(t, take(), 6)
}

func TestThresholdHookChangesResults(t *testing.T) {
	t.Parallel()
	s := newService(t)
	require.False(t, s.CheckContrastColor("#777777", "#ffffff")) // 4.478
	require.Equal(t, "#040404", s.GenerateAccessibleTextColor("#777777", true))
	s.OnContrastThreshold(func(th float64, l a11y.Level) float64 {
		if l == a11y.AA {
			return 4.4
		}
		return th
	})
	s.OnContrastThreshold(func(th float64, _ a11y.Level) float64 { return th }) // chained after
	require.True(t, s.CheckContrastColor("#777777", "#ffffff"))
	require.False(t, s.CheckContrast("#777777", "#ffffff", a11y.AAA))
	// Registering cleared the cache: the search reruns with the new
	// threshold, and lightening now succeeds (#fefefe gives 4.44).
	require.Equal(t, "#fefefe", s.GenerateAccessibleTextColor("#777777", true))
	rows := s.AuditPalette([]string{"#777777", "#ffffff"})
	require.True(t, rows[0].IsAccessible)
}

func TestColorMapHook(t *testing.T) {
	t.Parallel()
	s := newService(t)
	var loads atomic.Int32
	s.OnContrastColorMap(func(m map[string]string) map[string]string {
		loads.Add(1)
		require.Len(t, m, 244)
		m["brand-primary"] = "#7C3AED"
		delete(m, "blue-500")
		return m
	})
	require.Zero(t, loads.Load(), "the map loads lazily")
	hex, ok := s.ResolveColor("Brand-Primary")
	require.True(t, ok)
	require.Equal(t, "#7c3aed", hex)
	_, ok = s.ResolveColor("blue-500")
	require.False(t, ok)
	for range 5 {
		s.ResolveColor("red-500")
		s.GenerateAccessibleTextColor("brand-primary", true)
	}
	require.EqualValues(t, 1, loads.Load(), "once, at first use")

	// The hook's map is a copy: other services still know blue-500.
	other := newService(t)
	_, ok = other.ResolveColor("blue-500")
	require.True(t, ok)

	// A later hook sees the earlier one's map; registering reloads.
	s.OnContrastColorMap(func(m map[string]string) map[string]string {
		require.Contains(t, m, "brand-primary")
		return map[string]string{"only": "#123456", "bad": "not a colour"}
	})
	_, ok = s.ResolveColor("red-500")
	require.False(t, ok, "the map was replaced")
	hex, ok = s.ResolveColor("only")
	require.True(t, ok)
	require.Equal(t, "#123456", hex)
	_, ok = s.ResolveColor("bad")
	require.False(t, ok, "values that are not hex resolve to nothing")
	require.EqualValues(t, 2, loads.Load())

	// A hook returning nil keeps the map it was given.
	keep := newService(t)
	keep.OnContrastColorMap(func(map[string]string) map[string]string { return nil })
	_, ok = keep.ResolveColor("blue-500")
	require.True(t, ok)
}

type textCall struct {
	color, background string
	tinted            bool
}

func TestTextColorHookFiresOnEveryPath(t *testing.T) {
	t.Parallel()
	s := newService(t)
	var mu sync.Mutex
	var calls []textCall
	s.OnTextColorGenerated(func(color, bg string, tinted bool) string {
		mu.Lock()
		calls = append(calls, textCall{color, bg, tinted})
		mu.Unlock()
		return color
	})
	take := func() []textCall {
		mu.Lock()
		defer mu.Unlock()
		out := calls
		calls = nil
		return out
	}

	s.GenerateAccessibleTextColor("  NotAColor ", true)
	require.Equal(t, []textCall{{"#000000", "  NotAColor ", true}}, take(), "unresolved: the raw input")
	s.GenerateAccessibleTextColor("#FFFFFF", false)
	require.Equal(t, []textCall{{"#000000", "#ffffff", false}}, take(), "black or white: the resolved hex")
	s.GenerateAccessibleTextColor("#FFFFFF", false)
	require.Equal(t, []textCall{{"#000000", "#ffffff", false}}, take(), "a cache hit fires too")
	s.GenerateAccessibleTextColor("blue-500", true)
	require.Equal(t, []textCall{{"#000074", "#3b82f6", true}}, take(), "a tint")
	s.GenerateAccessibleTextColor("blue-500", true)
	require.Equal(t, []textCall{{"#000074", "#3b82f6", true}}, take(), "a cached tint")
	s.GenerateAccessibleTextColor("#FFF", true)
	require.Equal(t, []textCall{{"#757575", "#fff", true}}, take(), "3-digit hex stays as written")
	s.GetContrastColor("#000")
	s.CSSVarBlackOrWhite("#000")
	require.Equal(t, []textCall{{"#FFFFFF", "#000", false}, {"#FFFFFF", "#000", false}}, take())
	s.GenerateAccessibleTextColorFor("#3b82f6", true, a11y.AAA)
	require.Equal(t, []textCall{{"#000000", "#3b82f6", true}}, take(), "the black-or-white fallback of a tint")
}

func TestTextColorHookChangesAnswers(t *testing.T) {
	t.Parallel()
	s := newService(t)
	s.OnTextColorGenerated(func(color, bg string, tinted bool) string {
		if bg == "#3b82f6" && !tinted {
			return "#111111"
		}
		return color
	})
	s.OnTextColorGenerated(func(color, _ string, _ bool) string { return strings.ToUpper(color) })
	require.Equal(t, "#111111", s.GetContrastColor("blue-500"))
	require.Equal(t, "white", s.CSSVarBlackOrWhite("blue-500"), `"black" only for exactly #000000`)
	require.Equal(t, "black", s.CSSVarBlackOrWhite("#ffffff"))
	require.Equal(t, "#000074", s.GenerateAccessibleTextColor("blue-500", true))
	require.Equal(t, "#757575", s.GenerateAccessibleTextColor("#fff", true))
}

func TestPanickingHooksFallBack(t *testing.T) {
	t.Parallel()
	s := newService(t)
	s.OnContrastThreshold(func(float64, a11y.Level) float64 { panic("threshold") })
	s.OnTextColorGenerated(func(string, string, bool) string { panic("text") })
	s.OnContrastColorMap(func(map[string]string) map[string]string { panic("map") })
	require.True(t, s.CheckContrastColor("#000", "#fff"))
	require.False(t, s.CheckContrastColor("#777777", "#fff"))
	require.Equal(t, "#000000", s.GetContrastColor("#fff"))
	hex, ok := s.ResolveColor("blue-500")
	require.True(t, ok)
	require.Equal(t, "#3b82f6", hex)
}

// Hooks on Default apply to the package functions. The hooks here react
// only to inputs no other test uses, so parallel tests are unaffected.
func TestDefaultHooksApplyToPackageFunctions(t *testing.T) {
	t.Parallel()
	a11y.Default().OnContrastThreshold(func(th float64, l a11y.Level) float64 {
		if l == "default-hook-probe" {
			return 1
		}
		return th
	})
	a11y.Default().OnTextColorGenerated(func(c, bg string, _ bool) string {
		if bg == "default-hook-probe" {
			return "#abcdef"
		}
		return c
	})
	a11y.Default().OnContrastColorMap(func(m map[string]string) map[string]string {
		m["default-hook-probe-name"] = "#010203"
		return m
	})
	require.True(t, a11y.CheckContrast("#777", "#777", "default-hook-probe"))
	require.Equal(t, "#abcdef", a11y.GetContrastColor("default-hook-probe"))
	require.Equal(t, "white", a11y.CSSVarBlackOrWhite("default-hook-probe"))
	require.Equal(t, "#abcdef", a11y.GenerateAccessibleTextColor("default-hook-probe", true))
	hex, ok := a11y.ResolveColor("default-hook-probe-name")
	require.True(t, ok)
	require.Equal(t, "#010203", hex)
	require.Same(t, a11y.Default(), a11y.Default())
}

// Hooks and the cache under concurrent use; run with -race.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	s, err := a11y.NewService(&a11y.Options{CacheSize: 16})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 300 {
				bg := fmt.Sprintf("#%02x%02x%02x", (w*37+i)%256, (i*7)%256, (w+i*13)%256)
				want := s.GenerateAccessibleTextColor(bg, true)
				if got := s.GenerateAccessibleTextColor(bg, true); got != want {
					t.Errorf("%s: %s then %s", bg, want, got)
				}
				s.GetContrastColor(bg)
				s.CheckContrastColor(bg, "#fff")
				s.ResolveColor("blue-500")
				s.AuditPalette([]string{bg, "#fff"})
			}
		})
	}
	for i := range 20 {
		wg.Go(func() {
			s.OnContrastThreshold(func(th float64, _ a11y.Level) float64 { return th })
			s.OnTextColorGenerated(func(c, _ string, _ bool) string { return c })
			s.OnContrastColorMap(func(m map[string]string) map[string]string {
				m[fmt.Sprintf("extra-%d", i)] = "#123456"
				return m
			})
		})
	}
	wg.Wait()
	for i := range 20 {
		_, ok := s.ResolveColor(fmt.Sprintf("extra-%d", i))
		require.True(t, ok)
	}
}
