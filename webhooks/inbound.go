package webhooks

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// InboundEvent is a provider's webhook, verified and parsed by its
// gateway.
type InboundEvent struct {
	// ID is the provider's event id (what redeliveries share); Type its
	// event type ("payment_intent.succeeded").
	ID   string
	Type string
	// SessionReference is the payment session the event is about (a
	// Stripe PaymentIntent or Checkout Session id), when it names one.
	SessionReference string
	// Outcome is the payment outcome the event reports for that session,
	// or "" when it reports none.
	Outcome PaymentOutcome
	// Payload is the event as parsed JSON.
	Payload map[string]any
}

// PaymentOutcome is what a provider says of a payment session.
type PaymentOutcome string

// Payment outcomes.
const (
	// PaymentSucceeded: paid (or authorised): settle the checkout.
	PaymentSucceeded PaymentOutcome = "succeeded"
	// PaymentFailed: failed or cancelled: release the checkout.
	PaymentFailed PaymentOutcome = "failed"
	// PaymentPending: still processing: leave it.
	PaymentPending PaymentOutcome = "pending"
)

// Gateway verifies and parses one payment provider's webhooks and answers
// questions about its payment sessions.
type Gateway interface {
	// Verify checks a webhook request's signature against its raw body
	// and parses the event. A request that does not verify is a
	// *GatewayError with a code and a message for the 400 answer.
	Verify(header http.Header, body []byte, now time.Time) (*InboundEvent, error)
	// Session asks the provider how a payment session stands.
	Session(ctx context.Context, reference string) (PaymentOutcome, error)
}

// GatewayError is a webhook a gateway refused: the 400 answer's code and
// message.
type GatewayError struct {
	Code    string
	Message string
}

// Error implements error.
func (e *GatewayError) Error() string { return "webhooks: " + e.Code + ": " + e.Message }

// InboundRecord is a row of the inbound ledger: one request to the
// inbound endpoint that reached a gateway.
type InboundRecord struct {
	ID        int64  `json:"id"`
	Provider  string `json:"provider"`
	EventID   string `json:"event_id,omitempty"`
	EventType string `json:"event_type,omitempty"`
	Verified  bool   `json:"verified"`
	Duplicate bool   `json:"duplicate"`
	// ErrorCode is the gateway's refusal, for a request that did not
	// verify.
	ErrorCode string `json:"error_code,omitempty"`
	// PayloadHash and PayloadSize describe the whole body, always.
	PayloadHash string `json:"payload_hash"`
	PayloadSize int    `json:"payload_size"`
	// Payload is the body: whole for a verified event, its first
	// InboundStoredPrefix bytes otherwise (PayloadTruncated).
	Payload          string `json:"payload"`
	PayloadTruncated bool   `json:"payload_truncated"`
	// Parsed is the verified event as parsed JSON.
	Parsed           map[string]any `json:"parsed,omitempty"`
	ResponseStatus   int            `json:"response_status"`
	CorrelationID    string         `json:"correlation_id,omitempty"`
	SessionReference string         `json:"session_reference,omitempty"`
	ReceivedAt       time.Time      `json:"received_at"`
}

// InboundStoredPrefix is how much of a body that did not verify is kept.
const InboundStoredPrefix = 1024

// PaymentSession is a checkout awaiting settlement, as the host's
// PaymentSessions sees it.
type PaymentSession struct {
	Provider  string
	Reference string
	// UpdatedAt is when the session last changed.
	UpdatedAt time.Time
}

// PaymentSessions is the host's side of reconciliation: which payment
// sessions await settlement, and settling one. Settle must be idempotent:
// a webhook and the periodic reconciliation may both settle a session.
type PaymentSessions interface {
	// Awaiting returns up to limit sessions awaiting settlement that last
	// changed between from and to.
	Awaiting(ctx context.Context, from, to time.Time, limit int) ([]PaymentSession, error)
	// Settle finalises a session the provider says succeeded, or releases
	// one it says failed.
	Settle(ctx context.Context, s PaymentSession, outcome PaymentOutcome) error
}

// ErrNoGateway: no gateway is registered under the provider's name.
var ErrNoGateway = errors.New("webhooks: gateway not registered")
