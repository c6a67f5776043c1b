package reportingsql

import (
	"context"
	"database/sql"
	"math"
	"sync"

	"github.com/groundwork-go/groundwork/store"
)

// A settled day's reporting_views and reporting_visitor_events rows held
// in memory by column, so a report narrowed by any filters reads arrays
// instead of scanning the table (memory.go keeps them, segmem.go reads
// them).

// Dictionaries: the view columns in viewColumns' order, then the events'
// names and properties.
const (
	dictEvent = viewDimCount + iota
	dictProp
	dictCount
)

// column holds a day's values of one column (a value's id in the day's
// dictionary, or a count) in the narrowest width that fits them all.
type column struct {
	b []uint8
	h []uint16
	w []uint32
}

// runStarts is where each of n visitors' rows start (and, last, the
// rows' end), given each row's visitor ordinal, in order.
func runStarts(ords []int64, n int64) []int32 {
	starts := make([]int32, n+1)
	for _, o := range ords {
		starts[o+1]++
	}
	for v := range n {
		starts[v+1] += starts[v]
	}
	return starts
}

// packColumn is vs in the narrowest column.
func packColumn(vs []uint32) column {
	var top uint32
	for _, v := range vs {
		top = max(top, v)
	}
	switch {
	case top <= math.MaxUint8:
		c := column{b: make([]uint8, len(vs))}
		for i, v := range vs {
			c.b[i] = uint8(v)
		}
		return c
	case top <= math.MaxUint16:
		c := column{h: make([]uint16, len(vs))}
		for i, v := range vs {
			c.h[i] = uint16(v)
		}
		return c
	}
	return column{w: vs}
}

// decode writes the column's values into buf (grown as needed) and
// returns it.
func (c *column) decode(buf []uint32) []uint32 {
	n := len(c.b) + len(c.h) + len(c.w)
	if cap(buf) < n {
		buf = make([]uint32, n)
	}
	buf = buf[:n]
	switch {
	case c.b != nil:
		for i, v := range c.b {
			buf[i] = uint32(v)
		}
	case c.h != nil:
		for i, v := range c.h {
			buf[i] = uint32(v)
		}
	default:
		copy(buf, c.w)
	}
	return buf
}

// at is row i's value.
func (c *column) at(i int32) uint32 {
	if c.b != nil {
		return uint32(c.b[i])
	}
	if c.h != nil {
		return uint32(c.h[i])
	}
	return c.w[i]
}

// find appends to out the rows whose value is v, in order.
func (c *column) find(v uint32, out []int32) []int32 {
	switch {
	case c.b != nil:
		if v > math.MaxUint8 {
			return out
		}
		for i, x := range c.b {
			if x == uint8(v) {
				out = append(out, int32(i))
			}
		}
	case c.h != nil:
		if v > math.MaxUint16 {
			return out
		}
		for i, x := range c.h {
			if x == uint16(v) {
				out = append(out, int32(i))
			}
		}
	default:
		for i, x := range c.w {
			if x == v {
				out = append(out, int32(i))
			}
		}
	}
	return out
}

// bytes is the column's size.
func (c *column) bytes() int64 { return int64(len(c.b) + 2*len(c.h) + 4*len(c.w)) }

// daySeg is one day's rows by column. Rows are in visitor order: the
// day's visitors are numbered 0..n-1 (in the order of their numbers),
// visitor v's views are rows starts[v]..starts[v+1] and their events
// evStarts[v]..evStarts[v+1].
type daySeg struct {
	starts, evStarts []int32
	// dims are the views' values (ids in the day's dictionary of each
	// viewColumns column); views..exits their counts.
	dims                                      [viewDimCount]column
	views, sessions, bounces, duration, exits column
	// event and prop are the events' names and properties ('' for the
	// event itself), count their counts.
	event, prop, count column
	// global maps an id of the day's dictionary d to the id of the
	// memory's dictionary d.
	global [dictCount][]uint32
	size   int64
	gen    uint64
	// sets are the visitors who reached a goal or property filter, a bit
	// each (segmem.go's reached), up to maxSets of them.
	setsMu sync.Mutex
	sets   map[memSet][]uint64
}

func (d *daySeg) visitors() int { return len(d.starts) - 1 }

// segBuilder reads a day's rows into columns.
type segBuilder struct {
	ids     [dictCount]map[string]uint32
	strs    [dictCount][]string
	vals    [dictCount][]uint32
	counts  [5][]uint32 // views, sessions, bounces, duration, exits
	evCount []uint32
	visit   []int64 // each view row's visitor
	evVisit []int64 // each event row's visitor
	tooBig  bool
}

