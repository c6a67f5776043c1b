package webhooks

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of the delivery loop (RunDeliveries).
const (
	// DeliverBatchDefault is the most deliveries claimed in one statement.
	DeliverBatchDefault = 100
	// MaxInFlightDefault is the most attempts under way at once.
	MaxInFlightDefault = 256
	// PollIntervalDefault is how often an idle loop looks for due
	// deliveries that were not dispatched through this instance (another
	// instance's, one dispatched in a caller's transaction, a retry come
	// due).
	PollIntervalDefault = 100 * time.Millisecond
)

// gatherDelay is how long the loop, woken by a dispatch, waits for more
// before it claims.
const gatherDelay = 20 * time.Millisecond

// RunDeliveries sends deliveries as they come due until ctx is done: it
// claims due deliveries in batches (a statement per batch, each
// delivery's claim a lease of ClaimTimeout), makes their attempts
// concurrently, up to MaxInFlight at once, and records the successes
// together. A delivery Dispatch records in this instance wakes it at
// once; others, and retries, are found within PollInterval.
//
// Run it on every instance that should send, or on some: they share the
// work, each delivery claimed by one. While it runs, Dispatch queues no
// job per event: the deliveries it records are the loop's to send. A
// service with no loop running queues a job per event instead, and the
// periodic sweep picks up whatever is due either way.
//
// When ctx is done the loop claims nothing more and lets the attempts
// under way finish (each bounded by Timeout) and be recorded. A delivery
// claimed by an instance that dies before recording its attempt is
// claimed again when its lease runs out: nothing is lost; a receiver may
// see it twice (de-duplicate on X-Platform-Delivery). Failures to claim
// or record are logged. The error is for a second loop on one service.
func (s *Service) RunDeliveries(ctx context.Context) error {
	if !s.loop.running.CompareAndSwap(false, true) {
		return errors.New("webhooks: RunDeliveries is already running")
	}
	defer s.loop.running.Store(false)
	work := context.WithoutCancel(ctx) // attempts under way finish after a stop
	slots := make(chan struct{}, s.opts.MaxInFlight)
	results := make(chan SuccessfulAttempt, s.opts.MaxInFlight)
	recorded := make(chan struct{})
	go func() {
		defer close(recorded)
		if err := s.recordDelivered(work, results); err != nil {
			// Unrecorded successes are claimed again when their leases
			// run out.
			s.logger.ErrorContext(work, "webhooks: record deliveries", "error", err)
		}
	}()
	var wg sync.WaitGroup
	for ctx.Err() == nil {
		// Wait for room before claiming: a claim is a lease, and leases
		// should not wait on slots.
		select {
		case slots <- struct{}{}:
			<-slots
		case <-ctx.Done():
			continue
		}
		free := cap(slots) - len(slots)
		limit := min(free, s.opts.DeliverBatch)
		now := s.now()
		lease := now.Add(s.opts.ClaimTimeout)
		claimed, err := s.claimDue(ctx, now, lease, limit)
		if err != nil && ctx.Err() == nil {
			s.logger.ErrorContext(ctx, "webhooks: claim due deliveries", "error", err)
		}
		for _, c := range claimed {
			slots <- struct{}{}
			wg.Go(func() {
				defer func() { <-slots }()
				if err := s.attempt(work, c.d, c.sub, lease, now, func(x SuccessfulAttempt) { results <- x }); err != nil {
					s.logger.ErrorContext(work, "webhooks: record attempt", "delivery", c.d.ID, "error", err)
				}
			})
		}
		if len(claimed) < limit {
			select {
			case <-s.loop.wake:
				// Let a moment's dispatches gather, so that a busy loop
				// claims several at a time rather than each alone.
				select {
				case <-time.After(gatherDelay):
				case <-ctx.Done():
				}
			case <-time.After(s.opts.PollInterval):
			case <-ctx.Done():
			}
		}
	}
	wg.Wait()
	close(results)
	<-recorded
	return nil
}

// claimedDelivery is a delivery the loop owns, with its subscription.
type claimedDelivery struct {
	d   *Delivery
	sub *Subscription
}

// claimDue claims up to limit due deliveries under lease and reads them.
func (s *Service) claimDue(ctx context.Context, now, lease time.Time, limit int) ([]claimedDelivery, error) {
	ids, err := s.store.ClaimDue(ctx, now, lease, limit, nil)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	ds, subs, err := s.store.ReadDeliveries(ctx, ids)
	if err != nil {
		// Claimed but unread: their leases run out and they are claimed
		// again.
		return nil, fmt.Errorf("webhooks: read claimed deliveries: %w", err)
	}
	out := make([]claimedDelivery, 0, len(ds))
	for i := range ds {
		d := &ds[i]
		if d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(lease) {
			continue // not ours after all
		}
		out = append(out, claimedDelivery{d: d, sub: subs[d.SubscriptionID]})
	}
	return out, nil
}

// loopState is what Dispatch knows of this instance's loop.
type loopState struct {
	running atomic.Bool
	wake    chan struct{}
}

// nudge wakes the loop, if it runs and sleeps.
func (l *loopState) nudge() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Delivering reports whether RunDeliveries runs on this service.
func (s *Service) Delivering() bool { return s.loop.running.Load() }
