package reportingsql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingstore"
	"github.com/groundwork-go/groundwork/store"
)

// A visitor's page views of a day by every value they had, and their
// events, for reports narrowed by any dimensions together (Segment).

// viewKey names a reporting_views row: a visitor's views of a day with
// one set of values.
type viewKey struct {
	site, day    string
	visitor, row int64
}

// viewDimCount is how many values a reporting_views row keeps: page,
// label, source, device, country, browser, os and the four campaign
// values (viewColumns).
const viewDimCount = 11

// viewColumns are reporting_views' value columns, in viewDims' order.
const viewColumns = "page, label, source, device, country, browser, os, medium, campaign, term, content"

// viewRow is a batch's change to a reporting_views row. dims are its
// values when the batch saw one of its views; nil for a row written
// before that the batch changes only (a session's bounce, length or exit
// moving).
type viewRow struct {
	dims                                      *[viewDimCount]string
	views, sessions, bounces, duration, exits int64
}

// eventKey names a reporting_visitor_events row: prop is "" for the
// event itself, else "name<propSep>value".
type eventKey struct {
	site, day   string
	visitor     int64
	event, prop string
}

// propSep joins a property's name and value, as reporting.PropKey does.
const propSep = "\x1f"

// Column types of the statements that write them.
var (
	viewTypes      = []string{"text", "text", "bigint", "bigint", "text", "text", "text", "text", "text", "text", "text", "text", "text", "text", "text", "bigint", "bigint", "bigint", "bigint", "bigint"}
	viewDeltaTypes = []string{"text", "text", "bigint", "bigint", "bigint", "bigint", "bigint"}
	eventTypes     = []string{"text", "text", "bigint", "text", "text", "bigint"}
)

// view is the batch's change to the row k.
func (t *tally) view(k viewKey) *viewRow {
	r := t.views[k]
	if r == nil {
		r = &viewRow{}
		t.views[k] = r
	}
	return r
}

// visitorNumber is the number reporting_views keeps for a visitor of a
// day: a 64-bit hash of the day and the day's visitor hash, so the same
// hash on two days is two visitors, as the rollups count them.
func visitorNumber(v visit) int64 {
	h := fnv.New64a()
	h.Write([]byte(v.day))
	h.Write([]byte{0})
	h.Write([]byte(v.visitor))
	return int64(h.Sum64())
}

// viewDims are a page view's values as reporting_views keeps them.
func viewDims(h reporting.Hit) *[viewDimCount]string {
	return &[viewDimCount]string{h.Path, h.Title, h.Source, h.Device, h.Country, h.Browser, h.OS,
		h.Campaign[0], h.Campaign[1], h.Campaign[2], h.Campaign[3]}
}

// rowKey is a 64-bit hash of a page view's values (not its title), never
// 0 (which stands for a row not known).
func rowKey(h reporting.Hit) int64 {
	f := fnv.New64a()
	for _, v := range [...]string{h.Path, h.Source, h.Device, h.Country, h.Browser, h.OS, h.Campaign[0], h.Campaign[1], h.Campaign[2], h.Campaign[3]} {
		f.Write([]byte(v))
		f.Write([]byte{0})
	}
	if k := int64(f.Sum64()); k != 0 {
		return k
	}
	return 1
}

