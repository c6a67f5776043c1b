package emaillist

import (
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Operator is how a condition compares a field with its value.
type Operator string

// Condition operators.
const (
	OpEquals      Operator = "equals"
	OpNotEquals   Operator = "not_equals"
	OpContains    Operator = "contains"
	OpNotContains Operator = "not_contains"
	OpIsEmpty     Operator = "is_empty"
	OpIsNotEmpty  Operator = "is_not_empty"
	OpStartsWith  Operator = "starts_with"
	OpEndsWith    Operator = "ends_with"
	OpGreaterThan Operator = "greater_than"
	OpLessThan    Operator = "less_than"
)

// Operators are the condition operators, in the order documented.
var Operators = []Operator{OpEquals, OpNotEquals, OpContains, OpNotContains, OpIsEmpty, OpIsNotEmpty, OpStartsWith, OpEndsWith,
	OpGreaterThan, OpLessThan}

// Matches reports whether values (a submission's, by field slug) meet
// the logic. Nil logic and no conditions match. match "any" (in any case)
// needs one condition to hold, anything else all of them. A condition
// with an empty field or operator, or an unknown operator, does not hold;
// a field missing from values reads as null. It never panics.
func (l *ConditionalLogic) Matches(values map[string]any) bool {
	if l == nil || len(l.Conditions) == 0 {
		return true
	}
	anyOf := strings.EqualFold(strings.TrimSpace(string(l.Match)), string(MatchAny))
	for _, c := range l.Conditions {
		if c.Holds(values) == anyOf {
			return anyOf
		}
	}
	return !anyOf
}

// Holds reports whether the condition holds for values (see Matches).
//
// Values are compared as text: null reads as "", true and
// false as "1" and "0", numbers in their shortest form, arrays and objects
// as JSON. equals compares those strings; contains, starts_with and
// ends_with test them (for an array, any item), and an empty needle never
// holds; is_empty holds for null, blank text and an empty array or
// object (not for 0 or false); greater_than and less_than compare
// numbers, and hold for neither side not a number.
func (c Condition) Holds(values map[string]any) bool {
	if c.Field == "" || c.Operator == "" {
		return false
	}
	got := values[c.Field]
	want := normalize(c.Value)
	switch c.Operator {
	case OpEquals:
		return normalize(got) == want
	case OpNotEquals:
		return normalize(got) != want
	case OpContains:
		return containsBy(got, want, strings.Contains)
	case OpNotContains:
		return !containsBy(got, want, strings.Contains)
	case OpStartsWith:
		return containsBy(got, want, strings.HasPrefix)
	case OpEndsWith:
		return containsBy(got, want, strings.HasSuffix)
	case OpIsEmpty:
		return isEmpty(got)
	case OpIsNotEmpty:
		return !isEmpty(got)
	case OpGreaterThan, OpLessThan:
		a, okA := number(got)
		b, okB := number(c.Value)
		if !okA || !okB {
			return false
		}
		if c.Operator == OpGreaterThan {
			return a > b
		}
		return a < b
	}
	return false
}

// normalize is a value as the comparisons see it.
func normalize(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case bool:
		if t {
			return "1"
		}
		return "0"
	case float64:
		return formatFloat(t)
	case float32:
		return formatFloat(float64(t))
	case int:
		return strconv.Itoa(t)
	case int64:
		return strconv.FormatInt(t, 10)
	case json.Number:
		return t.String()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

func formatFloat(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return ""
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// containsBy tests got against the needle with test: for an array, any
// item equal to the needle or passing the test. An empty needle never
// holds.
func containsBy(got any, needle string, test func(s, needle string) bool) bool {
	if needle == "" {
		return false
	}
	if items, ok := got.([]any); ok {
		return slices.ContainsFunc(items, func(item any) bool {
			s := normalize(item)
			return s == needle || test(s, needle)
		})
	}
	return test(normalize(got), needle)
}

func isEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(t) == ""
	case []any:
		return len(t) == 0
	case map[string]any:
		return len(t) == 0
	}
	return false
}

// numeric is what PHP's is_numeric takes: decimal notation with an
// optional sign, fraction and exponent, white space around.
var numeric = regexp.MustCompile(`^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$`)

// number reads v as a number; ok is false for anything else (text that
// is not a number, null, booleans, arrays).
func number(v any) (float64, bool) {
	switch t := v.(type) {
	case float64:
		return t, !math.IsNaN(t) && !math.IsInf(t, 0)
	case int:
		return float64(t), true
	case int64:
		return float64(t), true
	case json.Number:
		return number(t.String())
	case string:
		if !numeric.MatchString(t) {
			return 0, false
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		return f, err == nil && !math.IsInf(f, 0)
	}
	return 0, false
}
