package a11y

import (
	"log/slog"
	"math"
	"strings"
	"sync"
	"sync/atomic"
)

// CacheSizeDefault is how many generated text colours a Service keeps.
const CacheSizeDefault = 1000

// Options configures [NewService]. Nil means the defaults.
type Options struct {
	// CacheSize bounds the cache of generated text colours, which drops
	// its oldest entry when full. Zero means CacheSizeDefault; negative
	// turns the cache off.
	CacheSize int
	// Logger receives hooks that panic; nil discards.
	Logger *slog.Logger
}

// Service holds the colour functions with their hooks and cache. The
// package-level functions use [Default]; a host that wants hooks of its
// own, isolated from the rest of the program, makes its own Service. Safe
// for concurrent use.
type Service struct {
	mu      sync.Mutex // serialises hook registration and palette loading
	hooks   registered
	palette atomic.Pointer[map[string]string]
	cache   *textCache
	logger  *slog.Logger
}

// NewService returns a Service with no hooks.
func NewService(opts *Options) (*Service, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	size := o.CacheSize
	if size == 0 {
		size = CacheSizeDefault
	}
	s := &Service{cache: newTextCache(size), logger: o.Logger}
	return s, nil
}

var defaultService = func() *Service {
	s, err := NewService(nil)
	if err != nil {
		panic(err)
	}
	return s
}()

// Default is the Service behind the package-level functions; hooks
// registered on it apply to them.
func Default() *Service { return defaultService }

// ContrastRatio is the WCAG 2.x contrast ratio of two "#rgb" or "#rrggbb"
// colours (any case), between 1 and 21, in either order. It is never
// rounded, and is bit-for-bit the PHP package's (its linear channel
// values are glibc's pow). Other input is an error
// wrapping ErrInvalidColor; resolve names and rgb()/hsl() first with
// ResolveColor.
func (s *Service) ContrastRatio(fg, bg string) (float64, error) {
	a, ok := parseHex(fg)
	if !ok {
		return 0, invalidColor(fg)
	}
	b, ok := parseHex(bg)
	if !ok {
		return 0, invalidColor(bg)
	}
	return ratio(a, b), nil
}

// CheckContrast reports whether fg on bg meets level: a ratio at least
// the level's threshold, after the threshold hooks. Colours are "#rgb" or
// "#rrggbb"; anything else, or an unknown level, is false.
func (s *Service) CheckContrast(fg, bg string, level Level) bool {
	a, ok := parseHex(fg)
	if !ok {
		return false
	}
	b, ok := parseHex(bg)
	if !ok {
		return false
	}
	return s.meets(a, b, level)
}

// meets is the contrast check on parsed colours: the level is read in
// lower case, and the threshold hooks run before the comparison.
func (s *Service) meets(a, b rgb, level Level) bool {
	if level != AA && level != AALarge && level != AAA && level != AAALarge && level != NonText {
		level = Level(strings.ToLower(string(level)))
	}
	return ratio(a, b) >= s.threshold(level)
}

// CheckContrastColor reports whether fg and bg reach 4.5:1 (level AA).
func (s *Service) CheckContrastColor(fg, bg string) bool { return s.CheckContrast(fg, bg, AA) }

// GetContrastColor answers "#000000" or "#FFFFFF" for text on bg, whichever
// contrasts more (white on a tie), after the text-colour hooks. bg may be
// anything ResolveColor takes; an unresolvable bg answers "#000000".
func (s *Service) GetContrastColor(bg string) string {
	return s.GenerateAccessibleTextColor(bg, false)
}

// CSSVarBlackOrWhite answers "black" or "white" for text on bg, as a CSS
// keyword: "black" exactly when GetContrastColor gives "#000000".
func (s *Service) CSSVarBlackOrWhite(bg string) string {
	if s.GetContrastColor(bg) == "#000000" {
		return "black"
	}
	return "white"
}

// GenerateAccessibleTextColor answers a text colour for bg at level AA.
// Without tint it is "#000000" or "#FFFFFF" as GetContrastColor. With tint
// it is the closest shade of bg itself that reaches 4.5:1, as lower-case
// "#rrggbb": the smallest uniform shift of the three channels, lighter
// first on a dark bg and darker first on a light one, then the other way,
// then black or white if neither reaches. An unresolvable bg answers
// "#000000". Every answer, cached ones included, goes through the
// text-colour hooks.
func (s *Service) GenerateAccessibleTextColor(bg string, tint bool) string {
	return s.GenerateAccessibleTextColorFor(bg, tint, AA)
}

// GenerateAccessibleTextColorFor is GenerateAccessibleTextColor for another
// level, e.g. AAA or AALarge.
func (s *Service) GenerateAccessibleTextColorFor(bg string, tint bool, level Level) string {
	r, ok := s.resolve(bg)
	if !ok {
		return s.textColor("#000000", bg, tint)
	}
	key, cacheable := newCacheKey(r.rgb, tint, level)
	if cacheable {
		if c, ok := s.cache.get(key); ok {
			return s.textColor(c, r.text, tint)
		}
	}
	var c string
	if tint {
		c = s.shade(r.rgb, level)
	} else {
		c = blackOrWhite(r.rgb)
	}
	if cacheable {
		s.cache.put(key, c)
	}
	return s.textColor(c, r.text, tint)
}

