package emaillist

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/riverqueue/river"
)

// Job retry policy.
const (
	// SubscribeMaxAttempts is how many times a subscribe job runs at most.
	SubscribeMaxAttempts = 5
	// subscribeBackoff is the first wait before a retry without a
	// Retry-After; each further one doubles, with jitter.
	subscribeBackoff = 30 * time.Second
)

// SubscribeArgs is the River job that carries out one subscribe.
type SubscribeArgs struct {
	Subscription Subscription `json:"subscription"`
	// FeedID and SubmissionID say where it came from (0 for none).
	FeedID       int64 `json:"feed_id,omitempty"`
	SubmissionID int64 `json:"submission_id,omitempty"`
}

// Kind implements river.JobArgs.
func (SubscribeArgs) Kind() string { return "emaillist_subscribe" }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (SubscribeArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: SubscribeMaxAttempts}
}

type subscribeWorker struct {
	river.WorkerDefaults[SubscribeArgs]
	svc *Service
	// waits holds the Retry-After of a job's last attempt, for NextRetry.
	waits sync.Map // job ID → time.Duration
}

// Work runs the subscribe: a refusal fails the job at once, a retryable
// failure is tried again (ListSubscriptionFailed after the last try).
func (w *subscribeWorker) Work(ctx context.Context, job *river.Job[SubscribeArgs]) error {
	err := w.svc.RunSubscribe(ctx, job.Args, job.Attempt >= job.MaxAttempts)
	var re *RetryableError
	if errors.As(err, &re) && re.After > 0 {
		w.waits.Store(job.ID, re.After)
	}
	if err != nil && !errors.Is(err, ErrRetryable) {
		return river.JobCancel(err)
	}
	return err
}

// NextRetry is the provider's Retry-After when it gave one, else an
// exponential backoff with jitter.
func (w *subscribeWorker) NextRetry(job *river.Job[SubscribeArgs]) time.Time {
	now := w.svc.o.Now()
	if d, ok := w.waits.LoadAndDelete(job.ID); ok {
		return now.Add(d.(time.Duration))
	}
	backoff := subscribeBackoff << min(max(job.Attempt-1, 0), 8)
	return now.Add(backoff/2 + time.Duration(rand.Int64N(int64(backoff/2)+1)))
}

// RunSubscribe carries out one queued subscribe through the Provider,
// with the hooks around the call, and reports the outcome:
// ListSubscribed, or ListSubscriptionFailed for a refusal or, when last,
// a retryable failure. A retryable failure is returned wrapping
// ErrRetryable.
func (s *Service) RunSubscribe(ctx context.Context, args SubscribeArgs, last bool) error {
	if s.o.Provider == nil {
		return errors.New("emaillist: subscribe: no Provider")
	}
	sub := args.Subscription
	sub.TagIDs = capTags(sub.TagIDs)
	before, after := s.hooks.before.All(), s.hooks.after.All()
	e := Event{FeedID: args.FeedID, SubmissionID: args.SubmissionID, Subscription: sub}
	for _, fn := range before {
		if err := fn(ctx, &sub); err != nil {
			e.Type, e.Err, e.Subscription = EventSubscriptionFailed, err, sub
			s.emit(ctx, e)
			return fmt.Errorf("emaillist: subscribe refused by a hook: %w", err)
		}
	}
	e.Subscription = sub
	subscriber, err := s.o.Provider.Subscribe(ctx, sub)
	for _, fn := range after {
		if err != nil {
			fn(ctx, sub, nil, err)
		} else {
			fn(ctx, sub, &subscriber, nil)
		}
	}
	if err == nil {
		e.Type, e.Subscriber = EventSubscribed, &subscriber
		s.emit(ctx, e)
		return nil
	}
	if !errors.Is(err, ErrRetryable) || last {
		e.Type, e.Err = EventSubscriptionFailed, err
		s.emit(ctx, e)
	}
	s.o.Logger.WarnContext(ctx, "emaillist: subscribe failed", "feed", args.FeedID, "retry", errors.Is(err, ErrRetryable) && !last,
		"error", err)
	return fmt.Errorf("emaillist: subscribe: %w", err)
}

// RegisterWorkers adds the subscribe job to a queue's workers (see
// store.Queue.Workers); the service needs a Provider. Register before the
// queue starts.
func RegisterWorkers(workers *river.Workers, svc *Service) error {
	if svc.o.Provider == nil {
		return errors.New("emaillist: register workers: the service has no Provider")
	}
	return river.AddWorkerSafely(workers, &subscribeWorker{svc: svc})
}
