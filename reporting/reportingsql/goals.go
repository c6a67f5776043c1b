package reportingsql

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/counting"
	"github.com/groundwork-go/groundwork/reporting/reportingstore"
	"github.com/groundwork-go/groundwork/store"
)

var _ reporting.GoalStore = (*Store)(nil)

// goalRow is a row of reporting_goals.
type goalRow struct {
	ID        int64      `db:"id"`
	Name      string     `db:"name"`
	Page      string     `db:"page"`
	Event     string     `db:"event"`
	Property  string     `db:"property"`
	Value     string     `db:"value"`
	Owner     string     `db:"owner"`
	CreatedAt store.Time `db:"created_at"`
	Site      string     `db:"site"`
}

func (r goalRow) goal() reporting.Goal {
	return reporting.Goal{ID: r.ID, Name: r.Name, Page: r.Page, Event: r.Event, Property: r.Property, Value: r.Value, Owner: r.Owner,
		CreatedAt: r.CreatedAt.Time, Site: r.Site}
}

const goalColumns = `id, name, page, event, property, value, owner, created_at, site`

// Goals implements reporting.GoalStore.
func (s *Store) Goals(ctx context.Context) ([]reporting.Goal, error) {
	goals, err := readGoals(ctx, s.db.Reader(), []string{siteOf(ctx)})
	if err != nil {
		return nil, fmt.Errorf("reportingsql: goals: %w", err)
	}
	return goals, nil
}

// readGoals reads the goals of sites, by ID.
func readGoals(ctx context.Context, q interface {
	sqlx.QueryerContext
	Rebind(string) string
}, sites []string) ([]reporting.Goal, error) {
	query, args, err := sqlx.In(`SELECT `+goalColumns+` FROM reporting_goals WHERE site IN (?) ORDER BY id`, sites)
	if err != nil {
		return nil, err
	}
	var rows []goalRow
	if err := sqlx.SelectContext(ctx, q, &rows, q.Rebind(query), args...); err != nil {
		return nil, err
	}
	goals := make([]reporting.Goal, len(rows))
	for i, r := range rows {
		goals[i] = r.goal()
	}
	return goals, nil
}

// lockGoals keeps the goals as they are until tx ends: a batch of hits
// shares the lock, a change of goals takes it alone (Postgres; SQLite
// has one writer at a time).
func lockGoals(ctx context.Context, tx *sqlx.Tx, alone bool) error {
	if tx.DriverName() != "pgx" {
		return nil
	}
	mode := "ROW SHARE"
	if alone {
		mode = "EXCLUSIVE"
	}
	_, err := tx.ExecContext(ctx, `LOCK TABLE reporting_goals IN `+mode+` MODE`)
	return err
}

// AddGoal implements reporting.GoalStore.
func (s *Store) AddGoal(ctx context.Context, g reporting.Goal) (reporting.Goal, error) {
	g, err := g.Normalize()
	if err != nil {
		return reporting.Goal{}, err
	}
	if g.CreatedAt.IsZero() {
		g.CreatedAt = time.Now().UTC().Truncate(time.Second)
	}
	g.Site = siteOf(ctx)
	err = s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		if err := lockGoals(ctx, tx, true); err != nil {
			return err
		}
		var n int
		if err := tx.GetContext(ctx, &n, tx.Rebind(`SELECT COUNT(*) FROM reporting_goals WHERE site = ?`), g.Site); err != nil {
			return err
		}
		if n >= reporting.MaxGoals {
			return fmt.Errorf("%w: at most %d goals; remove one first", reporting.ErrBadGoal, reporting.MaxGoals)
		}
		if err := tx.GetContext(ctx, &g.ID, tx.Rebind(`INSERT INTO reporting_goals (name, page, event, property, value, owner,
			created_at, site) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`), g.Name, g.Page, g.Event, g.Property, g.Value, g.Owner,
			store.NewTime(g.CreatedAt), g.Site); err != nil {
			return err
		}
		return backfillGoal(ctx, tx, g)
	})
	if err != nil {
		if errors.Is(err, reporting.ErrBadGoal) {
			return reporting.Goal{}, err
		}
		return reporting.Goal{}, fmt.Errorf("reportingsql: add goal: %w", err)
	}
	return g, nil
}

