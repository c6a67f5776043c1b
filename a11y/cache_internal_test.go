package a11y

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCacheIsBoundedFIFO(t *testing.T) {
	t.Parallel()
	s, err := NewService(&Options{CacheSize: 3})
	require.NoError(t, err)
	for i := range 5 {
		s.GenerateAccessibleTextColor(fmt.Sprintf("#00000%d", i), true)
	}
	require.Equal(t, 3, s.cache.len())
	oldest, _ := newCacheKey(rgb{0, 0, 0}, true, AA)
	_, ok := s.cache.get(oldest)
	require.False(t, ok, "the oldest went first")
	newest, _ := newCacheKey(rgb{0, 0, 4}, true, AA)
	_, ok = s.cache.get(newest)
	require.True(t, ok)

	// Keys keep tint and level apart, and unknown levels are not cached.
	keys := map[cacheKey]bool{}
	for _, tint := range []bool{false, true} {
		for _, l := range cacheLevels {
			k, ok := newCacheKey(rgb{1, 2, 3}, tint, l)
			require.True(t, ok)
			keys[k] = true
		}
	}
	require.Len(t, keys, 1+len(cacheLevels), "all non-tint answers share one key")
	_, ok = newCacheKey(rgb{1, 2, 3}, true, "A")
	require.False(t, ok)

	off, err := NewService(&Options{CacheSize: -1})
	require.NoError(t, err)
	require.Equal(t, "#757575", off.GenerateAccessibleTextColor("#000", true))
	require.Zero(t, off.cache.len())
}

func TestLinearTable(t *testing.T) {
	t.Parallel()
	for i := range 256 {
		v := float64(i) / 255
		if i <= 10 {
			require.Equal(t, v/12.92, linear[i], "entry %d is the linear branch", i)
			continue
		}
		p := math.Pow((v+0.055)/1.055, 2.4)
		diff := linearBits[i] - math.Float64bits(p)
		if math.Float64bits(p) > linearBits[i] {
			diff = math.Float64bits(p) - linearBits[i]
		}
		require.LessOrEqual(t, diff, uint64(2), "entry %d is within 2 ulps of math.Pow", i)
	}
	require.Equal(t, 1.0, linear[255])
}