// writeSegments writes the batch's reporting_views rows (added to those
// kept), the changes to rows of earlier batches, and the visitors' events.
func (t *tally) writeSegments(ctx context.Context, tx *sqlx.Tx) error {
	var rows, deltas, events [][]any
	for k, v := range t.views {
		switch {
		case v.dims != nil:
			r := make([]any, 0, len(viewTypes))
			r = append(r, k.site, k.day, k.visitor, k.row)
			for _, d := range v.dims {
				r = append(r, d)
			}
			rows = append(rows, append(r, v.views, v.sessions, v.bounces, v.duration, v.exits))
		case v.bounces != 0 || v.duration != 0 || v.exits != 0:
			deltas = append(deltas, []any{k.site, k.day, k.visitor, k.row, v.bounces, v.duration, v.exits})
		}
	}
	for k, n := range t.events {
		events = append(events, []any{k.site, k.day, k.visitor, k.event, k.prop, n})
	}
	if err := values(ctx, tx, `INSERT INTO reporting_views (site, day, visitor, row_key, `+viewColumns+`, views, sessions, bounces, duration_seconds, exits)
		VALUES %s ON CONFLICT (site, day, visitor, row_key) DO UPDATE SET views = reporting_views.views + excluded.views,
		sessions = reporting_views.sessions + excluded.sessions, bounces = reporting_views.bounces + excluded.bounces,
		duration_seconds = reporting_views.duration_seconds + excluded.duration_seconds, exits = reporting_views.exits + excluded.exits,
		label = CASE WHEN excluded.label <> '' THEN excluded.label ELSE reporting_views.label END`, viewTypes, sorted(rows, 4), nil); err != nil {
		return err
	}
	// A row no longer kept (pruned) is not made again.
	if err := values(ctx, tx, `WITH d (site, day, visitor, row_key, bounces, duration_seconds, exits) AS (VALUES %s)
		UPDATE reporting_views SET bounces = reporting_views.bounces + d.bounces,
		duration_seconds = reporting_views.duration_seconds + d.duration_seconds, exits = reporting_views.exits + d.exits
		FROM d WHERE reporting_views.site = d.site AND reporting_views.day = d.day AND reporting_views.visitor = d.visitor
		AND reporting_views.row_key = d.row_key`,
		viewDeltaTypes, sorted(deltas, 4), nil); err != nil {
		return err
	}
	return values(ctx, tx, `INSERT INTO reporting_visitor_events (site, day, visitor, event, prop, count) VALUES %s
		ON CONFLICT (site, day, visitor, event, prop) DO UPDATE SET count = reporting_visitor_events.count + excluded.count`,
		eventTypes, sorted(events, 5), nil)
}

var _ reporting.SegmentStore = (*Store)(nil)

// viewDimColumns are the dimensions reporting_views keeps a column of
// (named as the dimension), and whether a view without one is left out
// of its report (as the rollups leave it).
var viewDimColumns = map[reporting.Dimension]bool{reporting.DimPage: false, reporting.DimSource: false, reporting.DimDevice: false,
	reporting.DimCountry: true, reporting.DimBrowser: true, reporting.DimOS: true,
	reporting.DimMedium: true, reporting.DimCampaign: true, reporting.DimTerm: true, reporting.DimContent: true}

// Segment implements reporting.SegmentStore.
func (s *Store) Segment(ctx context.Context, fs reporting.Filters, dim reporting.Dimension, from, to string, limit int) ([]reportingstore.DailyRow, error) {
	if !fs.Valid() {
		return nil, fmt.Errorf("reportingsql: segment: not a set of filters: %v: %w", fs, reporting.ErrBadFilter)
	}
	var goals []reporting.Goal
	if _, ok := fs.Value(reporting.DimGoal); ok || dim == reporting.DimGoal {
		var err error
		if goals, err = readGoals(ctx, s.db.Reader(), []string{siteOf(ctx)}); err != nil {
			return nil, fmt.Errorf("reportingsql: segment: %w", err)
		}
	}
	fs, goals = stepsInPlace(fs, goals)
	n, err := s.narrow(siteOf(ctx), fs, goals)
	if err != nil {
		return nil, err
	}
	rows, kept, err := s.segmentKept(ctx, fs, n, goals, dim, from, to)
	if !kept && err == nil {
		rows, err = s.segmentSQL(ctx, n, goals, dim, from, to, limit)
	} else if dim != reporting.DimTotal && dim != reporting.DimGoal && limit > 0 && len(rows) > limit {
		rows = rows[:limit]
	}
	if err != nil {
		return nil, fmt.Errorf("reportingsql: segment %s by %v: %w", dim, fs, err)
	}
	return rows, nil
}

// stepsInPlace makes each goal filter that is a step in place
// ("page:/pricing", "event:form_submitted") a goal of its own, with an
// ID below zero that no stored goal has, and the filter that goal's.
func stepsInPlace(fs reporting.Filters, goals []reporting.Goal) (reporting.Filters, []reporting.Goal) {
	out := fs
	for i, f := range fs {
		if f.Dim != reporting.DimGoal {
			continue
		}
		var g reporting.Goal
		if page, ok := strings.CutPrefix(f.Value, "page:"); ok {
			g.Page = page
		} else if event, ok := strings.CutPrefix(f.Value, "event:"); ok {
			g.Event = event
		} else {
			continue
		}
		if len(out) > 0 && &out[0] == &fs[0] {
			out = slices.Clone(fs)
		}
		g.ID = -int64(i + 1)
		goals = append(goals[:len(goals):len(goals)], g)
		out[i].Value = strconv.FormatInt(g.ID, 10)
	}
	return out, goals
}

