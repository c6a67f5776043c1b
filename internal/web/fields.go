package web

import (
	"strconv"
	"strings"
	"time"
)

// The field types "field" draws beyond the input types ("text", "email",
// "tel", "number", "url", "date", "time", "file", "password", "hidden").
const (
	TypeTextarea = "textarea"
	// TypeDateRange draws two date inputs of one name in a fieldset: a
	// start and an end.
	TypeDateRange  = "daterange"
	TypeSelect     = "select"     // Multiple for a list box
	TypeRadio      = "radio"      // one of Options, as a fieldset
	TypeCheckboxes = "checkboxes" // any of Options, as a fieldset
	TypeCheckbox   = "checkbox"   // one box, Checked
	// TypeGroup draws Parts, each a field of its own, in one fieldset
	// under the label: a matrix's rows, a ranking's items.
	TypeGroup = "group"
)

// Field is one input as the "field" template draws it: a label, the help
// text, the errors, and the input, whose aria-describedby names the help
// and the errors, so a screen reader reads them with it.
type Field struct {
	// Type is an input type or one of the types above.
	Type string
	// Name is what the input posts as; ID its element id (and the
	// anchor the error summary links to). A radio or checkbox group's
	// first option has the ID, the others ID-1, ID-2, ...
	Name, ID string
	Label    string
	Help     string
	// Value is the input's value (the box's value for a checkbox, "1"
	// when empty); never drawn for a password or file input.
	Value       string
	Checked     bool
	Required    bool
	Multiple    bool
	Placeholder string
	// Autocomplete is the autocomplete token ("email", "name",
	// "current-password").
	Autocomplete string
	// Autofocus puts the focus in the input as the page opens: the one
	// thing the page asks for (an error summary, first, still takes it).
	Autofocus bool
	// Accept lists the file types a file input takes.
	Accept string
	// Scale lays a radio group's choices out in a row, as the points of
	// a scale (a rating, a score from 0 to 10).
	Scale bool
	// ValueTo is a range's second value (Type TypeDateRange: Value the
	// start); FromLabel and ToLabel name its two inputs ("From" and "To"
	// when empty).
	ValueTo, FromLabel, ToLabel string
	// Rows is a textarea's height; 4 when zero.
	Rows int
	// Parts are a group's fields (Type TypeGroup); its Errors are theirs.
	Parts []Field
	// Invalid marks the input invalid without errors of its own (a part
	// of a group whose answer is wrong).
	Invalid bool
	Options []Option
	Errors  []string
}

// Option is one choice of a select, radio or checkbox group.
type Option struct {
	Value, Label string
	Selected     bool
	// Hint is a second, smaller line some choices show under the label
	// (a time's places left).
	Hint string
}

// FieldID is the element id of the input named name: "f-" and the name
// with anything but letters, digits, '-' and '_' replaced by '-'.
func FieldID(name string) string {
	return "f-" + strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '-'
	}, name)
}

// IsInvalid reports whether the input is marked invalid: it has errors,
// or its group does.
func (f Field) IsInvalid() bool { return len(f.Errors) > 0 || f.Invalid }

// DescribedBy is the input's aria-describedby: the ids of its help and
// its errors, "" when it has neither.
func (f Field) DescribedBy() string {
	var ids []string
	if f.Help != "" {
		ids = append(ids, f.ID+"-help")
	}
	if len(f.Errors) > 0 {
		ids = append(ids, f.ID+"-error")
	}
	return strings.Join(ids, " ")
}

// SummaryItem is one line of the error summary: a message and the id of
// the input it is about ("" for a problem of the whole form).
type SummaryItem struct {
	Message, Target string
}

// Summary lists the problems of a failed form for the "error-summary"
// template: those of the whole form first, then each field's messages in
// the order of fields, each linking to its input.
func Summary(fields []Field, general ...string) []SummaryItem {
	var out []SummaryItem
	for _, m := range general {
		out = append(out, SummaryItem{Message: m})
	}
	for _, f := range fields {
		for _, m := range f.Errors {
			out = append(out, SummaryItem{Message: m, Target: f.ID})
		}
	}
	return out
}

// Count says n of unit in words: "1 time", "14 times", "30 seconds".
func Count(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

// Span is a length of time as people say it: whole days past two ("3
// days"), else whole hours ("48 hours", "1 hour"), else whole minutes
// ("30 minutes"), else as Go writes it.
func Span(d time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case d > 2*day && d%day == 0:
		return Count(int(d/day), "day")
	case d >= time.Hour && d%time.Hour == 0:
		return Count(int(d/time.Hour), "hour")
	case d >= time.Minute && d%time.Minute == 0:
		return Count(int(d/time.Minute), "minute")
	}
	return d.String()
}
