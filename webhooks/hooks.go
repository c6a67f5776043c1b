package webhooks

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/groundwork-go/groundwork/internal/hooks"
)

// Hook types; each names in parentheses the PHP package's hook it
// replaces, for a site being ported.
type (
	// SubscribingHook (ap.ecommerce.webhook.subscribing) sees a new
	// subscription, its plain secret included, before it is stored; it
	// returns the subscription to store (changed or not), or nil to
	// reject it (422).
	SubscribingHook func(ctx context.Context, sub *Subscription) *Subscription
	// DeliveringHook (ap.ecommerce.webhook.delivering) filters the
	// envelope just before it is encoded and signed, at every attempt.
	DeliveringHook func(ctx context.Context, env Envelope, sub *Subscription) Envelope
	// DeliveredHook (ap.ecommerce.webhook.delivered) runs after an attempt
	// was answered 2xx.
	DeliveredHook func(ctx context.Context, d *Delivery)
	// FailedHook (ap.ecommerce.webhook.failed) runs after an attempt
	// failed, with the reason.
	FailedHook func(ctx context.Context, d *Delivery, reason error)
	// SubscriptionDisabledHook (ap.ecommerce.webhook.subscriptionDisabled)
	// runs once when the failure streak switches a subscription off.
	SubscriptionDisabledHook func(ctx context.Context, sub *Subscription)
	// EventListener receives the framework events: WebhookDelivered,
	// WebhookFailed and WebhookSubscriptionDisabled.
	EventListener func(ctx context.Context, event any)
)

// registered are the callbacks a host registers.
type registered struct {
	subscribe  hooks.List[SubscribingHook]
	delivering hooks.List[DeliveringHook]
	delivered  hooks.List[DeliveredHook]
	failed     hooks.List[FailedHook]
	disabled   hooks.List[SubscriptionDisabledHook]
	listeners  hooks.List[EventListener]
	received   hooks.List[WebhookReceivedHook]
	gateway    hooks.List[gatewayHook]
	payment    hooks.List[PaymentWebhookReceivedHook]
}

// OnSubscribing registers a subscribing filter.
func (s *Service) OnSubscribing(h SubscribingHook) { s.hooks.subscribe.Add(h) }

// OnDelivering registers a filter of the envelope before signing.
func (s *Service) OnDelivering(h DeliveringHook) { s.hooks.delivering.Add(h) }

// OnDelivered registers a hook for delivered attempts.
func (s *Service) OnDelivered(h DeliveredHook) { s.hooks.delivered.Add(h) }

// OnFailed registers a hook for failed attempts.
func (s *Service) OnFailed(h FailedHook) { s.hooks.failed.Add(h) }

// OnSubscriptionDisabled registers a hook for subscriptions switched off
// by their failure streak.
func (s *Service) OnSubscriptionDisabled(h SubscriptionDisabledHook) {
	s.hooks.disabled.Add(h)
}

// OnEvent registers a listener of the framework events.
func (s *Service) OnEvent(l EventListener) { s.hooks.listeners.Add(l) }

// safely runs fn, logging a panic instead of passing it on: a hook never
// breaks a delivery's bookkeeping.
func (s *Service) safely(ctx context.Context, what string, fn func()) {
	defer func() {
		if p := recover(); p != nil {
			s.logger.ErrorContext(ctx, "webhooks: hook panicked", "hook", what, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		}
	}()
	fn()
}

func (s *Service) subscribing(ctx context.Context, sub *Subscription) (*Subscription, error) {
	for _, h := range s.hooks.subscribe.All() {
		if sub = h(ctx, sub); sub == nil {
			return nil, ErrRejected
		}
	}
	return sub, nil
}

func (s *Service) emit(ctx context.Context, event any) {
	for _, l := range s.hooks.listeners.All() {
		s.safely(ctx, "event", func() { l(ctx, event) })
	}
}

func (s *Service) afterDelivered(ctx context.Context, d *Delivery) {
	for _, h := range s.hooks.delivered.All() {
		s.safely(ctx, "delivered", func() { h(ctx, d) })
	}
	s.emit(ctx, WebhookDelivered{Delivery: d})
}

func (s *Service) afterFailed(ctx context.Context, d *Delivery, reason error) {
	for _, h := range s.hooks.failed.All() {
		s.safely(ctx, "failed", func() { h(ctx, d, reason) })
	}
	s.emit(ctx, WebhookFailed{Delivery: d, Reason: reason})
}

func (s *Service) afterDisabled(ctx context.Context, sub *Subscription) {
	for _, h := range s.hooks.disabled.All() {
		s.safely(ctx, "subscriptionDisabled", func() { h(ctx, sub) })
	}
	s.emit(ctx, WebhookSubscriptionDisabled{Subscription: sub})
}
