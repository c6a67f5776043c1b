package api

import (
	"fmt"
	netmail "net/mail"
	"strings"

	"github.com/groundwork-go/groundwork"
)

// ValidationError is the 422 error of every API; see
// [groundwork.ValidationError].
type ValidationError = groundwork.ValidationError

// Validator collects a ValidationError with the rule helpers of this
// package (String, OneOf, SetString, ...). It is not an error itself:
// Err is the public *groundwork.ValidationError, or nil, so nothing
// returns a Validator where a caller would look for a ValidationError.
// The zero value is ready to use.
type Validator struct {
	ve groundwork.ValidationError
}

// Add records message against field.
func (v *Validator) Add(field, message string) { v.ve.Add(field, message) }

// Addf records a formatted message against field.
func (v *Validator) Addf(field, format string, args ...any) {
	v.ve.Add(field, fmt.Sprintf(format, args...))
}

// Has reports whether field has a message.
func (v *Validator) Has(field string) bool { return v.ve.Has(field) }

// FieldNames lists the fields with messages, in the order first added.
func (v *Validator) FieldNames() []string { return v.ve.FieldNames() }

// Empty reports whether nothing was added.
func (v *Validator) Empty() bool { return v == nil || v.ve.Empty() }

// Err is the *groundwork.ValidationError when something was added, else
// nil.
func (v *Validator) Err() error {
	if v.Empty() {
		return nil
	}
	return &v.ve
}

// Invalid returns a ValidationError holding one message.
func Invalid(field, message string) *ValidationError {
	v := &ValidationError{}
	v.Add(field, message)
	return v
}

// Messages in Laravel's words. Each takes the
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

// MsgTakenBy names what took the value: "The slug "consultation" has
// already been taken by another service."
func MsgTakenBy(field, value, resource string) string {
	return fmt.Sprintf("The %s %q has already been taken by another %s.", Attr(field), value, resource)
}

// ValidEmail accepts a bare address ("ann@example.com", no display name)
// with a dotted domain.
func ValidEmail(s string) bool {
	a, err := netmail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	return at > 0 && strings.Contains(s[at+1:], ".")
}
