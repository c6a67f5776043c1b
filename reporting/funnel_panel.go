package reporting

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// funnelPanel is the dashboard's funnel: the form of its steps (as many
// inputs as the steps asked and one more, at least four, at most
// funnelStepsMax) and, once two are given, the report.
type funnelPanel struct {
	Action string
	Keep   []hiddenField
	Inputs []funnelInput
	// Names are the suggestions for a step: the goals' names and the
	// events of the range.
	Names []string
	// Error says what is wrong with the steps asked.
	Error  string
	Report *Funnel
}

// funnelInput is one step's input.
type funnelInput struct {
	N     int
	Value string
}

// funnelInputsMin is how many step inputs the form shows at least.
const funnelInputsMin = 4

// funnel is the panel for the page's steps (?step=, in order), under q.
func (d *Dashboard) funnel(ctx context.Context, p *dashboardPage, q AnalyticsQuery, events []ContentEvent) *funnelPanel {
	ds, ok := d.svc.o.Analytics.(DetailSource)
	if !ok {
		return nil
	}
	f := &funnelPanel{Action: p.Path}
	f.Keep = newPanel(p, "funnel").Keep
	var goals []Goal
	if gs, ok := d.svc.o.Analytics.(interface {
		Goals(context.Context) ([]Goal, error)
	}); ok {
		goals, _ = gs.Goals(ctx) // none: steps by page and event only
	}
	names := map[string]bool{}
	for _, g := range goals {
		names[g.Name] = true
	}
	for _, e := range events {
		names[e.Event] = true
	}
	f.Names = slices.Sorted(maps.Keys(names))
	var steps []string
	for _, v := range p.steps {
		if v = strings.TrimSpace(v); v != "" && len(f.Inputs) < funnelStepsMax {
			f.Inputs = append(f.Inputs, funnelInput{N: len(f.Inputs) + 1, Value: v})
			steps = append(steps, stepOf(v, goals))
		}
	}
	for len(f.Inputs) < min(max(funnelInputsMin, len(steps)+1), funnelStepsMax) {
		f.Inputs = append(f.Inputs, funnelInput{N: len(f.Inputs) + 1})
	}
	switch {
	case len(p.steps) == 0:
		return f
	case len(steps) < funnelStepsMin:
		f.Error = "Give at least two steps."
		return f
	}
	report, err := ds.Funnel(ctx, q, steps)
	switch {
	case errors.Is(err, ErrBadGoal) || errors.Is(err, ErrGoalNotFound):
		f.Error = "A step is not a page (it starts with /), an event or a goal: " + strings.TrimPrefix(err.Error(), ErrBadGoal.Error()+": ") + "."
	case errors.Is(err, ErrBadFilter):
		f.Error = "The funnel cannot be drawn under these filters: drop one of them above."
	case err != nil:
		d.o.Logger.ErrorContext(ctx, "reporting: dashboard funnel", "error", err)
		f.Error = "The funnel could not be drawn. Try again in a moment."
	default:
		f.Report = &report
	}
	return f
}

// stepOf is a step as the dashboard's form says it, as Funnel takes it:
// a page ("/pricing", "/blog/*") is page:, a goal's name (letter case
// aside) its ID, "page:…", "event:…" and a goal's ID as they are, and
// anything else an event's name.
func stepOf(v string, goals []Goal) string {
	if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "*") {
		return "page:" + v
	}
	if strings.HasPrefix(v, "page:") || strings.HasPrefix(v, "event:") {
		return v
	}
	for _, g := range goals {
		if strings.EqualFold(g.Name, v) {
			return strconv.FormatInt(g.ID, 10)
		}
	}
	if _, err := strconv.ParseInt(v, 10, 64); err == nil {
		return v
	}
	return "event:" + v
}
