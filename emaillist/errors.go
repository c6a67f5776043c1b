package emaillist

import (
	"errors"
	"net/http"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
)

// Sentinels; test with errors.Is.
var (
	// ErrNotFound: no such feed.
	ErrNotFound = errors.New("emaillist: not found")
	// ErrNameTaken: the form has a feed of that name.
	ErrNameTaken = errors.New("emaillist: name taken")
)

// ValidationError is [groundwork.ValidationError]: the 422 error.
type ValidationError = groundwork.ValidationError

var errorTable = api.Table{
	{Err: ErrNotFound, Status: http.StatusNotFound, Message: "Not found."},
}
