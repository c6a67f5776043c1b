package webhooks

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/store/driverless"
)

// ---- the pinned HTTP client ----

type pinKey struct{}

// newClient returns the client deliveries go through: it follows no
// redirects, ignores proxy settings, and dials only the addresses the
// guard vetted for the request (carried in its context), so a DNS answer
// that changed since cannot redirect it. TLS still verifies the URL's host
// name. Connections are kept alive between deliveries.
func newClient(tlsConfig *tls.Config) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	transport := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			target, _ := ctx.Value(pinKey{}).(*Target)
			if target == nil || len(target.Addrs) == 0 {
				return nil, errors.New("webhooks: refusing to dial an address the guard did not vet")
			}
			_, port, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			var errs []error
			for _, ip := range target.Addrs {
				conn, err := dialer.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
				if err == nil {
					return conn, nil
				}
				errs = append(errs, err)
			}
			return nil, errors.Join(errs...)
		},
		TLSClientConfig:       tlsConfig,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   512,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{
		Transport:     transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// ---- request ids ----

type requestIDKey struct{}

// WithRequestID returns ctx carrying a request's correlation id; events
// dispatched with it send it as X-Request-Id.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestIDFrom returns the correlation id ctx carries, if any.
func RequestIDFrom(ctx context.Context) (string, bool) {
	id, ok := ctx.Value(requestIDKey{}).(string)
	return id, ok && id != ""
}

// ---- dispatch ----

// deliverArgs is the job that makes one attempt of each of its
// deliveries, at once: those of one event (a fan-out), or a batch the
// sweeper queued. Each carries its claim (Unix microseconds): the
// delivery's NextAttemptAt when the job was queued. A delivery whose claim
// no longer matches is stale and is left alone.
type deliverArgs struct {
	Deliveries []deliveryClaim `json:"deliveries"`
}

// deliveryClaim is one delivery of a deliverArgs job.
type deliveryClaim struct {
	ID    int64 `json:"id"`
	Claim int64 `json:"claim"`
}

// Kind implements river.JobArgs.
func (deliverArgs) Kind() string { return "webhooks_deliver" }

// maxDeliveriesPerJob bounds a deliverArgs job.
const maxDeliveriesPerJob = 50

// Fanout reports a dispatch: the event's id and how many deliveries it
// recorded.
type Fanout struct {
	EventID    string
	Deliveries int
}

// Dispatch records a delivery of event for every active subscription that
// listens to it and queues them, in a transaction of its own: use it after
// the change the event describes has committed (inside it, DispatchTx).
// The subscriptions are the default owner's, or those of the owner ctx
// names (ForOwner). A failure is logged too, so a caller that goes on
// regardless loses nothing of it.
func (s *Service) Dispatch(ctx context.Context, event any) (Fanout, error) {
	return s.DispatchFor(ctx, eventOwner(ctx), event)
}

// DispatchFor is Dispatch for owner's subscriptions (AllOwners: every
// owner's, for a system event).
func (s *Service) DispatchFor(ctx context.Context, owner string, event any) (Fanout, error) {
	f, err := s.dispatch(ctx, nil, owner, event)
	if err != nil {
		s.logger.ErrorContext(ctx, "webhooks: dispatch failed", "event", WireName(event), "error", err)
	}
	return f, err
}

// DispatchTx is Dispatch inside the caller's transaction: the deliveries
// and their jobs commit or roll back with it, so nothing is sent if it
// rolls back and nothing is lost if it commits. The error is the
// caller's to act on.
func (s *Service) DispatchTx(ctx context.Context, tx *sql.Tx, event any) (Fanout, error) {
	return s.DispatchForTx(ctx, tx, eventOwner(ctx), event)
}

// DispatchForTx is DispatchTx for owner's subscriptions (AllOwners: every
// owner's).
func (s *Service) DispatchForTx(ctx context.Context, tx *sql.Tx, owner string, event any) (Fanout, error) {
	if tx == nil {
		return Fanout{}, errors.New("webhooks: DispatchTx needs a transaction")
	}
	return s.dispatch(ctx, tx, owner, event)
}

// Envelope builds the envelope of event, as Dispatch would, without
// recording anything.
func (s *Service) Envelope(event any) (*Envelope, error) {
	name := WireName(event)
	if !s.known(name) {
		return nil, fmt.Errorf("%w: %q", ErrUnknownEvent, name)
	}
	data, err := eventData(event, s.opts.IncludeAdminFields)
	if err != nil {
		return nil, err
	}
	return &Envelope{ID: s.opts.NewID(), Event: name, CreatedAt: s.opts.Now().In(s.opts.Location).Format(envelopeTime), Data: data}, nil
}

func (s *Service) dispatch(ctx context.Context, tx *sql.Tx, owner string, event any) (Fanout, error) {
	if owner != AllOwners && checkOwner(owner) != nil {
		return Fanout{}, fmt.Errorf("webhooks: dispatch: %w: %q", ErrOwner, owner)
	}
	env, err := s.Envelope(event)
	if err != nil {
		return Fanout{}, fmt.Errorf("webhooks: dispatch: %w", err)
	}
	channels, err := eventChannels(ctx, event)
	if err != nil {
		return Fanout{}, fmt.Errorf("webhooks: dispatch %s: %w", env.Event, err)
	}
	f := Fanout{EventID: env.ID}
	body, err := env.Marshal()
	if err != nil {
		return f, fmt.Errorf("webhooks: dispatch %s: %w", env.Event, err)
	}
	now := s.now()
	// While this instance's loop runs, deliveries are due at once and the
	// loop claims them; otherwise each event's job holds their claim.
	// Without either (a command-line tool on the database), they are due
	// at once for the loop of any instance.
	looped := s.loop.running.Load()
	claim := now.Add(s.opts.ClaimTimeout)
	if looped || s.opts.Enqueuer == nil {
		claim = now
	}
	orderID, customerID := subjects(env.Data)
	requestID, ok := RequestIDFrom(ctx)
	if !ok {
		requestID = uuid.NewString()
	}
	tmpl := Delivery{Event: env.Event, EventID: env.ID, Status: StatusPending, NextAttemptAt: &claim, Payload: body,
		PayloadHash: hashOf(body), OrderID: orderID, CustomerID: customerID, RequestID: requestID, CreatedAt: now, UpdatedAt: now,
		Owner: owner, Channels: channels}
	// The fan-out and its job commit together: in the host's transaction
	// when it gave one, else in one begun here. A running loop needs no
	// job, and the fan-out alone is one statement.
	var ds []Delivery
	fanout := func(ctx context.Context, tx *sql.Tx) (err error) {
		if ds, err = s.store.CreateFanout(ctx, tx, tmpl); err != nil || looped {
			return err
		}
		return s.enqueue(ctx, tx, ids(ds), claim)
	}
	switch {
	case tx != nil:
		err = fanout(ctx, tx)
	case looped:
		ds, err = s.store.CreateFanout(ctx, nil, tmpl)
	default:
		err = s.store.RunInTx(ctx, fanout)
	}
	if err != nil {
		return f, fmt.Errorf("webhooks: dispatch %s: %w", env.Event, err)
	}
	if len(ds) == 0 {
		return f, nil
	}
	if looped {
		s.loop.nudge()
	}
	f.Deliveries = len(ds)
	return f, nil
}

func ids(ds []Delivery) []int64 {
	out := make([]int64, len(ds))
	for i := range ds {
		out[i] = ds[i].ID
	}
	return out
}

func hashOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// enqueue queues the attempt jobs of deliveries under claim,
// maxDeliveriesPerJob to a job, in tx when there is one.
func (s *Service) enqueue(ctx context.Context, tx *sql.Tx, ids []int64, claim time.Time) error {
	if s.opts.Enqueuer == nil {
		return nil // recorded; a loop, or the sweeper of an instance with a queue, sends them
	}
	var jobs []river.InsertManyParams
	for batch := range slices.Chunk(ids, maxDeliveriesPerJob) {
		args := deliverArgs{Deliveries: make([]deliveryClaim, len(batch))}
		for i, id := range batch {
			args.Deliveries[i] = deliveryClaim{ID: id, Claim: claim.UnixMicro()}
		}
		jobs = append(jobs, river.InsertManyParams{Args: args, InsertOpts: &river.InsertOpts{Queue: s.opts.Queue, MaxAttempts: 1}})
	}
	return s.opts.Enqueuer.EnqueueMany(ctx, tx, jobs)
}

// ---- attempts ----

// Attempt makes one attempt of a delivery, as the job does: it claims the
// delivery (a stale claim does nothing), parks it if its subscription is
// inactive, else sends it and records the outcome.
func (s *Service) Attempt(ctx context.Context, deliveryID int64, claim time.Time) error {
	return s.attemptAll(ctx, []deliveryClaim{{ID: deliveryID, Claim: claim.UnixMicro()}})
}

// attemptAll makes one attempt of each delivery at once, as Attempt does:
// the deliveries are read together, each is sent on its own, and the
// successes are recorded together (those done within deliveredBatchWait
// of each other). The error joins those of the deliveries that could not
// be recorded (the sweeper recovers them once their claims run out).
func (s *Service) attemptAll(ctx context.Context, claims []deliveryClaim) error {
	ids := make([]int64, len(claims))
	for i, c := range claims {
		ids[i] = c.ID
	}
	found, subs, err := s.store.ReadDeliveries(ctx, ids)
	if err != nil {
		return fmt.Errorf("webhooks: attempt: %w", err)
	}
	byID := make(map[int64]*Delivery, len(found))
	for i := range found {
		byID[found[i].ID] = &found[i]
	}
	now := s.now()
	var due []func(delivered func(SuccessfulAttempt)) error
	for _, c := range claims {
		claim := claimOf(c.Claim)
		d := byID[c.ID]
		if d == nil || (d.Status != StatusPending && d.Status != StatusRetrying) || d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(claim) {
			continue // stale: finished, parked, claimed anew, or gone
		}
		due = append(due, func(delivered func(SuccessfulAttempt)) error {
			_, err := s.attempt(ctx, d, subs[d.SubscriptionID], claim, now, delivered)
			return err
		})
	}
	if len(due) == 1 {
		return due[0](nil)
	}
	errs := make([]error, len(due)+1)
	results := make(chan SuccessfulAttempt, len(due))
	var wg sync.WaitGroup
	for i, run := range due {
		wg.Go(func() { errs[i] = run(func(x SuccessfulAttempt) { results <- x }) })
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	errs[len(due)] = s.recordDelivered(ctx, results)
	return errors.Join(errs...)
}

// deliveredBatchWait is how long a success waits for others to be
// recorded with it.
const deliveredBatchWait = 20 * time.Millisecond

// recordDelivered writes the successes arriving on results, in batches,
// until it is closed, and runs the delivered hooks for each.
func (s *Service) recordDelivered(ctx context.Context, results <-chan SuccessfulAttempt) error {
	var pending []SuccessfulAttempt
	var errs []error
	flush := func() {
		if len(pending) == 0 {
			return
		}
		lost, err := s.store.FinishDelivered(ctx, pending)
		if err != nil {
			errs = append(errs, fmt.Errorf("webhooks: record deliveries: %w", err))
		} else {
			for _, x := range pending {
				if !slices.Contains(lost, x.Delivery.ID) {
					s.afterDelivered(ctx, x.Delivery)
				}
			}
		}
		pending = pending[:0]
	}
	var timer <-chan time.Time
	for {
		select {
		case x, ok := <-results:
			if !ok {
				flush()
				return errors.Join(errs...)
			}
			pending = append(pending, x)
			if timer == nil {
				timer = time.After(deliveredBatchWait)
			}
		case <-timer:
			flush()
			timer = nil
		}
	}
}

// attempt makes one attempt of d, read under claim, and says how it went
// (OutcomeNone: no request was made). A success goes to delivered to be
// recorded with others when it is not nil.
func (s *Service) attempt(ctx context.Context, d *Delivery, sub *Subscription, claim, now time.Time, delivered func(SuccessfulAttempt)) (Outcome, error) {
	// The claim keeps the sweeper away until it runs out; only an attempt
	// that starts too close to that takes a fresh lease (a write).
	lease := claim
	if !now.Add(s.opts.Timeout+leaseMargin).Before(claim) || sub == nil {
		lease = now.Add(s.opts.ClaimTimeout)
		id := d.ID // a failed claim returns no delivery
		var err error
		d, sub, err = s.store.ClaimDelivery(ctx, id, claim, lease)
		if errors.Is(err, ErrClaimLost) {
			return OutcomeNone, nil
		}
		if err != nil {
			return OutcomeNone, fmt.Errorf("webhooks: attempt %d: %w", id, err)
		}
	}
	if !sub.IsActive {
		groundwork.Count(s.opts.Meter, groundwork.MetricDeliveries, "parked")
		d.Status, d.NextAttemptAt, d.UpdatedAt = StatusParked, nil, now
		_, err := s.store.FinishAttempt(ctx, d, lease, OutcomeNone, s.opts.DisableAfterFailures)
		return OutcomeNone, ignoreLost(err)
	}
	// The attempt's own time, not its batch's (attempts of a batch run
	// side by side and one may start late): a rate-limit place is taken in
	// the second the request is signed in.
	now = s.now()
	if sub.RateLimit > 0 {
		took, err := s.store.TakeRate(ctx, sub.ID, now.Unix(), sub.RateLimit)
		if err != nil {
			return OutcomeNone, fmt.Errorf("webhooks: attempt %d: %w", d.ID, err)
		}
		if !took {
			// The endpoint's second is full: its turn comes in a later
			// one, neither an attempt nor a failure. The spread keeps the
			// waiting ones from all coming back at once.
			next := now.Truncate(time.Second).Add(time.Second + rand.N(time.Second))
			d.NextAttemptAt, d.UpdatedAt = &next, now
			groundwork.Count(s.opts.Meter, groundwork.MetricDeliveries, "postponed")
			_, err := s.store.FinishAttempt(ctx, d, lease, OutcomeNone, s.opts.DisableAfterFailures)
			return OutcomeNone, ignoreLost(err)
		}
	}
	d.Attempts++
	status, body, reason := s.send(ctx, d, sub, now)
	now = s.now()
	d.ResponseStatus, d.ResponseBody, d.UpdatedAt = status, body, now
	if reason == nil {
		if m := s.opts.Meter; m != nil {
			m.Add(groundwork.MetricDeliveries, 1, "delivered")
			m.Observe(groundwork.MetricDeliveryLag, now.Sub(d.CreatedAt).Seconds())
		}
		d.Status, d.NextAttemptAt, d.DeliveredAt = StatusDelivered, nil, &now
		if delivered != nil {
			delivered(SuccessfulAttempt{Delivery: d, Lease: lease})
			return OutcomeSuccess, nil
		}
		if _, err := s.store.FinishAttempt(ctx, d, lease, OutcomeSuccess, s.opts.DisableAfterFailures); err != nil {
			return OutcomeSuccess, ignoreLost(err)
		}
		s.afterDelivered(ctx, d)
		return OutcomeSuccess, nil
	}
	if d.Attempts >= s.opts.MaxAttempts {
		d.Status, d.NextAttemptAt = StatusFailed, nil
	} else {
		next := now.Add(s.backoff(d.Attempts))
		d.Status, d.NextAttemptAt = StatusRetrying, &next
	}
	groundwork.Count(s.opts.Meter, groundwork.MetricDeliveries, string(d.Status))
	s.failing <- struct{}{}
	disabled, err := s.store.FinishAttempt(ctx, d, lease, OutcomeFailure, s.disableAfter(sub, now))
	<-s.failing
	if err != nil {
		return OutcomeFailure, ignoreLost(err)
	}
	s.afterFailed(ctx, d, reason)
	if disabled {
		// Its deliveries due now are parked at once, rather than each
		// claimed and parked in turn; later ones are parked as they come
		// due.
		if n, err := s.store.ParkDue(ctx, sub.ID, now); err != nil {
			s.logger.ErrorContext(ctx, "webhooks: park a disabled subscription's deliveries", "subscription", sub.ID, "error", err)
		} else if m := s.opts.Meter; m != nil && n > 0 {
			m.Add(groundwork.MetricDeliveries, float64(n), "parked")
		}
		if now, err := s.store.Subscription(ctx, sub.ID); err == nil {
			sub = now
		} else {
			sub.IsActive = false
		}
		sub.SealedSecret = ""
		s.afterDisabled(ctx, sub)
	}
	return OutcomeFailure, nil
}

// failureWriters is how many failed attempts are recorded at once. Their
// writes are quick, but their failures come in bursts (a hundred
// endpoints refusing at once, each with its first delivery): written all
// at once they would take a connection each, and a pool grown for a burst
// costs the database a new session per connection and keeps it from the
// claims and the successes meanwhile.
const failureWriters = 4

// leaseMargin is the slack an attempt keeps before its claim runs out,
// for the bookkeeping after the request and for clocks that differ a
// little between instances.
const leaseMargin = 30 * time.Second

func ignoreLost(err error) error {
	if errors.Is(err, ErrClaimLost) {
		return nil
	}
	return err
}

// backoff is the wait after the n-th failed attempt.
func (s *Service) backoff(n int) time.Duration {
	return s.opts.Backoff[min(n, len(s.opts.Backoff))-1]
}

// ErrSecretUnreadable is the reason recorded when the subscription's
// secret cannot be opened: the service's SecretKey is not the key that
// sealed it (instances on one database given different keys).
var ErrSecretUnreadable = errors.New("The subscription's secret cannot be opened with this instance's secret key " +
	"(Options.SecretKey; GROUNDWORK_SECRET_KEY in the reference server): every instance must be given the key that sealed it.")

// ErrNotPublicAtSend is the reason recorded when the guard refuses the
// URL before an attempt.
var ErrNotPublicAtSend = errors.New("Webhook URL does not resolve to a public address.")

// send makes the HTTP request of one attempt, signed as sent at sentAt.
// reason is nil for a 2xx; otherwise it says why the attempt failed, and
// body holds what the receiver said or the error.
func (s *Service) send(ctx context.Context, d *Delivery, sub *Subscription, sentAt time.Time) (status *int, body *string, reason error) {
	fail := func(err error) (*int, *string, error) {
		msg := driverless.ClipText(err.Error(), ResponseBodyLimit)
		return nil, &msg, err
	}
	payload, err := s.payload(ctx, d, sub)
	if err != nil {
		return fail(err)
	}
	secrets, err := s.signing(sub, sentAt)
	if err != nil {
		s.logger.ErrorContext(ctx, "webhooks: a subscription's secret cannot be opened: this instance's secret key is not the one that sealed it",
			"subscription", sub.ID, "delivery", d.ID, "error", err)
		return fail(ErrSecretUnreadable)
	}
	target, err := s.guard.Check(ctx, sub.URL)
	if err != nil {
		if errors.Is(err, ErrNotPublic) {
			return fail(ErrNotPublicAtSend)
		}
		return fail(err)
	}
	ctx, cancel := context.WithTimeout(context.WithValue(ctx, pinKey{}, target), s.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target.URL.String(), bytes.NewReader(payload))
	if err != nil {
		return fail(err)
	}
	h := req.Header
	for name, value := range sub.Headers { // the endpoint's own, never in place of ours (set below)
		h[name] = []string{value}
	}
	h["Content-Type"] = []string{"application/json"}
	h["User-Agent"] = []string{s.opts.UserAgent}
	id := strconv.FormatInt(d.ID, 10)
	h[HeaderEvent] = []string{d.Event}
	h[HeaderDelivery] = []string{id}
	h[HeaderRequestID] = []string{d.RequestID}
	if sub.StandardWebhooks {
		sig, err := SignStandardWith(id, sentAt, payload, secrets...)
		if err != nil {
			return fail(err)
		}
		h[HeaderStandardID] = []string{id}
		h[HeaderStandardTimestamp] = []string{strconv.FormatInt(sentAt.Unix(), 10)}
		h[HeaderStandardSignature] = []string{sig}
	} else {
		h[HeaderSignature] = []string{SignWith(sentAt, payload, secrets...)}
	}
	res, err := s.client.Do(req)
	if err != nil {
		return fail(err)
	}
	defer res.Body.Close()
	buf, _ := io.ReadAll(io.LimitReader(res.Body, ResponseBodyLimit+utf8.UTFMax)) // whole runes up to the limit
	// Read a little more, so the connection can be reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	text := driverless.ClipText(string(buf), ResponseBodyLimit)
	code := res.StatusCode
	if code >= 200 && code < 300 {
		return &code, &text, nil
	}
	if code >= 300 && code < 400 {
		return &code, &text, fmt.Errorf("webhooks: receiver answered %d (redirects are not followed)", code)
	}
	return &code, &text, fmt.Errorf("webhooks: receiver answered %d", code)
}

// payload is the body to send: the recorded envelope, through the
// delivering filters when there are any.
func (s *Service) payload(ctx context.Context, d *Delivery, sub *Subscription) ([]byte, error) {
	filters := s.hooks.delivering.All()
	if len(filters) == 0 {
		return d.Payload, nil
	}
	var env Envelope
	dec := json.NewDecoder(bytes.NewReader(d.Payload))
	dec.UseNumber()
	if err := dec.Decode(&env); err != nil {
		return nil, fmt.Errorf("webhooks: recorded payload: %w", err)
	}
	view := *sub
	view.SealedSecret = ""
	for _, f := range filters {
		var panicked bool
		s.safely(ctx, "delivering", func() {
			panicked = true
			env = f(ctx, env, &view)
			panicked = false
		})
		if panicked {
			return nil, errors.New("webhooks: a delivering hook panicked")
		}
	}
	return env.Marshal()
}

// disableAfter is the failure streak at which this failure switches sub
// off: DisableAfterFailures; with DisableAfterFailing, none (the streak
// cannot reach it) while sub has had a delivery, or was made, within it.
func (s *Service) disableAfter(sub *Subscription, now time.Time) int {
	quiet := s.opts.DisableAfterFailing
	if quiet <= 0 {
		return s.opts.DisableAfterFailures
	}
	since := sub.CreatedAt
	if sub.LastSuccessAt != nil && sub.LastSuccessAt.After(since) {
		since = *sub.LastSuccessAt
	}
	if now.Sub(since) < quiet {
		return math.MaxInt32
	}
	return s.opts.DisableAfterFailures
}
