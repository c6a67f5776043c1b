package reportingsql

import (
	"cmp"
	"context"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/counting"
	"github.com/groundwork-go/groundwork/reporting/visits"
	"github.com/groundwork-go/groundwork/store"
)

// A visitor's day is one row of reporting_seen (scope 't:'): their
// session as far as it is known, and in seen every value they were
// counted for that day (a unique visitor of a page, a source, a pair of
// values, a goal...), so the next batch counts them again for none of
// those. A batch reads its visitors' rows, claims their values in
// memory and writes each changed row back: one row a visitor, where a
// row a visitor and value (about six a view) was written before.

// rs ends each value in a row's seen: no value the collector keeps
// holds it (paths are escaped, other text has its control characters
// removed or refused); one that does is kept as its hash instead.
const rs = "\x1e"

// visitorDay is a visitor's row of a day: the Day the analytics rules
// move on (their session, nil when they have had no page view that day,
// only events; the values they were counted for, in seen), the
// reporting_views rows (row_key) of their session's first and last page
// views (0 when not known), the time of their last hit, and whether
// their session changed.
type visitorDay struct {
	counting.Day
	seen              seenSet
	entryRow, lastRow int64
	at                time.Time
	changed           bool
}

// newVisitorDay is an empty day: no session, nothing seen.
func newVisitorDay() *visitorDay {
	d := &visitorDay{}
	d.Seen = &d.seen
	return d
}

// seenSet is the values of a visitor's day, as their row keeps them:
// each followed by rs. It is read into a map the first time one is
// claimed.
type seenSet struct {
	text  string
	m     map[string]struct{}
	added []string
}

// value is v as a set keeps it.
func seenValue(v string) string {
	if !strings.Contains(v, rs) {
		return v
	}
	h := fnv.New64a()
	h.Write([]byte(v))
	return "#" + strconv.FormatUint(h.Sum64(), 16)
}

func (s *seenSet) load() {
	if s.m != nil {
		return
	}
	s.m = make(map[string]struct{}, strings.Count(s.text, rs)+8)
	for v := range strings.SplitSeq(s.text, rs) {
		if v != "" {
			s.m[v] = struct{}{}
		}
	}
}

// has reports whether v is in s.
func (s *seenSet) has(v string) bool {
	s.load()
	_, ok := s.m[seenValue(v)]
	return ok
}

// Claim adds v to s, and reports whether it was not there: the visitor
// is new for it (counting.Seen).
func (s *seenSet) Claim(v string) bool {
	v = seenValue(v)
	s.load()
	if _, ok := s.m[v]; ok {
		return false
	}
	s.m[v] = struct{}{}
	s.added = append(s.added, v)
	return true
}

// remove takes v out of s, and reports whether it was there.
func (s *seenSet) remove(v string) bool {
	v = seenValue(v)
	if !s.has(v) {
		return false
	}
	delete(s.m, v)
	var b strings.Builder
	for e := range strings.SplitSeq(s.String(), rs) {
		if e != "" && e != v {
			b.WriteString(e + rs)
		}
	}
	s.text, s.added = b.String(), nil
	return true
}

// String is s as its row keeps it.
func (s *seenSet) String() string {
	if len(s.added) == 0 {
		return s.text
	}
	return s.text + strings.Join(s.added, rs) + rs
}

// sessionTypes are the column types of a visitor's row as written.
var sessionTypes = []string{"text", "text", "text", "text", "timestamptz", "text", "text", "bigint", "bigint", "bigint", "text"}

