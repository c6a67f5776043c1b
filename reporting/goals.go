package reporting

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/groundwork-go/groundwork/reporting/reportingstore"
)

// DimGoal counts the hits that reached a goal: its keys are goal IDs (in
// decimal), Views the conversions, Visitors the visitors who converted.
const DimGoal Dimension = "goal"

// Goal limits.
const (
	// MaxGoals is how many goals a site may have.
	MaxGoals = 100
	// MaxGoalNameLength caps a goal's name.
	MaxGoalNameLength = 120
)

// Goal is a conversion the reports count: a page view of a path that
// matches Page (a path, where each * stands for any characters:
// "/thanks", "/blog/*"), or an event named Event, optionally only with
// its property Property equal to Value.
type Goal struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Page     string `json:"page,omitempty"`
	Event    string `json:"event,omitempty"`
	Property string `json:"property,omitempty"`
	Value    string `json:"value,omitempty"`
	// Owner is the webhooks owner whose subscriptions are told when a
	// visitor reaches the goal (analytics.goal_reached): "" for the
	// default owner.
	Owner     string    `json:"owner,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// Site is the site the goal counts the visitors of (the tenant of the
	// context it was made in).
	Site string `json:"-"`
}

// maxGoalOwnerLength caps a goal's owner, as webhooks caps an owner's name.
const maxGoalOwnerLength = 200

// ErrBadGoal wraps what is wrong with a goal.
var ErrBadGoal = errors.New("reporting: bad goal")

// ErrGoalNotFound is a goal that is not there.
var ErrGoalNotFound = errors.New("reporting: no such goal")

// ErrNoGoals is asked of an analytics source or a store that keeps no
// goals.
var ErrNoGoals = errors.New("reporting: the analytics source keeps no goals")

// Normalize checks g and fills its name: exactly one of Page and Event;
// a page starts with / and has no control characters; Property and Value
// only with an event, both or neither. The error wraps ErrBadGoal and
// names the field (as "page: ...").
func (g Goal) Normalize() (Goal, error) {
	g.Name, g.Page, g.Event = strings.TrimSpace(g.Name), strings.TrimSpace(g.Page), strings.TrimSpace(g.Event)
	g.Property, g.Owner = strings.TrimSpace(g.Property), strings.TrimSpace(g.Owner)
	bad := func(field, msg string) (Goal, error) { return g, fmt.Errorf("%w: %s: %s", ErrBadGoal, field, msg) }
	switch {
	case g.Page == "" && g.Event == "":
		return bad("page", "give a page (\"/thanks\", \"/blog/*\") or an event")
	case g.Page != "" && g.Event != "":
		return bad("event", "a goal is a page or an event, not both")
	case g.Page != "" && !strings.HasPrefix(g.Page, "/") && !strings.HasPrefix(g.Page, "*"):
		return bad("page", "a page starts with / (\"/thanks\")")
	case len(g.Page) > MaxPathLength:
		return bad("page", "at most "+strconv.Itoa(MaxPathLength)+" bytes")
	case len(g.Event) > MaxEventNameLength:
		return bad("event", "at most "+strconv.Itoa(MaxEventNameLength)+" bytes")
	case g.Page != "" && (g.Property != "" || g.Value != ""):
		return bad("property", "only an event goal has a property")
	case g.Property == "" && g.Value != "" || g.Property != "" && g.Value == "":
		return bad("property", "give the property and its value together")
	case len(g.Property) > MaxPropNameLength:
		return bad("property", "at most "+strconv.Itoa(MaxPropNameLength)+" bytes")
	case len(g.Value) > MaxPropValueLength:
		return bad("value", "at most "+strconv.Itoa(MaxPropValueLength)+" bytes")
	case utf8.RuneCountInString(g.Name) > MaxGoalNameLength:
		return bad("name", "at most "+strconv.Itoa(MaxGoalNameLength)+" characters")
	case len(g.Owner) > maxGoalOwnerLength || g.Owner == "*":
		return bad("owner", "at most "+strconv.Itoa(maxGoalOwnerLength)+" bytes, and not *")
	}
	for field, v := range map[string]string{"name": g.Name, "page": g.Page, "event": g.Event, "property": g.Property, "value": g.Value,
		"owner": g.Owner} {
		if !utf8.ValidString(v) || strings.ContainsFunc(v, unicode.IsControl) {
			return bad(field, "no control characters")
		}
	}
	if g.Name == "" {
		switch {
		case g.Page != "":
			g.Name = "Visit " + g.Page
		case g.Property != "":
			g.Name = g.Event + " (" + g.Property + ": " + g.Value + ")"
		default:
			g.Name = g.Event
		}
	}
	return g, nil
}

// Exact reports whether g's visitors can be read from the rollups kept
// before it was made: an event, or a page with no *.
func (g Goal) Exact() bool { return !strings.Contains(g.Page, "*") }

// Matches reports whether h reaches g.
func (g Goal) Matches(h Hit) bool {
	if g.Event != "" {
		if h.Event != g.Event {
			return false
		}
		if g.Property == "" {
			return true
		}
		for _, p := range h.Props {
			if p.Name == g.Property && p.Value == g.Value {
				return true
			}
		}
		return false
	}
	return h.Event == "" && Glob(g.Page, h.Path)
}

// Glob reports whether s matches pattern, where each * stands for any
// run of characters (slashes too) and everything else for itself.
func Glob(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return len(s) >= len(last) && strings.HasSuffix(s, last)
}

// GoalStore is a Store that keeps goals (reportingsql's). Record counts
// each hit in DimGoal under every goal it reaches, with the goals as they
// are when the batch is written.
type GoalStore interface {
	// Goals are the goals, by ID.
	Goals(ctx context.Context) ([]Goal, error)
	// AddGoal stores g (normalized) and counts it over the rollups already
	// kept, in one transaction that no batch of hits is written across:
	// exactly for an exact goal; a page pattern's conversions exactly and
	// its visitors as its most visited matching page's on each day
	// before today (a lower bound, as a visitor's pages that day are not
	// kept), exactly on the days whose visitors are still kept. It
	// returns ErrBadGoal beyond MaxGoals.
	AddGoal(ctx context.Context, g Goal) (Goal, error)
	// DeleteGoal removes the goal and its counts; ErrGoalNotFound when
	// there is none.
	DeleteGoal(ctx context.Context, id int64) error
}

// GoalConversions is the goals report: for each goal, its converting
// visitors, conversions and conversion rate in the range and in the
// period of the same length before it.
type GoalConversions struct {
	Range Range `json:"range"`
	// Visitors are the range's visitors (each day's, summed), what the
	// rates are of.
	Visitors float64          `json:"visitors"`
	Goals    []GoalConversion `json:"goals"`
}

// GoalConversion is one goal's figures in a period and the period
// before.
type GoalConversion struct {
	Goal     Goal        `json:"goal"`
	Period   GoalFigures `json:"period"`
	Previous GoalFigures `json:"previous"`
}

// GoalFigures are a goal's visitors who converted (each day's, summed),
// its conversions, and the share of all visitors who converted (0 to 1).
//
// Revenue is what its conversions earned, by currency (ISO 4217 code to
// the amount), and AverageRevenue that over the conversions that carried
// an amount; both only of conversions counted since revenue was, not
// narrowed by filters, and empty without any.
type GoalFigures struct {
	Visitors       float64            `json:"visitors"`
	Conversions    float64            `json:"conversions"`
	Rate           float64            `json:"conversion_rate"`
	Revenue        map[string]float64 `json:"revenue,omitempty"`
	AverageRevenue map[string]float64 `json:"average_revenue,omitempty"`
}

func (a *Analytics) goalStore() (GoalStore, error) {
	gs, ok := a.store.(GoalStore)
	if !ok {
		return nil, ErrNoGoals
	}
	return gs, nil
}

// Goals lists the goals; ErrNoGoals when the store keeps none.
func (a *Analytics) Goals(ctx context.Context) ([]Goal, error) {
	gs, err := a.goalStore()
	if err != nil {
		return nil, err
	}
	return gs.Goals(ctx)
}

// AddGoal checks g (see Goal.Normalize) and stores it, counted over the
// traffic already kept (see GoalStore.AddGoal).
func (a *Analytics) AddGoal(ctx context.Context, g Goal) (Goal, error) {
	gs, err := a.goalStore()
	if err != nil {
		return Goal{}, err
	}
	if g, err = g.Normalize(); err != nil {
		return Goal{}, err
	}
	g.CreatedAt = a.o.Now().UTC().Truncate(time.Second)
	return gs.AddGoal(ctx, g)
}

// DeleteGoal removes a goal and its counts.
func (a *Analytics) DeleteGoal(ctx context.Context, id int64) error {
	gs, err := a.goalStore()
	if err != nil {
		return err
	}
	return gs.DeleteGoal(ctx, id)
}

// GoalConversions implements DetailSource. Under filters, the conversions
// and visitors are those of the visitors the filters keep, the rate out
// of them (SegmentStore).
func (a *Analytics) GoalConversions(ctx context.Context, q AnalyticsQuery) (GoalConversions, error) {
	goals, err := a.Goals(ctx)
	if err != nil {
		return GoalConversions{}, err
	}
	r, _ := a.days(q)
	before, _ := a.days(previous(q))
	out := GoalConversions{Range: r, Goals: make([]GoalConversion, len(goals))}
	figures := func(r Range) (map[string]reportingstore.DailyRow, float64, error) {
		rows, err := a.rows(ctx, AnalyticsQuery{Filters: q.Filters}, DimGoal, r, 0)
		if err != nil {
			return nil, 0, err
		}
		byKey := make(map[string]reportingstore.DailyRow, len(rows))
		for _, row := range rows {
			byKey[row.Key] = row
		}
		totals, err := a.rows(ctx, AnalyticsQuery{Filters: q.Filters}, DimTotal, r, 0)
		if err != nil {
			return nil, 0, err
		}
		var visitors float64
		for _, t := range totals {
			visitors += float64(t.Visitors)
		}
		return byKey, visitors, nil
	}
	now, visitors, err := figures(r)
	if err != nil {
		return GoalConversions{}, err
	}
	was, wasVisitors, err := figures(before)
	if err != nil {
		return GoalConversions{}, err
	}
	out.Visitors = visitors
	fig := func(row reportingstore.DailyRow, all float64) GoalFigures {
		f := GoalFigures{Visitors: float64(row.Visitors), Conversions: float64(row.Views)}
		if all > 0 {
			f.Rate = min(f.Visitors/all, 1)
		}
		return f
	}
	for i, g := range goals {
		key := strconv.FormatInt(g.ID, 10)
		out.Goals[i] = GoalConversion{Goal: g, Period: fig(now[key], visitors), Previous: fig(was[key], wasVisitors)}
	}
	if len(q.Filters) == 0 { // revenue is kept by goal and day, not by visitor
		for _, p := range []struct {
			r   Range
			fig func(*GoalConversion) *GoalFigures
		}{{r, func(c *GoalConversion) *GoalFigures { return &c.Period }}, {before, func(c *GoalConversion) *GoalFigures { return &c.Previous }}} {
			if err := a.revenue(ctx, p.r, out.Goals, p.fig); err != nil {
				return GoalConversions{}, err
			}
		}
	}
	return out, nil
}

// dimRevenue is the rollup of goals' revenue (reporting/counting counts
// it): keys "<goal ID><US><currency>", views the amounts summed in
// thousandths of a unit, sessions the conversions that carried one.
const dimRevenue Dimension = "revenue"

// revenue fills in each goal's revenue in r, in the figures fig picks.
func (a *Analytics) revenue(ctx context.Context, r Range, goals []GoalConversion, fig func(*GoalConversion) *GoalFigures) error {
	rows, err := a.store.Daily(ctx, dimRevenue, r.StartDate, r.EndDate, 0)
	if err != nil {
		return err
	}
	for _, row := range rows {
		id, currency, ok := strings.Cut(row.Key, propSep)
		i := slices.IndexFunc(goals, func(g GoalConversion) bool { return strconv.FormatInt(g.Goal.ID, 10) == id })
		if !ok || i < 0 || row.Sessions <= 0 {
			continue
		}
		f := fig(&goals[i])
		if f.Revenue == nil {
			f.Revenue, f.AverageRevenue = map[string]float64{}, map[string]float64{}
		}
		f.Revenue[currency] = float64(row.Views) / 1000
		f.AverageRevenue[currency] = math.Round(float64(row.Views)/float64(row.Sessions)) / 1000
	}
	return nil
}

// GoalReached is a visitor's first hit of a day that reaches a goal: once
// a visitor a day a goal, as the goal's conversions count them.
type GoalReached struct {
	Goal Goal
	Hit  Hit
}

// OnGoalReachedTx registers a hook for the goals reached: it runs inside
// the transaction that counts them (tx), with every goal a batch of hits
// reached for the first time that day by a visitor, so what it records (a
// webhook, a job) commits with the counts or not at all. Its error fails
// the batch, which is written again at the next flush. A store that keeps
// no goals never calls it.
func (a *Analytics) OnGoalReachedTx(h func(ctx context.Context, tx *sql.Tx, r []GoalReached) error) {
	a.reached.Add(h)
}

// goalsReached is the hook a batch's store calls with the goals reached:
// every OnGoalReachedTx hook in turn; nil without one.
func (a *Analytics) goalsReached() func(ctx context.Context, tx *sql.Tx, r []GoalReached) error {
	hs := a.reached.All()
	if len(hs) == 0 {
		return nil
	}
	return func(ctx context.Context, tx *sql.Tx, r []GoalReached) error {
		for _, h := range hs {
			if err := h(ctx, tx, r); err != nil {
				return fmt.Errorf("reporting: a goal-reached hook failed: %w", err)
			}
		}
		return nil
	}
}
