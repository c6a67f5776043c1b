// Package webhooks is signed outbound webhooks for a web application:
// other systems subscribe to events and receive a signed POST for each,
// every attempt kept in a ledger, failures retried on a backoff, a
// subscription that keeps failing switched off, all behind an egress guard
// that keeps deliveries away from private networks; and the inbound side,
// where payment providers post their own events to be verified, recorded
// once, and used to settle payment sessions.
//
// # Signing and verifying
//
// [Sign] gives the X-Platform-Signature value "t=<unix>, v1=<hex>": an
// HMAC-SHA256 keyed with the subscription's whole secret string ("whsec_"
// prefix and all, its bytes; never the base64 after it decoded) over
// "<t>.<raw body>".
// A receiver calls [Verify] (constant time, five minutes either way by
// default) and tells [ErrBadHeader], [ErrStaleTimestamp] and
// [ErrBadSignature] apart with errors.Is. A subscription may ask for the
// Standard Webhooks headers instead (webhook-id, webhook-timestamp,
// webhook-signature), which the Standard Webhooks libraries verify;
// [SignStandard] and [VerifyStandard] do the same here.
//
// # Events
//
// Any Go value is an event. Its wire name is its type's name with dots
// between the words (OrderPlaced is "order.placed"), or the name it
// declares ([Named], or an [Event] for code without a type of its own). Its
// data is its fields, keyed by their json tag's name or in snake_case:
// times become RFC 3339 in UTC with "Z", [Money] {amount, currency},
// errors {type, message}, and values with their own MarshalJSON or
// MarshalText keep that form. Fields tagged `webhook:"admin"` (payment
// references, IP addresses, cost prices) are left out unless
// Options.IncludeAdminFields. The body is the [Envelope]: {id, event,
// created_at, data}, the id shared by every subscription's delivery.
//
// Names must be in the catalogue: [DefaultEvents], the 21 commerce
// events (unless Options.OmitDefaultEvents), plus what Options.Events and
// [Service.RegisterEvents] add. A host that dispatches names of its own
// checks them where it wires the dispatch with [Service.RequireEvents],
// so a missing one stops the start rather than failing a request.
//
// # Dispatching
//
// [Service.DispatchTx] records one delivery per active subscription that
// takes the event, in one statement inside the caller's transaction:
// nothing is sent if it rolls back, nothing is lost if it commits.
// [Service.Dispatch] does the same on its own, after the caller's change
// has committed, and never fails the caller: a failure is logged and
// reported in the [Fanout].
//
// # Deliveries
//
// [Service.RunDeliveries] is the delivery loop: run it on every instance
// that sends (the reference server does). It claims due deliveries in
// batches, a statement a batch, each claim a lease of Options.ClaimTimeout,
// sends them concurrently (MaxInFlight at once) and records the successes
// together. A dispatch through the same instance wakes it; others, and
// retries coming due, it finds within Options.PollInterval. A service that
// runs no loop queues a River job per event instead (see
// [RegisterWorkers]), and the periodic sweep queues whatever is due.
//
// An attempt is a POST with X-Platform-Signature, X-Platform-Event,
// X-Platform-Delivery (the delivery's id, stable across its retries:
// receivers de-duplicate on it) and X-Request-Id; a 10-second timeout;
// redirects not followed; the delivering hooks run just before signing. A
// 2xx marks the delivery delivered and resets the subscription's failure
// streak. Anything else marks it retrying, due again after 1m, 5m, 15m,
// 30m, 1h, 2h, 4h, 8h, 12h (then 24h), until the tenth attempt fails it;
// and ten failures in a row switch the subscription off, once
// ([Service.OnSubscriptionDisabled]). An attempt that comes due while its
// subscription is off parks the delivery until [Service.ReplayParked];
// re-enabling alone resends nothing. [Service.Replay] sends a past
// delivery again as a new one.
//
// A delivery's next_attempt_at is its claim: a loop's lease, or a job's.
// Whoever claims it owns it until the claim runs out; a claim held by an
// instance that died is claimed again once it has (by a loop, or by the
// sweep ([Service.Sweep], every minute)), and a job whose claim no longer
// matches does nothing; so a delivery is sent once unless something fails.
//
// # Egress
//
// A subscription's URL must be https (unless Options.AllowInsecureURLs) and
// every address its host is, or resolves to, public (unless
// Options.AllowPrivateHosts): loopback, private, link-local (the cloud
// metadata address included), CGNAT, documentation, benchmarking,
// multicast, reserved, NAT64 and 6to4 ranges are refused, IPv4-mapped IPv6
// addresses judged by their IPv4 address, and IP addresses written in any
// form the C library reads (2130706433, 0x7f.1, 0177.0.0.1, 127.1) are
// those addresses. The check runs when a subscription is saved and again
// before every attempt, and the connection is made to the address the check
// vetted, so a DNS answer that changes afterwards cannot redirect it; TLS
// still verifies the host name. Outbound proxies are not used: a proxy would
// resolve names itself, so the rules would have to be enforced there.
//
// # Secrets
//
// A subscription's secret is given (at least 16 characters) or generated
// ("whsec_" and 48 letters and digits; for Standard Webhooks "whsec_" and
// base64), shown only in the response that creates it, and stored sealed
// with AES-256-GCM under Options.SecretKey.
//
// # Subscription API
//
// [NewHandler] serves /api/ecommerce/v1/admin/webhook-subscriptions
// (list with include=deliveries, create, show, update, delete; the
// deliveries of one with filter[event], filter[status] and sort; one
// delivery with its payload and the receiver's answer; replay and
// replay-parked) and the same operations as GraphQL mutations at
// /api/ecommerce/v1/graphql. Every route needs a bearer token with
// webhookSubscription.viewAny, .view, .create, .update, .delete or .replay
// ("webhookSubscription.*" covers them). Creates and updates honour an
// Idempotency-Key header for 24 hours, per caller and route: a repeat gets
// the first answer again (never the secret) with Idempotent-Replay: true,
// the same key with a different request 409.
//
// # Inbound webhooks
//
// A [Gateway] verifies and parses one provider's webhooks and answers
// questions about its payment sessions; [Service.RegisterGateway] files it
// under the {provider} path segment. [NewStripeGateway] is Stripe's:
// Stripe-Signature checked as Stripe's libraries check it (HMAC-SHA256 of
// "<t>.<body>", any of the v1 values against any of the configured
// secrets, so a secret rolls by listing both, within 300 s), the events
// that settle a payment recognised (payment_intent.succeeded,
// .amount_capturable_updated, .payment_failed, .canceled;
// checkout.session.completed when paid, .async_payment_succeeded,
// .async_payment_failed, .expired), and sessions looked up through the API
// (StripeOptions.APIBase for a test server).
//
// [NewInboundHandler] serves POST /ecommerce/webhooks/{provider}, outside
// the API prefix and with no bearer token: the signature is the
// credential. It answers, in this order: 429 with Retry-After when the
// caller's IP has sent 120 requests this minute (every request counts);
// 404 for a provider with no gateway; 413 when Content-Length or the body
// passes 512 KiB (InboundHandlerOptions.MaxBytes); 400 with the gateway's
// code when the signature does not verify; 429 when the provider has sent
// 1000 verified events this minute; otherwise 200 {received, event_id,
// type}, with duplicate: true for an event seen before. Give a
// [store.SQLRateLimiter] and both allowances hold across every instance on
// the database.
//
// Exactly once: a verified event's id is claimed (a unique key) in the
// transaction that records it, so however many copies arrive at once, on
// however many instances, one runs the hooks ([Service.OnWebhookReceived],
// [Service.OnGatewayWebhookReceived], [Service.OnPaymentWebhookReceived]),
// and the rest are answered as duplicates. The hooks run inside that
// transaction: their context carries it, so what they write through a
// store on the same [store.DB] (a host confirming an order, a job queued
// with EnqueueTx) commits with the claim or not at all. A hook that fails
// or panics rolls all of it back and the request answers 500, so the
// provider's retry runs them again; no hook sees an event it handled.
// An event that reports a payment's outcome also queues, in the same
// transaction, a job that asks the host's [PaymentSessions] to settle the
// session. Hooks hold the transaction (on SQLite, the one writer): keep
// them short, queue slow work, and on SQLite write only through their
// context.
//
// The inbound ledger ([Service.InboundLedger]) keeps a row per request that
// reached a gateway: for a verified event the whole body, the parsed
// payload and the session it is about; for a refused one only the body's
// SHA-256, its size and its first KiB. [Service.RedactInbound] empties the
// payloads of the rows about a deleted customer's sessions or carrying
// their email, keeping the rows, hashes and sizes.
//
// Reconciliation is the safety net for webhooks that never arrive: every 15
// minutes (a periodic job of [PeriodicJobs], or [Service.Reconcile] by hand) the sessions
// that [PaymentSessions] reports as awaiting settlement, quiet for
// Options.ReconcileAfter (15 minutes) and younger than seven days, are
// looked up with their provider, and those it confirmed or cancelled are
// settled; sessions still processing are left for next time.
// webhookssql.PaymentSessions is a minimal table-backed PaymentSessions
// for hosts without a checkout of their own.
//
// # Housekeeping
//
// [PeriodicJobs] are the sweep (every minute), the reconciliation (every 15
// minutes, when Options.PaymentSessions is set) and the daily prune (03:45
// UTC): [Service.Prune] deletes delivered and failed rows older than
// Options.Retention (90 days), never pending, retrying or parked ones, and
// [Service.PruneInbound] inbound rows and event claims older than
// Options.InboundRetention (90 days).
// [Service.RedactCustomer] removes a deleted customer's personal values from
// the payloads of the deliveries about them.
//
// # Setting up the database
//
// Migrate the host's database with webhookssql.Migrations before use:
// store.Migrate(ctx, db, webhookssql.Migrations) applies them with the core
// tables (rate limits, idempotency keys) and River's, and is safe to run
// at every start and from several instances at once. One rate limiter may
// be shared by every handler of every domain (each names its own keys);
// store.NewSQLRateLimiter(db, nil) holds the limits across instances.
package webhooks
