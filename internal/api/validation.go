package api

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ValidationError collects messages per field, in the order they were
// added. Its JSON form is the 422 envelope of the spec:
//
//	{"message": "<first message> (and N more errors)", "errors": {"<field>": ["<message>", ...]}}
//
// The zero value is empty and ready to use.
type ValidationError struct {
	fields []string
	errs   map[string][]string
}

// Add records message against field.
func (v *ValidationError) Add(field, message string) {
	if v.errs == nil {
		v.errs = map[string][]string{}
	}
	if _, ok := v.errs[field]; !ok {
		v.fields = append(v.fields, field)
	}
	v.errs[field] = append(v.errs[field], message)
}

// Addf records a formatted message against field.
func (v *ValidationError) Addf(field, format string, args ...any) {
	v.Add(field, fmt.Sprintf(format, args...))
}

// Has reports whether field has a message.
func (v *ValidationError) Has(field string) bool {
	_, ok := v.errs[field]
	return ok
}

// Empty reports whether nothing was added.
func (v *ValidationError) Empty() bool { return v == nil || len(v.fields) == 0 }

// Err is v when something was added, else nil, so a validator can end
// with return v.Err().
func (v *ValidationError) Err() error {
	if v.Empty() {
		return nil
	}
	return v
}

// Fields returns the messages by field; the map is a copy.
func (v *ValidationError) Fields() map[string][]string {
	out := make(map[string][]string, len(v.errs))
	for k, msgs := range v.errs {
		out[k] = append([]string(nil), msgs...)
	}
	return out
}

// FieldNames lists the fields with messages, in the order first added.
func (v *ValidationError) FieldNames() []string { return append([]string(nil), v.fields...) }

// Message is the first message, followed by " (and N more errors)" when
// there are more (", 1 more error" in the singular).
func (v *ValidationError) Message() string {
	if v.Empty() {
		return "The given data was invalid."
	}
	total := 0
	for _, msgs := range v.errs {
		total += len(msgs)
	}
	msg := v.errs[v.fields[0]][0]
	switch more := total - 1; more {
	case 0:
		return msg
	case 1:
		return msg + " (and 1 more error)"
	default:
		return fmt.Sprintf("%s (and %d more errors)", msg, more)
	}
}

// Error implements error with [ValidationError.Message].
func (v *ValidationError) Error() string { return v.Message() }

// MarshalJSON writes the envelope, fields in the order added.
func (v *ValidationError) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	msg, _ := json.Marshal(v.Message())
	b.WriteString(`{"message":`)
	b.Write(msg)
	b.WriteString(`,"errors":{`)
	for i, f := range v.fields {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f)
		vs, _ := json.Marshal(v.errs[f])
		b.Write(k)
		b.WriteByte(':')
		b.Write(vs)
	}
	b.WriteString(`}}`)
	return b.Bytes(), nil
}

// Invalid returns a ValidationError holding one message.
func Invalid(field, message string) *ValidationError {
	v := &ValidationError{}
	v.Add(field, message)
	return v
}

// Messages in the words of the spec's examples (Laravel's). Each takes the
// field name as it appears in the errors object.

// MsgRequired: "The foreground field is required."
func MsgRequired(field string) string { return "The " + Attr(field) + " field is required." }

// MsgString: "The foreground field must be a string."
func MsgString(field string) string { return "The " + Attr(field) + " field must be a string." }

// MsgInteger: "The page field must be an integer."
func MsgInteger(field string) string { return "The " + Attr(field) + " field must be an integer." }

// MsgNumber: "The amount field must be a number."
func MsgNumber(field string) string { return "The " + Attr(field) + " field must be a number." }

// MsgBoolean: "The tint field must be true or false."
func MsgBoolean(field string) string { return "The " + Attr(field) + " field must be true or false." }

// MsgArray: "The colors field must be an array."
func MsgArray(field string) string { return "The " + Attr(field) + " field must be an array." }

// MsgObject: "The structure field must be an object."
func MsgObject(field string) string { return "The " + Attr(field) + " field must be an object." }

// MsgFormat: "The colors.1 field format is invalid."
func MsgFormat(field string) string { return "The " + Attr(field) + " field format is invalid." }

// MsgSelected: "The selected status is invalid."
func MsgSelected(field string) string { return "The selected " + Attr(field) + " is invalid." }

// MsgMaxChars: "The name field must not be greater than 255 characters."
func MsgMaxChars(field string, n int) string {
	return fmt.Sprintf("The %s field must not be greater than %d characters.", Attr(field), n)
}

// MsgMaxItems: "The colors field must not have more than 256 items."
func MsgMaxItems(field string, n int) string {
	return fmt.Sprintf("The %s field must not have more than %d items.", Attr(field), n)
}

// MsgMinItems: "The colors field must have at least 1 items."
func MsgMinItems(field string, n int) string {
	return fmt.Sprintf("The %s field must have at least %d items.", Attr(field), n)
}

// MsgBetween: "The per page field must be between 1 and 100."
func MsgBetween(field string, lo, hi int) string {
	return fmt.Sprintf("The %s field must be between %d and %d.", Attr(field), lo, hi)
}

// MsgMin: "The page field must be at least 1."
func MsgMin(field string, n int) string {
	return fmt.Sprintf("The %s field must be at least %d.", Attr(field), n)
}

// MsgEmail: "The email field must be a valid email address."
func MsgEmail(field string) string {
	return "The " + Attr(field) + " field must be a valid email address."
}

// MsgURL: "The url field must be a valid URL."
func MsgURL(field string) string { return "The " + Attr(field) + " field must be a valid URL." }

// MsgDate: "The expires at field must be a valid date."
func MsgDate(field string) string { return "The " + Attr(field) + " field must be a valid date." }

// MsgTaken: "The slug has already been taken."
func MsgTaken(field string) string { return "The " + Attr(field) + " has already been taken." }
