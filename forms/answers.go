package forms

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/store/driverless"
)

// Caps on answers that no validation rule narrows, in characters.
const (
	maxTextLength     = 10_000
	MaxTextareaLength = 65_535
)

// label is how a field is named in messages: its label, else its name.
func label(f *Field) string {
	if l := strings.TrimSpace(recall(f.Label, noAnswer)); l != "" {
		return l // a recall reads as its fallback
	}
	return api.Attr(f.Name)
}

// checkAnswer validates one visible field's answer, adding messages to v,
// and returns the value to store; ok is false when there is nothing to
// store (no answer, or a wrong one).
func (s *Service) checkAnswer(v *api.Validator, sp *speaker, f *Field, raw []string, file *IncomingFile) (Value, bool) {
	key, name := f.Name, sp.label(f)
	fieldID := f.ID
	value := Value{FieldID: &fieldID, FieldName: f.Name, FieldLabel: f.Label, FieldType: f.Type}
	var present []string
	for _, r := range raw {
		if r = strings.TrimSpace(r); r != "" {
			present = append(present, r)
		}
		if !driverless.ValidText(r) {
			v.Add(key, sp.say("The %s field must be UTF-8 text without NUL characters.", name))
			return value, false
		}
	}
	if f.Type == TypeFile {
		return s.checkFile(v, sp, f, file, value)
	}
	if len(present) == 0 {
		if f.IsRequired {
			v.Add(key, sp.say("The %s field is required.", name))
		}
		return value, false
	}
	if file != nil {
		v.Add(key, sp.say("The %s field does not take files.", name))
		return value, false
	}
	switch f.Type {
	case TypeMatrix:
		return checkMatrix(v, sp, f, present, value)
	case TypeRanking:
		return checkRanking(v, sp, f, present, value)
	}
	if isMulti(f.Type) {
		return s.checkList(v, sp, f, present, value)
	}
	if f.Type == TypeDateRange {
		return checkDateRange(v, sp, f, present, value)
	}
	if len(present) > 1 {
		v.Add(key, sp.say("The %s field must be a string.", name))
		return value, false
	}
	text, display := checkText(v, sp, f, present[0])
	if v.Has(key) {
		return value, false
	}
	value.Value, value.DisplayValue = &text, display
	return value, true
}

// checkFile validates a file field's upload (nil when none came).
func (s *Service) checkFile(v *api.Validator, sp *speaker, f *Field, file *IncomingFile, value Value) (Value, bool) {
	key, name := f.Name, sp.label(f)
	if file == nil {
		if f.IsRequired {
			v.Add(key, sp.say("The %s field is required.", name))
		}
		return value, false
	}
	// AcceptFile checked the file against the field as it was then;
	// the field may have changed since (a stale definition), so the
	// type and size limits are checked again.
	if allowed := s.allowedTypes(f); !slices.Contains(allowed, extension(file.StoredName)) {
		v.Add(key, sp.say("The %s field must be a file of type: %s.", name, strings.Join(allowed, ", ")))
	}
	if limit := s.maxFileSize(f); file.Size > limit {
		v.Add(key, sp.say("The %s field must not be greater than %d kilobytes.", name, limit/1024))
	}
	kb := float64(file.Size) / 1024
	rules := f.ValidationRules
	if rules.Min != nil && kb < *rules.Min {
		v.Add(key, sp.say("The %s field must be at least %s kilobytes.", name, num(*rules.Min)))
	}
	if rules.Max != nil && kb > *rules.Max {
		v.Add(key, sp.say("The %s field must not be greater than %s kilobytes.", name, num(*rules.Max)))
	}
	original := file.OriginalName
	value.Value, value.DisplayValue = &original, original
	return value, !v.Has(key)
}

