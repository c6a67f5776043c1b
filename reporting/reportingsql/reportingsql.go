// Package reportingsql is the [reporting.Store] of the first-party
// analytics on SQLite and Postgres.
package reportingsql

import (
	"cmp"
	"context"
	"database/sql"
	"embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/counting"
	"github.com/groundwork-go/groundwork/reporting/reportingstore"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/tenant"
)

//go:embed migrations
var migrations embed.FS

// Migrations is the reporting schema; pass it to store.Migrate.
var Migrations = store.MigrationsFrom("reporting", migrations, "migrations")

// Store is the reporting.Store on a store.DB. Its fields, set before its
// first use, tune it; the zero values are the defaults.
type Store struct {
	// SegmentMemory is how many bytes of settled days' page views and
	// events the Store keeps in memory, by column, to answer reports
	// narrowed by filters (Segment) without scanning their tables: 0 is
	// 256 MiB, a negative value keeps none (every narrowed report is
	// read in SQL). Ten million views in 90 days of varied traffic take
	// about 215 MiB. The days least recently read go first.
	SegmentMemory int64
	// Settled is how long a day must go unwritten before it is kept in
	// memory as it is; 0 is one minute. A day still being written (today,
	// or one another instance is still flushing) is kept as a copy that
	// each narrowed report first brings up to date: it reads which
	// visitors the batches since wrote (every batch notes them) and
	// reads only their rows again, so the report is exact to the last
	// write, as the SQL is.
	Settled time.Duration
	// Lag, when positive, lets a narrowed report read the copy of a day
	// still being written as it is, without bringing it up to date, while
	// it was last brought up to date less than Lag ago. 0, the default,
	// reads every write.
	Lag time.Duration
	// Now is the clock the Store marks each day's last write with;
	// time.Now when nil.
	Now func() time.Time

	db   *store.DB
	once sync.Once
	mem  *memory // nil: keeps no days in memory
	// pruned is when Record last deleted old notes of changed visitors
	// (Unix seconds).
	pruned atomic.Int64
	// overlayFloor replaces rebaseFloor's 1000 when not 0 (tests; < 0
	// is 0).
	overlayFloor int
}

var _ reporting.Store = (*Store)(nil)

// siteOf is the site a call acts on: the tenant ctx acts for, "" when it
// acts for every tenant (see reporting.Store).
func siteOf(ctx context.Context) string {
	site, _ := tenant.Of(ctx)
	return site
}

// New returns a Store on db, which must be migrated with [Migrations].
func New(db *store.DB) *Store { return &Store{db: db} }

// Salt implements reporting.Store.
func (s *Store) Salt(ctx context.Context, day string, fresh []byte) ([]byte, error) {
	if _, err := s.db.ExecContext(ctx, s.db.Rebind(`INSERT INTO reporting_salts (day, salt) VALUES (?, ?) ON CONFLICT (day) DO NOTHING`),
		day, fresh); err != nil {
		return nil, fmt.Errorf("reportingsql: salt: %w", err)
	}
	var salt []byte
	if err := s.db.GetContext(ctx, &salt, s.db.Rebind(`SELECT salt FROM reporting_salts WHERE day = ?`), day); err != nil {
		return nil, fmt.Errorf("reportingsql: salt: %w", err)
	}
	return salt, nil
}

// Column types of the multi-row statements.
var (
	rollupTypes = []string{"text", "text", "text", "text", "text", "bigint", "bigint", "bigint", "bigint", "bigint"}
	countTypes  = []string{"text", "text", "text", "text", "text", "text", "bigint", "bigint", "bigint"}
)

type rollupKey struct {
	site, day string
	dim       reporting.Dimension
	key       string
}

// visit is a visitor's day on a site.
type visit struct{ site, day, visitor string }

// The adapter's own rollups (pairs and triples of a page view's values)
// count a visitor once a day too, under values of their own in the
// visitor's Day (counting.Seen): a pair's code is its own capital
// letter, a triple's "T:", their values joined by sep.

