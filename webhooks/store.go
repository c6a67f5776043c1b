package webhooks

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/webhooks/webhooksstore"
)

// Store keeps subscriptions and the delivery ledger. Implementations:
// webhookssql (SQLite and Postgres); webhookstest.RunStoreTests pins the
// contract written here.
//
// Store is this domain's adapter seam, as a driver is River's: the one
// interface a storage engine implements, and the only way the service
// reaches its data. A host keeps the SQL adapter (on its own *sql.DB, SQLite
// or Postgres) unless it brings another engine; an adapter is complete when
// the conformance suite passes on it.
//
// Times are stored in UTC to the microsecond; the caller sets them. A
// delivery's NextAttemptAt is both its due time and its claim: the writes
// that move a delivery along compare it with the value the caller holds,
// so two workers can never both own one delivery.
//
// The service begins the transactions its steps share with RunInTx
// (store.Transactor) and calls the store with the context it gives: every
// method called with that context runs inside that transaction, so a
// fan-out and its job, or a claim and its jobs, commit together or not at
// all. Outside one, each method is atomic on its own.
//
// It is the union of three roles, one for each part of the domain, so a
// reader finds a method by what it is for.
type Store interface {
	store.Transactor
	SubscriptionStore
	DeliveryStore
	InboundStore
}

// SubscriptionStore keeps the endpoints (subscriptions).
type SubscriptionStore interface {
	// CreateSubscription stores s (with SealedSecret) and sets its ID.
	CreateSubscription(ctx context.Context, s *Subscription) error
	// UpdateSubscription saves name, url, events, sealed secret, is_active,
	// standard_webhooks, consecutive_failures, updated_at and the previous
	// sealed secret with its expiry. ErrNotFound.
	UpdateSubscription(ctx context.Context, s *Subscription) error
	// DeleteSubscription deletes it and its deliveries. ErrNotFound.
	DeleteSubscription(ctx context.Context, id int64) error
	// Subscription returns one subscription, with SealedSecret.
	Subscription(ctx context.Context, id int64) (*Subscription, error)
	// ListSubscriptions returns a page of subscriptions and how many match.
	ListSubscriptions(ctx context.Context, q SubscriptionQuery) ([]Subscription, int, error)
}

