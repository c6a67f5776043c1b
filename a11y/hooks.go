package a11y

import (
	"fmt"
	"maps"
	"runtime/debug"

	"github.com/groundwork-go/groundwork/internal/hooks"
)

// ThresholdHook rewrites the minimum ratio of a contrast check. It
// receives the threshold so far (the level's default, or what an earlier
// hook returned) and the level being checked.
type ThresholdHook func(threshold float64, level Level) float64

// ColorMapHook rewrites the palette of colour names. It receives a copy
// of the map so far (name -> hex) and returns the map to use: extend it or
// replace it. Names must be lower-case to be found, since input is
// lower-cased before lookup; values must be "#rgb" or "#rrggbb".
type ColorMapHook func(palette map[string]string) map[string]string

// TextColorHook rewrites a generated text colour. It receives the colour
// so far, the background as resolved (or as given, when it could not be
// resolved), and whether a tinted shade was asked for.
type TextColorHook func(color, background string, tinted bool) string

// registered are the hooks a host registers.
type registered struct {
	threshold hooks.List[ThresholdHook]
	colorMap  hooks.List[ColorMapHook]
	textColor hooks.List[TextColorHook]
}

// OnContrastThreshold registers a hook that runs inside every contrast
// check, just before the ratio is compared with the threshold (the PHP
// package's filter ap.accessibility.contrastThreshold). That includes
// each probe of the tinted text-colour search. Hooks run in registration order, each
// getting the previous one's result.
func (s *Service) OnContrastThreshold(h ThresholdHook) {
	s.hooks.threshold.Add(h)
	s.forget()
}

// OnContrastColorMap registers a hook that runs when the palette of colour
// names is loaded (the PHP package's filter
// ap.accessibility.contrastColorMap). The palette loads at first use, and again at first use after any
// registration.
func (s *Service) OnContrastColorMap(h ColorMapHook) {
	s.hooks.colorMap.Add(h)
	s.forget()
}

// OnTextColorGenerated registers a hook that runs on every answer of the
// text-colour functions, cached answers and unresolvable input included
// (the PHP package's ap.accessibility.textColorGenerated). GetContrastColor
// returns what the hooks return; CSSVarBlackOrWhite answers "black" only
// when they return "#000000".
func (s *Service) OnTextColorGenerated(h TextColorHook) {
	s.hooks.textColor.Add(h)
	s.forget()
}

// forget drops the palette and the cached text colours after a hook is
// registered: the hooks before it may have shaped them.
func (s *Service) forget() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.palette.Store(nil)
	s.cache.clear()
}

// call runs one hook, turning a panic into the fallback value and
// logging it: a broken hook costs its change, never the answer.
func call[T any](s *Service, name string, fallback T, fn func() T) (out T) {
	defer func() {
		if v := recover(); v != nil {
			out = fallback
			if s.logger != nil {
				s.logger.Error("a11y: hook panicked; its input is used instead", "hook", name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			}
		}
	}()
	return fn()
}

func (s *Service) threshold(level Level) float64 {
	t := level.Threshold()
	for _, h := range s.hooks.threshold.All() {
		t = call(s, "contrastThreshold", t, func() float64 { return h(t, level) })
	}
	return t
}

func (s *Service) textColor(color, background string, tinted bool) string {
	for _, h := range s.hooks.textColor.All() {
		color = call(s, "textColorGenerated", color, func() string { return h(color, background, tinted) })
	}
	return color
}

// paletteMap returns the palette, loading it through the colour-map hooks
// the first time.
func (s *Service) paletteMap() map[string]string {
	if p := s.palette.Load(); p != nil {
		return *p
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.palette.Load(); p != nil {
		return *p
	}
	m := tailwindPalette
	for _, h := range s.hooks.colorMap.All() {
		in := maps.Clone(m)
		if out := call(s, "contrastColorMap", nil, func() map[string]string { return h(in) }); out != nil {
			m = out
		}
	}
	if len(s.hooks.colorMap.All()) > 0 {
		m = maps.Clone(m) // the hooks' maps stay theirs
	}
	s.palette.Store(&m)
	return m
}