// pairs are the pairs of dimensions kept for filtered reports (a slice:
// every page view walks it).
var pairs = []pair{newPair('P', 0, 1), newPair('Q', 0, 2), newPair('R', 1, 2)}

// pair is two dimensions (indexes into reporting.PairDims), the scope
// code of its uniques, and its name in reporting_pairs.
type pair struct {
	code byte
	a, b int
	name string
}

func newPair(code byte, a, b int) pair {
	return pair{code, a, b, string(reporting.PairDims[a]) + ">" + string(reporting.PairDims[b])}
}

// pairOf is the pair of dimensions x and y, in either order, and whether
// x is its first.
func pairOf(x, y reporting.Dimension) (pair, bool, bool) {
	for _, p := range pairs {
		switch {
		case reporting.PairDims[p.a] == x && reporting.PairDims[p.b] == y:
			return p, true, true
		case reporting.PairDims[p.a] == y && reporting.PairDims[p.b] == x:
			return p, false, true
		}
	}
	return pair{}, false, false
}

// sep joins a pair's two values in the scope of its uniques; no page
// (escaped), source (control characters removed) or device holds it.
const sep = "\x1f"

type pairKey struct{ site, day, pair, a, b string }

// tripleKey is a page view's page, source and device on a day; its
// uniques have scope code 'T'.
type tripleKey struct{ site, day, page, source, device string }

// Record implements reporting.Store: the hits are counted in memory
// (tallyHits), then written in one transaction: each visitor's day
// (their session and what they were counted for), and the rollups
// (tally.write).
func (s *Store) Record(ctx context.Context, hits []reporting.Hit, reached func(ctx context.Context, tx *sql.Tx, r []reporting.GoalReached) error) error {
	if len(hits) == 0 {
		return nil
	}
	hits = slices.Clone(hits)
	slices.SortStableFunc(hits, func(a, b reporting.Hit) int { return a.At.Compare(b.At) })
	err := s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		if err := lockGoals(ctx, tx, false); err != nil {
			return err
		}
		goals, err := readGoals(ctx, tx, sitesOf(hits))
		if err != nil {
			return err
		}
		days, err := readVisitors(ctx, tx, hits)
		if err != nil {
			return err
		}
		t := tallyHits(hits, days, goals)
		if err := t.write(ctx, tx, days); err != nil {
			return err
		}
		if reached != nil && len(t.reached) > 0 {
			if err := reached(ctx, tx.Tx, t.reached); err != nil {
				return err
			}
		}
		now := s.now()
		if err := touchDays(ctx, tx, t, now); err != nil {
			return err
		}
		return s.pruneChanges(ctx, tx, now)
	})
	if err != nil {
		return fmt.Errorf("reportingsql: record: %w", err)
	}
	return nil
}

// sitesOf are the sites of hits, each once.
func sitesOf(hits []reporting.Hit) []string {
	seen := map[string]bool{}
	var sites []string
	for _, h := range hits {
		if !seen[h.Site] {
			seen[h.Site] = true
			sites = append(sites, h.Site)
		}
	}
	return sites
}

// tally is a batch counted in memory: the rollup rows, the pair rows and
// the triple rows.
type tally struct {
	inc     map[rollupKey]*reportingstore.DailyRow
	paired  map[pairKey]*reportingstore.DailyRow
	tripled map[tripleKey]*reportingstore.DailyRow
	// views are the changes to reporting_views rows, events to
	// reporting_visitor_events rows.
	views  map[viewKey]*viewRow
	events map[eventKey]int64
	// reached are the goals visitors reached for the first time that day.
	reached []reporting.GoalReached
}

