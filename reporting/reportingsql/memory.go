package reportingsql

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/singleflight"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingstore"
	"github.com/groundwork-go/groundwork/store"
)

// init makes the memory the Store's fields ask for, once.
func (s *Store) init() {
	s.once.Do(func() {
		switch {
		case s.SegmentMemory == 0:
			s.mem = newMemory(256 << 20)
		case s.SegmentMemory > 0:
			s.mem = newMemory(s.SegmentMemory)
		}
	})
}

// now is the Store's clock.
func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// memory keeps settled days' rows by column, each for the version of the
// day it was read at, the least recently read evicted first.
type memory struct {
	limit int64
	load  singleflight.Group

	mu    sync.RWMutex
	days  map[string]*memDay
	used  int64
	clock uint64
	// dicts are the dictionaries every day's ids map into, so a report
	// sums days in arrays; their strings count against limit, and they
	// are emptied with the days when they outgrow half of it.
	dicts     [dictCount]dict
	dictBytes int64
	// gen counts the times the dictionaries were emptied; a day's ids
	// are of the generation it was read in.
	gen uint64
}

// memDay is a kept day's columns, or a period's rollup rows (roll).
type memDay struct {
	version int64
	seg     *daySeg // nil: a count too large for a column; read in SQL
	roll    *rollSeg
	// live is the exact copy of a day still being written, of liveSize
	// bytes.
	live     *liveDay
	liveSize int64
	used     uint64
}

// size is the bytes the entry keeps.
func (k *memDay) size() int64 {
	switch {
	case k.seg != nil:
		return k.seg.size
	case k.roll != nil:
		return k.roll.size
	}
	return k.liveSize
}

type dict struct {
	ids  map[string]uint32
	strs []string
}

func newMemory(limit int64) *memory {
	m := &memory{limit: limit, days: map[string]*memDay{}}
	m.reset()
	return m
}

// reset empties the days and dictionaries (with mu held).
func (m *memory) reset() {
	clear(m.days)
	m.used, m.dictBytes = 0, 0
	m.gen++
	for i := range m.dicts {
		m.dicts[i] = dict{ids: map[string]uint32{}}
	}
}

// intern is s's id in dictionary d (with mu held).
func (m *memory) intern(d int, s string) uint32 {
	if id, ok := m.dicts[d].ids[s]; ok {
		return id
	}
	id := uint32(len(m.dicts[d].strs))
	m.dicts[d].ids[s] = id
	m.dicts[d].strs = append(m.dicts[d].strs, s)
	m.dictBytes += int64(len(s)) + 40
	return id
}

// dayVersion is a day's version and whether it has settled.
type dayVersion struct {
	version int64
	settled bool
}

// versions are the versions of the days from..to, each settled when its
// last write is at least settled before now. A day without a row is
// version 0 and settled.
func (s *Store) versions(ctx context.Context, days []string) (map[string]dayVersion, error) {
	var rows []struct {
		Day       string     `db:"day"`
		Version   int64      `db:"version"`
		ChangedAt store.Time `db:"changed_at"`
	}
	if err := s.db.Reader().SelectContext(ctx, &rows, s.db.Rebind(`SELECT day, version, changed_at FROM reporting_days
		WHERE site = ? AND day >= ? AND day <= ?`), siteOf(ctx), days[0], days[len(days)-1]); err != nil {
		return nil, err
	}
	out := make(map[string]dayVersion, len(days))
	for _, d := range days {
		out[d] = dayVersion{settled: true}
	}
	settle := s.Settled
	if settle <= 0 {
		settle = time.Minute
	}
	edge := s.now().Add(-settle)
	for _, r := range rows {
		out[r.Day] = dayVersion{version: r.Version, settled: !r.ChangedAt.After(edge)}
	}
	return out, nil
}