// segmentSQL reads dim's rows of the views n keeps from the tables.
func (s *Store) segmentSQL(ctx context.Context, n narrowing, goals []reporting.Goal, dim reporting.Dimension, from, to string, limit int) ([]reportingstore.DailyRow, error) {
	switch {
	case dim == reporting.DimGoal:
		return s.segmentGoals(ctx, n, goals, from, to)
	case dim == reporting.DimEvent || dim == reporting.DimProp:
		return s.segmentEvents(ctx, n, dim, from, to, limit)
	}
	return s.segmentViews(ctx, n, dim, from, to, limit)
}

// narrowing is a set of filters as SQL: the conditions a reporting_views
// row must meet itself (its values), and the sets of (day, visitor) its
// visitor must be in (a view with those values, a goal reached, a
// property sent that day).
type narrowing struct {
	site    string
	views   []string // "col = ?"
	viewArg []any
	sets    []visitorSet
}

// visitorSet is the (day, visitor) of the rows of table (alias k) that
// meet cond.
type visitorSet struct {
	table, cond string
	args        []any
}

// narrow makes fs a narrowing of site's views.
func (s *Store) narrow(site string, fs reporting.Filters, goals []reporting.Goal) (narrowing, error) {
	n := narrowing{site: site}
	for _, f := range fs.Sorted() {
		switch f.Dim {
		case reporting.DimGoal:
			id, _ := strconv.ParseInt(f.Value, 10, 64)
			i := slices.IndexFunc(goals, func(g reporting.Goal) bool { return g.ID == id })
			if i < 0 {
				return n, fmt.Errorf("reportingsql: segment: no goal %d: %w", id, reporting.ErrBadFilter)
			}
			n.sets = append(n.sets, s.reached(goals[i]))
		case reporting.DimProp:
			name, value, _ := reporting.SplitPropFilter(f.Value)
			n.sets = append(n.sets, visitorSet{"reporting_visitor_events", "k.prop = ?", []any{name + propSep + value}})
		default:
			n.views = append(n.views, string(f.Dim)+" = ?")
			n.viewArg = append(n.viewArg, f.Value)
		}
	}
	return n, nil
}

// goalProp is the prop of the reporting_visitor_events rows an event
// goal matches: its property and value, or "" for the event itself.
func goalProp(g reporting.Goal) string {
	if g.Property == "" {
		return ""
	}
	return g.Property + propSep + g.Value
}

// reached is the set of (day, visitor) that reached g.
func (s *Store) reached(g reporting.Goal) visitorSet {
	if g.Event != "" {
		return visitorSet{"reporting_visitor_events", "k.event = ? AND k.prop = ?", []any{g.Event, goalProp(g)}}
	}
	cond, arg := s.glob("k.page", g.Page)
	return visitorSet{"reporting_views", cond, []any{arg}}
}

// glob is the condition that col matches a goal's page pattern (each *
// any run of characters, the rest itself, letter case too): GLOB on
// SQLite, LIKE on Postgres, the pattern's other wildcards escaped.
func (s *Store) glob(col, pattern string) (string, any) {
	if !strings.Contains(pattern, "*") {
		return col + " = ?", pattern
	}
	if s.db.Dialect() == store.Postgres {
		r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`, `*`, `%`)
		return col + ` LIKE ? ESCAPE '\'`, r.Replace(pattern)
	}
	r := strings.NewReplacer(`[`, `[[]`, `?`, `[?]`)
	return col + " GLOB ?", r.Replace(pattern)
}