// backfillGoal counts g over the rollups and uniques already kept: an
// exact goal's rows are its page's, event's or property value's; a page
// pattern sums its pages' views and takes the most visited one's
// visitors, except on the days whose uniques are kept, where its visitors
// are counted from them.
func backfillGoal(ctx context.Context, tx *sqlx.Tx, g reporting.Goal) error {
	key := strconv.FormatInt(g.ID, 10)
	var dim reporting.Dimension
	var match, scope string
	var arg any
	switch {
	case g.Event != "" && g.Property != "":
		dim, match, arg = reporting.DimProp, "key = ?", reporting.PropKey(g.Event, g.Property, g.Value)
		scope = counting.Scope(dim, arg.(string))
	case g.Event != "":
		dim, match, arg, scope = reporting.DimEvent, "key = ?", g.Event, counting.Scope(reporting.DimEvent, g.Event)
	case g.Exact():
		dim, match, arg, scope = reporting.DimPage, "key = ?", g.Page, counting.Scope(reporting.DimPage, g.Page)
	default:
		var pattern string
		match, pattern = patternMatch(tx, "key", g.Page, "")
		dim, arg = reporting.DimPage, pattern
	}
	tables := []struct{ table, period string }{{"reporting_daily", "day"}, {"reporting_weekly", "week"}}
	if !g.Exact() { // a pattern's weeks are summed from its days below
		tables = tables[:1]
	}
	for _, t := range tables {
		if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO `+t.table+` (site, `+t.period+`, dim, key, label, views, visitors, sessions,
			duration_seconds, bounces)
			SELECT site, `+t.period+`, 'goal', ?, '', SUM(views), MAX(visitors), 0, 0, 0 FROM `+t.table+`
			WHERE site = ? AND dim = ? AND `+match+` GROUP BY site, `+t.period), key, g.Site, dim, arg); err != nil {
			return err
		}
	}
	// The visitors kept (of the days whose visitors are still known) who
	// reached the goal are counted for it, so none is counted again.
	reached := func(v string) bool { return v == scope }
	if !g.Exact() {
		pages := counting.Scope(reporting.DimPage, "")
		reached = func(v string) bool { return strings.HasPrefix(v, pages) && reporting.Glob(g.Page, v[len(pages):]) }
	}
	visitors := map[string]int64{}
	if err := editSeen(ctx, tx, g.Site, func(day string, s *seenSet) bool {
		s.load()
		for v := range s.m {
			if reached(v) {
				visitors[day]++
				return s.Claim(counting.Scope(reporting.DimGoal, key))
			}
		}
		return false
	}); err != nil {
		return err
	}
	if g.Exact() {
		return nil
	}
	// A pattern: its visitors on those days are those counted.
	for day, n := range visitors {
		if _, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE reporting_daily SET visitors = ? WHERE site = ? AND dim = 'goal' AND day = ? AND key = ?`),
			n, g.Site, day, key); err != nil {
			return err
		}
	}
	// The weeks, as the sums of the days kept (a week whose first days
	// are pruned counts the rest).
	var days []reportingstore.DailyRow
	if err := tx.SelectContext(ctx, &days, tx.Rebind(`SELECT day AS key, views, visitors FROM reporting_daily WHERE site = ? AND dim = 'goal' AND key = ?`),
		g.Site, key); err != nil {
		return err
	}
	weeks := map[string]*reportingstore.DailyRow{}
	var order []string
	for _, d := range days {
		w := weeks[weekOf(d.Key)]
		if w == nil {
			w = &reportingstore.DailyRow{}
			weeks[weekOf(d.Key)] = w
			order = append(order, weekOf(d.Key))
		}
		w.Views, w.Visitors = w.Views+d.Views, w.Visitors+d.Visitors
	}
	rows := make([][]any, 0, len(order))
	for _, wk := range order {
		rows = append(rows, []any{g.Site, wk, string(reporting.DimGoal), key, "", weeks[wk].Views, weeks[wk].Visitors, 0, 0, 0})
	}
	return values(ctx, tx, `INSERT INTO reporting_weekly (site, week, dim, key, label, views, visitors, sessions, duration_seconds, bounces) VALUES %s`,
		rollupTypes, rows, nil)
}

// patternMatch is the condition that column (prefix, then a path)
// matches a goal's page pattern as reporting.Glob does, and its argument:
// a case-sensitive GLOB on SQLite (whose LIKE ignores case), LIKE on
// Postgres; the other wildcards of each taken literally.
func patternMatch(tx *sqlx.Tx, column, page, prefix string) (string, string) {
	if tx.DriverName() == "pgx" {
		r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`, `*`, `%`)
		return column + ` LIKE ? ESCAPE '\'`, r.Replace(prefix + page)
	}
	r := strings.NewReplacer(`?`, `[?]`, `[`, `[[]`)
	return column + ` GLOB ?`, r.Replace(prefix + page)
}

// DeleteGoal implements reporting.GoalStore.
func (s *Store) DeleteGoal(ctx context.Context, id int64) error {
	key, site := strconv.FormatInt(id, 10), siteOf(ctx)
	err := s.db.InTx(ctx, func(tx *sqlx.Tx) error {
		if err := lockGoals(ctx, tx, true); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM reporting_goals WHERE id = ? AND site = ?`), id, site)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return reporting.ErrGoalNotFound
		}
		for _, q := range []string{`DELETE FROM reporting_daily WHERE site = ? AND dim = 'goal' AND key = ?`,
			`DELETE FROM reporting_weekly WHERE site = ? AND dim = 'goal' AND key = ?`} {
			if _, err := tx.ExecContext(ctx, tx.Rebind(q), site, key); err != nil {
				return err
			}
		}
		// Its revenue, by currency (keys "<id><US><currency>").
		for _, table := range []string{"reporting_daily", "reporting_weekly"} {
			if _, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM `+table+` WHERE site = ? AND dim = 'revenue' AND key >= ? AND key < ?`),
				site, key+"\x1f", key+"\x20"); err != nil {
				return err
			}
		}
		// No visitor is counted for it any more (a goal made later may
		// take its number).
		return editSeen(ctx, tx, site, func(_ string, s *seenSet) bool { return s.remove(counting.Scope(reporting.DimGoal, key)) })
	})
	if err != nil {
		if errors.Is(err, reporting.ErrGoalNotFound) {
			return err
		}
		return fmt.Errorf("reportingsql: delete goal: %w", err)
	}
	return nil
}