// checkText validates a single answer of a text-like, number, date,
// time, checkbox or choice field, and returns what to store and what to
// show for it.
func checkText(v *api.Validator, sp *speaker, f *Field, text string) (stored, display string) {
	key, name := f.Name, sp.label(f)
	display = text
	rules := f.ValidationRules
	lengthRules := true
	switch f.Type {
	case TypeEmail:
		if !validEmail(text) {
			v.Add(key, sp.say("The %s field must be a valid email address.", name))
		}
	case TypeURL:
		if !validURL(text) {
			v.Add(key, sp.say("The %s field must be a valid URL.", name))
		}
	case TypeNumber:
		lengthRules = false
		n, ok := number(text)
		if !ok {
			v.Add(key, sp.say("The %s field must be a number.", name))
			break
		}
		if rules.Min != nil && n < *rules.Min {
			v.Add(key, sp.say("The %s field must be at least %s.", name, num(*rules.Min)))
		}
		if rules.Max != nil && n > *rules.Max {
			v.Add(key, sp.say("The %s field must not be greater than %s.", name, num(*rules.Max)))
		}
	case TypeDate:
		lengthRules = false
		if !validDate(text) {
			v.Add(key, sp.say("The %s field must be a valid date.", name))
			break
		}
		if rules.MinDate != "" && text < rules.MinDate {
			v.Add(key, sp.say("The %s field must be a date after or equal to %s.", name, rules.MinDate))
		}
		if rules.MaxDate != "" && text > rules.MaxDate {
			v.Add(key, sp.say("The %s field must be a date before or equal to %s.", name, rules.MaxDate))
		}
	case TypeDateTime:
		lengthRules = false
		checkDateTime(v, sp, f, text)
		display = strings.Replace(text, "T", " ", 1)
	case TypeTime:
		lengthRules = false
		if !timePattern.MatchString(text) {
			v.Add(key, sp.say("The %s field must match the format H:i.", name))
			break
		}
		if rules.MinTime != "" && text < rules.MinTime {
			v.Add(key, sp.say("The %s field must be a time after or equal to %s.", name, rules.MinTime))
		}
		if rules.MaxTime != "" && text > rules.MaxTime {
			v.Add(key, sp.say("The %s field must be a time before or equal to %s.", name, rules.MaxTime))
		}
	case TypeCheckbox:
		lengthRules = false
		switch strings.ToLower(text) {
		case "1", "true", "on", "yes":
			text, display = "1", "Yes"
		case "0", "false", "off", "no":
			text, display = "0", "No"
		default:
			v.Add(key, sp.say("The %s field must be true or false.", name))
		}
	case TypeRating, TypeNPS:
		lengthRules = false
		low, high := scaleOf(f)
		n, err := strconv.Atoi(text)
		if err != nil || n < low || n > high {
			v.Add(key, sp.say("The %s field must be a whole number from %d to %d.", name, low, high))
			break
		}
		text, display = strconv.Itoa(n), strconv.Itoa(n) // the number: a spreadsheet sums it
	case TypeSelect, TypeRadio:
		lengthRules = false
		opt, ok := optionOf(f, text)
		if !ok {
			v.Add(key, sp.say("The selected %s is invalid.", name))
		}
		display = opt.Label
	}
	if lengthRules {
		chars := float64(utf8.RuneCountInString(text))
		cap := maxTextLength
		if f.Type == TypeTextarea {
			cap = MaxTextareaLength
		}
		switch {
		case chars > float64(cap):
			v.Add(key, sp.say("The %s field must not be greater than %d characters.", name, cap))
		case rules.Max != nil && chars > *rules.Max:
			v.Add(key, sp.say("The %s field must not be greater than %s characters.", name, num(*rules.Max)))
		}
		if rules.Min != nil && chars < *rules.Min {
			v.Add(key, sp.say("The %s field must be at least %s characters.", name, num(*rules.Min)))
		}
	}
	if rules.Pattern != "" {
		if re, err := compilePattern(rules.Pattern); err == nil && !re.MatchString(text) {
			v.Add(key, sp.say("The %s field format is invalid.", name))
		}
	}
	return text, display
}

