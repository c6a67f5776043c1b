package main

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/link"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

// webhooksQueue is the River queue of webhook deliveries, and how many
// delivery jobs (each one event's fan-out) run at once.
const (
	webhooksQueue   = "webhooks"
	webhooksWorkers = 20
)

// webhooksConfig is what the webhooks domain reads from the environment.
type webhooksConfig struct {
	// meter counts deliveries and inbound events (nil: not counted).
	meter         groundwork.Meter
	secretKey     string // GROUNDWORK_SECRET_KEY, raw
	allowPrivate  bool
	allowInsecure bool
	// claimTimeout is GROUNDWORK_WEBHOOKS_CLAIM_TIMEOUT: how long before
	// a delivery an instance was sending when it died is sent again.
	claimTimeout time.Duration
	// disableAfter is GROUNDWORK_WEBHOOKS_DISABLE_AFTER: how long a
	// subscription must also go without a delivery before its failures
	// switch it off (0: the failures alone).
	disableAfter time.Duration
	stripe       webhooks.StripeOptions // WebhookSecrets empty: no Stripe gateway
}

func readWebhooksConfig(getenv func(string) string) (webhooksConfig, error) {
	c := webhooksConfig{secretKey: getenv("GROUNDWORK_SECRET_KEY")}
	if v := getenv("GROUNDWORK_STRIPE_WEBHOOK_SECRET"); v != "" {
		c.stripe.WebhookSecrets = strings.Split(v, ",")
	}
	c.stripe.APIKey, c.stripe.APIBase = getenv("GROUNDWORK_STRIPE_API_KEY"), getenv("GROUNDWORK_STRIPE_API_BASE")
	if c.stripe.APIBase != "" {
		if _, err := webhooks.NewStripeGateway(&webhooks.StripeOptions{APIBase: c.stripe.APIBase}); err != nil {
			return c, fmt.Errorf("GROUNDWORK_STRIPE_API_BASE: %w", err)
		}
	}
	if s := getenv("GROUNDWORK_WEBHOOKS_CLAIM_TIMEOUT"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < webhooks.ClaimTimeoutMin {
			return c, fmt.Errorf("GROUNDWORK_WEBHOOKS_CLAIM_TIMEOUT must be a duration of at least %s (90s, 5m), not %q", webhooks.ClaimTimeoutMin, s)
		}
		c.claimTimeout = d
	}
	if s := getenv("GROUNDWORK_WEBHOOKS_DISABLE_AFTER"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return c, fmt.Errorf("GROUNDWORK_WEBHOOKS_DISABLE_AFTER must be a duration (120h for five days, 0 for none), not %q", s)
		}
		c.disableAfter = d
	}
	for _, v := range []struct {
		name string
		dst  *bool
	}{{"GROUNDWORK_WEBHOOKS_ALLOW_PRIVATE_HOSTS", &c.allowPrivate}, {"GROUNDWORK_WEBHOOKS_ALLOW_INSECURE_URLS", &c.allowInsecure}} {
		if s := getenv(v.name); s != "" {
			b, err := strconv.ParseBool(s)
			if err != nil {
				return c, fmt.Errorf("%s must be true or false, not %q", v.name, s)
			}
			*v.dst = b
		}
	}
	return c, nil
}

// secretKeyPath is where a SQLite database's secret key is kept:
// "groundwork.db" → "groundwork.key"; "" for Postgres and :memory:.
func secretKeyPath(dsn string) string {
	path := sqlitePath(dsn)
	if path == "" {
		return ""
	}
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".key"
}

// sqlitePath is a SQLite database's file; "" for Postgres and :memory:.
func sqlitePath(dsn string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return ""
	}
	path := strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite:"), "//")
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	if path == ":memory:" {
		return ""
	}
	return path
}