// where is the condition on the rows of alias a (and its arguments) of
// the narrowing's site over from..to: the rows' own values when own, else that the visitor had a
// view with them that day; and the visitor's goals and properties. A set
// of visitors is read once (IN) when the rows are many (outer is
// reporting_views, read whole), or looked up a row (EXISTS) when they are
// few (lookUp: events, a goal's conversions) and the set is of
// reporting_views, which is large; a set of events is small and read once.
func (n narrowing) where(a string, own, lookUp bool, from, to string) (string, []any) {
	conds := []string{a + ".site = ?", a + ".day >= ?", a + ".day <= ?"}
	args := []any{n.site, from, to}
	sets := n.sets
	if len(n.views) > 0 {
		if own {
			for _, c := range n.views {
				conds = append(conds, a+"."+c)
			}
			args = append(args, n.viewArg...)
		} else {
			vc := make([]string, len(n.views))
			for i, c := range n.views {
				vc[i] = "k." + c
			}
			sets = append([]visitorSet{{"reporting_views", strings.Join(vc, " AND "), n.viewArg}}, sets...)
		}
	}
	for _, set := range sets {
		if lookUp && set.table == "reporting_views" {
			conds = append(conds, `EXISTS (SELECT 1 FROM `+set.table+` k WHERE k.site = `+a+`.site AND k.day = `+a+`.day AND k.visitor = `+a+`.visitor AND `+
				set.cond+`)`)
			args = append(args, set.args...)
			continue
		}
		conds = append(conds, `(`+a+`.day, `+a+`.visitor) IN (SELECT k.day, k.visitor FROM `+set.table+` k WHERE `+set.cond+
			` AND k.site = ? AND k.day >= ? AND k.day <= ?)`)
		args = append(append(args, set.args...), n.site, from, to)
	}
	return strings.Join(conds, " AND "), args
}

// segmentViews reads the views n keeps by dim: a row a day (DimTotal), by
// one of their values, by the page sessions began on (DimEntry) or ended
// on (DimExit).
func (s *Store) segmentViews(ctx context.Context, n narrowing, dim reporting.Dimension, from, to string, limit int) ([]reportingstore.DailyRow, error) {
	cond, args := n.where("v", true, false, from, to)
	counts := `SUM(v.views) AS views, COUNT(DISTINCT v.visitor) AS visitors, SUM(v.sessions) AS sessions,
		SUM(v.duration_seconds) AS duration_seconds, SUM(v.bounces) AS bounces`
	var q string
	switch dim {
	case reporting.DimTotal:
		q = `SELECT v.day AS key, '' AS label, ` + counts + ` FROM reporting_views v WHERE ` + cond + ` GROUP BY v.day ORDER BY v.day`
		limit = 0
	case reporting.DimEntry:
		q = `SELECT v.page AS key, MAX(v.label) AS label, SUM(v.sessions) AS views,
			COUNT(DISTINCT CASE WHEN v.sessions > 0 THEN v.visitor END) AS visitors, SUM(v.sessions) AS sessions,
			SUM(v.duration_seconds) AS duration_seconds, SUM(v.bounces) AS bounces
			FROM reporting_views v WHERE ` + cond + ` GROUP BY v.page HAVING SUM(v.sessions) > 0 ORDER BY views DESC, key`
	case reporting.DimExit:
		q = `SELECT v.page AS key, MAX(v.label) AS label, SUM(v.exits) AS views, 0 AS visitors, 0 AS sessions,
			0 AS duration_seconds, 0 AS bounces
			FROM reporting_views v WHERE ` + cond + ` GROUP BY v.page HAVING SUM(v.exits) > 0 ORDER BY views DESC, key`
	default:
		skipEmpty, ok := viewDimColumns[dim]
		if !ok {
			return nil, fmt.Errorf("no dimension %q kept by visitor", dim)
		}
		label := "''"
		if dim == reporting.DimPage {
			label = "MAX(v.label)"
		}
		if skipEmpty {
			cond += " AND v." + string(dim) + " <> ''"
		}
		q = `SELECT v.` + string(dim) + ` AS key, ` + label + ` AS label, ` + counts + ` FROM reporting_views v WHERE ` + cond +
			` GROUP BY v.` + string(dim) + ` ORDER BY views DESC, key`
	}
	return s.selectRows(ctx, q, args, limit)
}

