package auth

import (
	"errors"
	"net/http"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/reply"
)

// Sentinels; test with errors.Is.
var (
	// ErrNotFound: no token, user, session or reset matches.
	ErrNotFound = errors.New("auth: not found")
	// ErrEmailTaken: another user has that email address.
	ErrEmailTaken = errors.New("auth: email taken")
	// ErrPasskeyTaken: a passkey with that credential ID is stored
	// already.
	ErrPasskeyTaken = errors.New("auth: passkey already registered")
	// ErrBusy: too many passwords are being checked at once; the request
	// waited its turn for PasswordWait and gave up. Try again shortly.
	ErrBusy = errors.New("auth: busy checking passwords")
	// ErrInvalidToken: a token that is malformed, unknown, revoked or
	// expired. The cases are not told apart, on purpose.
	ErrInvalidToken = errors.New("auth: invalid token")
	// ErrDisabled: the user is disabled ([Service.SetDisabled]) and may
	// not sign in.
	ErrDisabled = errors.New("auth: user disabled")
)

// ValidationError is [groundwork.ValidationError], the error of bad
// input: what is wrong, field by field. Find it with errors.As; its Fields
// method returns the messages, and its JSON form is the 422 body
// {"message": ..., "errors": {"<field>": ["<message>", ...]}}.
type ValidationError = groundwork.ValidationError

// errorTable maps this package's errors to HTTP.
var errorTable = api.Table{
	{Err: ErrInvalidToken, Status: http.StatusUnauthorized, Message: reply.MsgUnauthenticated},
	{Err: ErrNotFound, Status: http.StatusNotFound, Message: "Token not found."},
}
