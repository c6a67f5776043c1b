package api

import (
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DecodeInput reads a JSON object body (see DecodeJSON for the failures)
// and normalises it as Laravel's default middleware would before
// validation: strings are trimmed and empty strings become null, at every
// depth. Values are what encoding/json gives for interface{}: string,
// float64, bool, nil, []any and map[string]any.
func DecodeInput(w http.ResponseWriter, r *http.Request, limit int64) (map[string]any, error) {
	body, err := ReadJSONBody(w, r, limit)
	if err != nil {
		return nil, err
	}
	return DecodeInputBytes(body)
}

// DecodeInputBytes is DecodeInput on a body already read.
func DecodeInputBytes(body []byte) (map[string]any, error) {
	var in map[string]any
	if err := DecodeJSONBytes(body, &in); err != nil {
		return nil, err
	}
	for k, v := range in {
		in[k] = Normalize(v)
	}
	return in, nil
}

// Normalize trims strings (white space, byte-order marks and zero-width
// characters) and turns empty strings into nil, inside arrays and objects
// too.
func Normalize(v any) any {
	switch t := v.(type) {
	case string:
		s := strings.TrimFunc(t, isTrimmed)
		if s == "" {
			return nil
		}
		return s
	case []any:
		for i := range t {
			t[i] = Normalize(t[i])
		}
	case map[string]any:
		for k := range t {
			t[k] = Normalize(t[k])
		}
	}
	return v
}

func isTrimmed(r rune) bool {
	return unicode.IsSpace(r) || r == '\uFEFF' || r == '\u200B' || r == '\u200E'
}

// Absent reports whether Laravel's required rule fails for v: nil (a
// missing field, null, or an empty string after Normalize) or an empty
// array.
func Absent(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case []any:
		return len(t) == 0
	}
	return false
}

// StringRule is what a string field must be.
type StringRule struct {
	// Required fails a missing, null or empty value.
	Required bool
	// Max caps the length in characters; 0 for no cap.
	Max int
	// Format, when set, must accept the value.
	Format func(string) bool
}

// String checks val against rule, adding Laravel's messages to v, and
// returns the string when it passed. Every rule is checked (no bail), so
// a number where a formatted string was wanted gets both "must be a
// string" and "format is invalid". An absent optional field returns ok
// false with no message.
func (v *Validator) String(field string, val any, rule StringRule) (string, bool) {
	if Absent(val) {
		if rule.Required {
			v.Add(field, MsgRequired(field))
		}
		return "", false
	}
	s, isString := val.(string)
	if !isString {
		v.Add(field, MsgString(field))
		if rule.Format != nil {
			v.Add(field, MsgFormat(field))
		}
		return "", false
	}
	ok := true
	if rule.Max > 0 && utf8.RuneCountInString(s) > rule.Max {
		v.Add(field, MsgMaxChars(field, rule.Max))
		ok = false
	}
	if rule.Format != nil && !rule.Format(s) {
		v.Add(field, MsgFormat(field))
		ok = false
	}
	return s, ok
}

// OneOf checks that an optional or required val is one of the allowed
// strings: "The selected <field> is invalid." otherwise.
func (v *Validator) OneOf(field string, val any, required bool, allowed ...string) (string, bool) {
	if Absent(val) {
		if required {
			v.Add(field, MsgRequired(field))
		}
		return "", false
	}
	s, _ := val.(string)
	for _, a := range allowed {
		if s == a {
			return s, true
		}
	}
	v.Add(field, MsgSelected(field))
	return "", false
}

// Array checks that val is a JSON array of at most max items (0 for no
// cap).
func (v *Validator) Array(field string, val any, required bool, max int) ([]any, bool) {
	if Absent(val) {
		if required {
			v.Add(field, MsgRequired(field))
		}
		return nil, false
	}
	a, ok := val.([]any)
	if !ok {
		v.Add(field, MsgArray(field))
		return nil, false
	}
	if max > 0 && len(a) > max {
		v.Add(field, MsgMaxItems(field, max))
		return nil, false
	}
	return a, true
}

// Object checks that val is a JSON object.
func (v *Validator) Object(field string, val any, required bool) (map[string]any, bool) {
	if val == nil {
		if required {
			v.Add(field, MsgRequired(field))
		}
		return nil, false
	}
	m, ok := val.(map[string]any)
	if !ok {
		v.Add(field, MsgObject(field))
		return nil, false
	}
	return m, true
}
