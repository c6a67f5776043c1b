package webhooks

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"runtime/debug"
	"time"

	"github.com/riverqueue/river"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/store/driverless"
)

// Inbound defaults.
const (
	// InboundMaxBytesDefault is webhooks.inbound_max_bytes.
	InboundMaxBytesDefault = 524288
	// ReconcileAfterDefault is checkout.reconcile_after_minutes.
	ReconcileAfterDefault = 15 * time.Minute
	// ReconcileWindow is how old a session may be and still be reconciled.
	ReconcileWindow = 7 * 24 * time.Hour
	// reconcileInterval is how often the periodic reconciliation runs.
	reconcileInterval = 15 * time.Minute
)

var providerPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,59}$`)

// RegisterGateway makes g the gateway of provider, the {provider} segment
// of the inbound endpoint (lower-case letters, digits, "-" and "_").
func (s *Service) RegisterGateway(provider string, g Gateway) error {
	if !providerPattern.MatchString(provider) || g == nil {
		return fmt.Errorf("webhooks: register gateway %q: a lower-case name and a gateway are needed", provider)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gateways[provider] = g
	return nil
}

// Gateway returns the gateway registered under provider.
func (s *Service) Gateway(provider string) (Gateway, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	g, ok := s.gateways[provider]
	return g, ok
}

// Received is the outcome of one inbound webhook, for the answer.
type Received struct {
	// Status is the HTTP status to answer with.
	Status int
	// Event is the verified event (nil when it did not verify).
	Event *InboundEvent
	// Duplicate: the event was handled before; nothing fired.
	Duplicate bool
	// Refusal is the gateway's refusal of a request that did not verify.
	Refusal *GatewayError
}

// ReceiveWebhook handles a provider's webhook whose body is within the
// size limit: the gateway verifies it; in one transaction, a verified
// event is claimed by its id and recorded (a redelivery is answered as a
// duplicate and fires nothing), the received hooks run with its context,
// and a reconciliation job is queued when the event settles a payment
// session. An error or panic of a hook rolls it all back and answers 500
// (the ledger keeps a row of the failure), so the provider sends it again.
// allow is asked, once the event verified, whether the provider's
// allowance has room; false answers 429 and records nothing.
func (s *Service) ReceiveWebhook(ctx context.Context, provider string, header map[string][]string, body []byte, correlationID string,
	allow func() (bool, error)) (*Received, error) {
	g, ok := s.Gateway(provider)
	if !ok {
		return nil, ErrNoGateway
	}
	now := s.now()
	rec := &InboundRecord{Provider: provider, PayloadHash: hashOf(body), PayloadSize: len(body), CorrelationID: correlationID,
		ReceivedAt: now}
	ev, err := g.Verify(header, body, now)
	var refusal *GatewayError
	if errors.As(err, &refusal) || (err == nil && ev == nil) {
		if refusal == nil {
			refusal = &GatewayError{Code: "invalid_payload", Message: "The webhook could not be read."}
		}
		rec.ErrorCode, rec.ResponseStatus = refusal.Code, 400
		rec.Payload, rec.PayloadTruncated = driverless.ClipText(string(body), InboundStoredPrefix), len(body) > InboundStoredPrefix
		s.record(ctx, rec)
		groundwork.Count(s.opts.Meter, groundwork.MetricInbound, provider, "refused")
		return &Received{Status: 400, Refusal: refusal}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("webhooks: receive %s: %w", provider, err)
	}
	if allow != nil {
		if ok, err := allow(); err != nil {
			return nil, err
		} else if !ok {
			return &Received{Status: 429, Event: ev}, nil
		}
	}
	rec.Verified, rec.ResponseStatus = true, 200
	rec.EventID, rec.EventType, rec.SessionReference = driverless.CleanText(ev.ID), driverless.CleanText(ev.Type), driverless.CleanText(ev.SessionReference)
	rec.Payload, rec.Parsed = driverless.CleanText(string(body)), ev.Payload
	if !isStorable(ev.Payload) {
		rec.Parsed = toStorable(ev.Payload).(map[string]any)
	}
	// The claim, the hooks, the reconciliation's job and the ledger row
	// are one transaction: a hook's writes made with the context it is
	// given commit with the claim, and a hook that fails rolls all of it
	// back, so the provider's retry is handled as new. With no hook to
	// run and no job to queue, the claim and the row are one statement of
	// their own.
	reconcile := (ev.Outcome == PaymentSucceeded || ev.Outcome == PaymentFailed) && s.opts.PaymentSessions != nil &&
		s.opts.Enqueuer != nil && ev.SessionReference != ""
	duplicate := false
	handle := func(ctx context.Context, tx *sql.Tx) error {
		if ev.ID != "" {
			claimed, err := s.store.ReceiveEvent(ctx, rec)
			if err != nil {
				return fmt.Errorf("webhooks: claim %s event %s: %w", provider, ev.ID, err)
			}
			if !claimed {
				duplicate = true
				return nil
			}
		}
		if err := s.received(ctx, provider, ev); err != nil {
			return fmt.Errorf("webhooks: a received hook failed for %s event %s: %w", provider, ev.ID, err)
		}
		if reconcile {
			args := reconcileSessionArgs{Provider: provider, Reference: ev.SessionReference, Outcome: ev.Outcome}
			if err := s.opts.Enqueuer.EnqueueTx(ctx, tx, args, nil); err != nil {
				// Without its job the settlement would rest on the
				// periodic reconciliation alone: let the provider retry.
				return fmt.Errorf("webhooks: queue the reconciliation of %s: %w", ev.SessionReference, err)
			}
		}
		if ev.ID == "" {
			return s.store.RecordInbound(ctx, rec)
		}
		return nil
	}
	if reconcile || s.hooked() {
		err = s.store.RunInTx(ctx, handle)
	} else {
		err = handle(ctx, nil)
	}
	if err != nil { // verified, but not handled: the provider sends it again
		groundwork.Count(s.opts.Meter, groundwork.MetricInbound, provider, "verified")
		rec.ID, rec.Duplicate, rec.ResponseStatus = 0, false, 500
		s.record(ctx, rec)
		return nil, err
	}
	if duplicate {
		groundwork.Count(s.opts.Meter, groundwork.MetricInbound, provider, "duplicate")
		return &Received{Status: 200, Event: ev, Duplicate: true}, nil
	}
	groundwork.Count(s.opts.Meter, groundwork.MetricInbound, provider, "verified")
	return &Received{Status: 200, Event: ev}, nil
}

// record writes a ledger row, best effort.
func (s *Service) record(ctx context.Context, rec *InboundRecord) {
	if err := s.store.RecordInbound(context.WithoutCancel(ctx), rec); err != nil {
		s.logger.ErrorContext(ctx, "webhooks: record inbound", "provider", rec.Provider, "error", err)
	}
}

// isStorable reports whether every string (and key) in the decoded JSON
// value v is already driverless.ValidText, as it almost always is.
func isStorable(v any) bool {
	switch v := v.(type) {
	case string:
		return driverless.ValidText(v)
	case map[string]any:
		for k, x := range v {
			if !isStorable(k) || !isStorable(x) {
				return false
			}
		}
	case []any:
		for _, x := range v {
			if !isStorable(x) {
				return false
			}
		}
	}
	return true
}

// toStorable copies the decoded JSON value v with every string and key
// made driverless.ValidText (JSONB refuses \u0000).
func toStorable(v any) any {
	switch v := v.(type) {
	case string:
		return driverless.CleanText(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[driverless.CleanText(k)] = toStorable(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = toStorable(x)
		}
		return out
	}
	return v
}

// Inbound hook types; each names in parentheses the PHP package's hook
// it replaces, for a site being ported.
type (
	// WebhookReceivedHook (ap.ecommerce.webhook_received) runs for every
	// verified, new inbound event.
	WebhookReceivedHook func(ctx context.Context, provider string, ev *InboundEvent) error
	// GatewayWebhookReceivedHook (ap.ecommerce.gateway.{provider}.webhook_received)
	// runs for the verified, new events of one provider.
	GatewayWebhookReceivedHook func(ctx context.Context, ev *InboundEvent) error
	// PaymentWebhookReceivedHook (ap.ecommerce.payment.webhookReceived)
	// runs for every verified, new event with its parsed payload.
	PaymentWebhookReceivedHook func(ctx context.Context, payload map[string]any, provider string) error
)

// gatewayHook is a GatewayWebhookReceivedHook and its provider.
type gatewayHook struct {
	provider string
	hook     GatewayWebhookReceivedHook
}

// OnWebhookReceived registers a hook for every verified, new inbound
// event. It runs in the transaction that claims and records the event:
// its context carries it, and what it writes through a store on the same
// store.DB commits with the claim. An error (or panic) rolls the claim and
// those writes back and fails the request with a 500, so the provider
// sends it again.
func (s *Service) OnWebhookReceived(h WebhookReceivedHook) {
	s.hooks.received.Add(h)
}

// OnGatewayWebhookReceived registers a hook for the verified, new events
// of one provider, with OnWebhookReceived's error rule.
func (s *Service) OnGatewayWebhookReceived(provider string, h GatewayWebhookReceivedHook) {
	s.hooks.gateway.Add(gatewayHook{provider, h})
}

// OnPaymentWebhookReceived registers a hook for every verified, new event,
// given its parsed payload, with OnWebhookReceived's error rule.
func (s *Service) OnPaymentWebhookReceived(h PaymentWebhookReceivedHook) {
	s.hooks.payment.Add(h)
}

// hooked reports whether any received hook is registered.
func (s *Service) hooked() bool {
	return len(s.hooks.received.All()) > 0 || len(s.hooks.gateway.All()) > 0 || len(s.hooks.payment.All()) > 0
}

// received runs the hooks in order; the first error (or panic) stops them.
func (s *Service) received(ctx context.Context, provider string, ev *InboundEvent) (err error) {
	defer func() {
		if p := recover(); p != nil {
			s.logger.ErrorContext(ctx, "webhooks: received hook panicked", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			err = fmt.Errorf("a hook panicked: %v", p)
		}
	}()
	for _, h := range s.hooks.received.All() {
		if err := h(ctx, provider, ev); err != nil {
			return err
		}
	}
	for _, g := range s.hooks.gateway.All() {
		if g.provider != provider {
			continue
		}
		if err := g.hook(ctx, ev); err != nil {
			return err
		}
	}
	for _, h := range s.hooks.payment.All() {
		if err := h(ctx, ev.Payload, provider); err != nil {
			return err
		}
	}
	return nil
}

// ---- reconciliation ----

// reconcileSessionArgs is the job that settles one payment session a
// webhook reported on.
type reconcileSessionArgs struct {
	Provider  string         `json:"provider"`
	Reference string         `json:"reference"`
	Outcome   PaymentOutcome `json:"outcome"`
}

// Kind implements river.JobArgs.
func (reconcileSessionArgs) Kind() string { return "webhooks_reconcile_session" }

// InsertOpts implements river.JobArgsWithInsertOpts: three tries.
func (reconcileSessionArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 3} }

// reconcileArgs is the periodic job (every 15 minutes) that asks providers
// about quiet payment sessions.
type reconcileArgs struct {
	// After overrides Options.ReconcileAfter when positive.
	After time.Duration `json:"after,omitempty"`
}

// Kind implements river.JobArgs.
func (reconcileArgs) Kind() string { return "webhooks_reconcile" }

// ReconcileReport counts what a reconciliation did.
type ReconcileReport struct {
	// Finalized and Released count sessions settled as succeeded and as
	// failed; Left those still processing; Errors those that could not be
	// looked up or settled (tried again next time).
	Finalized, Released, Left, Errors int
	// Failures says why, for the first ReconcileFailuresMax errors.
	Failures []ReconcileFailure
}

// ReconcileFailuresMax is how many failures a ReconcileReport describes.
const ReconcileFailuresMax = 100

// ReconcileFailure is a session reconciliation could not settle, and why.
type ReconcileFailure struct {
	Provider, Reference string
	Err                 error
}

// String is "REFERENCE (PROVIDER): cause".
func (f ReconcileFailure) String() string {
	return fmt.Sprintf("%s (%s): %v", f.Reference, f.Provider, f.Err)
}

// fail counts a failure and keeps its cause.
func (r *ReconcileReport) fail(sess PaymentSession, err error) {
	r.Errors++
	if len(r.Failures) < ReconcileFailuresMax {
		r.Failures = append(r.Failures, ReconcileFailure{Provider: sess.Provider, Reference: sess.Reference, Err: err})
	}
}

// String is the report as one sentence, as `reference webhooks reconcile`
// prints it.
func (r ReconcileReport) String() string {
	return fmt.Sprintf("Finalized %d, released %d, left %d, errors %d.", r.Finalized, r.Released, r.Left, r.Errors)
}

// reconcileBatch is how many sessions a reconciliation reads at a time,
// and reconcileMax how many it handles in one run.
const (
	reconcileBatch = 100
	reconcileMax   = 10000
)

// Reconcile asks each payment session's provider about the sessions
// awaiting settlement that have been quiet for after (ReconcileAfter when
// negative) and are younger than ReconcileWindow, and settles those the
// provider confirmed or cancelled. Sessions still processing are left;
// a session whose provider has no gateway, or whose lookup or settlement
// fails, counts as an error and is tried again next time.
func (s *Service) Reconcile(ctx context.Context, after time.Duration) (ReconcileReport, error) {
	var r ReconcileReport
	if s.opts.PaymentSessions == nil {
		return r, errors.New("webhooks: reconcile: no PaymentSessions")
	}
	if after < 0 {
		after = s.opts.ReconcileAfter
	}
	now := s.now()
	from, to := now.Add(-ReconcileWindow), now.Add(-after)
	for handled := 0; handled < reconcileMax; {
		batch, err := s.opts.PaymentSessions.Awaiting(ctx, from, to, reconcileBatch)
		if err != nil {
			return r, fmt.Errorf("webhooks: reconcile: %w", err)
		}
		for _, sess := range batch {
			s.reconcileOne(ctx, sess, &r)
		}
		handled += len(batch)
		if len(batch) < reconcileBatch {
			break
		}
		from = batch[len(batch)-1].UpdatedAt.Add(time.Microsecond)
	}
	return r, nil
}

func (s *Service) reconcileOne(ctx context.Context, sess PaymentSession, r *ReconcileReport) {
	g, ok := s.Gateway(sess.Provider)
	if !ok {
		r.fail(sess, fmt.Errorf("no gateway is registered for provider %q", sess.Provider))
		s.logger.WarnContext(ctx, "webhooks: reconcile: no gateway", "provider", sess.Provider, "session", sess.Reference)
		return
	}
	outcome, err := g.Session(ctx, sess.Reference)
	if err != nil {
		r.fail(sess, fmt.Errorf("looking the session up: %w", err))
		s.logger.WarnContext(ctx, "webhooks: reconcile: session lookup", "provider", sess.Provider, "session", sess.Reference, "error", err)
		return
	}
	switch outcome {
	case PaymentSucceeded, PaymentFailed:
		if err := s.opts.PaymentSessions.Settle(ctx, sess, outcome); err != nil {
			r.fail(sess, fmt.Errorf("settling it: %w", err))
			s.logger.WarnContext(ctx, "webhooks: reconcile: settle", "provider", sess.Provider, "session", sess.Reference, "error", err)
			return
		}
		if outcome == PaymentSucceeded {
			r.Finalized++
		} else {
			r.Released++
		}
	default:
		r.Left++
	}
}

// PruneInbound deletes inbound ledger rows and event claims older than
// Options.InboundRetention (none when it is negative), and returns how many
// rows.
func (s *Service) PruneInbound(ctx context.Context) (int, error) {
	if s.opts.InboundRetention < 0 {
		return 0, nil
	}
	n, err := s.store.PruneInbound(ctx, s.now().Add(-s.opts.InboundRetention), pruneBatch)
	return n, wrap("prune inbound", err)
}

// RedactInbound empties the stored payloads of the inbound events about a
// deleted customer: those about one of their payment sessions or that
// contain their email. The rows, hashes and sizes stay.
func (s *Service) RedactInbound(ctx context.Context, sessionRefs []string, email string) (int, error) {
	n, err := s.store.RedactInbound(ctx, sessionRefs, email)
	return n, wrap("redact inbound", err)
}

// InboundLedger lists the inbound ledger, newest first.
func (s *Service) InboundLedger(ctx context.Context, q InboundQuery) ([]InboundRecord, int, error) {
	list, total, err := s.store.ListInbound(ctx, q)
	return list, total, wrap("inbound ledger", err)
}
