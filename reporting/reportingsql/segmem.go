package reportingsql

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingstore"
)

// A narrowed report read from the days kept in memory (columns.go): the
// same rules as the SQL of segment.go, row by row.

// memFigures are one key's sums over the days read.
type memFigures struct {
	views, visitors, sessions, duration, bounces int64
	// label is the greatest label's id (in the label dictionary), -1 for
	// none yet; stamp the last visitor counted (+1).
	label int64
	stamp uint32
}

// memFilter is a filter on a view's value: its column and its value's id
// in the memory's dictionary (-1: no day has it).
type memFilter struct {
	col int
	id  int64
}

// memQuery is one Segment call read from kept days. Its fields are read
// with the memory's read lock held.
type memQuery struct {
	m   *memory
	dim reporting.Dimension
	// col is the view column dim groups by (the page for entries and
	// exits), -1 for none.
	col  int
	own  []memFilter
	sets []memSet // goals and properties the visitor must have reached
	// goals are those DimGoal counts.
	goals []reporting.Goal

	figs   []memFigures // by the id of col's value, or of the goal
	days   []reportingstore.DailyRow
	events map[[2]uint32]*memFigures
	stamp  uint32
	// globs caches a page pattern's match of each page (0 not known yet,
	// 1 yes, 2 no).
	globs map[string][]int8

	// Buffers reused from day to day.
	list []int32
	in   []bool
}

// memSet is a goal or property filter: an event (prop "" for the event
// itself), any event with a property (event ""), or a page pattern.
type memSet struct {
	event, prop, page string
	anyEvent          bool
}

// newMemQuery is the query of fs (narrowed as n) for dim, with the goals.
func newMemQuery(m *memory, fs reporting.Filters, dim reporting.Dimension, goals []reporting.Goal) *memQuery {
	q := &memQuery{m: m, dim: dim, col: -1, events: map[[2]uint32]*memFigures{}, globs: map[string][]int8{}}
	cols := columnOf
	switch dim {
	case reporting.DimEntry, reporting.DimExit:
		q.col = cols[reporting.DimPage]
	case reporting.DimGoal:
		q.goals = goals
		q.figs = make([]memFigures, len(goals))
	default:
		if c, ok := cols[dim]; ok {
			q.col = c
		}
	}
	if q.col >= 0 {
		q.figs = make([]memFigures, len(m.dicts[q.col].strs))
	}
	for i := range q.figs {
		q.figs[i].label = -1
	}
	for _, f := range fs.Sorted() {
		switch f.Dim {
		case reporting.DimGoal:
			id, _ := strconv.ParseInt(f.Value, 10, 64)
			for _, g := range goals {
				if g.ID == id {
					q.sets = append(q.sets, goalSet(g))
				}
			}
		case reporting.DimProp:
			name, value, _ := reporting.SplitPropFilter(f.Value)
			q.sets = append(q.sets, memSet{prop: name + propSep + value, anyEvent: true})
		default:
			c := cols[f.Dim]
			id, ok := m.dicts[c].ids[f.Value]
			mf := memFilter{col: c, id: -1}
			if ok {
				mf.id = int64(id)
			}
			q.own = append(q.own, mf)
		}
	}
	return q
}

// goalSet is the visitors who reached g.
func goalSet(g reporting.Goal) memSet {
	if g.Event == "" {
		return memSet{page: g.Page}
	}
	return memSet{event: g.Event, prop: goalProp(g)}
}

// columnOf is each view column's index (in viewColumns) by its dimension.
var columnOf = map[reporting.Dimension]int{reporting.DimPage: 0, reporting.DimSource: 2, reporting.DimDevice: 3, reporting.DimCountry: 4,
	reporting.DimBrowser: 5, reporting.DimOS: 6, reporting.DimMedium: 7, reporting.DimCampaign: 8, reporting.DimTerm: 9, reporting.DimContent: 10}

// local is the id in d's dictionary c of the memory's id, -1 for none.
func local(d *daySeg, c int, id int64) int64 {
	if id < 0 {
		return -1
	}
	for l, g := range d.global[c] {
		if int64(g) == id {
			return int64(l)
		}
	}
	return -1
}

