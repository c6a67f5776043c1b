package webhooks

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/suggest"
	"github.com/groundwork-go/groundwork/store"
)

// Defaults of Options.
const (
	MaxAttemptsDefault          = 10
	DisableAfterFailuresDefault = 10
	TimeoutDefault              = 10 * time.Second
	ClaimTimeoutDefault         = 300 * time.Second
	// ClaimTimeoutMin is the shortest claim allowed.
	ClaimTimeoutMin   = 30 * time.Second
	RetentionDefault  = 90 * 24 * time.Hour
	UserAgentDefault  = "groundwork-webhooks/1.0"
	sweepBatchDefault = 500
	// RecentDeliveries is how many deliveries include=deliveries shows per
	// subscription.
	RecentDeliveries = 20
	// ResponseBodyLimit is how much of a receiver's answer is kept, in
	// bytes.
	ResponseBodyLimit = 2000
	// pruneBatch is how many rows a prune deletes at a time.
	pruneBatch = 1000
	// redactBatch is how many deliveries a redaction reads at a time.
	redactBatch = 500
)

// BackoffDefault is the wait after the first, second, ... failed attempt;
// the last entry repeats.
var BackoffDefault = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour,
	2 * time.Hour, 4 * time.Hour, 8 * time.Hour, 12 * time.Hour, 24 * time.Hour}

// Options configures a Service. Nil means the defaults, but SecretKey is
// always required.
type Options struct {
	// Meter counts delivery attempts, delivery lag and inbound events (groundwork.MetricDeliveries, MetricDeliveryLag, MetricInbound); nil counts nothing.
	Meter groundwork.Meter
	// SecretKey (SecretKeySize bytes) encrypts subscription secrets at
	// rest. Required; keep it safe and stable (GenerateSecretKey makes
	// one).
	SecretKey []byte
	// Enqueuer queues delivery jobs (a *store.Queue). Without it events
	// can be recorded but nothing is sent.
	Enqueuer store.Enqueuer
	// Queue is the River queue of delivery jobs; river.QueueDefault when
	// empty. A host that gives webhooks their own queue must configure it
	// on the store.Queue.
	Queue string
	// Events are wire names added to the catalogue of names
	// subscriptions may name and Dispatch accepts: DefaultEvents and
	// these (a host's own, such as form.submitted).
	Events []string
	// OmitDefaultEvents leaves DefaultEvents out of the catalogue: it is
	// Events alone.
	OmitDefaultEvents bool
	// IncludeAdminFields keeps fields tagged `webhook:"admin"` in event
	// data.
	IncludeAdminFields bool
	// Backoff, MaxAttempts, DisableAfterFailures, Timeout: see the
	// defaults above.
	Backoff              []time.Duration
	MaxAttempts          int
	DisableAfterFailures int
	Timeout              time.Duration
	// DisableAfterFailing, when above zero, switches a subscription off
	// only once it has also gone that long without a delivery (since its
	// last success, or its making): as Svix does, five days
	// (5 * 24 * time.Hour) forgives a receiver that is down for a
	// weekend. Zero: DisableAfterFailures failures in a row alone.
	DisableAfterFailing time.Duration
	// ClaimTimeout is how long a queued job or the delivery loop owns a
	// delivery before another may claim it again (at least
	// ClaimTimeoutMin).
	ClaimTimeout time.Duration
	// SecretGrace is how long a secret replaced by RotateSecret keeps
	// signing deliveries beside the new one (SecretGraceDefault, 24 h,
	// when zero; negative: none).
	SecretGrace time.Duration
	// DeliverBatch, MaxInFlight and PollInterval shape RunDeliveries; the
	// defaults DeliverBatchDefault, MaxInFlightDefault and
	// PollIntervalDefault when zero.
	DeliverBatch int
	MaxInFlight  int
	PollInterval time.Duration
	// Retention is how long finished deliveries are kept; negative keeps
	// them forever.
	Retention time.Duration
	// AllowInsecureURLs and AllowPrivateHosts relax the egress guard.
	AllowInsecureURLs bool
	AllowPrivateHosts bool
	// Resolver resolves subscription hosts; net.DefaultResolver when nil.
	Resolver Resolver
	// TLSConfig is the client TLS configuration (RootCAs for a private
	// CA); the system's when nil.
	TLSConfig *tls.Config
	// Location is the time zone of the envelope's created_at; UTC when
	// nil.
	Location *time.Location
	// UserAgent of deliveries; UserAgentDefault when empty.
	UserAgent string
	// PaymentSessions settles checkouts from payment webhooks and from
	// reconciliation; without it neither settles anything.
	PaymentSessions PaymentSessions
	// InboundRetention is how long inbound ledger rows (and event claims)
	// are kept; RetentionDefault when zero, forever when negative.
	InboundRetention time.Duration
	// ReconcileAfter is how long a payment session must have been quiet
	// before reconciliation asks its provider; ReconcileAfterDefault when
	// zero.
	ReconcileAfter time.Duration
	// Now and NewID replace the clock and the event id generator (UUIDs).
	Now   func() time.Time
	NewID func() string
	// Logger receives fan-out failures and panics in hooks.
	Logger *slog.Logger
}

