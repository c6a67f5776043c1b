package forms

import (
	"slices"
	"strconv"
	"strings"

	"github.com/groundwork-go/groundwork/internal/web"
)

// rangeEnds gives a date range's input its two ends from the answer
// given (two values, or one "start/end"), and their labels.
func rangeEnds(in *web.Field, f *Field, given []string, sp *speaker) {
	if f.Type != TypeDateRange {
		return
	}
	ends := given
	if len(given) == 1 {
		ends = strings.SplitN(given[0], "/", 2)
	}
	in.Value, in.ValueTo = "", ""
	if len(ends) > 0 {
		in.Value = ends[0]
	}
	if len(ends) > 1 {
		in.ValueTo = ends[1]
	}
	in.FromLabel, in.ToLabel = sp.phrase("From"), sp.phrase("To")
}

// parts gives a matrix's input a row of choices per row, and a
// ranking's a list of places per item, with the answers given
// ("part=answer"). The first part takes the field's ID, so the error
// summary's link lands in it.
func parts(in *web.Field, f *Field, given []string, sp *speaker) {
	in.Value = ""
	chosen := map[string]string{}
	for _, g := range given {
		if i := strings.LastIndexByte(g, '='); f.Type == TypeRanking && i >= 0 {
			chosen[g[:i]] = g[i+1:]
		} else if part, answer, ok := strings.Cut(g, "="); ok {
			chosen[part] = answer
		}
	}
	if f.Type == TypeRanking && len(chosen) == 0 {
		for i, g := range given { // a kept ranking is its order
			chosen[g] = strconv.Itoa(i + 1)
		}
	}
	items, options := f.matrixRows(), f.Options()
	if f.Type == TypeRanking {
		items, options = f.Options(), nil
		for n := range items {
			options = append(options, Option{Value: strconv.Itoa(n + 1), Label: strconv.Itoa(n + 1)})
		}
		if in.Help == "" && sp != nil {
			in.Help = sp.say("Give each a different place: 1 is your first choice.")
		}
	}
	for i, it := range items {
		part := web.Field{Type: web.TypeRadio, Scale: true, Name: f.Name + "." + it.Value, ID: in.ID + "-p" + strconv.Itoa(i),
			Label: it.Label, Required: f.IsRequired, Invalid: len(in.Errors) > 0}
		if f.Type == TypeRanking {
			part.Type, part.Scale = web.TypeSelect, false
			if sp != nil {
				part.Placeholder = sp.phrase("Place…")
			}
		}
		if i == 0 {
			part.ID = in.ID
		}
		for _, o := range options {
			part.Options = append(part.Options, web.Option{Value: o.Value, Label: o.Label, Selected: chosen[it.Value] == o.Value})
		}
		in.Parts = append(in.Parts, part)
	}
}

// choices gives in the choices of f with the answers given: a score's
// points in a row, the scale's ends said; or the options, each with the
// places left where it has a quota (left).
func choices(in *web.Field, f *Field, given []string, left map[string]int64, sp *speaker) {
	if low, high := scaleOf(f); high > 0 {
		in.Type, in.Scale = web.TypeRadio, true
		if in.Help == "" && sp != nil {
			in.Help = sp.say("%d is the lowest, %d the highest.", low, high)
			if f.Type == TypeNPS {
				in.Help = sp.say("0 is not at all likely, 10 extremely likely.")
			}
		}
		for n := low; n <= high; n++ {
			label := strconv.Itoa(n)
			if f.FieldConfig["style"] != ratingNumbers && f.Type == TypeRating {
				label += " ★"
			}
			in.Options = append(in.Options, web.Option{Value: strconv.Itoa(n), Label: label, Selected: slices.Contains(given, strconv.Itoa(n))})
		}
	}
	for _, o := range f.Options() {
		label := o.Label
		if n, limited := left[o.Value]; limited {
			switch n {
			case 0:
				label = sp.say("%s (full)", label)
			case 1:
				label = sp.say("%s (1 place left)", label)
			default:
				label = sp.say("%s (%d places left)", label, n)
			}
		}
		in.Options = append(in.Options, web.Option{Value: o.Value, Label: label, Selected: slices.Contains(given, o.Value)})
	}
}

