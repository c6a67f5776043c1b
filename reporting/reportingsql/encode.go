package reportingsql

import (
	"encoding/binary"
	"errors"
)

// A day read from its rows is kept in reporting_day_columns as bytes, so
// the next reader starting cold reads one row: a format byte; each list
// of visitor ordinals (the views', then the events'), as differences;
// each dictionary, its strings; then each column of values and counts,
// packed as in memory (a width byte, then the values little-endian).

const columnsFormat = 1

var errColumns = errors.New("reportingsql: day columns: not of this format")

// encode is b as bytes.
func (b *segBuilder) encode() []byte {
	views, events, _ := b.ordinals()
	out := []byte{columnsFormat}
	for _, list := range [][]int64{views, events} {
		out = binary.AppendUvarint(out, uint64(len(list)))
		prev := int64(0)
		for _, v := range list {
			out = binary.AppendUvarint(out, uint64(v-prev))
			prev = v
		}
	}
	for _, strs := range b.strs {
		out = binary.AppendUvarint(out, uint64(len(strs)))
		for _, s := range strs {
			out = binary.AppendUvarint(out, uint64(len(s)))
			out = append(out, s...)
		}
	}
	for _, vs := range b.lists() {
		c := packColumn(vs)
		out = binary.AppendUvarint(out, uint64(len(vs)))
		switch {
		case c.b != nil:
			out = append(append(out, 1), c.b...)
		case c.h != nil:
			out = append(out, 2)
			for _, v := range c.h {
				out = binary.LittleEndian.AppendUint16(out, v)
			}
		default:
			out = append(out, 4)
			for _, v := range c.w {
				out = binary.LittleEndian.AppendUint32(out, v)
			}
		}
	}
	return out
}

// lists are b's columns in the order they are kept.
func (b *segBuilder) lists() [][]uint32 {
	out := make([][]uint32, 0, dictCount+len(b.counts)+1)
	for i := range b.vals {
		out = append(out, b.vals[i])
	}
	for i := range b.counts {
		out = append(out, b.counts[i])
	}
	return append(out, b.evCount)
}

// ordinals are the views' and events' visitors as their places in the
// day's n visitors (in the order of their numbers), which is all build
// needs of them.
func (b *segBuilder) ordinals() (views, events []int64, n int64) {
	views, events = make([]int64, len(b.visit)), make([]int64, len(b.evVisit))
	i, j := 0, 0
	for i < len(b.visit) || j < len(b.evVisit) {
		cur := int64(0)
		if j >= len(b.evVisit) || (i < len(b.visit) && b.visit[i] <= b.evVisit[j]) {
			cur = b.visit[i]
		} else {
			cur = b.evVisit[j]
		}
		for ; i < len(b.visit) && b.visit[i] == cur; i++ {
			views[i] = n
		}
		for ; j < len(b.evVisit) && b.evVisit[j] == cur; j++ {
			events[j] = n
		}
		n++
	}
	return views, events, n
}

// decodeDay is the builder encode was given (its visitors as ordinals).
func decodeDay(data []byte) (*segBuilder, error) {
	r := reader{data: data}
	if r.byte() != columnsFormat {
		return nil, errColumns
	}
	b := &segBuilder{}
	for _, list := range []*[]int64{&b.visit, &b.evVisit} {
		n := r.count()
		*list = make([]int64, 0, n)
		prev := int64(0)
		for range n {
			prev += int64(r.uvarint())
			*list = append(*list, prev)
		}
	}
	for d := range b.strs {
		n := r.count()
		b.strs[d] = make([]string, 0, n)
		for range n {
			b.strs[d] = append(b.strs[d], string(r.bytes(r.count())))
		}
	}
	for _, dst := range b.targets() {
		n := r.count()
		vs := make([]uint32, n)
		switch r.byte() {
		case 1:
			for i, x := range r.bytes(n) {
				vs[i] = uint32(x)
			}
		case 2:
			raw := r.bytes(2 * n)
			for i := range len(raw) / 2 {
				vs[i] = uint32(binary.LittleEndian.Uint16(raw[2*i:]))
			}
		case 4:
			raw := r.bytes(4 * n)
			for i := range len(raw) / 4 {
				vs[i] = binary.LittleEndian.Uint32(raw[4*i:])
			}
		default:
			r.bad = true
		}
		*dst = vs
	}
	if r.bad || !b.consistent() {
		return nil, errColumns
	}
	return b, nil
}

// consistent reports whether every column has a value a row and every
// id is in its dictionary.
func (b *segBuilder) consistent() bool {
	for i, vs := range b.vals {
		rows := len(b.visit)
		if i >= viewDimCount {
			rows = len(b.evVisit)
		}
		if len(vs) != rows {
			return false
		}
		for _, v := range vs {
			if int(v) >= len(b.strs[i]) {
				return false
			}
		}
	}
	for _, c := range b.counts {
		if len(c) != len(b.visit) {
			return false
		}
	}
	return len(b.evCount) == len(b.evVisit)
}

// targets are where decodeDay puts the columns, in lists' order.
func (b *segBuilder) targets() []*[]uint32 {
	out := make([]*[]uint32, 0, dictCount+len(b.counts)+1)
	for i := range b.vals {
		out = append(out, &b.vals[i])
	}
	for i := range b.counts {
		out = append(out, &b.counts[i])
	}
	return append(out, &b.evCount)
}

// reader reads encode's bytes; bad once anything is out of place.
type reader struct {
	data []byte
	bad  bool
}

func (r *reader) byte() byte {
	if len(r.data) == 0 {
		r.bad = true
		return 0
	}
	c := r.data[0]
	r.data = r.data[1:]
	return c
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.data)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.data = r.data[n:]
	return v
}

// count is a length, no more than the bytes left (each element takes at
// least one).
func (r *reader) count() int {
	v := r.uvarint()
	if v > uint64(len(r.data)) {
		r.bad = true
		return 0
	}
	return int(v)
}

func (r *reader) bytes(n int) []byte {
	if n > len(r.data) {
		r.bad = true
		return nil
	}
	b := r.data[:n]
	r.data = r.data[n:]
	return b
}