// Service manages subscriptions, records and sends deliveries.
type Service struct {
	store  Store
	opts   Options
	sealer *sealer
	guard  *Guard
	client *http.Client
	logger *slog.Logger
	hooks  registered
	loop   loopState
	// failing bounds the failed attempts being recorded at once.
	failing chan struct{}

	mu      sync.RWMutex
	catalog map[string]bool
	// described are the catalogue's events DescribeEvent described.
	described map[string]EventType
	gateways  map[string]Gateway
}

// NewService returns the webhooks service on st.
func NewService(st Store, opts *Options) (*Service, error) {
	if st == nil {
		return nil, errors.New("webhooks: new service: store is nil")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	sealer, err := newSealer(o.SecretKey)
	if err != nil {
		return nil, fmt.Errorf("webhooks: new service: %w", err)
	}
	o.Queue = cmp.Or(o.Queue, river.QueueDefault)
	if !o.OmitDefaultEvents {
		o.Events = append(slices.Clone(DefaultEvents), o.Events...)
	}
	if o.Backoff == nil {
		o.Backoff = BackoffDefault
	}
	o.MaxAttempts = cmp.Or(o.MaxAttempts, MaxAttemptsDefault)
	o.DisableAfterFailures = cmp.Or(o.DisableAfterFailures, DisableAfterFailuresDefault)
	o.Timeout = cmp.Or(o.Timeout, TimeoutDefault)
	o.ClaimTimeout = cmp.Or(o.ClaimTimeout, ClaimTimeoutDefault)
	o.SecretGrace = max(cmp.Or(o.SecretGrace, SecretGraceDefault), 0)
	o.Retention = cmp.Or(o.Retention, RetentionDefault)
	o.InboundRetention = cmp.Or(o.InboundRetention, RetentionDefault)
	o.ReconcileAfter = cmp.Or(o.ReconcileAfter, ReconcileAfterDefault)
	o.UserAgent = cmp.Or(o.UserAgent, UserAgentDefault)
	o.DeliverBatch = cmp.Or(o.DeliverBatch, DeliverBatchDefault)
	o.MaxInFlight = cmp.Or(o.MaxInFlight, MaxInFlightDefault)
	o.PollInterval = cmp.Or(o.PollInterval, PollIntervalDefault)
	switch {
	case o.DeliverBatch < 1 || o.MaxInFlight < 1 || o.PollInterval < 0:
		return nil, errors.New("webhooks: new service: DeliverBatch, MaxInFlight and PollInterval must be positive")
	case len(o.Backoff) == 0 || slices.ContainsFunc(o.Backoff, func(d time.Duration) bool { return d <= 0 }):
		return nil, errors.New("webhooks: new service: Backoff needs positive entries")
	case o.MaxAttempts < 1 || o.DisableAfterFailures < 1 || o.Timeout < 0 || o.DisableAfterFailing < 0:
		return nil, errors.New("webhooks: new service: MaxAttempts, DisableAfterFailures, DisableAfterFailing and Timeout must be positive")
	case o.ClaimTimeout < ClaimTimeoutMin:
		return nil, fmt.Errorf("webhooks: new service: ClaimTimeout must be at least %s", ClaimTimeoutMin)
	}
	if o.Location == nil {
		o.Location = time.UTC
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.NewID == nil {
		o.NewID = uuid.NewString
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{store: st, opts: o, sealer: sealer, logger: logger, catalog: map[string]bool{}, gateways: map[string]Gateway{},
		loop: loopState{wake: make(chan struct{}, 1)}, failing: make(chan struct{}, failureWriters),
		guard: &Guard{AllowInsecureURLs: o.AllowInsecureURLs, AllowPrivateHosts: o.AllowPrivateHosts, Resolver: o.Resolver}}
	s.client = newClient(o.TLSConfig)
	if err := s.RegisterEvents(o.Events...); err != nil {
		return nil, fmt.Errorf("webhooks: new service: %w", err)
	}
	return s, nil
}

func (s *Service) now() time.Time { return s.opts.Now().UTC().Truncate(time.Microsecond) }

// eventPattern is a wire name: lower-case words of [a-z0-9_] joined by
// dots, at least two.
var eventPattern = regexp.MustCompile(`^[a-z0-9_]+(\.[a-z0-9_]+)+$`)

// MaxEventLength bounds a wire name.
const MaxEventLength = 120

// RegisterEvents adds wire names to the catalogue.
func (s *Service) RegisterEvents(names ...string) error {
	for _, n := range names {
		if len(n) > MaxEventLength || !eventPattern.MatchString(n) {
			return fmt.Errorf("webhooks: %q is not a wire name (lower-case words joined by dots)", n)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range names {
		s.catalog[n] = true
	}
	return nil
}

// RequireEvents reports, as an error naming them and the ways to add
// them, the names that are not in the catalogue. A host that dispatches
// events of its own calls it where it wires the dispatch (at start), so a
// missing name stops the start instead of failing a visitor's request.
func (s *Service) RequireEvents(names ...string) error {
	var missing []string
	for _, n := range names {
		if !s.known(n) {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s; add them to Options.Events or call Service.RegisterEvents before dispatching them",
		ErrUnknownEvent, strings.Join(missing, ", "))
}

// Events returns the catalogue, sorted.
func (s *Service) Events() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.catalog))
	for n := range s.catalog {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func (s *Service) known(name string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.catalog[name]
}

// ---- subscriptions ----

// SubscriptionInput is a subscription to create, or the fields of one to
// change: nil fields are left as they are (on create: name, url and events
// are required; secret is generated when absent; is_active defaults to
// true).
type SubscriptionInput struct {
	// Owner names whose subscription it is, when it is made (the default
	// owner when nil; under an owner's scope, that owner: another is a
	// validation error). It cannot change.
	Owner *string `json:"owner"`
	Name  *string `json:"name"`
	// Description, Headers (nil leaves them; an empty map clears them)
	// and RateLimit (0: none) are the endpoint's settings.
	Description *string           `json:"description"`
	Headers     map[string]string `json:"headers"`
	RateLimit   *int              `json:"rate_limit"`
	// Channels replace the endpoint's channels (nil leaves them; empty
	// clears them).
	Channels         []string `json:"channels"`
	URL              *string  `json:"url"`
	Events           []string `json:"events"`
	Secret           *string  `json:"secret"`
	IsActive         *bool    `json:"is_active"`
	StandardWebhooks *bool    `json:"standard_webhooks"`
}

// MaxNameLength and the secret's bounds.
const (
	MaxNameLength   = 255
	MinSecretLength = 16
	MaxSecretLength = 255
)

// apply validates in onto sub. creating marks a create (required fields).
func (s *Service) apply(ctx context.Context, sub *Subscription, in SubscriptionInput, creating bool) (secret string, err error) {
	v := &api.Validator{}
	// hints say, for the server's log and the Go error, what the API's
	// messages leave out: the value refused and what would take it.
	var hints []string
	defer func() {
		var ve *ValidationError
		if len(hints) > 0 && errors.As(err, &ve) {
			s.logger.InfoContext(ctx, "webhooks: subscription refused", "why", strings.Join(hints, "; "))
			err = &hintedError{err: err, hints: hints}
		}
	}()
	scope, scoped := OwnerScope(ctx)
	switch {
	case creating && scoped && in.Owner != nil && *in.Owner != scope:
		v.Add("owner", "The owner is the token's own: leave it out, or name "+scope+".")
	case creating && scoped:
		sub.Owner = scope
	case creating && in.Owner != nil && checkOwner(*in.Owner) != nil:
		v.Add("owner", fmt.Sprintf("The owner must be at most %d characters, without control characters, and not *.", MaxOwnerLength))
	case creating && in.Owner != nil:
		sub.Owner = *in.Owner
	case !creating && in.Owner != nil && *in.Owner != sub.Owner:
		v.Add("owner", "A subscription's owner cannot change: make a new subscription for the other owner.")
	}
	if in.Name != nil || creating {
		name := strings.TrimSpace(deref(in.Name))
		switch {
		case name == "":
			v.Add("name", api.MsgRequired("name"))
		case len([]rune(name)) > MaxNameLength:
			v.Add("name", api.MsgMaxChars("name", MaxNameLength))
		default:
			sub.Name = name
		}
	}
	if in.StandardWebhooks != nil {
		sub.StandardWebhooks = *in.StandardWebhooks
	}
	if in.Description != nil {
		if d := strings.TrimSpace(*in.Description); utf8.RuneCountInString(d) > MaxDescriptionLength {
			v.Add("description", api.MsgMaxChars("description", MaxDescriptionLength))
		} else {
			sub.Description = d
		}
	}
	if in.Headers != nil {
		sub.Headers = checkHeaders(in.Headers, v)
	}
	if in.Channels != nil {
		sub.Channels = checkChannels(in.Channels, v)
	}
	if in.RateLimit != nil {
		if *in.RateLimit < 0 || *in.RateLimit > MaxRateLimit {
			v.Add("rate_limit", fmt.Sprintf("The rate_limit field must be between 0 and %d.", MaxRateLimit))
		} else {
			sub.RateLimit = *in.RateLimit
		}
	}
	hints = append(hints, s.applyURL(ctx, sub, in, creating, v)...)
	hints = append(hints, s.applyEvents(sub, in, creating, v)...)
	if secret, err = s.applySecret(sub, in, creating, v); err != nil {
		return "", err
	}
	if in.IsActive != nil {
		if *in.IsActive {
			sub.ConsecutiveFailures = 0 // re-enabling (or confirming) resets the streak
		}
		sub.IsActive = *in.IsActive
	}
	return secret, v.Err()
}

// applyURL checks in's url onto sub, with hints for the log when an
// option would take it.
func (s *Service) applyURL(ctx context.Context, sub *Subscription, in SubscriptionInput, creating bool, v *api.Validator) (hints []string) {
	if in.URL == nil && !creating {
		return nil
	}
	u := strings.TrimSpace(deref(in.URL))
	if u == "" {
		v.Add("url", api.MsgRequired("url"))
	} else if _, err := s.guard.Check(ctx, u); err != nil {
		v.Add("url", urlMessage(err))
		switch {
		case errors.Is(err, ErrInsecureURL):
			hints = append(hints, fmt.Sprintf("url %q is plain http: Options.AllowInsecureURLs allows it, for local development "+
				"(GROUNDWORK_WEBHOOKS_ALLOW_INSECURE_URLS=true in the reference server)", u))
		case errors.Is(err, ErrNotPublic):
			hints = append(hints, fmt.Sprintf("url %q does not resolve to a public address: Options.AllowPrivateHosts allows "+
				"private and loopback hosts, for local development (GROUNDWORK_WEBHOOKS_ALLOW_PRIVATE_HOSTS=true in the reference server)", u))
		}
	} else {
		sub.URL = u
	}
	return hints
}

// applyEvents checks in's events onto sub (each once, each in the
// catalogue or "*"), with hints naming the catalogue.
func (s *Service) applyEvents(sub *Subscription, in SubscriptionInput, creating bool, v *api.Validator) (hints []string) {
	if in.Events == nil && !creating {
		return nil
	}
	if len(in.Events) == 0 {
		v.Add("events", api.MsgRequired("events"))
	}
	var events []string
	for i, e := range in.Events {
		field := fmt.Sprintf("events.%d", i)
		switch {
		case e == "*":
		case len(e) > MaxEventLength:
			v.Add(field, api.MsgMaxChars(field, MaxEventLength))
			continue
		case !eventPattern.MatchString(e):
			v.Add(field, api.MsgFormat(field))
			continue
		case !s.known(e):
			msg := fmt.Sprintf("The selected %s is invalid: %q is not an event here.", field, e)
			if near := suggest.Nearest(e, s.Events()); near != "" {
				msg += fmt.Sprintf(" Did you mean %q?", near)
			}
			v.Add(field, msg)
			hints = append(hints, fmt.Sprintf("%s %q is not in the catalogue, which holds %s (Options.Events and "+
				"Service.RegisterEvents add to it)", field, e, strings.Join(s.Events(), ", ")))
			continue
		}
		if !slices.Contains(events, e) {
			events = append(events, e)
		}
	}
	if len(events) > 0 {
		sub.Events = events
	}
	return hints
}

// applySecret is the secret in gives (checked for the scheme), a new one
// when creating without one, or "" when the secret stays; switching
// scheme checks the stored secret fits the new one.
func (s *Service) applySecret(sub *Subscription, in SubscriptionInput, creating bool, v *api.Validator) (secret string, err error) {
	switch {
	case in.Secret != nil:
		secret = *in.Secret
		n := len([]rune(secret))
		switch {
		case n < MinSecretLength:
			v.Add("secret", fmt.Sprintf("The secret field must be at least %d characters.", MinSecretLength))
		case n > MaxSecretLength:
			v.Add("secret", api.MsgMaxChars("secret", MaxSecretLength))
		case sub.StandardWebhooks:
			if key, err := standardKey(secret); err != nil || len(key) < MinSecretLength {
				v.Add("secret", "The secret field must be whsec_ and the base64 of at least 16 bytes for Standard Webhooks.")
			}
		}
	case creating:
		secret = newSecret(sub.StandardWebhooks)
	case in.StandardWebhooks != nil:
		// Switching scheme needs a secret of the new scheme's form.
		old, err := s.sealer.open(sub.SealedSecret)
		if err != nil {
			return "", err
		}
		if _, err := standardKey(old); sub.StandardWebhooks && err != nil {
			v.Add("secret", "Standard Webhooks needs a whsec_ base64 secret: send a new secret with standard_webhooks.")
		}
	}
	return secret, nil
}

// hintedError is a refusal whose message says more than the API's answer
// (the value refused, the option that would take it); it unwraps to the
// *ValidationError the API answers with.
type hintedError struct {
	err   error
	hints []string
}

func (e *hintedError) Error() string { return e.err.Error() + " (" + strings.Join(e.hints, "; ") + ")" }
func (e *hintedError) Unwrap() error { return e.err }

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// The API's messages for a URL the guard refused, naming the options
// that would allow it (the portal says them in its customers' words).
const (
	msgInsecureURL = "The url field must start with https:// (plain http needs the server's AllowInsecureURLs option, " +
		"GROUNDWORK_WEBHOOKS_ALLOW_INSECURE_URLS on the reference server, for local development)."
	msgNotPublic = "The url must resolve to a public address (a private or loopback host needs the server's AllowPrivateHosts option, " +
		"GROUNDWORK_WEBHOOKS_ALLOW_PRIVATE_HOSTS on the reference server, for local development)."
)

// urlMessage is the 422 message for a URL the guard refused.
func urlMessage(err error) string {
	switch {
	case errors.Is(err, ErrInsecureURL):
		return msgInsecureURL
	case errors.Is(err, ErrNotPublic):
		return msgNotPublic
	}
	if strings.Contains(err.Error(), "longer than") {
		return api.MsgMaxChars("url", MaxURLLength)
	}
	return api.MsgURL("url")
}

// CreateSubscription validates in, runs the subscribing hooks (one
// returning nil rejects with ErrRejected) and stores the subscription. The
// result is the only place the secret is ever shown.
func (s *Service) CreateSubscription(ctx context.Context, in SubscriptionInput) (*Subscription, error) {
	now := s.now()
	sub := &Subscription{IsActive: true, CreatedAt: now, UpdatedAt: now}
	secret, err := s.apply(ctx, sub, in, true)
	if err != nil {
		return nil, err
	}
	sub.Secret = secret
	if sub, err = s.subscribing(ctx, sub); err != nil {
		return nil, err
	}
	secret = sub.Secret
	sub.SealedSecret = s.sealer.seal(secret)
	sub.CreatedAt, sub.UpdatedAt = now, now
	if err := s.store.CreateSubscription(ctx, sub); err != nil {
		return nil, fmt.Errorf("webhooks: create subscription: %w", err)
	}
	sub.Secret = secret
	return sub, nil
}

// UpdateSubscription changes the fields in gives. Setting is_active to
// true resets the failure streak (parked deliveries stay parked until
// ReplayParked).
func (s *Service) UpdateSubscription(ctx context.Context, id int64, in SubscriptionInput) (*Subscription, error) {
	sub, err := s.Subscription(ctx, id)
	if err != nil {
		return nil, err
	}
	secret, err := s.apply(ctx, sub, in, false)
	if err != nil {
		return nil, err
	}
	if secret != "" { // a secret set outright replaces the old at once (RotateSecret keeps it a while)
		sub.SealedSecret = s.sealer.seal(secret)
		sub.PreviousSealedSecret, sub.PreviousSecretExpiresAt = "", nil
	}
	sub.UpdatedAt = s.now()
	if err := s.store.UpdateSubscription(ctx, sub); err != nil {
		return nil, wrap("update subscription", err)
	}
	return sub, nil
}

// DeleteSubscription deletes a subscription and its deliveries.
func (s *Service) DeleteSubscription(ctx context.Context, id int64) error {
	if _, scoped := OwnerScope(ctx); scoped {
		if _, err := s.Subscription(ctx, id); err != nil {
			return err
		}
	}
	return wrap("delete subscription", s.store.DeleteSubscription(ctx, id))
}

// Subscription returns one subscription (never its secret); under an
// owner's scope another owner's is ErrNotFound.
func (s *Service) Subscription(ctx context.Context, id int64) (*Subscription, error) {
	sub, err := s.store.Subscription(ctx, id)
	if err == nil && !sees(ctx, sub.Owner) {
		return nil, ErrNotFound
	}
	return sub, wrap("subscription", err)
}

// Subscriptions lists subscriptions, each with its RecentDeliveries most
// recent deliveries when withDeliveries is set.
func (s *Service) Subscriptions(ctx context.Context, q SubscriptionQuery, withDeliveries bool) ([]Subscription, int, error) {
	if scope, scoped := OwnerScope(ctx); scoped {
		if q.Owner != nil && *q.Owner != scope {
			return []Subscription{}, 0, nil
		}
		q.Owner = &scope
	}
	list, total, err := s.store.ListSubscriptions(ctx, q)
	if err != nil {
		return nil, 0, wrap("list subscriptions", err)
	}
	if withDeliveries && len(list) > 0 {
		ids := make([]int64, len(list))
		for i := range list {
			ids[i] = list[i].ID
		}
		recent, err := s.store.RecentDeliveries(ctx, ids, RecentDeliveries)
		if err != nil {
			return nil, 0, wrap("recent deliveries", err)
		}
		for i := range list {
			list[i].Deliveries = recent[list[i].ID]
			if list[i].Deliveries == nil {
				list[i].Deliveries = []Delivery{}
			}
		}
	}
	return list, total, nil
}

// Deliveries lists a subscription's deliveries (without payloads).
func (s *Service) Deliveries(ctx context.Context, q DeliveryQuery) ([]Delivery, int, error) {
	if _, err := s.Subscription(ctx, q.SubscriptionID); err != nil {
		return nil, 0, err
	}
	list, total, err := s.store.ListDeliveries(ctx, q)
	return list, total, wrap("list deliveries", err)
}

// Delivery returns one delivery of a subscription, with its payload and
// the receiver's response.
func (s *Service) Delivery(ctx context.Context, subscriptionID, id int64) (*Delivery, error) {
	if _, scoped := OwnerScope(ctx); scoped {
		if _, err := s.Subscription(ctx, subscriptionID); err != nil {
			return nil, err
		}
	}
	d, err := s.store.Delivery(ctx, id)
	if err != nil {
		return nil, wrap("delivery", err)
	}
	if d.SubscriptionID != subscriptionID {
		return nil, ErrNotFound
	}
	return d, nil
}

func wrap(what string, err error) error {
	if err == nil || errors.Is(err, ErrNotFound) {
		return err
	}
	return fmt.Errorf("webhooks: %s: %w", what, err)
}