// tallyHits counts hits (by time) as the analytics rules say
// (counting.Count), into the rollups, and into the adapter's own rows:
// each visitor's page views (with their sessions, bounces, lengths and
// exits), their events, and the pairs and triples of a page view's
// values. Each visitor's Day moves forward: their session, and the
// values they were counted for.
func tallyHits(hits []reporting.Hit, days map[visit]*visitorDay, goals []reporting.Goal) *tally {
	bySite := map[string][]reporting.Goal{}
	for _, g := range goals {
		bySite[g.Site] = append(bySite[g.Site], g)
	}
	t := &tally{inc: map[rollupKey]*reportingstore.DailyRow{}, paired: map[pairKey]*reportingstore.DailyRow{}, tripled: map[tripleKey]*reportingstore.DailyRow{},
		views: map[viewKey]*viewRow{}, events: map[eventKey]int64{}}
	var c counting.Counted
	for _, h := range hits {
		v := visit{h.Site, h.Day, h.Visitor}
		d := days[v]
		d.at = h.At
		counting.Count(&c, h, &d.Day, bySite[h.Site])
		for _, r := range c.Rows {
			t.add(h.Site, h.Day, r)
			if r.Dim == reporting.DimGoal && r.Visitors > 0 { // the visitor's first reach of it today
				t.reach(bySite[h.Site], r.Key, h)
			}
		}
		if c.Began || c.Extended {
			d.changed = true
		}
		n := visitorNumber(v)
		if c.Extended && d.entryRow != 0 { // the length and bounce of the session's first view
			entry := t.view(viewKey{h.Site, h.Day, n, d.entryRow})
			entry.duration += c.Step.Seconds
			if c.Step.Unbounced {
				entry.bounces--
			}
		}
		if h.Event != "" {
			t.events[eventKey{h.Site, h.Day, n, h.Event, ""}]++
			for _, p := range h.Props {
				t.events[eventKey{h.Site, h.Day, n, h.Event, p.Name + propSep + p.Value}]++
			}
			continue
		}
		t.pageView(h, d, n, c.Began)
	}
	return t
}

// reach notes that h reached the goal of key (its ID) for its visitor
// the first time that day.
func (t *tally) reach(goals []reporting.Goal, key string, h reporting.Hit) {
	for _, g := range goals {
		if strconv.FormatInt(g.ID, 10) == key {
			t.reached = append(t.reached, reporting.GoalReached{Goal: g, Hit: h})
			return
		}
	}
}

// add adds r, a rollup row's change, to the batch's.
func (t *tally) add(site, day string, r counting.Row) {
	k := rollupKey{site, day, r.Dim, r.Key}
	row := t.inc[k]
	if row == nil {
		row = &reportingstore.DailyRow{Key: r.Key}
		t.inc[k] = row
	}
	if r.Label != "" {
		row.Label = r.Label
	}
	row.Views += r.Views
	row.Visitors += r.Visitors
	row.Sessions += r.Sessions
	row.Bounces += r.Bounces
	row.Duration += r.Duration
}

// pageView counts h, a page view of visitor n, into the visitor's rows
// of reporting_views (began: it began a session), and into the pairs
// and triples of its values.
func (t *tally) pageView(h reporting.Hit, d *visitorDay, n int64, began bool) {
	row := viewKey{h.Site, h.Day, n, rowKey(h)}
	view := t.view(row)
	view.views++
	if view.dims == nil {
		view.dims = viewDims(h)
	} else if h.Title != "" {
		view.dims[1] = h.Title
	}
	switch {
	case began: // its first view: an entrance, an exit and a bounce
		view.sessions++
		view.bounces++
		view.exits++
		d.entryRow, d.lastRow = row.row, row.row
	case d.lastRow != row.row: // the session's exit moves to this row
		if d.lastRow != 0 {
			t.view(viewKey{h.Site, h.Day, n, d.lastRow}).exits--
		}
		view.exits++
		d.lastRow = row.row
	}
	if strings.Contains(h.Path, sep) || strings.Contains(h.Source, sep) || strings.Contains(h.Device, sep) {
		return
	}
	var session int64
	if began {
		session = 1
	}
	vals := [...]string{h.Path, h.Source, h.Device} // as reporting.PairDims
	labels := [...]string{h.Title, "", ""}
	for _, p := range pairs {
		k := pairKey{h.Site, h.Day, p.name, vals[p.a], vals[p.b]}
		r := t.paired[k]
		if r == nil {
			r = &reportingstore.DailyRow{Label: labels[p.a]}
			t.paired[k] = r
		}
		r.Views++
		r.Sessions += session
		if d.seen.Claim(string(p.code) + ":" + k.a + sep + k.b) {
			r.Visitors++
		}
	}
	k := tripleKey{h.Site, h.Day, h.Path, h.Source, h.Device}
	r := t.tripled[k]
	if r == nil {
		r = &reportingstore.DailyRow{Label: h.Title}
		t.tripled[k] = r
	} else if h.Title != "" {
		r.Label = h.Title
	}
	r.Views++
	r.Sessions += session
	if d.seen.Claim("T:" + k.page + sep + k.source + sep + k.device) {
		r.Visitors++
	}
}

