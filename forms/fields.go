package forms

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/forms/formsstore"
	"github.com/groundwork-go/groundwork/internal/api"
)

// fieldNamePattern is what a field name may be: it becomes a form input's
// name and a CSV column key.
var fieldNamePattern = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_]*$`)

// reservedNames are input names the submit endpoint uses itself.
var reservedNames = []string{HoneypotField, "data", "files"}

// Steps returns a form's steps by sort order.
func (s *Service) Steps(ctx context.Context, formID int64) ([]Step, error) {
	steps, err := s.store.Steps(ctx, formID)
	if err != nil {
		return nil, fmt.Errorf("forms: steps: %w", err)
	}
	return steps, nil
}

// Fields returns a form's fields by sort order.
func (s *Service) Fields(ctx context.Context, formID int64) ([]Field, error) {
	fields, err := s.store.Fields(ctx, formID)
	if err != nil {
		return nil, fmt.Errorf("forms: fields: %w", err)
	}
	return fields, nil
}

// Field returns one field of a form.
func (s *Service) Field(ctx context.Context, formID, id int64) (*Field, error) {
	fields, err := s.Fields(ctx, formID)
	if err != nil {
		return nil, err
	}
	for i := range fields {
		if fields[i].ID == id {
			return &fields[i], nil
		}
	}
	return nil, notFound("Field")
}

var (
	datePattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	timePattern = regexp.MustCompile(`^([01]\d|2[0-3]):[0-5]\d$`)
	extPattern  = regexp.MustCompile(`^[a-z0-9]{1,10}$`)
)

// operators are the conditional-logic comparisons.
var operators = []string{"equals", "not_equals", "contains", "not_contains", "starts_with", "ends_with", "is_empty",
	"is_not_empty", "greater_than", "less_than", "greater_or_equal", "less_or_equal", "in", "not_in", "checked", "unchecked",
	"includes", "not_includes"}

// validateLogic checks conditional logic whose action is one of actions.
func validateLogic(v *api.Validator, field string, l *Logic, actions ...string) {
	if l == nil {
		return
	}
	if !slices.Contains(actions, l.Action) {
		v.Add(field+".action", api.MsgSelected(field+".action"))
	}
	if l.Logic == "" {
		l.Logic = "all"
	}
	if l.Logic != "all" && l.Logic != "any" {
		v.Add(field+".logic", api.MsgSelected(field+".logic"))
	}
	for i, r := range l.Rules {
		key := fmt.Sprintf("%s.rules.%d", field, i)
		if strings.TrimSpace(r.Field) == "" {
			v.Add(key+".field", api.MsgRequired(key+".field"))
		}
		if !slices.Contains(operators, r.Operator) {
			v.Add(key+".operator", api.MsgSelected(key+".operator"))
		}
		switch r.Value.(type) {
		case nil, string, float64, bool:
		default:
			v.Add(key+".value", "The "+api.Attr(key+".value")+" field must be a string, a number or true or false.")
		}
	}
}

// validateField checks f against its form's steps and fills defaults.
func (s *Service) validateField(f *Field, steps []Step) *api.Validator {
	v := &api.Validator{}
	f.Type = FieldType(strings.TrimSpace(string(f.Type)))
	if f.Type == "" {
		v.Add("type", api.MsgRequired("type"))
	} else if _, ok := fieldTypes[f.Type]; !ok {
		v.Add("type", api.MsgSelected("type"))
	}
	if f.StepID != nil && !slices.ContainsFunc(steps, func(st Step) bool { return st.ID == *f.StepID }) {
		v.Add("step_id", api.MsgSelected("step_id"))
	}
	maxChars(v, "label", f.Label, 255)
	maxChars(v, "placeholder", f.Placeholder, 255)
	maxChars(v, "help_text", f.HelpText, 1000)
	maxChars(v, "default_value", f.DefaultValue, 1000)
	maxChars(v, "css_classes", f.CSSClasses, 500)
	if f.Width == "" {
		f.Width = "full"
	}
	if !slices.Contains(widths, f.Width) {
		v.Add("width", api.MsgSelected("width"))
	}
	if f.Name != "" {
		switch {
		case len(f.Name) > 100:
			v.Add("name", api.MsgMaxChars("name", 100))
		case !fieldNamePattern.MatchString(f.Name) || slices.Contains(reservedNames, f.Name):
			v.Add("name", "The name field must start with a letter and hold only letters, digits and underscores, and may not be website_url, data or files.")
		}
	}
	r := &f.ValidationRules
	if r.Min != nil && r.Max != nil && *r.Min > *r.Max {
		v.Add("validation_rules.max", "The validation rules.max field must be at least validation rules.min.")
	}
	if r.Pattern != "" {
		if _, err := compilePattern(r.Pattern); err != nil {
			v.Add("validation_rules.pattern", api.MsgFormat("validation_rules.pattern"))
		}
	}
	for key, val := range map[string]string{"min_date": r.MinDate, "max_date": r.MaxDate} {
		if val != "" && !validDate(val) {
			v.Add("validation_rules."+key, api.MsgDate("validation_rules."+key))
		}
	}
	for key, val := range map[string]string{"min_time": r.MinTime, "max_time": r.MaxTime} {
		if val != "" && !timePattern.MatchString(val) {
			v.Add("validation_rules."+key, "The "+api.Attr("validation_rules."+key)+" field must match the format H:i.")
		}
	}
	if f.FieldConfig == nil {
		f.FieldConfig = map[string]any{}
	}
	if list, ok := f.FieldConfig["options"]; ok {
		items, isList := list.([]any)
		if !isList {
			v.Add("field_config.options", api.MsgArray("field_config.options"))
		}
		for i, it := range items {
			switch o := it.(type) {
			case string:
			case map[string]any:
				if _, ok := o["value"].(map[string]any); ok || scalarString(o["value"]) == "" {
					v.Add(fmt.Sprintf("field_config.options.%d.value", i), api.MsgRequired(fmt.Sprintf("field_config.options.%d.value", i)))
				}
				if q, given := o["quota"]; given {
					key := fmt.Sprintf("field_config.options.%d.quota", i)
					n, isNumber := q.(float64)
					switch {
					case !isNumber || n != float64(int64(n)) || n < 1 || n > maxResponsesMax:
						v.Add(key, api.MsgBetween(key, 1, maxResponsesMax))
					case f.Type != TypeSelect && f.Type != TypeRadio:
						v.Add(key, "The "+api.Attr(key)+" field is for a select or radio field, whose answer is one choice.")
					}
				}
			default:
				v.Add(fmt.Sprintf("field_config.options.%d", i), "The "+api.Attr(fmt.Sprintf("field_config.options.%d", i))+" field must be a string or an object with a value.")
			}
		}
	}
	if size, ok := f.FieldConfig["max_size"]; ok {
		if n, isNum := size.(float64); !isNum || n <= 0 {
			v.Add("field_config.max_size", "The field config.max size field must be a number of kilobytes above 0.")
		}
	}
	if types, ok := f.FieldConfig["allowed_types"]; ok {
		list, isList := types.([]any)
		if !isList {
			v.Add("field_config.allowed_types", api.MsgArray("field_config.allowed_types"))
		}
		for i, t := range list {
			if s, ok := t.(string); !ok || !extPattern.MatchString(strings.ToLower(strings.TrimPrefix(s, "."))) {
				v.Add(fmt.Sprintf("field_config.allowed_types.%d", i), api.MsgFormat(fmt.Sprintf("field_config.allowed_types.%d", i)))
			}
		}
	}
	if _, known := fieldTypes[f.Type]; known && !v.Has("field_config.options") {
		s.validateForType(v, f)
	}
	validateLogic(v, "conditional_logic", f.ConditionalLogic, "show", "hide")
	return v
}

// kindOf names a field of type t in a sentence's first words: "A text
// field", "An email field", "An HTML field".
func kindOf(t FieldType) string {
	name := fieldTypes[t]
	if name != "HTML" && name != "URL" && name != "NPS" {
		name = strings.ToLower(name)
	}
	if strings.ContainsAny(name[:1], "aeiouHN") {
		return "An " + name + " field"
	}
	return "A " + name + " field"
}

// configFor names the field types each field_config setting is for.
var configFor = map[string]func(FieldType) bool{
	"options":       isChoice,
	"allowed_types": func(t FieldType) bool { return t == TypeFile },
	"max_size":      func(t FieldType) bool { return t == TypeFile },
	"rows":          func(t FieldType) bool { return t == TypeTextarea || t == TypeMatrix },
	"content":       func(t FieldType) bool { return t == TypeHTML },
	"prefill":       func(t FieldType) bool { return !isLayout(t) && t != TypeFile && t != TypeMatrix && t != TypeRanking },
	"signed":        func(t FieldType) bool { return !isLayout(t) && t != TypeFile },
	"scale":         func(t FieldType) bool { return t == TypeRating },
	"price":         func(t FieldType) bool { return t == TypeNumber },
	"currency":      func(t FieldType) bool { return t == TypeTotal },
	"payment":       func(t FieldType) bool { return t == TypeTotal },
	"style":         func(t FieldType) bool { return t == TypeRating },
}

// Rating scales.
const (
	ratingScaleMin, ratingScaleMax, ratingScaleDefault = 3, 10, 5
	ratingStars, ratingNumbers                         = "stars", "numbers"
)

// scaleOf is a rating field's scale, or an NPS field's 10, from 1 (0 for
// NPS); 0 for other types.
func scaleOf(f *Field) (low, high int) {
	switch f.Type {
	case TypeNPS:
		return 0, 10
	case TypeRating:
		if n, ok := f.FieldConfig["scale"].(float64); ok && n == float64(int(n)) && n >= ratingScaleMin && n <= ratingScaleMax {
			return 1, int(n)
		}
		return 1, ratingScaleDefault
	}
	return 0, 0
}

// validateForType checks that f's settings suit its type, and that a
// required field can be answered at all.
func (s *Service) validateForType(v *api.Validator, f *Field) {
	a := kindOf(f.Type)
	for key, suits := range configFor {
		if _, ok := f.FieldConfig[key]; ok && !suits(f.Type) {
			v.Add("field_config."+key, fmt.Sprintf("%s does not take field config.%s.", a, api.Attr(key)))
		}
	}
	for _, key := range []string{"prefill", "signed"} {
		if p, ok := f.FieldConfig[key]; ok {
			if _, isBool := p.(bool); !isBool {
				v.Add("field_config."+key, api.MsgBoolean("field_config."+key))
			}
		}
	}
	if f.signed() && f.IsRequired {
		v.Add("field_config.signed", "A signed field takes its value only from a signed prefill token, so it cannot be required: a person who opens the form without one could not send it.")
	}
	if n, ok := f.FieldConfig["scale"]; ok && f.Type == TypeRating {
		if x, isNum := n.(float64); !isNum || x != float64(int(x)) || x < ratingScaleMin || x > ratingScaleMax {
			v.Add("field_config.scale", api.MsgBetween("field_config.scale", ratingScaleMin, ratingScaleMax))
		}
	}
	if st, ok := f.FieldConfig["style"]; ok && f.Type == TypeRating && st != ratingStars && st != ratingNumbers {
		v.Add("field_config.style", api.MsgSelected("field_config.style"))
	}
	options := f.Options()
	if isChoice(f.Type) && len(options) == 0 {
		v.Add("field_config.options", a+" needs at least one choice in field config.options.")
	}
	validateParts(v, f, options)
	s.validateTotal(v, f)
	r := f.ValidationRules
	if r.MinDate != "" && r.MaxDate != "" && r.MinDate > r.MaxDate {
		v.Add("validation_rules.max_date", "The validation rules.max date field must be a date after or equal to validation rules.min date.")
	}
	if r.MinTime != "" && r.MaxTime != "" && r.MinTime > r.MaxTime {
		v.Add("validation_rules.max_time", "The validation rules.max time field must be a time after or equal to validation rules.min time.")
	}
	if !f.IsRequired {
		return
	}
	switch {
	case isLayout(f.Type):
		v.Add("is_required", a+" takes no answer, so it cannot be required.")
	case f.Type == TypeFile && s.blobs == nil:
		v.Add("is_required", "A file field cannot be required here: this server takes no uploads.")
	case isMulti(f.Type) && r.Min != nil && len(options) > 0 && int(*r.Min) > len(options):
		v.Add("validation_rules.min", fmt.Sprintf("The validation rules.min field must not be more than the %d choices of a required field.", len(options)))
	}
}

// partsMax is the most rows a matrix has, or items a ranking.
const partsMax = 50

// validateParts checks a matrix's rows and a ranking's items: each value
// once, none holding "=" (which parts an answer from its row), at most
// partsMax.
func validateParts(v *api.Validator, f *Field, options []Option) {
	key, parts := "field_config.options", options
	switch f.Type {
	case TypeMatrix:
		if _, isList := f.FieldConfig["rows"].([]any); !isList {
			v.Add("field_config.rows", "A matrix field needs its rows in field config.rows, a list.")
			return
		}
		key, parts = "field_config.rows", f.matrixRows()
		if len(parts) == 0 {
			v.Add(key, "A matrix field needs at least one row in field config.rows.")
		}
	case TypeRanking:
	default:
		return
	}
	seen := map[string]bool{}
	for i, p := range parts {
		at := fmt.Sprintf("%s.%d", key, i)
		switch {
		case p.Value == "":
			v.Add(at, api.MsgRequired(at))
		case seen[p.Value]:
			v.Add(at, "The "+api.Attr(at)+" field repeats the value "+strconv.Quote(p.Value)+".")
		case f.Type == TypeMatrix && strings.Contains(p.Value, "="):
			v.Add(at, "The "+api.Attr(at)+" field must not hold \"=\".")
		}
		seen[p.Value] = true
	}
	if len(parts) > partsMax {
		v.Add(key, fmt.Sprintf("The %s field must not have more than %d items.", api.Attr(key), partsMax))
	}
}

// compilePattern reads a validation pattern: a Go regular expression, or
// one in PHP's form, "/…/flags", as definitions made by PHP sites hold
// them. The i, m, s
// and u flags are understood.
func compilePattern(p string) (*regexp.Regexp, error) {
	if len(p) >= 2 && p[0] == '/' {
		if end := strings.LastIndexByte(p, '/'); end > 0 {
			body, flags := p[1:end], p[end+1:]
			var goFlags strings.Builder
			for _, fl := range flags {
				switch fl {
				case 'i', 'm', 's':
					goFlags.WriteRune(fl)
				case 'u':
				default:
					return nil, fmt.Errorf("unknown flag %q", fl)
				}
			}
			if goFlags.Len() > 0 {
				body = "(?" + goFlags.String() + ")" + body
			}
			return regexp.Compile(body)
		}
	}
	return regexp.Compile(p)
}

func validDate(s string) bool {
	_, err := time.Parse(time.DateOnly, s)
	return err == nil && datePattern.MatchString(s)
}

// uniqueName is base, or base_1, base_2... whichever no field of the form
// uses (except the field itself).
func uniqueName(base string, fields []Field, except int64) string {
	taken := func(n string) bool {
		return slices.ContainsFunc(fields, func(f Field) bool { return f.Name == n && f.ID != except })
	}
	if !taken(base) {
		return base
	}
	for n := 1; ; n++ {
		if c := base + "_" + strconv.Itoa(n); !taken(c) {
			return c
		}
	}
}

// nameFromLabel makes a field name from its label: snake_case, "field"
// when nothing is left, prefixed when it would not start with a letter.
func nameFromLabel(label string, fieldType FieldType) string {
	if strings.TrimSpace(label) == "" {
		label = fieldTypes[fieldType]
	}
	name := slugify(label, '_')
	if name == "" {
		name = "field"
	}
	if !fieldNamePattern.MatchString(name) || slices.Contains(reservedNames, name) {
		name = "field_" + name
	}
	if len(name) > 100 {
		name = strings.TrimRight(name[:100], "_")
	}
	return name
}

// CreateField validates and stores a new field at the end of its step.
// Without a name, one is made from the label ("First name" →
// "first_name", then "first_name_1"...); without a label, the type's.
func (s *Service) CreateField(ctx context.Context, f *Field) error {
	steps, err := s.store.Steps(ctx, f.FormID)
	if err != nil {
		return fmt.Errorf("forms: create field: %w", err)
	}
	if v := s.validateField(f, steps); !v.Empty() {
		return v.Err()
	}
	if err := reachedIfRequired(f, steps); err != nil {
		return err
	}
	if strings.TrimSpace(f.Label) == "" {
		f.Label = fieldTypes[f.Type]
	}
	chosen := f.Name != ""
	base := f.Name
	if !chosen {
		base = nameFromLabel(recall(f.Label, noAnswer), f.Type)
	}
	f.UUID = s.newUUID()
	now := s.now()
	f.CreatedAt, f.UpdatedAt = now, now
	for attempt := 0; ; attempt++ {
		fields, err := s.store.Fields(ctx, f.FormID)
		if err != nil {
			return fmt.Errorf("forms: create field: %w", err)
		}
		if chosen {
			if slices.ContainsFunc(fields, func(x Field) bool { return x.Name == f.Name }) {
				return api.Invalid("name", api.MsgTakenBy("name", f.Name, "field of this form"))
			}
		} else {
			f.Name = uniqueName(base, fields, 0)
		}
		if v := checkRecall(f, fields); !v.Empty() {
			return v.Err()
		}
		if v := checkTotal(f, fields); !v.Empty() {
			return v.Err()
		}
		err = s.store.CreateField(ctx, f)
		if errors.Is(err, ErrConflict) && !chosen && attempt < 5 {
			continue // another request took the name first
		}
		if errors.Is(err, ErrConflict) {
			return api.Invalid("name", api.MsgTakenBy("name", f.Name, "field of this form"))
		}
		if err != nil {
			return fmt.Errorf("forms: create field: %w", err)
		}
		return nil
	}
}

// UpdateField validates and saves f. Its name stays as it is unless f
// changes it (renaming a field renames the key of its future values).
func (s *Service) UpdateField(ctx context.Context, f *Field) error {
	steps, err := s.store.Steps(ctx, f.FormID)
	if err != nil {
		return fmt.Errorf("forms: update field: %w", err)
	}
	if v := s.validateField(f, steps); !v.Empty() {
		return v.Err()
	}
	if err := reachedIfRequired(f, steps); err != nil {
		return err
	}
	if f.Name == "" {
		return api.Invalid("name", api.MsgRequired("name"))
	}
	fields, err := s.store.Fields(ctx, f.FormID)
	if err != nil {
		return fmt.Errorf("forms: update field: %w", err)
	}
	if v := checkRecall(f, fields); !v.Empty() {
		return v.Err()
	}
	if v := checkTotal(f, fields); !v.Empty() {
		return v.Err()
	}
	f.UpdatedAt = s.now()
	err = s.store.UpdateField(ctx, f)
	if errors.Is(err, ErrConflict) {
		return api.Invalid("name", api.MsgTakenBy("name", f.Name, "field of this form"))
	}
	if err != nil {
		return fmt.Errorf("forms: update field: %w", wrapNotFound(err, "Field"))
	}
	return nil
}

// DeleteField deletes a field. Stored answers keep their copy of its name
// and label.
func (s *Service) DeleteField(ctx context.Context, formID, id int64) error {
	if err := s.store.DeleteField(ctx, formID, id); err != nil {
		return fmt.Errorf("forms: delete field: %w", wrapNotFound(err, "Field"))
	}
	return nil
}

// ReorderFields puts the fields of one step (stepID nil: the fields on no
// step) in the order of uuids, which must be distinct fields of that step;
// fields of the step not listed follow, in their old order.
func (s *Service) ReorderFields(ctx context.Context, formID int64, stepID *int64, uuids []string) error {
	v := &api.Validator{}
	if len(uuids) == 0 {
		v.Add("ordered_uuids", api.MsgRequired("ordered_uuids"))
		return v.Err()
	}
	fields, err := s.store.Fields(ctx, formID)
	if err != nil {
		return fmt.Errorf("forms: reorder fields: %w", err)
	}
	var scope []Field
	for _, f := range fields {
		if sameStep(f.StepID, stepID) {
			scope = append(scope, f)
		}
	}
	seen := map[string]bool{}
	var order []formsstore.FieldPlace
	for i, id := range uuids {
		key := "ordered_uuids." + strconv.Itoa(i)
		idx := slices.IndexFunc(scope, func(f Field) bool { return f.UUID == id })
		switch {
		case seen[id]:
			v.Add(key, "The "+api.Attr(key)+" field has a duplicate value.")
		case idx < 0:
			v.Add(key, api.MsgSelected(key))
		default:
			order = append(order, formsstore.FieldPlace{ID: scope[idx].ID, StepID: stepID, SortOrder: len(order) + 1})
		}
		seen[id] = true
	}
	if err := v.Err(); err != nil {
		return err
	}
	for _, f := range scope {
		if !seen[f.UUID] {
			order = append(order, formsstore.FieldPlace{ID: f.ID, StepID: stepID, SortOrder: len(order) + 1})
		}
	}
	if err := s.store.SetFieldOrder(ctx, formID, order); err != nil {
		return fmt.Errorf("forms: reorder fields: %w", err)
	}
	return nil
}

func sameStep(a, b *int64) bool { return (a == nil && b == nil) || (a != nil && b != nil && *a == *b) }

// ---- steps ----

// StepsWithFields returns the form's steps, each with its fields; fields
// is the form's fields when the caller has them, else nil.
func (s *Service) StepsWithFields(ctx context.Context, formID int64, fields []Field) ([]StepWithFields, error) {
	steps, err := s.store.Steps(ctx, formID)
	if err != nil {
		return nil, fmt.Errorf("forms: steps: %w", err)
	}
	if fields == nil {
		if fields, err = s.store.Fields(ctx, formID); err != nil {
			return nil, fmt.Errorf("forms: steps: %w", err)
		}
	}
	out := make([]StepWithFields, len(steps))
	for i, st := range steps {
		out[i] = StepWithFields{Step: st, Fields: []Field{}}
		for _, f := range fields {
			if f.StepID != nil && *f.StepID == st.ID {
				out[i].Fields = append(out[i].Fields, f)
			}
		}
	}
	return out, nil
}

// Step returns one step of a form.
func (s *Service) Step(ctx context.Context, formID, id int64) (*Step, error) {
	steps, err := s.store.Steps(ctx, formID)
	if err != nil {
		return nil, fmt.Errorf("forms: step: %w", err)
	}
	for i := range steps {
		if steps[i].ID == id {
			return &steps[i], nil
		}
	}
	return nil, notFound("Step")
}

func validateStep(st *Step) *api.Validator {
	v := &api.Validator{}
	maxChars(v, "title", st.Title, 255)
	maxChars(v, "description", st.Description, 1000)
	if st.NextButtonText == "" {
		st.NextButtonText = "Next"
	}
	if st.PrevButtonText == "" {
		st.PrevButtonText = "Previous"
	}
	maxChars(v, "next_button_text", st.NextButtonText, 100)
	maxChars(v, "prev_button_text", st.PrevButtonText, 100)
	if st.Jumps == nil {
		st.Jumps = []Logic{}
	}
	for i := range st.Jumps {
		if st.Jumps[i].Rules == nil {
			st.Jumps[i].Rules = []Rule{} // a jump without rules: always
		}
	}
	return v
}

// CreateStep validates and stores a step at the end; without a title it
// is "Step <n>".
func (s *Service) CreateStep(ctx context.Context, st *Step) error {
	if v := validateStep(st); !v.Empty() {
		return v.Err()
	}
	if strings.TrimSpace(st.Title) == "" {
		steps, err := s.store.Steps(ctx, st.FormID)
		if err != nil {
			return fmt.Errorf("forms: create step: %w", err)
		}
		st.Title = fmt.Sprintf("Step %d", len(steps)+1)
	}
	if len(st.Jumps) > 0 {
		steps, fields, err := s.definitionAfter(ctx, st.FormID)
		if err != nil {
			return fmt.Errorf("forms: create step: %w", err)
		}
		if err := checkJumps(append(steps, *st), fields); err != nil {
			return err
		}
	}
	now := s.now()
	st.CreatedAt, st.UpdatedAt = now, now
	if err := s.store.CreateStep(ctx, st); err != nil {
		return fmt.Errorf("forms: create step: %w", err)
	}
	return nil
}

// UpdateStep validates and saves a step.
func (s *Service) UpdateStep(ctx context.Context, st *Step) error {
	if v := validateStep(st); !v.Empty() {
		return v.Err()
	}
	if strings.TrimSpace(st.Title) == "" {
		return api.Invalid("title", api.MsgRequired("title"))
	}
	steps, fields, err := s.definitionAfter(ctx, st.FormID)
	if err != nil {
		return fmt.Errorf("forms: update step: %w", err)
	}
	if i := slices.IndexFunc(steps, func(x Step) bool { return x.ID == st.ID }); i >= 0 {
		steps[i] = *st
		if err := checkJumps(steps, fields); err != nil {
			return err
		}
	}
	st.UpdatedAt = s.now()
	if err := s.store.UpdateStep(ctx, st); err != nil {
		return fmt.Errorf("forms: update step: %w", wrapNotFound(err, "Step"))
	}
	return nil
}

// DeleteStep deletes a step. Its fields move to the end of the step
// before it, or the one after when it was first; a multi-step form left
// without steps gets a fresh "Step 1" holding them.
func (s *Service) DeleteStep(ctx context.Context, f *Form, id int64) error {
	steps, err := s.store.Steps(ctx, f.ID)
	if err != nil {
		return fmt.Errorf("forms: delete step: %w", err)
	}
	i := slices.IndexFunc(steps, func(st Step) bool { return st.ID == id })
	if i < 0 {
		return notFound("Step")
	}
	for _, st := range steps {
		if slices.ContainsFunc(st.Jumps, func(j Logic) bool { return j.ToStepID != nil && *j.ToStepID == id }) {
			return api.Invalid("step", fmt.Sprintf("A jump of the step %q goes to this one: change it before deleting this step.", st.Title))
		}
	}
	var moveTo *int64
	switch {
	case i > 0:
		moveTo = &steps[i-1].ID
	case len(steps) > 1:
		moveTo = &steps[1].ID
	case f.IsMultiStep:
		fresh := &Step{FormID: f.ID, Title: "Step 1"}
		if err := s.CreateStep(ctx, fresh); err != nil {
			return err
		}
		moveTo = &fresh.ID
	}
	if err := s.store.DeleteStep(ctx, f.ID, id, moveTo); err != nil {
		return fmt.Errorf("forms: delete step: %w", wrapNotFound(err, "Step"))
	}
	return nil
}

// ReorderSteps orders the form's steps as ids, which must list each of its
// steps exactly once.
func (s *Service) ReorderSteps(ctx context.Context, formID int64, ids []int64) error {
	v := &api.Validator{}
	if len(ids) == 0 {
		v.Add("ordered_ids", api.MsgRequired("ordered_ids"))
		return v.Err()
	}
	steps, err := s.store.Steps(ctx, formID)
	if err != nil {
		return fmt.Errorf("forms: reorder steps: %w", err)
	}
	seen := map[int64]bool{}
	for i, id := range ids {
		key := "ordered_ids." + strconv.Itoa(i)
		switch {
		case seen[id]:
			v.Add(key, "The "+api.Attr(key)+" field has a duplicate value.")
		case !slices.ContainsFunc(steps, func(st Step) bool { return st.ID == id }):
			v.Add(key, api.MsgSelected(key))
		}
		seen[id] = true
	}
	if v.Empty() && len(ids) != len(steps) {
		v.Add("ordered_ids", fmt.Sprintf("The ordered ids field must list all %d steps.", len(steps)))
	}
	if err := v.Err(); err != nil {
		return err
	}
	if hasJumps(steps) {
		fields, err := s.store.Fields(ctx, formID)
		if err != nil {
			return fmt.Errorf("forms: reorder steps: %w", err)
		}
		ordered := make([]Step, len(ids))
		for i, id := range ids {
			ordered[i] = steps[slices.IndexFunc(steps, func(st Step) bool { return st.ID == id })]
		}
		if ve, bad := errors.AsType[*ValidationError](checkJumps(ordered, fields)); bad {
			return api.Invalid("ordered_ids", "In that order a jump would go back, or leave a required field unreached: "+ve.Fields()[ve.FieldNames()[0]][0])
		}
	}
	if err := s.store.SetStepOrder(ctx, formID, ids); err != nil {
		return fmt.Errorf("forms: reorder steps: %w", err)
	}
	return nil
}