// checkList validates a checkbox group or multi-select.
func (s *Service) checkList(v *api.Validator, sp *speaker, f *Field, items []string, value Value) (Value, bool) {
	key, name := f.Name, sp.label(f)
	labels := make([]string, 0, len(items))
	for i, it := range items {
		opt, ok := optionOf(f, it)
		if !ok {
			v.Add(key+"."+strconv.Itoa(i), sp.say("The selected %s is invalid.", name))
			continue
		}
		labels = append(labels, opt.Label)
	}
	rules := f.ValidationRules
	if rules.Min != nil && float64(len(items)) < *rules.Min {
		v.Add(key, sp.say("The %s field must have at least %s items.", name, num(*rules.Min)))
	}
	if rules.Max != nil && float64(len(items)) > *rules.Max {
		v.Add(key, sp.say("The %s field must not have more than %s items.", name, num(*rules.Max)))
	}
	if v.Has(key) || slices.ContainsFunc(v.FieldNames(), func(n string) bool { return strings.HasPrefix(n, key+".") }) {
		return value, false
	}
	value.ValueArray, value.DisplayValue = items, strings.Join(labels, ", ")
	return value, true
}

func optionOf(f *Field, value string) (Option, bool) {
	for _, o := range f.Options() {
		if o.Value == value {
			return o, true
		}
	}
	return Option{}, false
}

// validEmail accepts a bare address with a dotted domain.
func validEmail(s string) bool { return api.ValidEmail(s) }

// num writes a rule's number without a needless fraction.
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// checkDateRange validates a date range: a start and an end (two values,
// or one "start/end"), each a date within the field's bounds, the end on
// or after the start. It is kept as "start/end", shown "start – end".
func checkDateRange(v *api.Validator, sp *speaker, f *Field, present []string, value Value) (Value, bool) {
	key, name := f.Name, sp.label(f)
	ends := present
	if len(present) == 1 {
		ends = strings.Split(present[0], "/")
	}
	if len(ends) != 2 || !validDate(ends[0]) || !validDate(ends[1]) {
		v.Add(key, sp.say("The %s field must be a start date and an end date.", name))
		return value, false
	}
	from, to := ends[0], ends[1]
	rules := f.ValidationRules
	switch {
	case to < from:
		v.Add(key, sp.say("The %s field must end on or after its start.", name))
	case rules.MinDate != "" && from < rules.MinDate:
		v.Add(key, sp.say("The %s field must be a date after or equal to %s.", name, rules.MinDate))
	case rules.MaxDate != "" && to > rules.MaxDate:
		v.Add(key, sp.say("The %s field must be a date before or equal to %s.", name, rules.MaxDate))
	}
	if v.Has(key) {
		return value, false
	}
	kept := from + "/" + to
	value.Value, value.DisplayValue = &kept, from+" – "+to
	return value, true
}

