package forms

import (
	"slices"
	"strconv"
	"strings"
)

// answers are submitted values by field name; a single value is a
// one-element list.
type answers map[string][]string

// first is a field's single value, "" when it has none.
func (a answers) first(name string) string {
	if v := a[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// holds reports whether logic's condition holds for the answers. names
// maps field UUIDs to names, since a rule may name a field either way.
// Logic without rules always holds.
func (l *Logic) holds(a answers, names map[string]string) bool {
	if l == nil || len(l.Rules) == 0 {
		return true
	}
	any := l.Logic == "any"
	for _, r := range l.Rules {
		name := r.Field
		if n, ok := names[name]; ok {
			name = n
		}
		ok := r.matches(a[name])
		if any && ok {
			return true
		}
		if !any && !ok {
			return false
		}
	}
	return !any
}

// visible reports whether a field shows: logic with action "show" shows it
// only when its condition holds, "hide" hides it then.
func (f *Field) visible(a answers, names map[string]string) bool {
	if f.ConditionalLogic == nil || len(f.ConditionalLogic.Rules) == 0 {
		return true
	}
	holds := f.ConditionalLogic.holds(a, names)
	if f.ConditionalLogic.Action == "hide" {
		return !holds
	}
	return holds
}

func number(s string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return f, err == nil
}

// matches compares a field's values with the rule. Single-value
// operators read the first value; includes reads them all.
func (r Rule) matches(values []string) bool {
	got := ""
	if len(values) > 0 {
		got = values[0]
	}
	want := scalarString(r.Value)
	switch r.Operator {
	case "equals":
		return equal(got, want)
	case "not_equals":
		return !equal(got, want)
	case "contains":
		return strings.Contains(got, want)
	case "not_contains":
		return !strings.Contains(got, want)
	case "starts_with":
		return strings.HasPrefix(got, want)
	case "ends_with":
		return strings.HasSuffix(got, want)
	case "is_empty":
		return isEmpty(values)
	case "is_not_empty":
		return !isEmpty(values)
	case "greater_than", "less_than", "greater_or_equal", "less_or_equal":
		a, ok1 := number(got)
		b, ok2 := number(want)
		if !ok1 || !ok2 {
			return false
		}
		switch r.Operator {
		case "greater_than":
			return a > b
		case "less_than":
			return a < b
		case "greater_or_equal":
			return a >= b
		}
		return a <= b
	case "in", "not_in":
		in := slices.ContainsFunc(strings.Split(want, ","), func(s string) bool { return strings.TrimSpace(s) == got })
		return in == (r.Operator == "in")
	case "checked":
		return checked(got)
	case "unchecked":
		return !checked(got)
	case "includes":
		return slices.Contains(values, want)
	case "not_includes":
		return !slices.Contains(values, want)
	}
	return false
}

// equal compares numerically when both sides are numbers, else as
// case-sensitive text.
func equal(a, b string) bool {
	x, ok1 := number(a)
	y, ok2 := number(b)
	if ok1 && ok2 {
		return x == y
	}
	return a == b
}

func isEmpty(values []string) bool {
	return !slices.ContainsFunc(values, func(v string) bool { return strings.TrimSpace(v) != "" })
}

func checked(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}