// localString is the id in d's dictionary c of s, -1 for none.
func (q *memQuery) localString(d *daySeg, c int, s string) int64 {
	id, ok := q.m.dicts[c].ids[s]
	if !ok {
		return -1
	}
	return local(d, c, int64(id))
}

// pageMatches is, for each page of d, whether it matches pattern.
func (q *memQuery) pageMatches(d *daySeg, pattern string) []bool {
	cache := q.globs[pattern]
	if cache == nil {
		cache = make([]int8, len(q.m.dicts[0].strs))
		q.globs[pattern] = cache
	}
	out := make([]bool, len(d.global[0]))
	for l, g := range d.global[0] {
		if cache[g] == 0 {
			cache[g] = 2
			if reporting.Glob(pattern, q.m.dicts[0].strs[g]) {
				cache[g] = 1
			}
		}
		out[l] = cache[g] == 1
	}
	return out
}

// grow returns buf with n elements, false.
func grow(buf []bool, n int) []bool {
	if cap(buf) < n {
		return make([]bool, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}

// addDay reads one kept day, without the visitors hide marks (nil: none).
func (q *memQuery) addDay(day string, d *daySeg, hide []bool) {
	nv := d.visitors()
	ownRows := q.dim != reporting.DimEvent && q.dim != reporting.DimProp && q.dim != reporting.DimGoal
	// The rows whose own values the view filters keep, in order.
	filtered := len(q.own) > 0
	list := q.list[:0]
	for k, f := range q.own {
		l := local(d, f.col, f.id)
		if l < 0 {
			return // no view of the day has the value
		}
		if k == 0 {
			list = d.dims[f.col].find(uint32(l), list)
			continue
		}
		n := 0
		for _, i := range list {
			if int64(d.dims[f.col].at(i)) == l {
				list[n] = i
				n++
			}
		}
		list = list[:n]
	}
	q.list = list
	// The visitors kept: those who reached each goal and property (and,
	// for events and goals, had a view the view filters keep).
	var in []bool
	if len(q.sets) > 0 || (!ownRows && filtered) || hide != nil {
		in = grow(q.in, nv)
		q.in = in
		if !ownRows && filtered {
			v := 0
			for _, i := range list {
				for d.starts[v+1] <= i {
					v++
				}
				in[v] = true
			}
		} else {
			for v := range in {
				in[v] = true
			}
		}
		for v, hidden := range hide {
			in[v] = in[v] && !hidden
		}
		for _, s := range q.sets {
			bits := q.reached(d, s)
			for v := range in {
				in[v] = in[v] && bits[v>>6]&(1<<(v&63)) != 0
			}
		}
	}
	switch {
	case q.dim == reporting.DimGoal:
		q.addGoals(d, in)
	case !ownRows:
		q.addEvents(d, in)
	default:
		q.addViews(day, d, filtered, list, in)
	}
}

// maxSets is how many goal and property filters' visitors a day keeps.
const maxSets = 16

// reached is the day's visitors who reached s, a bit each: read once a
// day and filter, and kept with the day (reports ask for the same few
// goals again and again, and one report reads its days more than once).
func (q *memQuery) reached(d *daySeg, s memSet) []uint64 {
	d.setsMu.Lock()
	bits, ok := d.sets[s]
	d.setsMu.Unlock()
	if ok {
		return bits
	}
	m := q.setMatch(d, s)
	starts := d.starts
	if m.events {
		starts = d.evStarts
	}
	bits = make([]uint64, (d.visitors()+63)/64)
	for v := range d.visitors() {
		for i := starts[v]; i < starts[v+1]; i++ {
			if m.ok(d, i) {
				bits[v>>6] |= 1 << (v & 63)
				break
			}
		}
	}
	d.setsMu.Lock()
	if d.sets == nil {
		d.sets = map[memSet][]uint64{}
	}
	if len(d.sets) < maxSets {
		d.sets[s] = bits
	}
	d.setsMu.Unlock()
	return bits
}

// rowMatch tells whether a row meets a goal or property filter: a view's
// page (by the day's page id) or an event's name and property (event -2:
// any event; -1: none of the day's).
type rowMatch struct {
	events      bool
	pages       []bool
	event, prop int64
}

// setMatch is s on d's rows.
func (q *memQuery) setMatch(d *daySeg, s memSet) rowMatch {
	if s.page != "" {
		return rowMatch{pages: q.pageMatches(d, s.page)}
	}
	m := rowMatch{events: true, event: -2, prop: q.localString(d, dictProp, s.prop)}
	if !s.anyEvent {
		m.event = q.localString(d, dictEvent, s.event)
	}
	return m
}

// ok reports whether row i (an event's when m.events, else a view's)
// meets m.
func (m *rowMatch) ok(d *daySeg, i int32) bool {
	if !m.events {
		return m.pages[d.dims[0].at(i)]
	}
	return int64(d.prop.at(i)) == m.prop && (m.event == -2 || int64(d.event.at(i)) == m.event)
}

// count adds to f a visitor's row: its views etc., and the visitor the
// first time in this visitor's rows.
func (q *memQuery) count(f *memFigures, views, sessions, duration, bounces uint32, visitor bool) {
	f.views += int64(views)
	f.sessions += int64(sessions)
	f.duration += int64(duration)
	f.bounces += int64(bounces)
	if visitor && f.stamp != q.stamp {
		f.stamp = q.stamp
		f.visitors++
	}
}

// addViews sums the day's kept views (those of list when filtered, else
// all; of the visitors in in, unless nil) by q.col, or into the day's row.
func (q *memQuery) addViews(day string, d *daySeg, filtered bool, list []int32, in []bool) {
	var global, labelGlobal []uint32
	skipEmpty := int64(-1)
	if q.col >= 0 {
		global = d.global[q.col]
		labelGlobal = d.global[1]
		if viewDimColumns[q.dim] {
			skipEmpty = q.localString(d, q.col, "")
		}
	}
	var total memFigures
	n := int(d.starts[d.visitors()])
	if filtered {
		n = len(list)
	}
	v, next := -1, int32(0)
	for k := 0; k < n; k++ {
		i := int32(k)
		if filtered {
			i = list[k]
		}
		for i >= next {
			v++
			next = d.starts[v+1]
			q.stamp++
		}
		if in != nil && !in[v] {
			if !filtered {
				k = int(next) - 1 // past the visitor's other rows
			}
			continue
		}
		if q.col < 0 {
			q.count(&total, d.views.at(i), d.sessions.at(i), d.duration.at(i), d.bounces.at(i), true)
			continue
		}
		g := d.dims[q.col].at(i)
		if int64(g) == skipEmpty {
			continue
		}
		f := &q.figs[global[g]]
		switch q.dim {
		case reporting.DimEntry:
			s := d.sessions.at(i)
			q.count(f, s, s, d.duration.at(i), d.bounces.at(i), s > 0)
		case reporting.DimExit:
			f.views += int64(d.exits.at(i))
		default:
			q.count(f, d.views.at(i), d.sessions.at(i), d.duration.at(i), d.bounces.at(i), true)
		}
		if q.col == 0 {
			if l := int64(labelGlobal[d.dims[1].at(i)]); l != f.label && (f.label < 0 || q.m.dicts[1].strs[l] > q.m.dicts[1].strs[f.label]) {
				f.label = l
			}
		}
	}
	if q.col < 0 && total.views > 0 {
		q.days = append(q.days, reportingstore.DailyRow{Key: day, Views: total.views, Visitors: total.visitors,
			Sessions: total.sessions, Duration: total.duration, Bounces: total.bounces})
	}
}

// addEvents sums the kept visitors' events (DimEvent) or properties.
func (q *memQuery) addEvents(d *daySeg, in []bool) {
	none := q.localString(d, dictProp, "")
	for v := range d.visitors() {
		if in != nil && !in[v] {
			continue
		}
		q.stamp++
		for i := d.evStarts[v]; i < d.evStarts[v+1]; i++ {
			p := d.prop.at(i)
			if (int64(p) == none) != (q.dim == reporting.DimEvent) {
				continue
			}
			k := [2]uint32{d.global[dictEvent][d.event.at(i)], d.global[dictProp][p]}
			f := q.events[k]
			if f == nil {
				f = &memFigures{}
				q.events[k] = f
			}
			q.count(f, d.count.at(i), 0, 0, 0, true)
		}
	}
}

// addGoals sums each goal's conversions by the kept visitors.
func (q *memQuery) addGoals(d *daySeg, in []bool) {
	for gi, g := range q.goals {
		m := q.setMatch(d, goalSet(g))
		starts, n := d.starts, &d.views
		if m.events {
			starts, n = d.evStarts, &d.count
		}
		f := &q.figs[gi]
		for v := range d.visitors() {
			if in != nil && !in[v] {
				continue
			}
			q.stamp++
			for i := starts[v]; i < starts[v+1]; i++ {
				if m.ok(d, i) {
					q.count(f, n.at(i), 0, 0, 0, true)
				}
			}
		}
	}
}

// merge adds o's sums (of other days) to q's.
func (q *memQuery) merge(o *memQuery) {
	for i := range q.figs {
		f, x := &q.figs[i], &o.figs[i]
		f.views, f.visitors, f.sessions, f.duration, f.bounces = f.views+x.views, f.visitors+x.visitors, f.sessions+x.sessions,
			f.duration+x.duration, f.bounces+x.bounces
		if x.label >= 0 && (f.label < 0 || q.m.dicts[1].strs[x.label] > q.m.dicts[1].strs[f.label]) {
			f.label = x.label
		}
	}
	for k, x := range o.events {
		if f := q.events[k]; f != nil {
			f.views, f.visitors = f.views+x.views, f.visitors+x.visitors
		} else {
			q.events[k] = x
		}
	}
	q.days = append(q.days, o.days...)
}

// result is the rows read, in the order Segment answers them.
func (q *memQuery) result() []reportingstore.DailyRow {
	row := func(key string, f *memFigures) reportingstore.DailyRow {
		r := reportingstore.DailyRow{Key: key, Views: f.views, Visitors: f.visitors, Sessions: f.sessions, Duration: f.duration, Bounces: f.bounces}
		if f.label >= 0 {
			r.Label = q.m.dicts[1].strs[f.label]
		}
		return r
	}
	var out []reportingstore.DailyRow
	switch {
	case q.dim == reporting.DimGoal:
		for i, g := range q.goals {
			if q.figs[i].views > 0 {
				out = append(out, row(strconv.FormatInt(g.ID, 10), &q.figs[i]))
			}
		}
		return out
	case q.dim == reporting.DimEvent || q.dim == reporting.DimProp:
		for k, f := range q.events {
			key := q.m.dicts[dictEvent].strs[k[0]]
			if q.dim == reporting.DimProp {
				key += propSep + q.m.dicts[dictProp].strs[k[1]]
			}
			out = append(out, reportingstore.DailyRow{Key: key, Views: f.views, Visitors: f.visitors})
		}
	case q.col < 0:
		// A day read in two parts (a copy and its overlay) has two rows.
		slices.SortFunc(q.days, func(a, b reportingstore.DailyRow) int { return cmp.Compare(a.Key, b.Key) })
		for _, r := range q.days {
			if n := len(out); n > 0 && out[n-1].Key == r.Key {
				l := &out[n-1]
				l.Views, l.Visitors, l.Sessions, l.Duration, l.Bounces = l.Views+r.Views, l.Visitors+r.Visitors, l.Sessions+r.Sessions,
					l.Duration+r.Duration, l.Bounces+r.Bounces
				continue
			}
			out = append(out, r)
		}
		return out
	default:
		for id := range q.figs {
			f := &q.figs[id]
			keep := f.views > 0
			if q.dim == reporting.DimEntry {
				keep = f.sessions > 0
			}
			if keep {
				out = append(out, row(q.m.dicts[q.col].strs[id], f))
			}
		}
	}
	sortRows(out)
	return out
}

// sortRows orders rows by views, most first, then key.
func sortRows(rows []reportingstore.DailyRow) {
	slices.SortFunc(rows, func(a, b reportingstore.DailyRow) int {
		if c := cmp.Compare(b.Views, a.Views); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
}
