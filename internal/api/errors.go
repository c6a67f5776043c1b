// Package api holds the HTTP conventions every groundwork handler shares:
// JSON bodies in and out, the error envelope and its status table,
// validation messages, the pagination envelope, throttling, client IPs and
// bearer tokens.
package api

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/store/driverless"
)

// Error is a failure with a known HTTP status and a message safe to show.
// Handlers return one (or a domain sentinel that the domain's [Table] maps
// to one) and [WriteError] answers with {"message": Message}.
type Error struct {
	Status  int
	Message string
	// Header holds response headers to add, e.g. Retry-After.
	Header http.Header
	// Err is the cause, for logs and errors.Is; never shown.
	Err error
	// Body, when set, is answered instead of {"message": Message}: for
	// the few routes whose contract has another envelope.
	Body any
	// Logged says the failure is logged where it happened (or is
	// counted and logged once in a while, as a flood of them would be),
	// so WriteError does not log it again.
	Logged bool
}

// Error implements error.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%d %s: %v", e.Status, e.Message, e.Err)
	}
	return fmt.Sprintf("%d %s", e.Status, e.Message)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with status and a formatted message.
func Errorf(status int, format string, args ...any) *Error {
	return &Error{Status: status, Message: fmt.Sprintf(format, args...)}
}

// Common errors.
var (
	ErrUnauthenticated = &Error{Status: http.StatusUnauthorized, Message: reply.MsgUnauthenticated, Header: http.Header{"Www-Authenticate": {"Bearer"}}}
	ErrForbidden       = &Error{Status: http.StatusForbidden, Message: reply.MsgForbidden}
	ErrNotFound        = &Error{Status: http.StatusNotFound, Message: reply.MsgNotFound}
)

// Mapping maps a domain's sentinel error to a status and message; or,
// with As, an error of one of the domain's types to the *Error to answer.
type Mapping struct {
	Err     error
	Status  int
	Message string
	// As, when set, is asked instead of matching Err: it returns the
	// answer for err, or nil when err is not its kind.
	As func(err error) *Error
}

// Table is the one place a domain maps its sentinels to HTTP. The first
// mapping whose Err matches (errors.Is) wins.
type Table []Mapping

// Lookup finds the *Error for err: a *ValidationError or *Error in its
// chain, else the first matching mapping. ok is false for an error nobody
// expected, which is a bug and answers 500.
func (t Table) Lookup(err error) (status int, body any, header http.Header, ok bool) {
	var ve *ValidationError
	if errors.As(err, &ve) {
		return http.StatusUnprocessableEntity, ve, nil, true
	}
	var ae *Error
	if errors.As(err, &ae) {
		return ae.Status, ae.body(), ae.Header, true
	}
	for _, m := range t {
		if m.As != nil {
			if e := m.As(err); e != nil {
				return e.Status, e.body(), e.Header, true
			}
			continue
		}
		if errors.Is(err, m.Err) {
			return m.Status, messageBody{m.Message}, nil, true
		}
	}
	return http.StatusInternalServerError, messageBody{reply.MsgServerError}, nil, false
}

func (e *Error) body() any {
	if e.Body != nil {
		return e.Body
	}
	return messageBody{e.Message}
}

type messageBody struct {
	Message string `json:"message"`
}

// WriteError answers err through table. Unexpected errors answer 500 with a
// generic message, but for a database that cannot serve at the moment (see
// [Unavailable]), which answers 503 with a Retry-After; they, and every other 5xx but 501 (a feature that is
// not set up), are logged at error level with the request. A request
// whose client went away gets nothing but the status 499, whatever err
// is (see [AnswerClientGone]).
func WriteError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, table Table, err error) {
	if ClientGone(r) {
		AnswerClientGone(w, r, logger, err)
		return
	}
	status, body, header, ok := table.Lookup(err)
	if !ok {
		// A database that cannot serve at the moment is a 503 to come back
		// after, not a bug.
		if e := Unavailable(r.Context(), logger, err); e != nil {
			err, status, body, header, ok = e, e.Status, e.body(), e.Header, true
		}
	}
	var ae *Error
	logged := ok && errors.As(err, &ae) && ae.Logged
	if (!ok || status >= 500 && status != http.StatusNotImplemented) && !logged && r.Context().Err() == nil && logger != nil {
		// A missing table names the Migrate call the host left out.
		logger.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "error", driverless.ExplainMissingTable(err))
	}
	for k, vs := range header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	reply.WriteJSON(w, status, body)
}

// Attr is how a field name reads in a message: underscores become spaces,
// as in "The per page field must be an integer."
func Attr(field string) string { return strings.ReplaceAll(field, "_", " ") }

// Methods maps HTTP methods to their handlers on one route.
type Methods map[string]http.HandlerFunc

// Handler serves m: each method its handler (HEAD, when not its own, the
// GET handler's), any other a 405 with an Allow
// header and Laravel's message: "The GET method is not supported for
// route api/a11y/contrast-check. Supported methods: POST."
func (m Methods) Handler() http.Handler {
	allowed := make([]string, 0, len(m))
	for k := range m {
		allowed = append(allowed, k)
	}
	slices.Sort(allowed)
	allow := strings.Join(allowed, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fn, ok := m[r.Method]
		if !ok && r.Method == http.MethodHead {
			fn, ok = m[http.MethodGet] // the server drops the body
		}
		if ok {
			fn(w, r)
			return
		}
		w.Header().Set("Allow", allow)
		reply.WriteMessage(w, http.StatusMethodNotAllowed, fmt.Sprintf("The %s method is not supported for route %s. Supported methods: %s.",
			r.Method, strings.TrimPrefix(r.URL.Path, "/"), allow))
	})
}
