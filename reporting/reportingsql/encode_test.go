package reportingsql

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A day's columns come back from their bytes as they went in, with the
// visitors as ordinals, and build the same day.
func TestDayColumnsRoundTrip(t *testing.T) {
	b := &segBuilder{visit: []int64{-9, -9, 4, 70}, evVisit: []int64{-20, 4, 4}}
	for _, row := range [][]string{{"/", "Home", "Direct"}, {"/a", "A", "ref.example"}, {"/", "Home", ""}, {"/b", "", "Direct"}} {
		for i, v := range row {
			b.vals[i] = append(b.vals[i], b.id(i, []byte(v)))
		}
		for i := 3; i < viewDimCount; i++ {
			b.vals[i] = append(b.vals[i], b.id(i, nil))
		}
	}
	for _, e := range [][2]string{{"signup", ""}, {"signup", "plan\x1fpro"}, {"click", ""}} {
		b.vals[dictEvent] = append(b.vals[dictEvent], b.id(dictEvent, []byte(e[0])))
		b.vals[dictProp] = append(b.vals[dictProp], b.id(dictProp, []byte(e[1])))
	}
	b.counts = [5][]uint32{{1, 300, 2, 70000}, {1, 0, 1, 0}, {0, 0, 1, 0}, {12, 0, 0, 1 << 30}, {0, 1, 1, 1}}
	b.evCount = []uint32{1, 1, 5}

	got, err := decodeDay(b.encode())
	require.NoError(t, err)
	require.Equal(t, []int64{1, 1, 2, 3}, got.visit)
	require.Equal(t, []int64{0, 2, 2}, got.evVisit)
	require.Equal(t, b.strs, got.strs)
	require.Equal(t, b.vals, got.vals)
	require.Equal(t, b.counts, got.counts)
	require.Equal(t, b.evCount, got.evCount)
	m := newMemory(1 << 20)
	want, day := b.build(m), got.build(m)
	require.Equal(t, want.starts, day.starts)
	require.Equal(t, want.evStarts, day.evStarts)
	require.Equal(t, want.global, day.global)
	require.Equal(t, want.duration, day.duration)

	_, err = decodeDay([]byte{9})
	require.ErrorIs(t, err, errColumns)
}

// Bytes not made by encode are refused, never a panic.
func FuzzDecodeDay(f *testing.F) {
	b := &segBuilder{visit: []int64{1}, evVisit: []int64{1}}
	for i := range viewDimCount {
		b.vals[i] = []uint32{b.id(i, []byte("x"))}
	}
	b.vals[dictEvent], b.vals[dictProp] = []uint32{b.id(dictEvent, []byte("e"))}, []uint32{b.id(dictProp, nil)}
	b.counts = [5][]uint32{{1}, {1}, {1}, {0}, {1}}
	b.evCount = []uint32{1}
	f.Add(b.encode())
	f.Add([]byte{columnsFormat, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeDay(data)
		if err != nil {
			return
		}
		got.build(newMemory(1 << 20)) // what decodes builds a day
		again, err := decodeDay(got.encode())
		require.NoError(t, err)
		// The visitors come back as their ordinals; the rest as it was.
		views, events, _ := got.ordinals()
		require.Equal(t, views, again.visit)
		require.Equal(t, events, again.evVisit)
		again.visit, again.evVisit = got.visit, got.evVisit
		require.Equal(t, got, again, "what decodes encodes and decodes the same")
	})
}