// readVisitors reads the row of each visitor of hits on their day; one
// not kept yet gets an empty one. On Postgres, it takes each row's lock
// for the transaction (making the rows missing), in the order of the
// keys, so two instances writing one visitor's day take turns and
// neither counts them again for what the other did.
func readVisitors(ctx context.Context, tx *sqlx.Tx, hits []reporting.Hit) (map[visit]*visitorDay, error) {
	days := map[visit]*visitorDay{}
	var keys []visit
	for _, h := range hits {
		v := visit{h.Site, h.Day, h.Visitor}
		if days[v] == nil {
			days[v] = newVisitorDay()
			keys = append(keys, v)
		}
	}
	slices.SortFunc(keys, func(a, b visit) int {
		return cmp.Or(strings.Compare(a.site, b.site), strings.Compare(a.day, b.day), strings.Compare(a.visitor, b.visitor))
	})
	scan := func(rows *sqlx.Rows) error {
		var v visit
		var at store.Time
		var seen string
		var s visits.Session
		var entryRow, lastRow int64
		if err := rows.Scan(&v.site, &v.day, &v.visitor, &at, &s.Page, &s.Entry, &s.Hits, &entryRow, &lastRow, &seen); err != nil {
			return err
		}
		d := days[v]
		if d == nil {
			return nil
		}
		s.Last, d.at, d.seen.text, d.entryRow, d.lastRow = at.Time, at.Time, seen, entryRow, lastRow
		if d.seen.has(counting.Scope(reporting.DimTotal, "")) { // a page view began a session
			d.Session = &s
		}
		return nil
	}
	if tx.DriverName() == "pgx" {
		ss, ds, vs := make([]string, len(keys)), make([]string, len(keys)), make([]string, len(keys))
		for i, k := range keys {
			ss[i], ds[i], vs[i] = k.site, k.day, k.visitor
		}
		return days, scanAll(tx.QueryxContext(ctx, lockVisitorsQuery, ss, ds, vs, hits[0].At))(scan)
	}
	for chunk := range slices.Chunk(keys, visitorsPerRead) {
		var ss, ds, vs []string
		for _, k := range chunk {
			ss, ds, vs = append(ss, k.site), append(ds, k.day), append(vs, k.visitor)
		}
		// A superset of the keys (each site with each day and visitor);
		// the scan keeps the keys'.
		slices.Sort(ds)
		q, args, err := sqlx.In(`SELECT site, day, visitor, last_seen, page, entry, hits, entry_row, last_row, seen FROM reporting_seen
			WHERE site IN (?) AND day IN (?) AND visitor IN (?) AND scope = 't:'`, slices.Compact(ss), slices.Compact(ds), vs) // keys are sorted by site
		if err != nil {
			return nil, err
		}
		if err := scanAll(tx.QueryxContext(ctx, tx.Rebind(q), args...))(scan); err != nil {
			return nil, err
		}
	}
	return days, nil
}

// visitorsPerRead bounds the visitors one read of their rows names on
// SQLite (which allows 32766 parameters).
const visitorsPerRead = 500

// lockVisitorsQuery makes the rows of (site, day, visitor) given as three
// arrays that are missing (an empty row: no session, nothing seen),
// locks them all and returns them. Each is a look-up of the primary key
// whatever the planner knows of the table.
const lockVisitorsQuery = `INSERT INTO reporting_seen (site, day, visitor, scope, last_seen)
	SELECT k.site, k.day, k.visitor, 't:', $4 FROM unnest($1::text[], $2::text[], $3::text[]) AS k(site, day, visitor)
	ON CONFLICT (site, day, visitor, scope) DO UPDATE SET scope = excluded.scope
	RETURNING site, day, visitor, last_seen, page, entry, hits, entry_row, last_row, seen`

// writeVisitors writes back the rows of the visitors whose day changed:
// their session (an empty one for a visitor with events only, whose
// hits stay 0 and who is no visitor "now") and what they were counted
// for.
func writeVisitors(ctx context.Context, tx *sqlx.Tx, days map[visit]*visitorDay) error {
	var rows [][]any
	for v, d := range days {
		s := d.Session
		if len(d.seen.added) == 0 && (s == nil || !d.changed) {
			continue
		}
		if s == nil {
			s = &visits.Session{Last: d.at}
		}
		rows = append(rows, []any{v.site, v.day, v.visitor, "t:", store.NewTime(s.Last), s.Page, s.Entry, s.Hits, d.entryRow, d.lastRow, d.seen.String()})
	}
	return values(ctx, tx, `INSERT INTO reporting_seen (site, day, visitor, scope, last_seen, page, entry, hits, entry_row, last_row, seen) VALUES %s
		ON CONFLICT (site, day, visitor, scope) DO UPDATE SET last_seen = excluded.last_seen, page = excluded.page,
		entry = excluded.entry, hits = excluded.hits, entry_row = excluded.entry_row, last_row = excluded.last_row,
		seen = excluded.seen`, sessionTypes, sorted(rows, 3), nil)
}

// editSeen calls edit with the values of every visitor's day kept on site
// (the days whose visitors are still known), and writes back those it
// changed. It is for goals made and deleted, under the goals' lock, so
// no batch writes meanwhile.
func editSeen(ctx context.Context, tx *sqlx.Tx, site string, edit func(day string, s *seenSet) bool) error {
	var changed [][]any
	err := scanAll(tx.QueryxContext(ctx, tx.Rebind(`SELECT day, visitor, seen FROM reporting_seen WHERE site = ? AND scope = 't:'`), site))(func(rows *sqlx.Rows) error {
		var day, visitor string
		var s seenSet
		if err := rows.Scan(&day, &visitor, &s.text); err != nil {
			return err
		}
		if edit(day, &s) {
			changed = append(changed, []any{site, day, visitor, "t:", store.NewTime(time.Unix(0, 0)), s.String()})
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Every row is there: only its seen is set.
	return values(ctx, tx, `INSERT INTO reporting_seen (site, day, visitor, scope, last_seen, seen) VALUES %s
		ON CONFLICT (site, day, visitor, scope) DO UPDATE SET seen = excluded.seen`,
		[]string{"text", "text", "text", "text", "timestamptz", "text"}, sorted(changed, 3), nil)
}