// parseKey reads a 32-byte key written as base64 (standard or URL, with
// or without padding) or hex.
func parseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if b, err := hex.DecodeString(s); err == nil && len(b) == webhooks.SecretKeySize {
		return b, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) == webhooks.SecretKeySize {
			return b, nil
		}
	}
	return nil, fmt.Errorf("a secret key is %d bytes in base64 or hex (openssl rand -base64 32)", webhooks.SecretKeySize)
}

// knownSecretKey is the secret key a sub-command was given, to check
// against the database's fingerprint before it changes anything: secret
// (GROUNDWORK_SECRET_KEY, raw), else the key file beside a SQLite
// database when there is one; nil when neither (nothing to check, and no
// key made).
func knownSecretKey(secret, dsn string) ([]byte, error) {
	if secret != "" {
		key, err := parseKey(secret)
		if err != nil {
			return nil, fmt.Errorf("GROUNDWORK_SECRET_KEY: %w", err)
		}
		return key, nil
	}
	path := secretKeyPath(dsn)
	if path == "" {
		return nil, nil
	}
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	key, err := parseKey(string(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return key, nil
}

// loadSecretKey returns the key that seals webhook secrets (and signs the
// pages' flash messages and the form-load tokens, through groundwork.Keys): from
// GROUNDWORK_SECRET_KEY, else from the key file beside a SQLite database
// (made on first use). Postgres needs the variable: every instance must
// share the key.
func loadSecretKey(c webhooksConfig, dsn string, logger *slog.Logger) ([]byte, error) {
	key, err := knownSecretKey(c.secretKey, dsn)
	if key != nil || err != nil {
		return key, err
	}
	path := secretKeyPath(dsn)
	if path == "" {
		if strings.HasPrefix(dsn, "postgres") {
			return nil, errors.New("GROUNDWORK_SECRET_KEY is required with Postgres, the same on every instance (openssl rand -base64 32)")
		}
		logger.Warn("webhook secrets are sealed with a key that lives only as long as this process (set GROUNDWORK_SECRET_KEY)")
		return webhooks.GenerateSecretKey(), nil
	}
	key = webhooks.GenerateSecretKey()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return loadSecretKey(c, dsn, logger) // made meanwhile by another process
	}
	if err != nil {
		return nil, fmt.Errorf("write the secret key: %w", err)
	}
	if _, err := f.WriteString(base64.StdEncoding.EncodeToString(key) + "\n"); err != nil {
		f.Close()
		return nil, fmt.Errorf("write the secret key: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("write the secret key: %w", err)
	}
	logger.Info("generated the key that seals webhook secrets; keep it with the database", "path", path)
	return key, nil
}

// webhooksOptions are the service's options from the configuration;
// the database's payment sessions when db is given (a module joining
// keeps them there itself).
func webhooksOptions(c webhooksConfig, key []byte, db *store.DB) webhooks.Options {
	opts := webhooks.Options{SecretKey: key, Queue: webhooksQueue, AllowPrivateHosts: c.allowPrivate,
		AllowInsecureURLs: c.allowInsecure, ClaimTimeout: c.claimTimeout, Meter: c.meter,
		DisableAfterFailing: c.disableAfter}
	if db != nil {
		opts.PaymentSessions = webhookssql.NewPaymentSessions(db, nil)
	}
	return opts
}

// setUpWebhooks names the linked events, so that subscriptions (and the
// commands) may name them before anything is linked, and adds Stripe's
// gateway when configured.
func setUpWebhooks(svc *webhooks.Service, c webhooksConfig) error {
	if err := svc.RegisterEvents(append([]string{forms.EventSubmitted}, link.BookingWebhooks...)...); err != nil {
		return err
	}
	if len(c.stripe.WebhookSecrets) > 0 {
		g, err := webhooks.NewStripeGateway(&c.stripe)
		if err != nil {
			return err
		}
		if err := svc.RegisterGateway(webhooks.StripeProvider, g); err != nil {
			return err
		}
	}
	return nil
}

// newWebhooks is the webhooks service of the commands, on db; the jobs
// they queue (when queue is not nil) are worked by a running server.
func newWebhooks(c webhooksConfig, key []byte, db *store.DB, queue *store.Queue, logger *slog.Logger) (*webhooks.Service, error) {
	opts := webhooksOptions(c, key, db)
	opts.Logger = logger
	if queue != nil {
		opts.Enqueuer = queue
	}
	svc, err := webhooks.NewService(webhookssql.New(db), &opts)
	if err != nil {
		return nil, err
	}
	if queue != nil {
		if err := webhooks.RegisterWorkers(queue.Workers(), svc); err != nil {
			return nil, err
		}
	}
	return svc, setUpWebhooks(svc, c)
}

// runWebhooks does what the webhooks domain has no HTTP route for:
// emit a test event, queue due retries, prune the ledger.
func runWebhooks(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{"webhooks needs a sub-command: emit, retry, prune, reconcile, session or portal-link"}
	}
	sub, args := args[0], args[1:]
	fs := newFlagSet("reference webhooks " + sub)
	dsn := dbFlag(fs, getenv)
	newLogger := logFlag(fs, getenv, stderr)
	var data, provider, owner *string
	var minutes *int
	var status *bool
	var ttl *time.Duration
	var base *string
	switch sub {
	case "emit":
		data = fs.String("data", "{}", "the event's data, a JSON object")
		owner = fs.String("owner", webhooks.DefaultOwner, "whose subscriptions get it (* for every owner's; the default owner's when empty)")
	case "reconcile":
		minutes = fs.Int("minutes", -1, "how long a session must have been quiet (default 15)")
	case "session":
		provider = fs.String("provider", webhooks.StripeProvider, "the session's provider")
		status = fs.Bool("status", false, "print the session's status instead of recording it")
	case "portal-link":
		owner = fs.String("owner", "", "whose webhooks the link opens")
		ttl = fs.Duration("ttl", time.Hour, "how long the link works")
		base = fs.String("base-url", getenv("GROUNDWORK_BASE_URL"), "public address of the server, for the printed link")
	case "retry", "prune":
	default:
		return usageError{fmt.Sprintf("unknown webhooks sub-command %q: emit, retry, prune, reconcile, session or portal-link", sub)}
	}
	positional, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	switch {
	case sub == "emit" && len(positional) != 1:
		return usageError{"webhooks emit needs one EVENT, e.g. order.placed"}
	case sub == "session" && len(positional) != 1:
		return usageError{"webhooks session needs one REFERENCE, e.g. pi_123"}
	case sub != "emit" && sub != "session" && len(positional) > 0:
		return usageError{fmt.Sprintf("unexpected argument %q", positional[0])}
	case minutes != nil && *minutes < -1:
		return usageError{"--minutes must not be negative"}
	}
	var payload map[string]any
	if data != nil {
		dec := json.NewDecoder(strings.NewReader(*data))
		dec.UseNumber()
		if err := dec.Decode(&payload); err != nil || payload == nil {
			return usageError{"--data must be a JSON object"}
		}
	}
	c, err := readWebhooksConfig(getenv)
	if err != nil {
		return usageError{err.Error()}
	}
	logger, err := newLogger()
	if err != nil {
		return err
	}
	key, err := loadSecretKey(c, *dsn, logger)
	if err != nil {
		return err
	}
	db, err := openDB(ctx, *dsn, logger, key)
	if err != nil {
		return err
	}
	defer db.Close()
	// Jobs inserted here are worked by the running server.
	queue, err := store.NewQueue(db, &store.QueueOptions{Queues: map[string]int{webhooksQueue: webhooksWorkers}})
	if err != nil {
		return err
	}
	svc, err := newWebhooks(c, key, db, queue, logger)
	if err != nil {
		return err
	}
	switch sub {
	case "emit":
		return emitEvent(ctx, svc, *owner, positional[0], payload, stdout)
	case "retry":
		n, err := svc.Sweep(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Queued %d due deliveries.\n", n)
	case "prune":
		return pruneWebhooks(ctx, svc, stdout)
	case "reconcile":
		return reconcile(ctx, svc, *minutes, stdout)
	case "session":
		return paymentSession(ctx, svc, webhookssql.NewPaymentSessions(db, nil), *provider, positional[0], *status, stdout)
	case "portal-link":
		token, err := svc.PortalLink(*owner, *ttl)
		if err != nil {
			return usageError{fmt.Sprintf("portal-link: %v (--owner names whose, --ttl how long)", err)}
		}
		origin := printedOrigin(*base, getenv, stderr)
		fmt.Fprintf(stdout, "%s%s/%s\n", origin, webhooks.PortalPrefixDefault, token)
	}
	return nil
}

// emitEvent is "webhooks emit NAME": the event recorded for owner's
// subscriptions (every one when owner is empty), sent by the server.
func emitEvent(ctx context.Context, svc *webhooks.Service, owner, name string, payload any, stdout io.Writer) error {
	if err := svc.RegisterEvents(name); err != nil {
		return usageError{err.Error()}
	}
	f, err := svc.DispatchFor(ctx, owner, webhooks.Event{Name: name, Data: payload})
	if errors.Is(err, webhooks.ErrOwner) {
		return usageError{fmt.Sprintf("--owner %q is no owner's name", owner)}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Event %s (%s) recorded for %d subscription(s); the server sends them.\n", f.EventID, name, f.Deliveries)
	return nil
}

// pruneWebhooks is "webhooks prune": finished deliveries and inbound
// webhooks past their retention.
func pruneWebhooks(ctx context.Context, svc *webhooks.Service, stdout io.Writer) error {
	n, err := svc.Prune(ctx)
	if err != nil {
		return err
	}
	m, err := svc.PruneInbound(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Pruned %d finished deliveries and %d inbound webhooks.\n", n, m)
	return nil
}

// reconcile runs one reconciliation of the sessions quiet for minutes (-1
// for the default) and prints its report.
func reconcile(ctx context.Context, svc *webhooks.Service, minutes int, stdout io.Writer) error {
	after := time.Duration(minutes) * time.Minute
	if minutes < 0 {
		after = -1
	}
	r, err := svc.Reconcile(ctx, after)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, r.String())
	for _, f := range r.Failures {
		fmt.Fprintf(stdout, "  %s\n", f)
	}
	if more := r.Errors - len(r.Failures); more > 0 {
		fmt.Fprintf(stdout, "  ... and %d more\n", more)
	}
	if r.Errors > 0 {
		return fmt.Errorf("%d sessions could not be reconciled; they are tried again on the next run", r.Errors)
	}
	return nil
}

// paymentSession records the session ref of provider for reconciliation,
// or with status prints its status.
func paymentSession(ctx context.Context, svc *webhooks.Service, sessions *webhookssql.PaymentSessions, provider, ref string, status bool,
	stdout io.Writer) error {
	if status {
		st, err := sessions.Status(ctx, provider, ref)
		if errors.Is(err, webhooks.ErrNotFound) {
			return fmt.Errorf("no payment session %s (%s)", ref, provider)
		} else if err != nil {
			return err
		}
		fmt.Fprintln(stdout, st)
		return nil
	}
	if _, ok := svc.Gateway(provider); !ok {
		return usageError{fmt.Sprintf("no gateway for provider %q here, so reconciliation could not settle the session; "+
			"the reference server has %q when GROUNDWORK_STRIPE_WEBHOOK_SECRET is set", provider, webhooks.StripeProvider)}
	}
	if err := sessions.Add(ctx, provider, ref); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Payment session %s (%s) awaits settlement.\n", ref, provider)
	return nil
}
