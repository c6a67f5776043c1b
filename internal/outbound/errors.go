package outbound

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Class sorts a failed call by what the caller can do about it.
type Class int

// The classes. Test for one with errors.Is and the sentinels below.
const (
	// ClassTransport: no answer (a refused or broken connection, a
	// timeout) or one that could not be read (too large, cut off).
	ClassTransport Class = iota + 1
	// ClassAuth: 401 or 403, the credentials are wrong or lack a right.
	ClassAuth
	// ClassNotFound: 404 or 410.
	ClassNotFound
	// ClassValidation: any other 4xx; the request itself is wrong.
	ClassValidation
	// ClassRateLimited: 429; Error.RetryAfter says when to come back,
	// when the provider said.
	ClassRateLimited
	// ClassServer: 5xx, or a 2xx whose body is not what was expected.
	ClassServer
)

var classNames = map[Class]string{ClassTransport: "transport", ClassAuth: "auth", ClassNotFound: "not found",
	ClassValidation: "validation", ClassRateLimited: "rate limited", ClassServer: "server"}

// String names the class.
func (c Class) String() string {
	if n, ok := classNames[c]; ok {
		return n
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

// Sentinels of the classes: errors.Is(err, ErrRateLimited) holds for an
// *Error of that class.
var (
	ErrTransport   = errors.New("outbound: transport failure")
	ErrAuth        = errors.New("outbound: credentials refused")
	ErrNotFound    = errors.New("outbound: not found")
	ErrValidation  = errors.New("outbound: request refused")
	ErrRateLimited = errors.New("outbound: rate limited")
	ErrServer      = errors.New("outbound: server failure")
)

var sentinels = map[Class]error{ClassTransport: ErrTransport, ClassAuth: ErrAuth, ClassNotFound: ErrNotFound,
	ClassValidation: ErrValidation, ClassRateLimited: ErrRateLimited, ClassServer: ErrServer}

func classOf(status int) Class {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return ClassAuth
	case status == http.StatusNotFound || status == http.StatusGone:
		return ClassNotFound
	case status == http.StatusTooManyRequests:
		return ClassRateLimited
	case status >= 500:
		return ClassServer
	case status >= 400:
		return ClassValidation
	}
	return ClassServer // 1xx or 3xx where an answer was due
}

// Error is a failed call. Its text names the provider, the request, the
// status and the provider's message, with the client's secrets cut out:
// it is for logs. Never show it to a client of ours; map the Class to a
// text of the domain's own.
type Error struct {
	Provider string
	Class    Class
	// Status is the HTTP status, 0 when there was no answer.
	Status int
	// Method and Path are the request's (its query is left out).
	Method, Path string
	// Message is the provider's own message, for logs.
	Message string
	// RetryAfter is the wait the provider asked for (Retry-After), 0 when
	// it asked for none.
	RetryAfter time.Duration
	// Attempts is how many times the request was sent.
	Attempts int
	// Err is the cause of a transport failure.
	Err error

	notSent  bool // the request never left
	tooLarge bool // the answer was over the limit
}

// Error implements error.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "outbound: %s: %s %s", e.Provider, e.Method, e.Path)
	if e.Status != 0 {
		fmt.Fprintf(&b, ": %d %s", e.Status, e.Class)
	} else {
		fmt.Fprintf(&b, ": %s", e.Class)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	return b.String()
}

// Is matches the sentinel of e's class.
func (e *Error) Is(target error) bool { return sentinels[e.Class] == target }

// Unwrap returns the cause of a transport failure.
func (e *Error) Unwrap() error { return e.Err }
