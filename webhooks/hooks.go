package webhooks

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
)

// Hook types; each names the original's hook it stands for.
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

type hooks struct {
	mu         sync.RWMutex
	subscribe  []SubscribingHook
	delivering []DeliveringHook
	delivered  []DeliveredHook
	failed     []FailedHook
	disabled   []SubscriptionDisabledHook
	listeners  []EventListener
	inbound    inboundHooks
}

func add[T any](mu *sync.RWMutex, list *[]T, h T) {
	mu.Lock()
	defer mu.Unlock()
	*list = append(*list, h)
}

func snapshot[T any](mu *sync.RWMutex, list []T) []T {
	mu.RLock()
	defer mu.RUnlock()
	return append([]T(nil), list...)
}

// OnSubscribing registers a subscribing filter.
func (s *Service) OnSubscribing(h SubscribingHook) { add(&s.hooks.mu, &s.hooks.subscribe, h) }

// OnDelivering registers a filter of the envelope before signing.
func (s *Service) OnDelivering(h DeliveringHook) { add(&s.hooks.mu, &s.hooks.delivering, h) }

// OnDelivered registers a hook for delivered attempts.
func (s *Service) OnDelivered(h DeliveredHook) { add(&s.hooks.mu, &s.hooks.delivered, h) }

// OnFailed registers a hook for failed attempts.
func (s *Service) OnFailed(h FailedHook) { add(&s.hooks.mu, &s.hooks.failed, h) }

// OnSubscriptionDisabled registers a hook for subscriptions switched off
// by their failure streak.
func (s *Service) OnSubscriptionDisabled(h SubscriptionDisabledHook) {
	add(&s.hooks.mu, &s.hooks.disabled, h)
}

// OnEvent registers a listener of the framework events.
func (s *Service) OnEvent(l EventListener) { add(&s.hooks.mu, &s.hooks.listeners, l) }

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
	for _, h := range snapshot(&s.hooks.mu, s.hooks.subscribe) {
		if sub = h(ctx, sub); sub == nil {
			return nil, ErrRejected
		}
	}
	return sub, nil
}

func (s *Service) emit(ctx context.Context, event any) {
	for _, l := range snapshot(&s.hooks.mu, s.hooks.listeners) {
		s.safely(ctx, "event", func() { l(ctx, event) })
	}
}

func (s *Service) afterDelivered(ctx context.Context, d *Delivery) {
	for _, h := range snapshot(&s.hooks.mu, s.hooks.delivered) {
		s.safely(ctx, "delivered", func() { h(ctx, d) })
	}
	s.emit(ctx, WebhookDelivered{Delivery: d})
}

func (s *Service) afterFailed(ctx context.Context, d *Delivery, reason error) {
	for _, h := range snapshot(&s.hooks.mu, s.hooks.failed) {
		s.safely(ctx, "failed", func() { h(ctx, d, reason) })
	}
	s.emit(ctx, WebhookFailed{Delivery: d, Reason: reason})
}

func (s *Service) afterDisabled(ctx context.Context, sub *Subscription) {
	for _, h := range snapshot(&s.hooks.mu, s.hooks.disabled) {
		s.safely(ctx, "subscriptionDisabled", func() { h(ctx, sub) })
	}
	s.emit(ctx, WebhookSubscriptionDisabled{Subscription: sub})
}