// write stores each visitor's day, the batch's rows of reporting_views
// and reporting_visitor_events, and adds the rollups.
func (t *tally) write(ctx context.Context, tx *sqlx.Tx, days map[visit]*visitorDay) error {
	inc, paired, tripled := t.inc, t.paired, t.tripled
	if err := writeVisitors(ctx, tx, days); err != nil {
		return err
	}
	if err := t.writeSegments(ctx, tx); err != nil {
		return err
	}
	var rollups [][]any
	weekly := map[rollupKey]*reportingstore.DailyRow{}
	for k, r := range inc {
		rollups = append(rollups, []any{k.site, k.day, string(k.dim), k.key, r.Label, r.Views, r.Visitors, r.Sessions, r.Duration, r.Bounces})
		wk := rollupKey{k.site, weekOf(k.day), k.dim, k.key}
		w := weekly[wk]
		if w == nil {
			w = &reportingstore.DailyRow{}
			weekly[wk] = w
		}
		w.Views, w.Visitors, w.Sessions, w.Duration = w.Views+r.Views, w.Visitors+r.Visitors, w.Sessions+r.Sessions, w.Duration+r.Duration
		w.Bounces += r.Bounces
		if r.Label != "" {
			w.Label = r.Label
		}
	}
	sorted(rollups, 4)
	var pairRows, tripleRows [][]any
	for k, r := range paired {
		pairRows = append(pairRows, []any{k.site, k.day, k.pair, k.a, k.b, r.Label, r.Views, r.Visitors, r.Sessions})
	}
	for k, r := range tripled {
		tripleRows = append(tripleRows, []any{k.site, k.day, k.page, k.source, k.device, r.Label, r.Views, r.Visitors, r.Sessions})
	}
	sorted(pairRows, 5)
	sorted(tripleRows, 5)
	if err := addCounts(ctx, tx, "reporting_pairs", "site, day, pair, a, b", "site, pair, a, day, b", pairRows); err != nil {
		return err
	}
	if err := addCounts(ctx, tx, "reporting_triples", "site, day, page, source, device", "site, source, device, day, page", tripleRows); err != nil {
		return err
	}
	var weeks [][]any
	for k, w := range weekly {
		weeks = append(weeks, []any{k.site, k.day, string(k.dim), k.key, w.Label, w.Views, w.Visitors, w.Sessions, w.Duration, w.Bounces})
	}
	sorted(weeks, 4)
	for _, t := range []struct {
		table, period string
		rows          [][]any
	}{{"reporting_daily", "day", rollups}, {"reporting_weekly", "week", weeks}} {
		if err := values(ctx, tx, `INSERT INTO `+t.table+` (site, `+t.period+`, dim, key, label, views, visitors, sessions, duration_seconds, bounces)
			VALUES %s ON CONFLICT (site, dim, `+t.period+`, key) DO UPDATE SET views = `+t.table+`.views + excluded.views,
			visitors = `+t.table+`.visitors + excluded.visitors, sessions = `+t.table+`.sessions + excluded.sessions,
			duration_seconds = `+t.table+`.duration_seconds + excluded.duration_seconds, bounces = `+t.table+`.bounces + excluded.bounces,
			label = CASE WHEN excluded.label <> '' THEN excluded.label ELSE `+t.table+`.label END`, rollupTypes, t.rows, nil); err != nil {
			return err
		}
	}
	return nil
}