// DeliveryStore keeps the outbound deliveries and their attempts: the
// fan-out of an event, the claims of the delivery loop and the sweep,
// the outcomes, the rate limits, retention and redaction.
type DeliveryStore interface {
	// CreateFanout stores a delivery like tmpl (whose ID and
	// SubscriptionID are ignored) for every active subscription of
	// tmpl.Owner (of every owner for AllOwners) that listens to
	// tmpl.Event (its events hold the event or "*") and has no channels
	// or one of tmpl.Channels, as one
	// statement, and returns them with their IDs, ordered by subscription.
	// tx, when not nil, is a transaction of the host's on the store's
	// database that the fan-out joins (the host commits it, or rolls it
	// back and nothing is stored); else it joins the one ctx carries, if
	// any.
	CreateFanout(ctx context.Context, tx *sql.Tx, tmpl Delivery) ([]Delivery, error)

	// CreateDeliveries stores ds and sets their IDs.
	CreateDeliveries(ctx context.Context, ds []Delivery) error
	// Delivery returns one delivery with its payload and response.
	Delivery(ctx context.Context, id int64) (*Delivery, error)
	// ListDeliveries returns a page of a subscription's deliveries, without
	// payloads and responses, and how many match.
	ListDeliveries(ctx context.Context, q DeliveryQuery) ([]Delivery, int, error)
	// RecentDeliveries returns up to n newest deliveries of each
	// subscription (newest first, without payloads and responses).
	RecentDeliveries(ctx context.Context, subscriptionIDs []int64, n int) (map[int64][]Delivery, error)

	// ReadDeliveries returns the deliveries with these IDs (with their
	// payloads), in no particular order, and their subscriptions by ID;
	// IDs that do not exist are left out.
	ReadDeliveries(ctx context.Context, ids []int64) ([]Delivery, map[int64]*Subscription, error)
	// ClaimDelivery takes a pending or retrying delivery whose
	// NextAttemptAt equals claim, setting it to lease, and returns it
	// (with its payload) and its subscription. ErrClaimLost when the
	// delivery is not in that state (finished, parked, claimed anew, or
	// gone). When lease equals claim nothing is written: the delivery is
	// only checked and read.
	ClaimDelivery(ctx context.Context, id int64, claim, lease time.Time) (*Delivery, *Subscription, error)
	// FinishAttempt writes d's status, attempts, next_attempt_at,
	// response, delivered_at and updated_at if the delivery is still under
	// lease (ErrClaimLost otherwise, writing nothing), and applies the
	// outcome to its subscription in the same transaction: a success
	// resets the failure streak and sets last_success_at (a store may
	// skip that write while the streak is zero and last_success_at is
	// less than LastSuccessResolution old); a failure
	// increments it, sets last_failure_at and, when the streak reaches
	// disableAfter on an active subscription, switches it off (disabled
	// is true only for the write that did). The time is d.UpdatedAt.
	FinishAttempt(ctx context.Context, d *Delivery, lease time.Time, o Outcome, disableAfter int) (disabled bool, err error)
	// FinishDelivered records several attempts answered 2xx at once, as
	// FinishAttempt with OutcomeSuccess records each (status delivered,
	// next_attempt_at cleared, each under its lease). It returns the IDs
	// that were no longer under their lease; nothing is written for them.
	FinishDelivered(ctx context.Context, ds []SuccessfulAttempt) (lost []int64, err error)
	// ClaimDue claims up to limit pending or retrying deliveries due by
	// now (the oldest due), setting NextAttemptAt to lease. It returns the
	// IDs, in no particular order.
	ClaimDue(ctx context.Context, now, lease time.Time, limit int) ([]int64, error)
	// ClaimChosen claims, as ClaimDue does, the due deliveries pick
	// chooses: it reads the oldest due deliveries (oldest first, the
	// lower ID first among equals, up to pick.Scan of them) of every
	// subscription but those in pick.Skip, shows them to pick.Choose, and
	// claims those it returns that are still due, at most limit: a
	// delivery another claim took meanwhile is left out. It returns the
	// IDs claimed, in no particular order.
	ClaimChosen(ctx context.Context, now, lease time.Time, limit int, pick webhooksstore.ClaimPick) ([]int64, error)
	// FailedAttempts returns a delivery's failed attempts, in order (a
	// delivered attempt is the delivery's own row). FinishAttempt records
	// each failure with an excerpt of the answer (AttemptExcerptLimit).
	FailedAttempts(ctx context.Context, deliveryID int64) ([]Attempt, error)
	// TakeRate takes one of the limit places of second (Unix seconds) for
	// an attempt to the subscription, and reports whether there was one:
	// across every instance on the store, at most limit a second. A
	// second earlier than one already counted has no places left.
	TakeRate(ctx context.Context, subscriptionID int64, second int64, limit int) (bool, error)
	// RequeueParked puts a subscription's parked deliveries back on the
	// schedule, due at: pending if never attempted, else retrying. It
	// returns how many.
	RequeueParked(ctx context.Context, subscriptionID int64, at time.Time) (int, error)
	// ParkDue parks a subscription's pending and retrying deliveries due
	// by now (none of them under a claim, whose lease is later), updated
	// at now, and returns how many.
	ParkDue(ctx context.Context, subscriptionID int64, now time.Time) (int, error)
	// PruneDeliveries deletes finished (delivered or failed) deliveries
	// created before the given time, batch rows at a time, and returns
	// how many. Pending, retrying and parked rows are kept.
	PruneDeliveries(ctx context.Context, before time.Time, batch int) (int, error)
	// DeliveriesAbout returns, ordered by ID, up to limit deliveries after
	// afterID whose customer_id is customerID or whose order_id is one of
	// orderIDs, with their payloads.
	DeliveriesAbout(ctx context.Context, customerID string, orderIDs []string, afterID int64, limit int) ([]Delivery, error)
	// RedactDelivery replaces a delivery's payload and hash (kept when
	// payload is nil) and drops its stored response.
	RedactDelivery(ctx context.Context, id int64, payload json.RawMessage, hash string) error
}

