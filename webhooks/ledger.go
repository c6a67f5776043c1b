package webhooks

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Sweep queues the deliveries that are due: retries whose time has come,
// and deliveries whose job was lost once its claim ran out. Each is
// claimed anew and its job carries the new claim, so a late job from an
// older claim does nothing. It returns how many it queued.
func (s *Service) Sweep(ctx context.Context) (int, error) {
	total := 0
	for {
		now := s.now()
		lease := now.Add(s.opts.ClaimTimeout)
		// A claim and its jobs commit together.
		var ids []int64
		err := s.store.RunInTx(ctx, func(ctx context.Context, tx *sql.Tx) (err error) {
			if ids, err = s.store.ClaimDue(ctx, now, lease, sweepBatchDefault); err != nil || len(ids) == 0 {
				return err
			}
			return s.enqueue(ctx, tx, ids, lease)
		})
		if err != nil { // nothing of this batch was claimed or queued
			return total, fmt.Errorf("webhooks: sweep: %w", err)
		}
		total += len(ids)
		if len(ids) < sweepBatchDefault {
			return total, nil
		}
	}
}

// Replay sends a past delivery again as a new delivery (same event, same
// envelope) and returns it. The subscription must be active
// (ErrSubscriptionInactive).
func (s *Service) Replay(ctx context.Context, subscriptionID, deliveryID int64) (*Delivery, error) {
	sub, err := s.Subscription(ctx, subscriptionID)
	if err != nil {
		return nil, err
	}
	if !sub.IsActive {
		return nil, ErrSubscriptionInactive
	}
	old, err := s.Delivery(ctx, subscriptionID, deliveryID)
	if err != nil {
		return nil, err
	}
	requestID, ok := RequestIDFrom(ctx)
	if !ok {
		requestID = old.RequestID
	}
	ds := []Delivery{{SubscriptionID: sub.ID, Event: old.Event, EventID: old.EventID, Payload: old.Payload, PayloadHash: old.PayloadHash,
		OrderID: old.OrderID, CustomerID: old.CustomerID, RequestID: requestID}}
	if err := s.queueNew(ctx, ds); err != nil {
		return nil, wrap("replay", err)
	}
	out := ds[0]
	out.Payload = nil
	return &out, nil
}

// ReplayParked puts the subscription's parked deliveries back on the
// schedule and queues them at once; it returns how many. The subscription
// must be active (ErrSubscriptionInactive).
func (s *Service) ReplayParked(ctx context.Context, subscriptionID int64) (int, error) {
	sub, err := s.Subscription(ctx, subscriptionID)
	if err != nil {
		return 0, err
	}
	if !sub.IsActive {
		return 0, ErrSubscriptionInactive
	}
	n, err := s.store.RequeueParked(ctx, sub.ID, s.now())
	if err != nil {
		return 0, wrap("replay parked", err)
	}
	if n > 0 && s.opts.Enqueuer != nil {
		if _, err := s.Sweep(ctx); err != nil {
			// They are due; the next sweep queues them.
			s.logger.WarnContext(ctx, "webhooks: replay parked: sweep failed", "error", err)
		}
	}
	return n, nil
}

// Prune deletes finished deliveries older than the retention (none when
// it is negative), in batches, and returns how many.
func (s *Service) Prune(ctx context.Context) (int, error) {
	if s.opts.Retention < 0 {
		return 0, nil
	}
	n, err := s.store.PruneDeliveries(ctx, s.now().Add(-s.opts.Retention), pruneBatch)
	return n, wrap("prune", err)
}

// redactKeys are the payload keys whose values a customer's deletion
// removes.
var redactKeys = map[string]bool{
	"email": true, "phone": true, "first_name": true, "last_name": true, "company": true, "address1": true, "address2": true,
	"shipping_address": true, "billing_address": true, "ip_address": true, "user_agent": true, "customer_note": true,
	"author_name": true, "author_email": true, "excerpt": true, "reason": true, "reasons": true, "body": true,
	"customer_name": true, "customer_email": true, "customer_phone": true, "customer_timezone": true,
}

// Redacted replaces redacted scalar values.
const Redacted = "[redacted]"

// RedactCustomer removes a deleted customer's personal data from the
// ledger: in every delivery whose customer_id is customerID or whose
// order_id is one of orderIDs, the values of the personal keys (email,
// phone, names, addresses, ...) become "[redacted]" (objects and arrays
// null, null stays null), the payload hash is recomputed, and the stored
// response is dropped. The rows stay. It returns how many deliveries it
// changed.
func (s *Service) RedactCustomer(ctx context.Context, customerID string, orderIDs []string) (int, error) {
	n := 0
	var after int64
	for {
		batch, err := s.store.DeliveriesAbout(ctx, customerID, orderIDs, after, redactBatch)
		if err != nil {
			return n, wrap("redact", err)
		}
		for _, d := range batch {
			after = d.ID
			payload, err := redact(d.Payload)
			hash := ""
			if err != nil {
				payload = nil // undecodable: only the response goes
			} else {
				hash = hashOf(payload)
			}
			if err := s.store.RedactDelivery(ctx, d.ID, payload, hash); err != nil && !errors.Is(err, ErrNotFound) {
				return n, wrap("redact", err)
			}
			n++
		}
		if len(batch) < redactBatch {
			return n, nil
		}
	}
}

// redact walks a recorded envelope and replaces the personal values.
func redact(payload []byte) ([]byte, error) {
	var env Envelope
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	if err := dec.Decode(&env); err != nil {
		return nil, err
	}
	env.Data, _ = redactValue(env.Data, false).(map[string]any)
	if env.Data == nil {
		env.Data = map[string]any{}
	}
	return env.Marshal()
}

func redactValue(v any, personal bool) any {
	if personal {
		switch v.(type) {
		case nil:
			return nil
		case map[string]any, []any:
			return nil
		default:
			return Redacted
		}
	}
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			x[k] = redactValue(val, redactKeys[k])
		}
		return x
	case []any:
		for i, val := range x {
			x[i] = redactValue(val, false)
		}
		return x
	}
	return v
}

// claimOf turns a job's claim back into a time.
func claimOf(micros int64) time.Time { return time.UnixMicro(micros).UTC() }

// queueNew stores ds, new deliveries of events already made (a replay, a
// test), pending from now, and queues them as a dispatch does: due at
// once for a running loop (or any instance's, without a job queue),
// else held by their job's claim.
func (s *Service) queueNew(ctx context.Context, ds []Delivery) error {
	now := s.now()
	looped := s.loop.running.Load()
	claim := now.Add(s.opts.ClaimTimeout)
	if looped || s.opts.Enqueuer == nil {
		claim = now
	}
	for i := range ds {
		ds[i].Status, ds[i].NextAttemptAt, ds[i].CreatedAt, ds[i].UpdatedAt = StatusPending, &claim, now, now
	}
	if err := s.store.RunInTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := s.store.CreateDeliveries(ctx, ds); err != nil || looped {
			return err
		}
		return s.enqueue(ctx, tx, ids(ds), claim)
	}); err != nil {
		return err
	}
	if looped {
		s.loop.nudge()
	}
	return nil
}