// The page's step, and its Back button's action.
const (
	stepField  = "_step"
	actionBack = "back"
)

// stepView is one step of a form whose page shows a step at a time:
// Carried the answers of the steps before it (hidden inputs), Field and
// Step the step sent back, Back whether there is one to go back to, and
// the buttons' words (Submit on the last step, else Next).
type stepView struct {
	Carried                    []web.Field
	Field, Step                string
	Back                       bool
	BackText, NextText, Submit string
	ActionField, ActionBack    string
	// Number is the step's place on the person's route so far, of Of
	// (the route's steps as the answers given lead); Progress says so.
	Number, Of int
	Progress   string
	// Last is set on a step the form may be sent from: the last, the
	// last of the route so far, or one with a jump to the end.
	Last bool
}

// oneStep picks, of a form's page groups (the fields on no step first,
// then a group a step), the step to show: step, else the first on the
// person's route with a mistake, else the first. The answers of the
// other steps travel as hidden inputs, kept files by id.
func oneStep(groups []pageGroup, fields []Field, steps []Step, values map[string][]string, kept map[string]KeptUpload,
	errs *ValidationError, step int64) ([]pageGroup, *stepView) {
	names := fieldNames(fields)
	whole := route(steps, fields, answers(values), names, 0)
	at := slices.Index(whole, step)
	if errs != nil {
		bad := errs.Fields()
		for i, id := range whole {
			if slices.ContainsFunc(fields, func(f Field) bool { return f.StepID != nil && *f.StepID == id && len(bad[f.Name]) > 0 }) {
				at = i
				break
			}
		}
	}
	at = max(at, 0)
	current := whole[at]
	loose := len(groups) > len(steps)
	var shown []pageGroup
	if loose && at == 0 {
		shown = append(shown, groups[0])
	}
	i := slices.IndexFunc(steps, func(st Step) bool { return st.ID == current })
	shown = append(shown, groups[i+len(groups)-len(steps)])
	view := &stepView{Field: stepField, Step: strconv.FormatInt(current, 10), Back: at > 0, BackText: steps[i].PrevButtonText,
		NextText: steps[i].NextButtonText, ActionField: ActionField, ActionBack: actionBack, Number: at + 1, Of: len(whole)}
	if i == len(steps)-1 {
		view.NextText = "" // the form's own words for sending
	}
	view.Last = i == len(steps)-1 || current == whole[len(whole)-1] ||
		slices.ContainsFunc(steps[i].Jumps, func(j Logic) bool { return j.Action == jumpEnd })
	for _, f := range fields {
		// Every answer not asked here goes along: those of the steps
		// before, and of those after for a person who went back.
		if isLayout(f.Type) || f.StepID == nil && at == 0 || f.StepID != nil && *f.StepID == current {
			continue
		}
		for _, v := range values[f.Name] {
			view.Carried = append(view.Carried, web.Field{Type: "hidden", Name: f.Name, Value: v})
		}
		if k, ok := kept[f.Name]; ok && k.ID != "" {
			view.Carried = append(view.Carried, web.Field{Type: "hidden", Name: KeptUploadField + "[" + f.Name + "]", Value: k.ID})
		}
	}
	return shown, view
}

// fixedItem is the item of a field the person does not answer on the
// page, when f is one: set by a signed prefill (shown, not to be
// changed), signed without a token (nothing to show or send), or a total.
func (s *Service) fixedItem(f *Field, fields []Field, values map[string][]string, locked map[string]string, sp *speaker) (pageItem, bool) {
	if value, fixed := locked[f.Name]; fixed {
		return pageItem{Kind: "locked", Text: lockedText(f, value), Input: web.Field{Label: f.Label, Type: inputTypes[f.Type]}}, true
	}
	switch {
	case f.Type == TypeTotal:
		return s.totalItem(f, fields, values, sp), true
	case f.signed():
		return pageItem{Kind: "locked", Input: web.Field{Type: "hidden"}}, true
	}
	return pageItem{}, false
}