// InboundStore keeps the inbound webhooks: each event claimed once, its
// record, retention and redaction.
type InboundStore interface {
	// ReceiveEvent claims r's event (r.Provider, r.EventID) and records r
	// in one transaction, setting r.ID and r.Duplicate (true when the event
	// was claimed before: a redelivery). It reports whether this call
	// claimed the event. Two deliveries of one event at the same moment:
	// one claims it. Within the transaction ctx carries (RunInTx) it is a
	// step of it: the claim and the row are kept only if it commits, so
	// the service runs the hooks in that transaction and a failed hook
	// leaves the event unclaimed.
	ReceiveEvent(ctx context.Context, r *InboundRecord) (claimed bool, err error)
	// RecordInbound stores a ledger row without claiming anything (a
	// request that did not verify) and sets its ID; a step of the
	// transaction ctx carries, as ReceiveEvent.
	RecordInbound(ctx context.Context, r *InboundRecord) error
	// ListInbound returns a page of the inbound ledger, newest first, and
	// how many rows match.
	ListInbound(ctx context.Context, q InboundQuery) ([]InboundRecord, int, error)
	// PruneInbound deletes ledger rows received before the given time, and
	// claims made before it, batch rows at a time, and returns how many
	// ledger rows.
	PruneInbound(ctx context.Context, before time.Time, batch int) (int, error)
	// RedactInbound empties the payload and parsed payload of the ledger
	// rows about one of sessionRefs, or whose payload contains email (when
	// not empty, in any case); rows, hashes and sizes stay. It returns how
	// many.
	RedactInbound(ctx context.Context, sessionRefs []string, email string) (int, error)
}

// InboundQuery selects inbound ledger rows.
type InboundQuery struct {
	// Provider and EventID filter when set.
	Provider      string
	EventID       string
	Offset, Limit int
}

// SuccessfulAttempt is an attempt answered 2xx, for FinishDelivered: the
// delivery as it is to be written, and the lease it was made under.
type SuccessfulAttempt struct {
	Delivery *Delivery
	Lease    time.Time
}

// LastSuccessResolution is how fresh a subscription's last_success_at is
// kept: under load, a success within this of the last recorded one is
// not written again.
const LastSuccessResolution = time.Second

// Outcome is what an attempt does to its subscription.
type Outcome int

// Outcomes.
const (
	// OutcomeNone leaves the subscription alone (a parked delivery).
	OutcomeNone Outcome = iota
	// OutcomeSuccess resets the failure streak.
	OutcomeSuccess
	// OutcomeFailure grows the failure streak.
	OutcomeFailure
)

// SubscriptionQuery selects subscriptions.
type SubscriptionQuery struct {
	// Active filters by state when set.
	Active *bool
	// Owner filters by owner when set.
	Owner *string
	// Sort: "name", "created_at" (the default, newest first when
	// descending), "id"; a leading "-" sorts descending.
	Sort          string
	Offset, Limit int
}

// DeliveryQuery selects a subscription's deliveries.
type DeliveryQuery struct {
	SubscriptionID int64
	// Event and Status filter when set.
	Event  string
	Status Status
	// Sort: "id" or "created_at"; a leading "-" sorts descending. The
	// default is "-id", newest first.
	Sort          string
	Offset, Limit int
}

// AttemptExcerptLimit is how much of a failed attempt's answer its log
// keeps, in bytes (whole characters).
const AttemptExcerptLimit = 500

// Attempt is one attempt of a delivery, as its log shows it: its number,
// the receiver's status (nil when it was not reached), an excerpt of its
// answer or of the error, and when. Delivered is set for the attempt that
// delivered it.
type Attempt struct {
	Number         int       `json:"number"`
	ResponseStatus *int      `json:"response_status"`
	Response       string    `json:"response"`
	At             time.Time `json:"at"`
	Delivered      bool      `json:"delivered"`
}
