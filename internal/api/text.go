package api

import (
	"net/http"
	"net/url"

	"github.com/groundwork-go/groundwork/store/driverless"
)

// MsgText: "The page field must be text: valid UTF-8 without NUL
// characters."
func MsgText(field string) string {
	return "The " + Attr(field) + " field must be text: valid UTF-8 without NUL characters."
}

// CheckRequestText is the one rule every route applies before anything
// else reads the request: a path that holds a NUL or invalid UTF-8 (once
// decoded) names nothing, a 404; a query string that does not parse, or
// whose names do, is a 400; a query value that does is a 422 naming its
// parameter (a 400 when it has no name). Nil when the request is fit to
// read. No database keeps such bytes as text, and Postgres refuses them.
func CheckRequestText(r *http.Request) *Error {
	if !driverless.ValidText(r.URL.Path) {
		return ErrNotFound
	}
	if r.URL.RawQuery == "" {
		return nil
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return &Error{Status: http.StatusBadRequest, Message: "The query string is malformed.", Err: err}
	}
	v := &Validator{}
	for name, values := range q {
		if !driverless.ValidText(name) {
			return &Error{Status: http.StatusBadRequest, Message: "The query string's parameter names must be text: valid UTF-8 without NUL characters."}
		}
		for _, val := range values {
			if !driverless.ValidText(val) {
				if name == "" { // "?=...": nothing to name
					return &Error{Status: http.StatusBadRequest, Message: "The query string's values must be text: valid UTF-8 without NUL characters."}
				}
				v.Add(name, MsgText(name))
				break
			}
		}
	}
	if err := v.Err(); err != nil {
		return &Error{Status: http.StatusUnprocessableEntity, Err: err}
	}
	return nil
}