// id is s's id in the day's dictionary d.
func (b *segBuilder) id(d int, s []byte) uint32 {
	if id, ok := b.ids[d][string(s)]; ok {
		return id
	}
	return b.idString(d, string(s))
}

// idString is id for a string.
func (b *segBuilder) idString(d int, s string) uint32 {
	if b.ids[d] == nil {
		b.ids[d] = map[string]uint32{}
	}
	if id, ok := b.ids[d][s]; ok {
		return id
	}
	id := uint32(len(b.strs[d]))
	b.ids[d][s] = id
	b.strs[d] = append(b.strs[d], s)
	return id
}

// count is n as a column's value; a count that does not fit marks the
// day too big to keep.
func (b *segBuilder) count(n int64) uint32 {
	if n < 0 || n > math.MaxUint32 {
		b.tooBig = true
		return 0
	}
	return uint32(n)
}

// loadDay reads site's day's rows from db, nil when a count does not fit a
// column (the day is then read in SQL).
func loadDay(ctx context.Context, db *store.DB, site, day string) (*segBuilder, error) {
	b := &segBuilder{}
	err := scanDay(ctx, db, "site = ? AND day = ?", []any{site, day}, func(visitor int64, vals *[viewDimCount]sql.RawBytes, counts *[5]int64) {
		b.visit = append(b.visit, visitor)
		for i, v := range vals {
			b.vals[i] = append(b.vals[i], b.id(i, v))
		}
		for i, n := range counts {
			b.counts[i] = append(b.counts[i], b.count(n))
		}
	}, func(visitor int64, event, prop sql.RawBytes, n int64) {
		b.evVisit = append(b.evVisit, visitor)
		b.vals[dictEvent] = append(b.vals[dictEvent], b.id(dictEvent, event))
		b.vals[dictProp] = append(b.vals[dictProp], b.id(dictProp, prop))
		b.evCount = append(b.evCount, b.count(n))
	})
	if err != nil || b.tooBig {
		return nil, err
	}
	return b, nil
}

// scanDay calls view for each reporting_views row where holds (a
// condition on site, day and visitor), then event for each of its
// reporting_visitor_events rows, each in visitor order. The bytes are
// the driver's, valid until the call returns.
func scanDay(ctx context.Context, db *store.DB, where string, args []any, view func(visitor int64, vals *[viewDimCount]sql.RawBytes,
	counts *[5]int64), event func(visitor int64, event, prop sql.RawBytes, n int64)) error {
	rows, err := db.Reader().QueryContext(ctx, db.Rebind(`SELECT visitor, `+viewColumns+`, views, sessions, bounces, duration_seconds, exits
		FROM reporting_views WHERE `+where+` ORDER BY visitor`), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var visitor int64
	var vals [viewDimCount]sql.RawBytes
	var counts [5]int64
	dest := []any{&visitor}
	for i := range vals {
		dest = append(dest, &vals[i])
	}
	for i := range counts {
		dest = append(dest, &counts[i])
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		view(visitor, &vals, &counts)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	events, err := db.Reader().QueryContext(ctx, db.Rebind(`SELECT visitor, event, prop, count FROM reporting_visitor_events
		WHERE `+where+` ORDER BY visitor`), args...)
	if err != nil {
		return err
	}
	defer events.Close()
	var name, prop sql.RawBytes
	var n int64
	for events.Next() {
		if err := events.Scan(&visitor, &name, &prop, &n); err != nil {
			return err
		}
		event(visitor, name, prop, n)
	}
	return events.Err()
}

// build makes the day's columns, its dictionaries' ids made m's (called
// with m's lock held).
func (b *segBuilder) build(m *memory) *daySeg {
	d := &daySeg{gen: m.gen}
	views, events, n := b.ordinals()
	d.starts, d.evStarts = runStarts(views, n), runStarts(events, n)
	for k := range viewDimCount {
		d.dims[k] = packColumn(b.vals[k])
	}
	d.views, d.sessions, d.bounces = packColumn(b.counts[0]), packColumn(b.counts[1]), packColumn(b.counts[2])
	d.duration, d.exits = packColumn(b.counts[3]), packColumn(b.counts[4])
	d.event, d.prop, d.count = packColumn(b.vals[dictEvent]), packColumn(b.vals[dictProp]), packColumn(b.evCount)
	d.size = int64(4 * (len(d.starts) + len(d.evStarts)))
	for k := range dictCount {
		d.global[k] = make([]uint32, len(b.strs[k]))
		for id, s := range b.strs[k] {
			d.global[k][id] = m.intern(k, s)
		}
		d.size += int64(4 * len(d.global[k]))
	}
	for _, c := range append(d.dims[:], d.views, d.sessions, d.bounces, d.duration, d.exits, d.event, d.prop, d.count) {
		d.size += c.bytes()
	}
	return d
}
