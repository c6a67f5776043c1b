package forms

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/groundwork-go/groundwork/internal/api"
)

// Jump actions: on to a later step, or to the end.
const (
	jumpGoTo = "go_to"
	jumpEnd  = "end"
)

// jumpsMax is the most jumps a step has.
const jumpsMax = 20

// hasJumps reports whether some step of a form has jumps: its page then
// shows one step at a time, the jumps followed.
func hasJumps(steps []Step) bool {
	return slices.ContainsFunc(steps, func(st Step) bool { return len(st.Jumps) > 0 })
}

// validateJumps checks the jumps of steps (in their order) against the
// form's fields: each a known action; a go_to names a later step (so no
// path loops); each condition's rules as a field's are; and no required
// field sits on a step no path reaches. Messages are keyed under
// prefix(step), "jumps.<i>..." for a step's own.
func validateJumps(v *api.Validator, steps []Step, fields []Field, prefix func(st Step) string) {
	place := map[int64]int{}
	for i, st := range steps {
		place[st.ID] = i
	}
	for i, st := range steps {
		at := prefix(st) + "jumps"
		if len(st.Jumps) > jumpsMax {
			v.Add(at, fmt.Sprintf("The %s field must not have more than %d items.", api.Attr(at), jumpsMax))
		}
		for j := range st.Jumps {
			jump := &st.Jumps[j]
			key := at + "." + strconv.Itoa(j)
			validateLogic(v, key, jump, jumpGoTo, jumpEnd)
			switch {
			case jump.Action == jumpEnd && jump.ToStepID != nil:
				v.Add(key+".to_step_id", "A jump to the end names no step: leave "+api.Attr(key+".to_step_id")+" out.")
			case jump.Action != jumpGoTo:
			case jump.ToStepID == nil:
				v.Add(key+".to_step_id", api.MsgRequired(key+".to_step_id"))
			default:
				if to, ok := place[*jump.ToStepID]; !ok || to <= i {
					v.Add(key+".to_step_id", "The "+api.Attr(key+".to_step_id")+" field must name a later step of the form: a jump goes forward.")
				}
			}
		}
	}
	if !v.Empty() {
		return
	}
	reached := reachable(steps)
	for _, f := range fields {
		if f.IsRequired && f.StepID != nil && !reached[*f.StepID] && !isLayout(f.Type) {
			st := steps[place[*f.StepID]]
			v.Add(prefix(st)+"jumps", fmt.Sprintf("No path reaches the step %q, yet its field %q is required: change the jumps, or make the field optional.",
				st.Title, label(&f)))
		}
	}
}

// reachable is the steps some path reaches, whatever the answers: the
// first; a jump's target; the next step, unless a jump without
// conditions goes elsewhere first.
func reachable(steps []Step) map[int64]bool {
	out := map[int64]bool{}
	if len(steps) == 0 {
		return out
	}
	out[steps[0].ID] = true
	for i, st := range steps {
		if !out[st.ID] {
			continue
		}
		always := false
		for _, j := range st.Jumps {
			if j.Action == jumpGoTo && j.ToStepID != nil {
				out[*j.ToStepID] = true
			}
			if len(j.Rules) == 0 {
				always = true
				break
			}
		}
		if !always && i+1 < len(steps) {
			out[steps[i+1].ID] = true
		}
	}
	return out
}

// route is the steps a person goes through for the answers a: from the
// first, after each the first jump whose conditions hold, else the next.
// A condition reads only the answers of fields on the steps gone through
// and of fields on no step. It stops at the end, or after the step until
// (0 for none).
func route(steps []Step, fields []Field, a answers, names map[string]string, until int64) []int64 {
	seen := answers{}
	onStep := map[int64][]string{}
	for _, f := range fields {
		if f.StepID == nil {
			seen[f.Name] = a[f.Name]
		} else {
			onStep[*f.StepID] = append(onStep[*f.StepID], f.Name)
		}
	}
	var out []int64
	for i := 0; i < len(steps); {
		st := steps[i]
		out = append(out, st.ID)
		for _, name := range onStep[st.ID] {
			seen[name] = a[name]
		}
		if st.ID == until {
			break
		}
		next := i + 1
		for _, j := range st.Jumps {
			if !j.holds(seen, names) {
				continue
			}
			next = len(steps)
			if j.Action == jumpGoTo && j.ToStepID != nil {
				next = slices.IndexFunc(steps, func(x Step) bool { return x.ID == *j.ToStepID })
			}
			break
		}
		if next <= i { // a jump gone astray (checked when saved): on, not round
			next = i + 1
		}
		i = next
	}
	return out
}

