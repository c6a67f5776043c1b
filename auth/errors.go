package auth

import (
	"errors"
	"net/http"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
)

// Sentinels; test with errors.Is.
var (
	// ErrNotFound: no token has that ID.
	ErrNotFound = errors.New("auth: not found")
	// ErrInvalidToken: a token that is malformed, unknown, revoked or
	// expired. The cases are not told apart, on purpose.
	ErrInvalidToken = errors.New("auth: invalid token")
)

// ValidationError is [groundwork.ValidationError], the error of bad
// input: what is wrong, field by field. Find it with errors.As; its Fields
// method returns the messages, and its JSON form is the 422 body
// {"message": ..., "errors": {"<field>": ["<message>", ...]}}.
type ValidationError = groundwork.ValidationError

// errorTable maps this package's errors to HTTP.
var errorTable = api.Table{
	{Err: ErrInvalidToken, Status: http.StatusUnauthorized, Message: api.MsgUnauthenticated},
	{Err: ErrNotFound, Status: http.StatusNotFound, Message: "Token not found."},
}
