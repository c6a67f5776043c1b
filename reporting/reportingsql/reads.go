package reportingsql

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingstore"
)

// Daily implements reporting.Store.
func (s *Store) Daily(ctx context.Context, dim reporting.Dimension, from, to string, limit int) ([]reportingstore.DailyRow, error) {
	var rows []reportingstore.DailyRow
	var err error
	if dim == reporting.DimTotal {
		err = s.db.Reader().SelectContext(ctx, &rows, s.db.Rebind(`SELECT day AS key, '' AS label, views, visitors, sessions, duration_seconds, bounces
			FROM reporting_daily WHERE site = ? AND dim = 'total' AND day >= ? AND day <= ? ORDER BY day`), siteOf(ctx), from, to)
	} else {
		var kept bool
		if rows, kept, err = s.dailyKept(ctx, dim, from, to, nil); kept && limit > 0 && len(rows) > limit {
			rows = rows[:limit]
		}
		if !kept && err == nil {
			rows, err = s.sum(ctx, dim, "", nil, from, to, limit)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("reportingsql: daily %s: %w", dim, err)
	}
	return rows, nil
}

// Filtered implements reporting.Store. One filter reads its value's own
// rows (reporting_daily) and, for another dimension, the pair of the two
// (reporting_pairs); two filters read their pair, or for the third
// dimension the triples (reporting_triples); three read the triples.
func (s *Store) Filtered(ctx context.Context, fs reporting.Filters, dim reporting.Dimension, from, to string, limit int) ([]reportingstore.DailyRow, error) {
	if len(fs) == 0 || !fs.Valid() {
		return nil, fmt.Errorf("reportingsql: filtered: not a set of filters: %v", fs)
	}
	var rows []reportingstore.DailyRow
	var err error
	_, filtered := fs.Value(dim)
	switch {
	case len(fs) == 1:
		rows, err = s.filteredOnce(ctx, fs[0], dim, from, to, limit)
	case dim == reporting.DimTotal || filtered:
		// The combination's own rows: a day each, or summed as the
		// filtered dimension's one value.
		table, cond, args := combination(siteOf(ctx), fs)
		key, group, order := "day", " GROUP BY day", " ORDER BY day"
		if dim != reporting.DimTotal {
			v, _ := fs.Value(dim)
			key, group, order, args = "?", " HAVING COUNT(*) > 0", "", append([]any{v}, args...)
		}
		label := "''"
		if dim == reporting.DimPage {
			label = "MAX(label)"
		}
		q := `SELECT ` + key + ` AS key, ` + label + ` AS label, SUM(views) AS views, SUM(visitors) AS visitors, SUM(sessions) AS sessions,
			0 AS duration_seconds FROM ` + table + ` WHERE ` + cond + ` AND day >= ? AND day <= ?` + group + order
		err = s.db.Reader().SelectContext(ctx, &rows, s.db.Rebind(q), append(args, from, to)...)
	case len(fs) == 2 && slices.Contains(reporting.PairDims, dim):
		// The third dimension, from the triples of the two (PairDims
		// are the triples' column names).
		cond, args := "site = ? AND "+string(fs[0].Dim)+" = ? AND "+string(fs[1].Dim)+" = ?", []any{siteOf(ctx), fs[0].Value, fs[1].Value}
		label := "''"
		if dim == reporting.DimPage {
			label = "MAX(label)"
		}
		q := `SELECT ` + string(dim) + ` AS key, ` + label + ` AS label, SUM(views) AS views, SUM(visitors) AS visitors, SUM(sessions) AS sessions,
			0 AS duration_seconds FROM reporting_triples WHERE ` + cond + ` AND day >= ? AND day <= ? GROUP BY ` + string(dim) + ` ORDER BY views DESC, key`
		args = append(args, from, to)
		if limit > 0 {
			q += ` LIMIT ?`
			args = append(args, limit)
		}
		err = s.db.Reader().SelectContext(ctx, &rows, s.db.Rebind(q), args...)
	default:
		return nil, fmt.Errorf("reportingsql: filtered: no rollup of %q under %d filters", dim, len(fs))
	}
	if err != nil {
		return nil, fmt.Errorf("reportingsql: filtered %s by %v: %w", dim, fs, err)
	}
	return rows, nil
}

// combination is where site's page views that have all of fs (two or
// three filters) are counted whole: their pair's rows, or the triples; the
// table, the condition that picks the combination and its arguments.
func combination(site string, fs reporting.Filters) (table, cond string, args []any) {
	if len(fs) == 3 {
		page, _ := fs.Value(reporting.DimPage)
		source, _ := fs.Value(reporting.DimSource)
		device, _ := fs.Value(reporting.DimDevice)
		return "reporting_triples", "site = ? AND page = ? AND source = ? AND device = ?", []any{site, page, source, device}
	}
	p, first, _ := pairOf(fs[0].Dim, fs[1].Dim)
	a, b := fs[0].Value, fs[1].Value
	if !first {
		a, b = b, a
	}
	return "reporting_pairs", "site = ? AND pair = ? AND a = ? AND b = ?", []any{site, p.name, a, b}
}

// filteredOnce is Filtered under one filter f.
func (s *Store) filteredOnce(ctx context.Context, f reporting.Filter, dim reporting.Dimension, from, to string, limit int) ([]reportingstore.DailyRow, error) {
	var rows []reportingstore.DailyRow
	var err error
	site := siteOf(ctx)
	switch dim {
	case reporting.DimTotal:
		// The key is the primary key's last column, after the day: named
		// day by day, each day is one probe of the index, where a range of
		// days walks every key of every day between.
		days, args := "day >= ? AND day <= ?", []any{site, f.Dim, f.Value, from, to}
		if list := dayRange(from, to); list != nil && len(list) <= 400 {
			days, args = "day IN (?"+strings.Repeat(", ?", len(list)-1)+")", []any{site, f.Dim, f.Value}
			for _, d := range list {
				args = append(args, d)
			}
		}
		err = s.db.Reader().SelectContext(ctx, &rows, s.db.Rebind(`SELECT day AS key, '' AS label, views, visitors, sessions, duration_seconds
			FROM reporting_daily WHERE site = ? AND dim = ? AND key = ? AND `+days+` ORDER BY day`), args...)
	case f.Dim:
		var kept bool
		if rows, kept, err = s.dailyKept(ctx, dim, from, to, &f.Value); !kept && err == nil {
			rows, err = s.sum(ctx, dim, "key = ?", []any{f.Value}, from, to, limit)
		}
	default:
		p, first, ok := pairOf(f.Dim, dim)
		if !ok {
			return nil, fmt.Errorf("no pair of %q and %q", f.Dim, dim)
		}
		// The filter's side is matched, the other side grouped; the page's
		// title (label) only names a page.
		match, group, label := "a", "b", "''"
		if !first {
			match, group, label = "b", "a", "MAX(label)"
		}
		q := `SELECT ` + group + ` AS key, ` + label + ` AS label, SUM(views) AS views, SUM(visitors) AS visitors, SUM(sessions) AS sessions,
			0 AS duration_seconds FROM reporting_pairs WHERE site = ? AND pair = ? AND ` + match + ` = ? AND day >= ? AND day <= ?
			GROUP BY ` + group + ` ORDER BY views DESC, key`
		args := []any{site, p.name, f.Value, from, to}
		if limit > 0 {
			q += ` LIMIT ?`
			args = append(args, limit)
		}
		err = s.db.Reader().SelectContext(ctx, &rows, s.db.Rebind(q), args...)
	}
	return rows, err
}

// sum is the rows of dim over from..to (of ctx's site) summed per key (those matching
// cond, when given, with its args), by views descending then key: whole
// weeks from the weekly rollup, the days either side from the daily one.
func (s *Store) sum(ctx context.Context, dim reporting.Dimension, cond string, condArgs []any, from, to string, limit int) ([]reportingstore.DailyRow, error) {
	firstWeek, lastWeek := wholeWeeks(from, to)
	if cond != "" {
		cond = " AND " + cond
	}
	// Three plain ranges (a plan cached for every range stays an index
	// scan): the days before the first whole week, the whole weeks, the
	// days after the last.
	q := `SELECT key, MAX(label) AS label, SUM(views) AS views, SUM(visitors) AS visitors, SUM(sessions) AS sessions,
		SUM(duration_seconds) AS duration_seconds, SUM(bounces) AS bounces FROM (
		SELECT key, label, views, visitors, sessions, duration_seconds, bounces FROM reporting_daily
			WHERE site = ? AND dim = ? AND day >= ? AND day < ?` + cond + `
		UNION ALL
		SELECT key, label, views, visitors, sessions, duration_seconds, bounces FROM reporting_weekly
			WHERE site = ? AND dim = ? AND week >= ? AND week <= ?` + cond + `
		UNION ALL
		SELECT key, label, views, visitors, sessions, duration_seconds, bounces FROM reporting_daily
			WHERE site = ? AND dim = ? AND day > ? AND day <= ?` + cond + `) periods
		GROUP BY key ORDER BY views DESC, key`
	lastDay := addDays(lastWeek, 6)
	headEnd, tailStart := firstWeek, lastDay
	if firstWeek > lastWeek { // no whole week: the days, once
		headEnd, tailStart = addDays(to, 1), to
	}
	var args []any
	site := siteOf(ctx)
	for _, r := range [][]any{{site, string(dim), from, min(headEnd, addDays(to, 1))}, {site, string(dim), firstWeek, lastWeek},
		{site, string(dim), max(tailStart, addDays(from, -1)), to}} {
		args = append(append(args, r...), condArgs...)
	}
	return s.selectRows(ctx, q, args, limit)
}

// selectRows reads the rows q gives, at most limit (0 for all).
func (s *Store) selectRows(ctx context.Context, q string, args []any, limit int) ([]reportingstore.DailyRow, error) {
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	var rows []reportingstore.DailyRow
	err := s.db.Reader().SelectContext(ctx, &rows, s.db.Rebind(q), args...)
	return rows, err
}

// weekOf is the Monday of day's week.
func weekOf(day string) string {
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return day
	}
	return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7)).Format(time.DateOnly)
}

func addDays(day string, n int) string {
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return day
	}
	return d.AddDate(0, 0, n).Format(time.DateOnly)
}

// wholeWeeks are the Mondays of the first and last weeks wholly inside
// [from, to]; the last before the first when there are none.
func wholeWeeks(from, to string) (string, string) {
	first := weekOf(from)
	if first < from {
		first = addDays(first, 7)
	}
	last := weekOf(addDays(to, 1)) // a week ending on to starts six days before
	last = addDays(last, -7)
	if addDays(last, 6) > to {
		last = addDays(last, -7)
	}
	return first, last
}
