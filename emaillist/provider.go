package emaillist

import (
	"context"
	"errors"
	"time"
)

// Provider subscribes an address at an email-list service. Kit v4
// ([NewKit]) and Mailchimp Marketing v3 are built in; a host may bring
// its own.
type Provider interface {
	// Subscribe creates or updates the subscriber, adds it to the list
	// form when there is one, and applies the tags. An error that wraps
	// ErrRetryable (rate limited, the provider's server failing, no
	// answer) is tried again later; any other fails the subscribe.
	Subscribe(ctx context.Context, sub Subscription) (Subscriber, error)
}

// ErrRetryable marks a Provider error worth trying again.
var ErrRetryable = errors.New("emaillist: retryable")

// RetryableError is a Provider error worth trying again, no sooner than
// After when it is set (the provider's Retry-After).
type RetryableError struct {
	Err   error
	After time.Duration
}

// Error is the cause's text.
func (e *RetryableError) Error() string { return e.Err.Error() }

// Unwrap makes errors.Is(err, ErrRetryable) hold, and reaches the cause.
func (e *RetryableError) Unwrap() []error { return []error{ErrRetryable, e.Err} }
