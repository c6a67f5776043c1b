package emaillist

import (
	"context"

	"github.com/groundwork-go/groundwork/internal/hooks"
)

// Event types.
const (
	// EventSubscribed: a queued subscribe reached the provider.
	EventSubscribed = "list.subscribed"
	// EventSubscriptionFailed: a queued subscribe failed for good (once
	// per job: at once for a refusal, after the last retry otherwise).
	EventSubscriptionFailed = "list.subscription_failed"
	// EventFeedSkipped: a feed did not send a submission; Reason says why
	// ("conditional_logic", "field_map:<cause>").
	EventFeedSkipped = "list.feed_skipped"
)

// Event is the outcome of a subscribe, or a feed that did not send.
type Event struct {
	Type string
	// FeedID and SubmissionID are 0 when there is none (a subscribe by
	// list form, a public subscribe).
	FeedID, SubmissionID int64
	Subscription         Subscription
	// Subscriber is the provider's record (EventSubscribed).
	Subscriber *Subscriber
	// Reason is a skip's; Err a failure's (for logs: it may hold the
	// provider's message).
	Reason string
	Err    error
}

// Hook types.
type (
	// EventHook receives every Event.
	EventHook func(ctx context.Context, e Event)
	// SubscribingHook runs before each call to the provider: it may
	// change the subscription, or return an error to fail the job at
	// once, without a retry.
	SubscribingHook func(ctx context.Context, sub *Subscription) error
	// SubscribedHook runs after each call to the provider, with the
	// subscriber on success or the error of that attempt.
	SubscribedHook func(ctx context.Context, sub Subscription, subscriber *Subscriber, err error)
)

// registered are the callbacks a host registers.
type registered struct {
	events hooks.List[EventHook]
	before hooks.List[SubscribingHook]
	after  hooks.List[SubscribedHook]
}

// OnEvent registers fn to receive every Event, in the order registered.
func (s *Service) OnEvent(fn EventHook) {
	s.hooks.events.Add(fn)
}

// OnSubscribing registers fn to run before each call to the provider (the PHP
// package's ap.convertkit.subscribing): it may change the subscription,
// or return an error to fail the job at once, without a retry.
func (s *Service) OnSubscribing(fn SubscribingHook) {
	s.hooks.before.Add(fn)
}

// OnSubscribed registers fn to run after each call to the provider, with
// the subscriber on success or the error of that attempt (the PHP
// package's subscribed and subscribeFailed hooks).
func (s *Service) OnSubscribed(fn SubscribedHook) {
	s.hooks.after.Add(fn)
}

func (s *Service) emit(ctx context.Context, e Event) {
	fns := s.hooks.events.All()
	for _, fn := range fns {
		fn(ctx, e)
	}
}
