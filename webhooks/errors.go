package webhooks

import (
	"errors"
	"net/http"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
)

// Sentinels; test with errors.Is.
var (
	// ErrNotFound: no such subscription or delivery (or a delivery of
	// another subscription).
	ErrNotFound = errors.New("webhooks: not found")
	// ErrClaimLost: the delivery is no longer under the claim or lease
	// given (another job has it, or it finished); nothing was written.
	ErrClaimLost = errors.New("webhooks: claim lost")
	// ErrSubscriptionInactive: replay and replay-parked need an active
	// subscription.
	ErrSubscriptionInactive = errors.New("webhooks: subscription is inactive")
	// ErrUnknownEvent: the event's wire name is not in the catalogue.
	ErrUnknownEvent = errors.New("webhooks: event not in the catalogue")
	// ErrRejected: a subscribing hook rejected the subscription.
	ErrRejected = errors.New("webhooks: subscription rejected")
)

// ValidationError is [groundwork.ValidationError], the error of bad
// input: what is wrong, field by field. Find it with errors.As; its Fields
// method returns the messages, and its JSON form is the 422 body
// {"message": ..., "errors": {"<field>": ["<message>", ...]}}.
type ValidationError = groundwork.ValidationError

var errorTable = api.Table{
	{Err: ErrNotFound, Status: http.StatusNotFound, Message: "Not found."},
	{Err: ErrSubscriptionInactive, Status: http.StatusUnprocessableEntity, Message: "The webhook subscription is disabled; enable it first."},
	{Err: ErrRejected, Status: http.StatusUnprocessableEntity, Message: "The webhook subscription was rejected."},
}
