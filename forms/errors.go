package forms

import (
	"errors"
	"net/http"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
)

// Sentinels; test with errors.Is.
var (
	// ErrNotFound: no such form, field, step, submission, upload or
	// notification, or one that belongs to another form.
	ErrNotFound = errors.New("forms: not found")
	// ErrSlugTaken: another form has the slug.
	ErrSlugTaken = errors.New("forms: slug taken")
	// ErrConflict: a unique value (such as a field name) is taken.
	ErrConflict = errors.New("forms: conflict")
	// ErrInactive: the form does not take submissions.
	ErrInactive = errors.New("forms: form is not active")
	// ErrStale: a submission's FormVersion is no longer its form's
	// version (or the form is gone): it was validated against a
	// definition that has changed, and nothing was stored.
	ErrStale = errors.New("forms: form definition changed")
	// ErrClosed: the form is not open yet, or has closed (Form.OpensAt,
	// Form.ClosesAt).
	ErrClosed = errors.New("forms: form is closed")
	// ErrFull: the form has taken its Form.MaxResponses.
	ErrFull = errors.New("forms: form is full")
	// ErrSignInRequired: the form takes one response a person, and the
	// request names no one (SubmitRequest.Respondent).
	ErrSignInRequired = errors.New("forms: sign in to respond")
	// ErrResponded: the person has responded to the form already.
	ErrResponded = errors.New("forms: already responded")
	// ErrAccessRequired: the form knows people by email or invitation,
	// and the submission carries no good access token (AccessField).
	ErrAccessRequired = errors.New("forms: open the form from its link")
	// ErrAccessExpired: the submission's access token is no longer good.
	ErrAccessExpired = errors.New("forms: the form's link has expired")
)

// ValidationError is [groundwork.ValidationError], the error of bad
// input: what is wrong, field by field. Find it with errors.As; its Fields
// method returns the messages, and its JSON form is the 422 body
// {"message": ..., "errors": {"<field>": ["<message>", ...]}}.
type ValidationError = groundwork.ValidationError

// errorTable maps this package's errors to HTTP.
var errorTable = api.Table{
	{Err: ErrNotFound, Status: http.StatusNotFound, Message: "Not found."},
	{Err: ErrInactive, Status: http.StatusNotFound, Message: "Form not found."},
	{Err: ErrConflict, Status: http.StatusConflict, Message: "The resource was changed by another request; try again."},
	{Err: ErrStale, Status: http.StatusConflict, Message: "The form was changed while it was being submitted; try again."},
	{Err: ErrClosed, Status: http.StatusConflict, Message: "This form is not taking responses now."},
	{Err: ErrFull, Status: http.StatusConflict, Message: "This form has all the responses it takes."},
	{Err: ErrSignInRequired, Status: http.StatusUnauthorized, Message: "Sign in to respond to this form: it takes one response a person."},
	{Err: ErrAccessRequired, Status: http.StatusForbidden, Message: "Open this form from its link."},
	{Err: ErrAccessExpired, Status: http.StatusForbidden, Message: "This link has expired."},
	{As: func(err error) *api.Error {
		if !errors.Is(err, ErrCaptchaUnavailable) {
			return nil
		}
		return &api.Error{Status: http.StatusServiceUnavailable, Message: msgCaptchaUnavailable, Header: http.Header{"Retry-After": {"30"}}}
	}},
	{Err: ErrResponded, Status: http.StatusConflict, Message: "You have responded to this form already; it takes one response a person."},
	{As: func(err error) *api.Error {
		if !errors.Is(err, errPaymentUnavailable) {
			return nil
		}
		return &api.Error{Status: http.StatusServiceUnavailable, Message: msgPaymentUnavailable, Header: http.Header{"Retry-After": {"30"}}}
	}},
}