// onRoute reports, for each field, whether a person whose answers are a
// is asked it: a field on no step always, one on a step only when the
// route goes through its step.
func onRoute(steps []Step, fields []Field, a answers, names map[string]string) func(f *Field) bool {
	if !hasJumps(steps) {
		return func(*Field) bool { return true }
	}
	through := map[int64]bool{}
	for _, id := range route(steps, fields, a, names, 0) {
		through[id] = true
	}
	return func(f *Field) bool { return f.StepID == nil || through[*f.StepID] }
}

// checkJumps checks the jumps of form's steps, with steps and fields as
// they would be after a change.
func checkJumps(steps []Step, fields []Field) error {
	v := &api.Validator{}
	validateJumps(v, steps, fields, func(Step) string { return "" })
	return v.Err()
}

// definitionAfter reads form's steps and fields, for checkJumps.
func (s *Service) definitionAfter(ctx context.Context, formID int64) ([]Step, []Field, error) {
	steps, err := s.store.Steps(ctx, formID)
	if err != nil {
		return nil, nil, err
	}
	fields, err := s.store.Fields(ctx, formID)
	if err != nil {
		return nil, nil, err
	}
	return steps, fields, nil
}

// reachedIfRequired refuses a required field on a step no path reaches.
func reachedIfRequired(f *Field, steps []Step) error {
	if !f.IsRequired || f.StepID == nil || !hasJumps(steps) || reachable(steps)[*f.StepID] {
		return nil
	}
	return api.Invalid("is_required", "No path reaches this field's step, so it cannot be required: change the step's jumps first.")
}

// stepTaken is the "error" of a page's step answered without mistakes
// that is not the last on the person's route: the page goes on to Next
// (or back to it, when they went back), nothing stored.
type stepTaken struct{ Next int64 }

func (e *stepTaken) Error() string {
	return "forms: step answered, on to step " + strconv.FormatInt(e.Next, 10)
}

// askedOf reports which fields a submission is asked: on a form with
// jumps, those on no step and on the steps of its route. For the page's
// step (req.step), only those up to it, unless it is the route's last;
// req.onward is then where the person goes next.
func (s *Service) askedOf(ctx context.Context, def definition, req *SubmitRequest, a answers, names map[string]string) (func(*Field) bool, error) {
	steps := def.steps
	if steps == nil && slices.ContainsFunc(def.fields, func(f Field) bool { return f.StepID != nil }) {
		var err error
		if steps, err = s.store.Steps(ctx, def.form.ID); err != nil {
			return nil, fmt.Errorf("forms: submit: %w", err)
		}
	}
	if !hasJumps(steps) {
		return func(*Field) bool { return true }, nil
	}
	whole := route(steps, def.fields, a, names, 0)
	at := slices.Index(whole, req.step)
	if req.step == 0 || at < 0 || at == len(whole)-1 && !req.back {
		return onRoute(steps, def.fields, a, names), nil // the whole route: sent
	}
	through := map[int64]bool{}
	for _, id := range whole[:at+1] {
		through[id] = true
	}
	if req.back {
		// Back without a word on this step's answers.
		req.onward = &stepTaken{Next: whole[max(at-1, 0)]}
		delete(through, req.step)
	} else {
		req.onward = &stepTaken{Next: whole[at+1]}
	}
	return func(f *Field) bool { return f.StepID == nil || through[*f.StepID] }, nil
}