// segmentEvents reads the events (DimEvent) or their properties (DimProp,
// keyed by reporting.PropKey) of the visitors n keeps.
func (s *Store) segmentEvents(ctx context.Context, n narrowing, dim reporting.Dimension, from, to string, limit int) ([]reportingstore.DailyRow, error) {
	cond, args := n.where("e", false, true, from, to)
	which := "e.prop = ''"
	if dim == reporting.DimProp {
		which = "e.prop <> ''"
	}
	q := `SELECT e.event AS event, e.prop AS prop, SUM(e.count) AS views, COUNT(DISTINCT e.visitor) AS visitors
		FROM reporting_visitor_events e WHERE ` + which + ` AND ` + cond + ` GROUP BY e.event, e.prop ORDER BY views DESC, event, prop`
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	var found []struct {
		Event    string `db:"event"`
		Prop     string `db:"prop"`
		Views    int64  `db:"views"`
		Visitors int64  `db:"visitors"`
	}
	if err := s.db.Reader().SelectContext(ctx, &found, s.db.Rebind(q), args...); err != nil {
		return nil, err
	}
	rows := make([]reportingstore.DailyRow, len(found))
	for i, f := range found {
		key := f.Event
		if dim == reporting.DimProp {
			key = f.Event + propSep + f.Prop
		}
		rows[i] = reportingstore.DailyRow{Key: key, Views: f.Views, Visitors: f.Visitors}
	}
	return rows, nil
}

// segmentGoals reads each goal's conversions by the visitors n keeps: a
// row a goal with any, keyed by its ID.
func (s *Store) segmentGoals(ctx context.Context, n narrowing, goals []reporting.Goal, from, to string) ([]reportingstore.DailyRow, error) {
	var rows []reportingstore.DailyRow
	for _, g := range goals {
		var q string
		var args []any
		if g.Event != "" {
			prop := goalProp(g)
			cond, a := n.where("c", false, true, from, to)
			q = `SELECT COALESCE(SUM(c.count), 0) AS views, COUNT(DISTINCT c.visitor) AS visitors FROM reporting_visitor_events c
				WHERE c.event = ? AND c.prop = ? AND ` + cond
			args = append([]any{g.Event, prop}, a...)
		} else {
			page, arg := s.glob("c.page", g.Page)
			cond, a := n.where("c", false, true, from, to)
			q = `SELECT COALESCE(SUM(c.views), 0) AS views, COUNT(DISTINCT c.visitor) AS visitors FROM reporting_views c
				WHERE ` + page + ` AND ` + cond
			args = append([]any{arg}, a...)
		}
		var row reportingstore.DailyRow
		if err := s.db.Reader().GetContext(ctx, &row, s.db.Rebind(q), args...); err != nil {
			return nil, err
		}
		if row.Views > 0 {
			row.Key = strconv.FormatInt(g.ID, 10)
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// SessionEntry implements reporting.SegmentStore: the visitor's row of
// the day names their session's first view (entry_row), whose values
// reporting_views keeps; both read in one statement, by primary key.
func (s *Store) SessionEntry(ctx context.Context, day, visitor string) (reporting.Hit, bool, error) {
	var v struct {
		Page, Source, Country, Medium, Campaign, Term, Content string
	}
	err := s.db.Reader().QueryRowxContext(ctx, s.db.Rebind(`SELECT v.page, v.source, v.country, v.medium, v.campaign, v.term, v.content
		FROM reporting_seen AS t JOIN reporting_views AS v ON v.site = t.site AND v.day = t.day AND v.visitor = ? AND v.row_key = t.entry_row
		WHERE t.site = ? AND t.day = ? AND t.visitor = ? AND t.scope = 't:'`), visitorNumber(visit{day: day, visitor: visitor}), siteOf(ctx), day, visitor).
		Scan(&v.Page, &v.Source, &v.Country, &v.Medium, &v.Campaign, &v.Term, &v.Content)
	if errors.Is(err, sql.ErrNoRows) {
		return reporting.Hit{}, false, nil
	}
	if err != nil {
		return reporting.Hit{}, false, fmt.Errorf("reportingsql: session entry: %w", err)
	}
	return reporting.Hit{Day: day, Visitor: visitor, Path: v.Page, Source: v.Source, Country: v.Country,
		Campaign: [4]string{v.Medium, v.Campaign, v.Term, v.Content}}, true, nil
}