// segments are the kept columns of each of days at its version, read from
// the database where not kept; nil for a day too large for columns.
func (s *Store) segments(ctx context.Context, days []string, vs map[string]dayVersion) ([]*daySeg, error) {
	m, site := s.mem, siteOf(ctx)
	out := make([]*daySeg, len(days))
	var missing []int
	m.mu.Lock()
	m.clock++
	for i, d := range days {
		if k := m.days[exactName(site, d)]; k != nil { // settled since: the copy has had its day
			m.used -= k.size()
			delete(m.days, exactName(site, d))
		}
		if k := m.days[dayName(site, d)]; k != nil && k.version == vs[d].version {
			k.used = m.clock
			out[i] = k.seg
			continue
		}
		missing = append(missing, i)
	}
	m.mu.Unlock()
	// Read the days not kept, two at a time (a load is a scan of one
	// day's rows by the primary key, most of its time in the driver).
	var g errgroup.Group
	g.SetLimit(2)
	for _, i := range missing {
		g.Go(func() (err error) {
			out[i], err = s.loadSeg(ctx, days[i], vs[days[i]].version)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// loadSeg reads day's rows (of ctx's site) at version and keeps them,
// once however many ask at a time. The version is read again after the rows: a write
// between would have raised it, and then the rows are used for this
// report but not kept.
func (s *Store) loadSeg(ctx context.Context, day string, version int64) (*daySeg, error) {
	m, site := s.mem, siteOf(ctx)
	v, err, _ := m.load.Do(fmt.Sprint(dayName(site, day), "@", version), func() (any, error) {
		b, stored, err := s.readDay(ctx, day, version)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", day, err)
		}
		var now int64
		if err := s.db.Reader().GetContext(ctx, &now, s.db.Rebind(`SELECT COALESCE(MAX(version), 0) FROM reporting_days WHERE site = ? AND day = ?`),
			site, day); err != nil {
			return nil, err
		}
		if b != nil && !stored && now == version {
			// The next reader starting cold reads it in one row (a stored
			// copy of this version that did not decode is replaced).
			if _, err := s.db.ExecContext(ctx, s.db.Rebind(`INSERT INTO reporting_day_columns (site, day, version, data) VALUES (?, ?, ?, ?)
				ON CONFLICT (site, day) DO UPDATE SET version = excluded.version, data = excluded.data
				WHERE reporting_day_columns.version <= excluded.version`), site, day, version, b.encode()); err != nil {
				return nil, err
			}
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		var seg *daySeg
		if b != nil {
			seg = b.build(m)
		}
		if now == version {
			m.keep(dayName(site, day), &memDay{version: version, seg: seg, used: m.clock})
		}
		return seg, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*daySeg), nil
}

// readDay is day's rows at version: from reporting_day_columns when it
// holds that version (stored), else from the rows themselves.
func (s *Store) readDay(ctx context.Context, day string, version int64) (b *segBuilder, stored bool, err error) {
	var kept struct {
		Version int64  `db:"version"`
		Data    []byte `db:"data"`
	}
	site := siteOf(ctx)
	err = s.db.Reader().GetContext(ctx, &kept, s.db.Rebind(`SELECT version, data FROM reporting_day_columns WHERE site = ? AND day = ?`), site, day)
	switch {
	case err == nil && kept.Version == version:
		if b, err := decodeDay(kept.Data); err == nil {
			return b, true, nil
		}
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return nil, false, err
	}
	b, err = loadDay(ctx, s.db, site, day)
	return b, false, err
}

// dayName is the memory's name of site's day.
func dayName(site, day string) string { return site + "\x00" + day }

// keep adds a day and evicts the least recently read others until the
// kept fit the limit (with mu held).
func (m *memory) keep(day string, k *memDay) {
	if old := m.days[day]; old != nil {
		m.used -= old.size()
	}
	m.days[day] = k
	m.used += k.size()
	for m.used+m.dictBytes > m.limit && len(m.days) > 1 {
		oldest := ""
		for d, x := range m.days {
			if d != day && (oldest == "" || x.used < m.days[oldest].used) {
				oldest = d
			}
		}
		m.used -= m.days[oldest].size()
		delete(m.days, oldest)
	}
}

// touchDays raises the version of each day the batch wrote to, in the
// batch's transaction, in day order (two batches take the rows' locks in
// one order), and notes which visitors of the day it wrote under the new
// version (reporting_day_changes), for the copies of days still being
// written (live.go).
func touchDays(ctx context.Context, tx *sqlx.Tx, t *tally, now time.Time) error {
	type siteDay struct{ site, day string }
	byDay := map[siteDay][]int64{}
	for k := range t.views {
		byDay[siteDay{k.site, k.day}] = append(byDay[siteDay{k.site, k.day}], k.visitor)
	}
	for k := range t.events {
		byDay[siteDay{k.site, k.day}] = append(byDay[siteDay{k.site, k.day}], k.visitor)
	}
	days := slices.SortedFunc(maps.Keys(byDay), func(a, b siteDay) int { return cmp.Or(strings.Compare(a.site, b.site), strings.Compare(a.day, b.day)) })
	at := store.NewTime(now)
	for _, d := range days {
		var version int64
		if err := tx.GetContext(ctx, &version, tx.Rebind(`INSERT INTO reporting_days (site, day, version, changed_at) VALUES (?, ?, 1, ?)
			ON CONFLICT (site, day) DO UPDATE SET version = reporting_days.version + 1, changed_at = excluded.changed_at
			RETURNING version`), d.site, d.day, at); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO reporting_day_changes (site, day, version, visitors, changed_at)
			VALUES (?, ?, ?, ?, ?)`), d.site, d.day, version, encodeVisitors(byDay[d]), at); err != nil {
			return err
		}
	}
	return nil
}

// segmentKept answers Segment from the days kept in memory where they
// have settled, reading the others (and any too large for columns) in
// SQL and adding them in; kept is false when it read nothing from memory
// (none kept, a range not of days, a dimension not kept by visitor), and
// then the caller reads it all in SQL, with its limit. The rows are
// unlimited.
func (s *Store) segmentKept(ctx context.Context, fs reporting.Filters, n narrowing, goals []reporting.Goal, dim reporting.Dimension,
	from, to string) (rows []reportingstore.DailyRow, kept bool, err error) {
	if !keptDims[dim] {
		return nil, false, nil
	}
	days, vs, err := s.rangeVersions(ctx, from, to)
	if days == nil || err != nil {
		return nil, false, err
	}
	var settled, live []string
	for _, d := range days {
		if vs[d].settled {
			settled = append(settled, d)
		} else {
			live = append(live, d)
		}
	}
	segs, err := s.segments(ctx, settled, vs)
	if err != nil {
		return nil, false, err
	}
	// What the workers read: a day's columns, some of its visitors
	// hidden (a copy's base, whose overlay has them as they are now).
	type part struct {
		day  string
		seg  *daySeg
		hide []bool
	}
	var parts []part
	for i, d := range settled {
		parts = append(parts, part{day: d, seg: segs[i]})
	}
	for _, d := range live {
		base, hide, overlay, err := s.liveView(ctx, d, vs[d].version)
		if err != nil {
			return nil, false, err
		}
		parts = append(parts, part{day: d, seg: base, hide: hide})
		if base != nil && overlay != nil {
			parts = append(parts, part{day: d, seg: overlay})
		}
	}
	inMemory := map[string]bool{}
	m := s.mem
	m.mu.RLock()
	for _, p := range parts {
		if p.seg != nil && p.seg.gen != m.gen {
			m.mu.RUnlock() // the dictionaries were emptied meanwhile
			return nil, false, nil
		}
		inMemory[p.day] = p.seg != nil
	}
	// The days are read by a worker a core, each summing its own, then
	// summed together.
	qs := make([]*memQuery, max(1, min(runtime.GOMAXPROCS(0), 4, len(parts))))
	var wg sync.WaitGroup
	for w := range qs {
		qs[w] = newMemQuery(m, fs, dim, goals)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(parts); i += len(qs) {
				if parts[i].seg != nil {
					qs[w].addDay(parts[i].day, parts[i].seg, parts[i].hide)
				}
			}
		}()
	}
	wg.Wait()
	for _, o := range qs[1:] {
		qs[0].merge(o)
	}
	rows = qs[0].result()
	m.mu.RUnlock()
	// The other days, a run of consecutive ones at a time.
	for i := 0; i < len(days); {
		if inMemory[days[i]] {
			i++
			continue
		}
		j := i
		for j+1 < len(days) && !inMemory[days[j+1]] {
			j++
		}
		more, err := s.segmentSQL(ctx, n, goals, dim, days[i], days[j], 0)
		if err != nil {
			return nil, false, err
		}
		rows = mergeRows(dim, goals, rows, more)
		i = j + 1
	}
	return rows, true, nil
}

// rangeVersions are the days from..to and their versions, no days when
// the Store keeps none in memory or from..to is not a range of days.
func (s *Store) rangeVersions(ctx context.Context, from, to string) ([]string, map[string]dayVersion, error) {
	if s.init(); s.mem == nil {
		return nil, nil, nil
	}
	m := s.mem
	m.mu.Lock()
	if m.dictBytes > m.limit/2 {
		// The dictionaries outgrew their share: start again, before this
		// report reads any day. A report under way with ids of the old
		// ones finds its days of another generation and reads SQL.
		m.reset()
	}
	m.mu.Unlock()
	days := dayRange(from, to)
	if days == nil {
		return nil, nil, nil
	}
	vs, err := s.versions(ctx, days)
	if err != nil {
		return nil, nil, err
	}
	return days, vs, nil
}

// keptDims are the dimensions segmentKept answers; the others are read in
// SQL, which tells a dimension not kept by visitor.
var keptDims = map[reporting.Dimension]bool{reporting.DimTotal: true, reporting.DimEntry: true, reporting.DimExit: true,
	reporting.DimEvent: true, reporting.DimProp: true, reporting.DimGoal: true,
	reporting.DimPage: true, reporting.DimSource: true, reporting.DimDevice: true, reporting.DimCountry: true, reporting.DimBrowser: true,
	reporting.DimOS: true, reporting.DimMedium: true, reporting.DimCampaign: true, reporting.DimTerm: true, reporting.DimContent: true}

// dayRange is every day from..to, nil when they are not days in order or
// span more than ten years.
func dayRange(from, to string) []string {
	f, err1 := time.Parse(time.DateOnly, from)
	t, err2 := time.Parse(time.DateOnly, to)
	if err1 != nil || err2 != nil || t.Before(f) || t.Sub(f) > 3660*24*time.Hour {
		return nil
	}
	var days []string
	for d := f; !d.After(t); d = d.AddDate(0, 0, 1) {
		days = append(days, d.Format(time.DateOnly))
	}
	return days
}

// mergeRows adds more (rows of other days) to rows, in Segment's order:
// by day for DimTotal, by goal for DimGoal, else most views first.
func mergeRows(dim reporting.Dimension, goals []reporting.Goal, rows, more []reportingstore.DailyRow) []reportingstore.DailyRow {
	if len(more) == 0 {
		return rows
	}
	if dim == reporting.DimTotal {
		rows = append(rows, more...)
		slices.SortFunc(rows, func(a, b reportingstore.DailyRow) int { return strings.Compare(a.Key, b.Key) })
		return rows
	}
	at := make(map[string]int, len(rows))
	for i, r := range rows {
		at[r.Key] = i
	}
	for _, r := range more {
		i, ok := at[r.Key]
		if !ok {
			at[r.Key] = len(rows)
			rows = append(rows, r)
			continue
		}
		x := &rows[i]
		x.Views, x.Visitors, x.Sessions, x.Duration, x.Bounces = x.Views+r.Views, x.Visitors+r.Visitors, x.Sessions+r.Sessions,
			x.Duration+r.Duration, x.Bounces+r.Bounces
		x.Label = max(x.Label, r.Label)
	}
	if dim == reporting.DimGoal {
		order := map[string]int{}
		for i, g := range goals {
			order[strconv.FormatInt(g.ID, 10)] = i
		}
		slices.SortFunc(rows, func(a, b reportingstore.DailyRow) int { return cmp.Compare(order[a.Key], order[b.Key]) })
		return rows
	}
	sortRows(rows)
	return rows
}
