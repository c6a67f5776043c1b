package webhooks

import (
	"encoding/json"
	"time"
)

// Subscription is an endpoint that receives the events it names.
type Subscription struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	URL  string `json:"url"`
	// Owner is whose the subscription is (see ScopeToOwner): it receives
	// only its owner's events. DefaultOwner ("", left out of the JSON)
	// for a host that uses no owners. It is set when the subscription is
	// made and never changes.
	Owner string `json:"owner,omitempty"`
	// Description says what the endpoint is for (at most
	// MaxDescriptionLength characters).
	Description string `json:"description,omitempty"`
	// Events are wire names, or "*" for every event.
	Events []string `json:"events"`
	// Channels, when any, narrow the endpoint to the events that carry
	// one of them (see Channeled); at most MaxChannels.
	Channels []string `json:"channels,omitempty"`
	// Headers are sent with every delivery (at most MaxHeaders; never one
	// of the delivery's own: the signature, event and id headers, or
	// those HTTP owns).
	Headers map[string]string `json:"headers,omitempty"`
	// RateLimit caps the deliveries a second to the endpoint, across
	// every instance (0: no cap). The rest wait their turn: postponed,
	// not failed.
	RateLimit int `json:"rate_limit,omitempty"`
	// Secret signs the deliveries. It is kept encrypted and shown only in
	// the response that creates the subscription.
	Secret   string `json:"secret,omitempty"`
	IsActive bool   `json:"is_active"`
	// StandardWebhooks sends the Standard Webhooks headers (webhook-id,
	// webhook-timestamp, webhook-signature) instead of the X-Platform
	// signature; the secret is then "whsec_" and base64.
	StandardWebhooks bool `json:"standard_webhooks"`
	// ConsecutiveFailures is the failure streak: reset by a delivered
	// attempt or by re-activation.
	ConsecutiveFailures int        `json:"consecutive_failures"`
	LastSuccessAt       *time.Time `json:"last_success_at"`
	LastFailureAt       *time.Time `json:"last_failure_at"`
	CreatedAt           time.Time  `json:"created_at"`
	UpdatedAt           time.Time  `json:"updated_at"`
	// Deliveries are the most recent deliveries, when asked for
	// (include=deliveries).
	Deliveries []Delivery `json:"deliveries,omitempty"`
	// SealedSecret is the secret as stored: encrypted with the service's
	// key. Stores keep it; it is never shown.
	SealedSecret string `json:"-"`
	// PreviousSecretExpiresAt is when the secret the last rotation
	// replaced stops signing deliveries beside the new one (RotateSecret;
	// nil when no old secret signs).
	PreviousSecretExpiresAt *time.Time `json:"previous_secret_expires_at,omitempty"`
	// PreviousSealedSecret is that secret as stored. Never shown.
	PreviousSealedSecret string `json:"-"`
}

// Listens reports whether the subscription takes event (by wire name).
func (s *Subscription) Listens(event string) bool {
	for _, e := range s.Events {
		if e == "*" || e == event {
			return true
		}
	}
	return false
}

// Status is where a delivery stands.
type Status string

// Delivery statuses.
const (
	// StatusPending: not attempted yet.
	StatusPending Status = "pending"
	// StatusRetrying: attempted and failed, with attempts left; the next
	// is due at NextAttemptAt.
	StatusRetrying Status = "retrying"
	// StatusDelivered: an attempt was answered 2xx.
	StatusDelivered Status = "delivered"
	// StatusFailed: given up, out of attempts.
	StatusFailed Status = "failed"
	// StatusParked: an attempt came due while the subscription was
	// inactive; off the schedule, attempts left, until replay-parked.
	StatusParked Status = "parked"
)

// Finished reports whether no attempt will follow (delivered or failed).
func (s Status) Finished() bool { return s == StatusDelivered || s == StatusFailed }

// Delivery is one event for one subscription: a row of the ledger. Its ID
// is stable across retries; a replay makes a new delivery.
type Delivery struct {
	ID             int64  `json:"id"`
	SubscriptionID int64  `json:"subscription_id"`
	Event          string `json:"event"`
	// EventID is the envelope's id, shared by the deliveries of one event.
	EventID  string `json:"event_id"`
	Status   Status `json:"status"`
	Attempts int    `json:"attempts"`
	// NextAttemptAt is when the next attempt is due, or the claim of the
	// job that will make it; nil once finished or parked.
	NextAttemptAt  *time.Time `json:"next_attempt_at"`
	ResponseStatus *int       `json:"response_status"`
	DeliveredAt    *time.Time `json:"delivered_at"`
	// PayloadHash is the SHA-256 hex of Payload.
	PayloadHash string `json:"payload_hash"`
	OrderID     string `json:"order_id,omitempty"`
	CustomerID  string `json:"customer_id,omitempty"`
	// RequestID is sent as X-Request-Id: the id of the request that
	// dispatched the event (see WithRequestID), else a fresh one.
	RequestID string    `json:"request_id"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Payload is the envelope as recorded; ResponseBody the receiver's
	// last answer (truncated) or the error of the last attempt. The
	// ledger list leaves both out.
	Payload      json.RawMessage `json:"payload,omitempty"`
	ResponseBody *string         `json:"response_body,omitempty"`
	// Owner, in a fan-out's template (Store.CreateFanout), is the owner
	// the event is for (AllOwners: every owner). Not stored: a delivery
	// is its subscription's owner's.
	Owner string `json:"-"`
	// Channels, in a fan-out's template, are the event's channels. Not
	// stored.
	Channels []string `json:"-"`
}

// Framework events, given to the listeners of Service.OnEvent.
type (
	// WebhookDelivered: an attempt was answered 2xx.
	WebhookDelivered struct{ Delivery *Delivery }
	// WebhookFailed: an attempt failed (Reason says why); the delivery
	// is retrying, or failed when out of attempts.
	WebhookFailed struct {
		Delivery *Delivery
		Reason   error
	}
	// WebhookSubscriptionDisabled: a subscription reached the failure
	// streak that switches it off.
	WebhookSubscriptionDisabled struct{ Subscription *Subscription }
)