// addCounts adds rows (the five columns of cols, then label, views,
// visitors and sessions) to table, whose key is key: a new row as it is,
// an old one's counts summed, its label kept unless the new one has one.
func addCounts(ctx context.Context, tx *sqlx.Tx, table, cols, key string, rows [][]any) error {
	return values(ctx, tx, `INSERT INTO `+table+` (`+cols+`, label, views, visitors, sessions) VALUES %s
		ON CONFLICT (`+key+`) DO UPDATE SET views = `+table+`.views + excluded.views,
		visitors = `+table+`.visitors + excluded.visitors, sessions = `+table+`.sessions + excluded.sessions,
		label = CASE WHEN excluded.label <> '' THEN excluded.label ELSE `+table+`.label END`, countTypes, rows, nil)
}

// sorted orders rows by their first n columns (text), in place, and
// returns them: every writer then takes the rows' locks in one order, so
// two batches written at once (by two instances, or two flushes) wait for
// each other instead of deadlocking.
func sorted(rows [][]any, n int) [][]any {
	slices.SortFunc(rows, func(a, b []any) int {
		for i := range n {
			var c int
			switch x := a[i].(type) {
			case string:
				c = strings.Compare(x, b[i].(string))
			case int64:
				c = cmp.Compare(x, b[i].(int64))
			}
			if c != 0 {
				return c
			}
		}
		return 0
	})
	return rows
}

// Recent implements reporting.Store.
func (s *Store) Recent(ctx context.Context, days []string, since time.Time) (int, error) {
	if len(days) == 0 {
		return 0, nil
	}
	q, args, err := sqlx.In(`SELECT COUNT(*) FROM reporting_seen WHERE site = ? AND day IN (?) AND scope = 't:' AND last_seen >= ? AND hits > 0`,
		siteOf(ctx), days, store.NewTime(since))
	if err != nil {
		return 0, err
	}
	var n int
	if err := s.db.Reader().GetContext(ctx, &n, s.db.Rebind(q), args...); err != nil {
		return 0, fmt.Errorf("reportingsql: recent: %w", err)
	}
	return n, nil
}

// Forget implements reporting.Store.
func (s *Store) Forget(ctx context.Context, day, prune string) (int, error) {
	if day != "" {
		if err := s.forget(ctx, day); err != nil {
			return 0, err
		}
	}
	if prune == "" {
		return 0, nil
	}
	return s.prune(ctx, prune)
}

// forget deletes the salts of days before day and the uniques of days
// before day−1.
func (s *Store) forget(ctx context.Context, day string) error {
	err := s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM reporting_salts WHERE day < ?`), day); err != nil {
			return err
		}
		d, err := time.Parse(time.DateOnly, day)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, tx.Rebind(`DELETE FROM reporting_seen WHERE day < ?`), d.AddDate(0, 0, -1).Format(time.DateOnly))
		return err
	})
	if err != nil {
		return fmt.Errorf("reportingsql: forget: %w", err)
	}
	return nil
}

// prune deletes the rollups of days before day, and returns how many
// daily rows.
func (s *Store) prune(ctx context.Context, day string) (int, error) {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`DELETE FROM reporting_daily WHERE day < ?`), day)
	if err != nil {
		return 0, fmt.Errorf("reportingsql: prune: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, err
	}
	for _, table := range []string{"reporting_pairs", "reporting_triples", "reporting_views", "reporting_visitor_events", "reporting_days", "reporting_day_columns",
		"reporting_day_changes"} {
		if _, err := s.db.ExecContext(ctx, s.db.Rebind(`DELETE FROM `+table+` WHERE day < ?`), day); err != nil {
			return 0, fmt.Errorf("reportingsql: prune: %w", err)
		}
	}
	// Weeks that ended before day.
	if _, err := s.db.ExecContext(ctx, s.db.Rebind(`DELETE FROM reporting_weekly WHERE week < ?`), weekOf(day)); err != nil {
		return 0, fmt.Errorf("reportingsql: prune: %w", err)
	}
	return int(n), nil
}
