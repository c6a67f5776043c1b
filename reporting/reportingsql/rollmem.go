package reportingsql

import (
	"context"
	"fmt"
	"strings"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingstore"
)

// The rollups of a page dimension (pages, entry pages, exit pages: tens
// of thousands of keys a week on a busy site) kept in memory a settled
// period at a time, so an unfiltered report of them over months sums
// arrays instead of grouping a quarter of a million rows in SQL. The
// answers are the SQL's (sum): the same rows, summed the same way.

// rollDims are the dimensions Daily reads from kept periods.
var rollDims = map[reporting.Dimension]bool{reporting.DimPage: true, reporting.DimEntry: true, reporting.DimExit: true}

// rollSeg is one period's rollup rows of a dimension: each key's id in
// the page dictionary, its label's in the labels', and its counts.
type rollSeg struct {
	keys, labels                                 []uint32
	views, visitors, sessions, duration, bounces []int64
	size                                         int64
	gen                                          uint64
}

// period is a week of reporting_weekly or a day of reporting_daily.
type period struct {
	weekly  bool
	start   string
	version int64
	settled bool
}

// dailyKept is Daily of dim over from..to from kept periods (and, for
// those still written, their rows read now), of only its key when only
// is not nil; ok is false when it cannot (no memory kept, not a page
// dimension, not a range of days).
func (s *Store) dailyKept(ctx context.Context, dim reporting.Dimension, from, to string, only *string) (rows []reportingstore.DailyRow, ok bool, err error) {
	if !rollDims[dim] {
		return nil, false, nil
	}
	days, vs, err := s.rangeVersions(ctx, from, to)
	if days == nil || err != nil {
		return nil, false, err
	}
	firstWeek, lastWeek := wholeWeeks(from, to)
	var periods []period
	for _, d := range days {
		if d >= firstWeek && d <= addDays(lastWeek, 6) {
			if weekOf(d) != d {
				continue
			}
			p := period{weekly: true, start: d, settled: true}
			for i := range 7 {
				v := vs[addDays(d, i)]
				p.version += v.version
				p.settled = p.settled && v.settled
			}
			periods = append(periods, p)
			continue
		}
		periods = append(periods, period{start: d, version: vs[d].version, settled: vs[d].settled})
	}
	segs := make([]*rollSeg, len(periods))
	for i, p := range periods {
		if segs[i], err = s.rollPeriod(ctx, dim, p, only); err != nil {
			return nil, false, err
		}
	}
	m := s.mem
	m.mu.RLock()
	defer m.mu.RUnlock()
	for _, seg := range segs {
		if seg.gen != m.gen {
			return nil, false, nil // the dictionaries were emptied meanwhile
		}
	}
	figs := make([]memFigures, len(m.dicts[0].strs))
	seen := make([]bool, len(figs))
	one, known := uint32(0), true
	if only != nil {
		one, known = m.dicts[0].ids[*only]
	}
	for _, seg := range segs {
		for i, k := range seg.keys {
			if only != nil && (!known || k != one) {
				continue
			}
			f := &figs[k]
			f.views, f.visitors, f.sessions = f.views+seg.views[i], f.visitors+seg.visitors[i], f.sessions+seg.sessions[i]
			f.duration, f.bounces = f.duration+seg.duration[i], f.bounces+seg.bounces[i]
			if l := int64(seg.labels[i]); !seen[k] || (l != f.label && m.dicts[1].strs[l] > m.dicts[1].strs[f.label]) {
				f.label = l
			}
			seen[k] = true
		}
	}
	for k, ok := range seen {
		if ok {
			f := &figs[k]
			rows = append(rows, reportingstore.DailyRow{Key: m.dicts[0].strs[k], Label: m.dicts[1].strs[f.label], Views: f.views,
				Visitors: f.visitors, Sessions: f.sessions, Duration: f.duration, Bounces: f.bounces})
		}
	}
	sortRows(rows)
	return rows, true, nil
}

// rollPeriod is p's rows of dim: kept when p has settled (read once for
// its version), read now when it is still written (only one key's, when
// only one is asked for).
func (s *Store) rollPeriod(ctx context.Context, dim reporting.Dimension, p period, only *string) (*rollSeg, error) {
	m, site := s.mem, siteOf(ctx)
	name := site + "\x00" + strings.Join([]string{"roll", string(dim), map[bool]string{true: "week", false: "day"}[p.weekly], p.start}, "/")
	if p.settled {
		m.mu.Lock()
		m.clock++
		k := m.days[name]
		if k != nil && k.version == p.version && k.roll != nil {
			k.used = m.clock
			m.mu.Unlock()
			return k.roll, nil
		}
		m.mu.Unlock()
	}
	args := []any{site, string(dim), p.start}
	if !p.settled && only != nil {
		name += "/" + *only
		args = append(args, *only)
	}
	v, err, _ := m.load.Do(fmt.Sprint(name, "@", p.version, p.settled), func() (any, error) {
		q := `SELECT key, label, views, visitors, sessions, duration_seconds, bounces FROM reporting_daily WHERE site = ? AND dim = ? AND day = ?`
		if p.weekly {
			q = `SELECT key, label, views, visitors, sessions, duration_seconds, bounces FROM reporting_weekly WHERE site = ? AND dim = ? AND week = ?`
		}
		if len(args) > 3 {
			q += ` AND key = ?`
		}
		var found []reportingstore.DailyRow
		if err := s.db.Reader().SelectContext(ctx, &found, s.db.Rebind(q), args...); err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		r := &rollSeg{gen: m.gen, size: int64(48 * len(found))}
		for _, f := range found {
			r.keys = append(r.keys, m.intern(0, f.Key))
			r.labels = append(r.labels, m.intern(1, f.Label))
			r.views, r.visitors, r.sessions = append(r.views, f.Views), append(r.visitors, f.Visitors), append(r.sessions, f.Sessions)
			r.duration, r.bounces = append(r.duration, f.Duration), append(r.bounces, f.Bounces)
		}
		if p.settled {
			m.keep(name, &memDay{version: p.version, roll: r, used: m.clock})
		}
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*rollSeg), nil
}