// blackOrWhite is black only when black's ratio is strictly higher.
func blackOrWhite(bg rgb) string {
	if ratio(bg, black) > ratio(bg, white) {
		return "#000000"
	}
	return "#FFFFFF"
}

// shade searches for the closest accessible shade of bg.
func (s *Service) shade(bg rgb, level Level) string {
	// The direction comes from a luminance without gamma: dark colours
	// are lightened first.
	quick := (0.2126*float64(bg.r) + 0.7152*float64(bg.g) + 0.0722*float64(bg.b)) / 255
	first, second := -1, 1
	if quick < 0.5 {
		first, second = 1, -1
	}
	for _, dir := range []int{first, second} {
		if c, ok := s.search(bg, dir, level); ok {
			return c.hex()
		}
	}
	return blackOrWhite(bg)
}

// search finds, by binary search, the smallest whole percentage p in
// [0, 100] for which shifting every channel of bg by dir * 2.55p reaches
// level. Each probe is a full contrast check, hooks included.
func (s *Service) search(bg rgb, dir int, level Level) (rgb, bool) {
	lo, hi := 0, 100
	var found rgb
	ok := false
	for lo <= hi {
		mid := (lo + hi) / 2
		c := shift(bg, dir, mid)
		if s.meets(bg, c, level) {
			found, ok = c, true
			hi = mid - 1
		} else {
			lo = mid + 1
		}
	}
	return found, ok
}

// shift moves each channel by dir * 255 * p/100, clamped to [0, 255] and
// rounded half away from zero.
func shift(c rgb, dir, p int) rgb {
	amount := float64(dir) * 255 * (float64(p) / 100)
	ch := func(v uint8) uint8 {
		return uint8(math.Round(math.Min(255, math.Max(0, float64(v)+amount))))
	}
	return rgb{ch(c.r), ch(c.g), ch(c.b)}
}

// PaletteAuditRow is one ordered pair of an audited palette.
type PaletteAuditRow struct {
	Foreground   string  `json:"foreground"`
	Background   string  `json:"background"`
	Ratio        float64 `json:"ratio"`
	IsAccessible bool    `json:"is_accessible"`
}

// AuditPalette checks every ordered pair of colours, foreground over the
// list in order and background over it in order, skipping a pair whose two
// strings are identical. Strings are echoed as given. A pair with a colour
// that is not "#rgb" or "#rrggbb" is left out. IsAccessible is level AA,
// after the threshold hooks.
func (s *Service) AuditPalette(colors []string) []PaletteAuditRow {
	parsed := make([]rgb, len(colors))
	valid := make([]bool, len(colors))
	for i, c := range colors {
		parsed[i], valid[i] = parseHex(c)
	}
	rows := []PaletteAuditRow{}
	for i, fg := range colors {
		for j, bg := range colors {
			if fg == bg || !valid[i] || !valid[j] {
				continue
			}
			rows = append(rows, PaletteAuditRow{Foreground: fg, Background: bg,
				Ratio: ratio(parsed[i], parsed[j]), IsAccessible: s.meets(parsed[i], parsed[j], AA)})
		}
	}
	return rows
}

// cacheKey names a generated colour: the background's channels in the
// low 24 bits, then the tint flag, then for tints the level's index. The
// answer depends on nothing else (hooks clear the cache), so "#fff" and
// "white" share an entry.
type cacheKey uint64

// cacheLevels are the levels with a cache index; a tint at any other level
// is not cached.
var cacheLevels = [...]Level{AA, AALarge, AAA, AAALarge, NonText}

func newCacheKey(c rgb, tint bool, level Level) (cacheKey, bool) {
	k := cacheKey(c.r)<<16 | cacheKey(c.g)<<8 | cacheKey(c.b)
	if !tint {
		return k, true
	}
	for i, l := range cacheLevels {
		if l == level {
			return k | 1<<24 | cacheKey(i)<<25, true
		}
	}
	return 0, false
}

// textCache is a bounded map that drops its oldest entry when full. A nil *textCache caches nothing.
type textCache struct {
	mu    sync.RWMutex
	items map[cacheKey]string
	order []cacheKey // ring of keys in insertion order
	next  int
	limit int
}

func newTextCache(limit int) *textCache {
	if limit < 0 {
		return nil
	}
	return &textCache{items: make(map[cacheKey]string, limit), order: make([]cacheKey, 0, limit), limit: limit}
}

func (c *textCache) get(k cacheKey) (string, bool) {
	if c == nil {
		return "", false
	}
	c.mu.RLock()
	v, ok := c.items[k]
	c.mu.RUnlock()
	return v, ok
}

func (c *textCache) put(k cacheKey, v string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[k]; ok {
		c.items[k] = v
		return
	}
	if len(c.order) < c.limit {
		c.order = append(c.order, k)
	} else {
		delete(c.items, c.order[c.next])
		c.order[c.next] = k
		c.next = (c.next + 1) % c.limit
	}
	c.items[k] = v
}

func (c *textCache) len() int {
	if c == nil {
		return 0
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.items)
}

func (c *textCache) clear() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.items)
	c.order = c.order[:0]
	c.next = 0
}
