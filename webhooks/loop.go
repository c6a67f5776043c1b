package webhooks

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/groundwork-go/groundwork/webhooks/webhooksstore"
)

// Defaults of the delivery loop (RunDeliveries).
const (
	// DeliverBatchDefault is the most deliveries claimed in one statement.
	DeliverBatchDefault = 100
	// MaxInFlightDefault is the most attempts under way at once to
	// healthy endpoints (and half as many besides to failing or slow
	// ones).
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
// claims due deliveries in batches (a transaction per batch, each
// delivery's claim a lease of ClaimTimeout), makes their attempts
// concurrently, up to MaxInFlight at once (and see below), and records
// the successes together. A delivery Dispatch records in this instance wakes it at
// once; others, and retries, are found within PollInterval.
//
// Each endpoint (subscription) is paced, so that endpoints that hang
// until the Timeout or refuse connections do not take the slots, or the
// database's time, the others need: an endpoint has at most one attempt
// under way until it answers 2xx, then twice as many with each success
// answered within a second (up to MaxInFlight); a slower success halves
// that, a failure brings it back to one. After a failed attempt the
// endpoint rests, none of its deliveries attempted, for a second,
// doubling with each failure in a row up to a minute; then one attempt
// tells whether it is back. So a down endpoint's streak of failures (and
// its switching off at DisableAfterFailures) grows with time, not with
// how many deliveries were waiting for it. Attempts to endpoints whose
// last attempt failed, and attempts under way for over a quarter of a
// second, do not count against MaxInFlight: they have a room of their
// own, half as large, so the healthy endpoints keep all of MaxInFlight
// however many go bad. The pace is this loop's: with loops on several
// instances, each paces on its own.
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
	pace := newPacer(s.opts.MaxInFlight)
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
		free := min(cap(slots)-len(slots), s.opts.DeliverBatch)
		now := s.now()
		lease := now.Add(s.opts.ClaimTimeout)
		pick, limit, held := pace.pick(free, now)
		claimed, err := s.claimDue(ctx, now, lease, limit, pick)
		if err != nil && ctx.Err() == nil {
			s.logger.ErrorContext(ctx, "webhooks: claim due deliveries", "error", err)
		}
		inSlots := 0
		for _, c := range claimed {
			a := pace.begin(c.d.SubscriptionID, now)
			release := func() {}
			if !a.aside {
				inSlots++
				slots <- struct{}{}
				release = sync.OnceFunc(func() { <-slots })
			}
			wg.Go(func() {
				defer release()
				// An attempt still under way after a moment gives its slot
				// to the healthy endpoints' deliveries, if it can.
				slow := time.AfterFunc(asideAfter, func() {
					if pace.slow(a) {
						release()
					}
				})
				began := time.Now()
				o, err := s.attempt(work, c.d, c.sub, lease, now, func(x SuccessfulAttempt) { results <- x })
				slow.Stop()
				pace.end(a, o, time.Since(began), s.now())
				if err != nil {
					s.logger.ErrorContext(work, "webhooks: record attempt", "delivery", c.d.ID, "error", err)
				}
			})
		}
		if inSlots < free && len(claimed) < limit {
			// An attempt's end wakes the loop only when the pacing held
			// deliveries back: its endpoint may have room again.
			ended := pace.ended
			if !*held {
				ended = nil
			}
			select {
			case <-s.loop.wake:
			case <-ended:
			case <-time.After(s.opts.PollInterval):
				continue
			case <-ctx.Done():
				continue
			}
			// Let a moment's dispatches and ends gather, so that a busy
			// loop claims several at a time rather than each alone.
			select {
			case <-time.After(gatherDelay):
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

// claimDue claims up to limit due deliveries that pick chooses, under
// lease, and reads them.
func (s *Service) claimDue(ctx context.Context, now, lease time.Time, limit int, pick webhooksstore.ClaimPick) ([]claimedDelivery, error) {
	ids, err := s.store.ClaimChosen(ctx, now, lease, limit, pick)
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
