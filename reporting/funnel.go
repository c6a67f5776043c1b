package reporting

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Funnel is a funnel's report: how many of the visitors who took its
// first step went on to take each of the next.
//
// A visitor counts at a step when on one day they took it and every step
// before it (visitors are told apart a day at a time, and each day's
// visitors are summed over the range, as every report counts them); the
// analytics keeps no order of a visitor's hits within a day, so a step
// taken before the one ahead of it counts all the same. Under filters,
// the visitors are those with a page view the filters keep.
type Funnel struct {
	Range Range        `json:"range"`
	Steps []FunnelStep `json:"steps"`
	// Conversion is the share of the first step's visitors who took the
	// last (0 to 1).
	Conversion float64 `json:"conversion_rate"`
}

// FunnelStep is one step of a Funnel and its figures.
type FunnelStep struct {
	// Step is the step as asked: a goal's ID ("3"), a page pattern
	// ("page:/pricing", "page:/blog/*") or an event ("event:form_submitted").
	Step string `json:"step"`
	// Name says it in words: the goal's name, "Visit /pricing", the event.
	Name string `json:"name"`
	// Visitors took this step and every one before it.
	Visitors float64 `json:"visitors"`
	// DropOff is the visitors of the step before who did not take this
	// one, DropOffRate their share of them (0 for the first step).
	DropOff     float64 `json:"drop_off"`
	DropOffRate float64 `json:"drop_off_rate"`
	// Conversion is the share of the first step's visitors who took this
	// one (0 to 1; 1 for the first step with any).
	Conversion float64 `json:"conversion_rate"`
}

// Funnel steps: at least funnelStepsMin, at most funnelStepsMax.
const (
	funnelStepsMin = 2
	funnelStepsMax = 8
)

// stepGoal is a step in place as the goal it stands for: "page:/x" a
// goal of that page (pattern), "event:name" of that event; false for
// anything else (a goal's ID).
func stepGoal(step string) (Goal, bool) {
	if p, ok := strings.CutPrefix(step, "page:"); ok {
		return Goal{Page: p}, true
	}
	if e, ok := strings.CutPrefix(step, "event:"); ok {
		return Goal{Event: e}, true
	}
	return Goal{}, false
}

// Funnel implements DetailSource: the funnel of steps (2 to 8, each a
// goal's ID, "page:<pattern>" or "event:<name>") over q's range and
// filters, read from the views kept by visitor (SegmentStore; else
// ErrBadFilter). Too few or too many steps, or a step that is none of
// those, is ErrBadGoal; a goal's ID that names none, ErrGoalNotFound.
func (a *Analytics) Funnel(ctx context.Context, q AnalyticsQuery, steps []string) (Funnel, error) {
	if len(steps) < funnelStepsMin || len(steps) > funnelStepsMax {
		return Funnel{}, fmt.Errorf("%w: a funnel has %d to %d steps", ErrBadGoal, funnelStepsMin, funnelStepsMax)
	}
	if _, err := a.segments(); err != nil {
		return Funnel{}, err
	}
	var goals []Goal
	out := Funnel{Steps: make([]FunnelStep, len(steps))}
	for i, step := range steps {
		step = strings.TrimSpace(step)
		out.Steps[i].Step = step
		if !(Filter{Dim: DimGoal, Value: step}).Valid() {
			return Funnel{}, fmt.Errorf("%w: step %d, %q, is not a goal's ID, page:<pattern> or event:<name>", ErrBadGoal, i+1, step)
		}
		if g, ok := stepGoal(step); ok {
			g, _ = g.Normalize()
			out.Steps[i].Name = g.Name
			continue
		}
		if goals == nil {
			var err error
			if goals, err = a.Goals(ctx); err != nil {
				return Funnel{}, err
			}
		}
		id, _ := strconv.ParseInt(step, 10, 64)
		found := false
		for _, g := range goals {
			if g.ID == id {
				out.Steps[i].Name, found = g.Name, true
			}
		}
		if !found {
			return Funnel{}, fmt.Errorf("%w: step %d: there is no goal %d", ErrGoalNotFound, i+1, id)
		}
	}
	r, _ := a.days(q)
	out.Range = r
	fs := q.Filters
	for i := range out.Steps {
		fs = append(fs[:len(fs):len(fs)], Filter{Dim: DimGoal, Value: out.Steps[i].Step})
		rows, err := a.rows(ctx, AnalyticsQuery{Filters: fs}, DimTotal, r, 0)
		if err != nil {
			return Funnel{}, err
		}
		s := &out.Steps[i]
		for _, row := range rows {
			s.Visitors += float64(row.Visitors)
		}
		if first := out.Steps[0].Visitors; first > 0 {
			s.Conversion = s.Visitors / first
		}
		if i > 0 {
			before := out.Steps[i-1].Visitors
			s.DropOff = before - s.Visitors
			if before > 0 {
				s.DropOffRate = s.DropOff / before
			}
		}
	}
	out.Conversion = out.Steps[len(out.Steps)-1].Conversion
	return out, nil
}