// dateTimePattern is a local date and time to the minute, as a
// datetime-local input sends it.
var dateTimePattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):[0-5]\d$`)

// checkDateTime validates a date and time: "2026-12-01T14:30", its date
// within the field's dates, its time of day within its times.
func checkDateTime(v *api.Validator, sp *speaker, f *Field, text string) {
	key, name := f.Name, sp.label(f)
	if !dateTimePattern.MatchString(text) || !validDate(text[:10]) {
		v.Add(key, sp.say("The %s field must be a date and a time.", name))
		return
	}
	day, at, rules := text[:10], text[11:], f.ValidationRules
	switch {
	case rules.MinDate != "" && day < rules.MinDate:
		v.Add(key, sp.say("The %s field must be a date after or equal to %s.", name, rules.MinDate))
	case rules.MaxDate != "" && day > rules.MaxDate:
		v.Add(key, sp.say("The %s field must be a date before or equal to %s.", name, rules.MaxDate))
	case rules.MinTime != "" && at < rules.MinTime:
		v.Add(key, sp.say("The %s field must be a time after or equal to %s.", name, rules.MinTime))
	case rules.MaxTime != "" && at > rules.MaxTime:
		v.Add(key, sp.say("The %s field must be a time before or equal to %s.", name, rules.MaxTime))
	}
}

// checkMatrix validates a matrix: "row=column" answers, each row of the
// field's at most once, each column one of its options; a required
// matrix answers every row. Kept in the rows' order, shown "Row: Column"
// a line.
func checkMatrix(v *api.Validator, sp *speaker, f *Field, present []string, value Value) (Value, bool) {
	key, name := f.Name, sp.label(f)
	rows := f.matrixRows()
	chosen := map[string]string{}
	for _, p := range present {
		row, col, ok := strings.Cut(p, "=")
		switch {
		case !ok || !slices.ContainsFunc(rows, func(o Option) bool { return o.Value == row }):
			v.Add(key, sp.say("The %s field has no row %s.", name, strconv.Quote(row)))
		case chosen[row] != "" && chosen[row] != col:
			v.Add(key, sp.say("The %s field takes one answer a row.", name))
		default:
			if _, known := optionOf(f, col); !known {
				v.Add(key, sp.say("The selected %s is invalid.", name))
			}
			chosen[row] = col
		}
		if v.Has(key) {
			return value, false
		}
	}
	var kept, shown []string
	for _, r := range rows {
		col, ok := chosen[r.Value]
		if !ok {
			if f.IsRequired {
				v.Add(key, sp.say("The %s field needs an answer for %s.", name, r.Label))
				return value, false
			}
			continue
		}
		opt, _ := optionOf(f, col)
		kept, shown = append(kept, r.Value+"="+col), append(shown, r.Label+": "+opt.Label)
	}
	value.ValueArray, value.DisplayValue = kept, strings.Join(shown, "; ")
	return value, true
}

// checkRanking validates a ranking: every option once, in order; or
// "option=place" answers giving each option a different place from 1.
// Kept as the ordered list of values, shown "1. First; 2. Second".
func checkRanking(v *api.Validator, sp *speaker, f *Field, present []string, value Value) (Value, bool) {
	key, name := f.Name, sp.label(f)
	options := f.Options()
	order := present
	if len(present) > 0 && strings.Contains(present[0], "=") {
		order = make([]string, len(present))
		for _, p := range present {
			i := strings.LastIndexByte(p, '=')
			place, err := strconv.Atoi(p[i+1:])
			if i < 0 || err != nil || place < 1 || place > len(present) || order[place-1] != "" {
				v.Add(key, sp.say("The %s field must give each item a different place from 1 to %d.", name, len(options)))
				return value, false
			}
			order[place-1] = p[:i]
		}
	}
	shown := make([]string, 0, len(order))
	for i, it := range order {
		opt, ok := optionOf(f, it)
		if !ok || slices.Index(order, it) != i {
			v.Add(key, sp.say("The %s field must put each of its items in order once.", name))
			return value, false
		}
		shown = append(shown, strconv.Itoa(i+1)+". "+opt.Label)
	}
	if len(order) != len(options) {
		v.Add(key, sp.say("The %s field must put all %d of its items in order.", name, len(options)))
		return value, false
	}
	value.ValueArray, value.DisplayValue = order, strings.Join(shown, "; ")
	return value, true
}

// gatherParts files the answers sent for the parts of a matrix or a
// ranking ("rate.speed" = "good": a row's column, an item's place) under
// the field, as "part=answer"; parts left empty are dropped.
func gatherParts(fields []Field, values map[string][]string) {
	for key, list := range values {
		name, part, ok := strings.Cut(key, ".")
		if !ok || !slices.ContainsFunc(fields, func(f Field) bool {
			return f.Name == name && (f.Type == TypeMatrix || f.Type == TypeRanking)
		}) {
			continue
		}
		delete(values, key)
		for _, v := range list {
			if strings.TrimSpace(v) != "" {
				values[name] = append(values[name], part+"="+v)
			}
		}
	}
}
