package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/a11y"
	"github.com/groundwork-go/groundwork/a11y/a11yai"
	"github.com/groundwork-go/groundwork/auth/openid"
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/internal/proxies"
	"github.com/groundwork-go/groundwork/internal/throttle"
	"github.com/groundwork-go/groundwork/internal/web"
	"github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/webhooks"
)

// Defaults of the reference server.
const (
	defaultAddr            = "127.0.0.1:8080"
	defaultDB              = "sqlite:groundwork.db"
	defaultShutdownTimeout = 30 * time.Second
)

// env names every variable the server reads; help prints them all.
var envVars = []struct{ name, help string }{
	{"GROUNDWORK_ADDR", "address to listen on (--addr)"},
	{"GROUNDWORK_DB", "database: sqlite:PATH, a bare path, or a postgres:// URL (--db)"},
	{"GROUNDWORK_LOG_FORMAT", "text or json (--log-format)"},
	{"GROUNDWORK_LOG_LEVEL", "debug, info, warn or error (--log-level)"},
	{"GROUNDWORK_TRUSTED_PROXIES", "comma-separated CIDRs allowed to set X-Forwarded-For (--trusted-proxies)"},
	{"GROUNDWORK_SHUTDOWN_TIMEOUT", "how long shutdown waits for requests and jobs (--shutdown-timeout)"},
	{"GROUNDWORK_METRICS_ADDR", "address of the Prometheus metrics listener, GET /metrics; off when unset (--metrics-addr)"},
	{"GROUNDWORK_DRAIN_DELAY", "how long a stopping server keeps serving with /readyz at 503 before it shuts down (--drain-delay)"},
	{"GROUNDWORK_UPLOADS", "directory for uploaded files (--uploads)"},
	{"GROUNDWORK_BASE_URL", "public address of the server, for absolute links (--base-url)"},
	{"GROUNDWORK_API_RATE_LIMIT", "requests a minute per token or address on the a11y, token and bookings admin endpoints, or off (--api-rate-limit)"},
	{"GROUNDWORK_FORMS_SUBMIT_LIMIT", "submissions a minute per form and address, or off (--forms-submit-limit)"},
	{"GROUNDWORK_INBOUND_IP_LIMIT", "inbound webhook requests a minute per address, or off (--inbound-ip-limit)"},
	{"GROUNDWORK_BOOKINGS_POST_LIMIT", "bookings and holds a minute per address, or off (--bookings-post-limit)"},
	{"GROUNDWORK_BOOKINGS_READ_LIMIT", "bookings reads (services, providers, slots) a minute per address, or off (--bookings-read-limit)"},
	{"GROUNDWORK_BOOKINGS_CONTACT", "how customers reach you, shown when a booking can no longer be changed online"},
	{"GROUNDWORK_BOOKINGS_FEED_LIMIT", "calendar feed requests a minute per address, or off (--bookings-feed-limit)"},
	{"GROUNDWORK_ANALYTICS_COLLECT_LIMIT", "page views collected a minute per address, or off (--analytics-collect-limit)"},
	{"GROUNDWORK_ANALYTICS_SITES", "comma-separated hosts whose page views are collected, beside the server's own (--analytics-sites)"},
	{"GROUNDWORK_FRAME_ORIGINS", "comma-separated origins (https://www.example.com) whose pages may frame the booking and form pages (--frame-origins)"},
	{"GROUNDWORK_INBOUND_PROVIDER_LIMIT", "verified inbound events a minute per provider, or off (--inbound-provider-limit)"},
	{"GROUNDWORK_FORM_TOKENS", "required (default): a submission without a good form-load token is spam; optional (--form-tokens)"},
	{"GROUNDWORK_OPENID_ISSUER", "issuer URL of an OpenID Connect provider users may sign in with; its redirect URI is the base URL + /login/openid/sso/callback; off when unset (--openid-issuer)"},
	{"GROUNDWORK_OPENID_CLIENT_ID", "this server's client ID at the OpenID provider"},
	{"GROUNDWORK_OPENID_CLIENT_SECRET", "this server's client secret at the OpenID provider"},
	{"GROUNDWORK_OPENID_LABEL", "the OpenID provider's name on the sign-in button (default: your organization's account)"},
	{"GROUNDWORK_GITHUB_CLIENT_ID", "a GitHub OAuth app's client ID: users may sign in with GitHub; its callback URL is the base URL + /login/openid/github/callback"},
	{"GROUNDWORK_GITHUB_CLIENT_SECRET", "that GitHub OAuth app's client secret"},
	{"GROUNDWORK_ORGANIZATIONS", "on: users work in organizations, each one's forms, bookings, webhooks and tokens its own; off (default) (--organizations)"},
	{"GROUNDWORK_REQUEST_LOG", "which requests get an info log line: all, none, or 1/N (--request-log)"},
	{"GROUNDWORK_SITE_NAME", "the name every page's header shows (groundwork)"},
	{"GROUNDWORK_ADMIN_EMAIL", "recipients of admin notifications that name none; named on the dashboard as who grants access"},
	{"GROUNDWORK_SMTP_HOST", "SMTP relay; unset means mail is logged, not sent"},
	{"GROUNDWORK_SMTP_PORT", "SMTP port (587)"},
	{"GROUNDWORK_SMTP_USERNAME", "SMTP user"},
	{"GROUNDWORK_SMTP_PASSWORD", "SMTP password"},
	{"GROUNDWORK_SMTP_TLS", "starttls (default), tls, opportunistic or none"},
	{"GROUNDWORK_MAIL_FROM", "sender of outgoing mail (groundwork@localhost)"},
	{"GROUNDWORK_AI_PROVIDER", "anthropic, openai or ollama; unset: the AI endpoints answer 503"},
	{"GROUNDWORK_AI_API_KEY", "the provider's key (not needed for ollama)"},
	{"GROUNDWORK_AI_BASE_URL", "the provider's address, e.g. a proxy or http://127.0.0.1:11434"},
	{"GROUNDWORK_AI_MODEL", "the model of every AI feature not named below"},
	{"GROUNDWORK_AI_MODEL_CONTENT_ANALYSIS", "the model of a11y content analysis"},
	{"GROUNDWORK_AI_MODEL_ARIA_SUGGESTION", "the model of a11y ARIA suggestions"},
	{"GROUNDWORK_AI_MODEL_CONTRAST_EXPLANATION", "the model of a11y contrast explanations"},
	{"GROUNDWORK_AI_DISABLED", "comma-separated AI features to turn off, e.g. a11y.contrast_explanation"},
	{"GROUNDWORK_SECRET_KEY", "32 bytes (base64 or hex) sealing webhook secrets; default: a key file beside the SQLite file"},
	{"GROUNDWORK_WEBHOOKS_ALLOW_PRIVATE_HOSTS", "true lets webhooks reach private and loopback addresses (false)"},
	{"GROUNDWORK_WEBHOOKS_ALLOW_INSECURE_URLS", "true lets webhooks use http:// URLs (false)"},
	{"GROUNDWORK_WEBHOOKS_DISABLE_AFTER", "also switch a failing subscription off only after this long without a delivery (Svix: 120h; none)"},
	{"GROUNDWORK_WEBHOOKS_CLAIM_TIMEOUT", "how long before a delivery an instance was sending when it stopped is sent again (5m; at least 30s)"},
	{"GROUNDWORK_STRIPE_WEBHOOK_SECRET", "Stripe's signing secrets, comma-separated (rotation); set: POST /ecommerce/webhooks/stripe"},
	{"GROUNDWORK_STRIPE_API_KEY", "Stripe secret key: reconciliation's session lookups and, with the webhook secret, paid bookings"},
	{"GROUNDWORK_STRIPE_API_BASE", "Stripe's API address (https://api.stripe.com)"},
	{"GROUNDWORK_EMAILLIST_PROVIDER", "kit or mailchimp; unset: subscribes are logged, not sent"},
	{"GROUNDWORK_EMAILLIST_API_KEY", "the provider's API key (Mailchimp's ends in its data centre, -us21)"},
	{"GROUNDWORK_EMAILLIST_BASE_URL", "the provider's address (Kit: https://api.kit.com/v4; Mailchimp: from the key)"},
	{"GROUNDWORK_EMAILLIST_LIST_ID", "Mailchimp's audience (list) ID"},
	{"GROUNDWORK_EMAILLIST_ALLOW_INSECURE_URLS", "true lets the provider's address be http:// (a local test double) (false)"},
	{"GROUNDWORK_EMAILLIST_TAG_NAMES", "Mailchimp's tag names by the IDs feeds give, 3=VIP,7=Newsletter (unnamed IDs are tagged by number)"},
	{"GROUNDWORK_EMAILLIST_SUBSCRIBE_LIMIT", "public subscribes a minute per address (10); cannot be turned off"},
	{"GROUNDWORK_GSC_SITE_URL", "the Search Console property (sc-domain:example.com or https://example.com/) of the search reports"},
	{"GROUNDWORK_GA4_PROPERTY_ID", "a GA4 property (digits): the analytics reports come from GA4, not the first-party analytics"},
	{"GROUNDWORK_ANALYTICS_COUNTRY_HEADER", "the header a trusted proxy sets to the visitor's country (CF-IPCountry), or - for none"},
	{"GROUNDWORK_ANALYTICS_MMDB", "an MMDB file of countries (DB-IP Lite, GeoLite2 Country or City) for visitors no header places"},
	{"GROUNDWORK_ANALYTICS_FLUSH_WRITERS", "transactions a flush of page views writes at once: 2 on Postgres, 1 on SQLite by default"},
	{"GROUNDWORK_GOOGLE_CREDENTIALS", "a service-account key file for Search Console and GA4"},
	{"GROUNDWORK_GOOGLE_CLIENT_ID", "instead, each user connects their own Google account at /google/auth/connect (with _SECRET, _REDIRECT_URL)"},
	{"GROUNDWORK_GOOGLE_CLIENT_SECRET", "the OAuth client's secret"},
	{"GROUNDWORK_GOOGLE_REDIRECT_URL", "the OAuth callback, https://your.site/google/auth/callback"},
	{"GROUNDWORK_CALENDAR_ALLOW_PRIVATE_HOSTS", "true lets providers' calendar addresses be private or loopback (a CalDAV server on this machine) (false)"},
	{"GROUNDWORK_GOOGLE_CALENDAR_CLIENT_ID", "providers connect Google Calendar on their calendar page (with _SECRET and _REDIRECT_URL)"},
	{"GROUNDWORK_GOOGLE_CALENDAR_CLIENT_SECRET", "the Google Calendar OAuth client's secret"},
	{"GROUNDWORK_GOOGLE_CALENDAR_REDIRECT_URL", "its callback, https://your.site/provider-calendars/google/callback"},
	{"GROUNDWORK_GOOGLE_SHEETS_CLIENT_ID", "forms' Google Sheets notifications (with _SECRET; register https://your.site/forms/_google/callback)"},
	{"GROUNDWORK_GOOGLE_SHEETS_CLIENT_SECRET", "the Google Sheets OAuth client's secret"},
}

// config is everything serve needs, from flags over the environment over
// the defaults.
type config struct {
	addr            string
	db              string
	logFormat       string
	logLevel        slog.Level
	trustedProxies  []netip.Prefix
	shutdownTimeout time.Duration
	drainDelay      time.Duration
	metricsAddr     string
	uploads         string
	baseURL         *url.URL
	adminEmail      string
	siteName        string
	bookingsContact string
	smtp            *mail.SMTPOptions // nil: log mail to the outbox
	mailFrom        string
	ai              a11yai.Options
	webhooks        webhooksConfig
	emaillist       emaillistConfig
	reporting       reportingConfig
	calendars       calendarConfig
	// sheetsID and sheetsSecret are the OAuth client of forms' Google
	// Sheets notifications.
	sheetsID, sheetsSecret string
	limits                 limits
	// bodyTimeout and uploadTimeout bound how long a request's body may
	// take to arrive (api.BodyTimeoutDefault, api.UploadTimeoutDefault
	// when zero).
	bodyTimeout, uploadTimeout time.Duration
	// analyticsSites are the hosts whose page views are collected, beside
	// the server's own and the base URL's.
	analyticsSites []string
	// frameOrigins may frame the booking and form pages.
	frameOrigins []string
	// formTokensOptional lets submissions without a form-load token be
	// judged by _form_loaded_at (forms.Options.FormTokenOptional).
	formTokensOptional bool
	// organizations has signed-in users work in organizations (auth/orgs),
	// each a tenant.
	organizations bool
	// signInWith are the OpenID providers (and GitHub) users may sign in
	// with (auth/openid).
	signInWith []openid.Provider
	// requestLogEvery logs one request in so many at info (0 or 1: every
	// one, negative: none); failures (5xx) are always logged.
	requestLogEvery int
}

// limits are the server's throttles, as the handlers' options take them:
// zero for the default, negative for none.
type limits struct {
	api, formsSubmit, inboundIP, inboundProvider, bookingsPost, bookingsRead, bookingsFeed, analyticsCollect int
}

// limitValue is a throttle flag: a positive number a minute, or "off".
type limitValue struct {
	n   *int
	def int
}

func (v limitValue) String() string {
	if v.n == nil {
		return ""
	}
	switch {
	case *v.n < 0:
		return "off"
	case *v.n == 0:
		return strconv.Itoa(v.def)
	}
	return strconv.Itoa(*v.n)
}

func (v limitValue) Set(s string) error {
	if s == "off" {
		*v.n = -1
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return errors.New(`must be a positive number (a minute) or "off"`)
	}
	*v.n = n
	return nil
}

// limitFlag adds a throttle flag to fs, starting from the variable env.
func limitFlag(fs *flag.FlagSet, getenv func(string) string, p *int, name, env string, def int, usage string) error {
	fs.Var(limitValue{p, def}, name, usage)
	if s := getenv(env); s != "" {
		if err := (limitValue{p, def}).Set(s); err != nil {
			return fmt.Errorf("%s: %w", env, err)
		}
	}
	return nil
}

// parseRequestLog reads --request-log: all, none, or 1/N.
func parseRequestLog(s string) (int, error) {
	switch s {
	case "all":
		return 1, nil
	case "none", "off":
		return -1, nil
	}
	if n, ok := strings.CutPrefix(s, "1/"); ok {
		if every, err := strconv.Atoi(n); err == nil && every > 0 {
			return every, nil
		}
	}
	return 0, fmt.Errorf(`--request-log must be all, none or 1/N (one request in N), not %q`, s)
}

// envOr returns the variable's value, or def when it is unset or empty.
func envOr(getenv func(string) string, name, def string) string {
	if v := getenv(name); v != "" {
		return v
	}
	return def
}

// printedOrigin is the origin a command prints links under: base (from
// --base-url or GROUNDWORK_BASE_URL) when given, else the address the
// server listens on as it reads it (GROUNDWORK_ADDR, else the default),
// with a host a browser can open: ":8080" and "0.0.0.0:8080" name every
// interface, so the link names this machine's loopback. A note on stderr
// says the link is only good here and how to print the public one.
func printedOrigin(base string, getenv func(string) string, stderr io.Writer) string {
	if origin := strings.TrimSuffix(base, "/"); origin != "" {
		return origin
	}
	addr := envOr(getenv, "GROUNDWORK_ADDR", defaultAddr)
	if host, port, err := net.SplitHostPort(addr); err == nil {
		if ip, err := netip.ParseAddr(host); host == "" || err == nil && ip.IsUnspecified() {
			host = "127.0.0.1"
			if err == nil && ip.Is6() {
				host = "::1"
			}
		}
		addr = net.JoinHostPort(host, port)
	}
	origin := "http://" + addr
	fmt.Fprintf(stderr, "No --base-url (or GROUNDWORK_BASE_URL): the link below uses the server's listening address, %s; "+
		"give the public one to print a link for others.\n", origin)
	return origin
}

// dbFlag adds --db to fs, defaulting to GROUNDWORK_DB.
func dbFlag(fs *flag.FlagSet, getenv func(string) string) *string {
	return fs.String("db", envOr(getenv, "GROUNDWORK_DB", defaultDB), "database: sqlite:PATH, a bare path, or a postgres:// URL")
}

// newFlagSet returns a flag set that returns errors, printing nothing:
// run prints them once, with a hint, and -h prints the help.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseInterspersed parses flags that may come before, between or after
// positional arguments, and returns the positional ones.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// parseArgs is parseInterspersed for a sub-command: a bad flag is a usage
// error; --help is flag.ErrHelp as it is.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	positional, err := parseInterspersed(fs, args)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return nil, usageError{err.Error()}
	}
	return positional, err
}

// parseServeFlags reads the serve flags over the environment. Its errors
// are usage errors, but for flag.ErrHelp.
func parseServeFlags(args []string, getenv func(string) string) (*config, error) {
	cfg, err := readServeFlags(args, getenv)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return nil, usageError{err.Error()}
	}
	return cfg, err
}

// limitFlags are the throttles' flags, each also read from its variable:
// a number a minute, or off.
func limitFlags(fs *flag.FlagSet, getenv func(string) string, l *limits) error {
	for _, f := range []struct {
		p         *int
		name, env string
		def       int
	}{
		{&l.api, "api-rate-limit", "GROUNDWORK_API_RATE_LIMIT", throttle.APILimit},
		{&l.formsSubmit, "forms-submit-limit", "GROUNDWORK_FORMS_SUBMIT_LIMIT", forms.SubmitLimitDefault},
		{&l.inboundIP, "inbound-ip-limit", "GROUNDWORK_INBOUND_IP_LIMIT", webhooks.PerIPDefault},
		{&l.inboundProvider, "inbound-provider-limit", "GROUNDWORK_INBOUND_PROVIDER_LIMIT", webhooks.PerProviderDefault},
		{&l.bookingsPost, "bookings-post-limit", "GROUNDWORK_BOOKINGS_POST_LIMIT", bookings.PostLimitDefault},
		{&l.bookingsRead, "bookings-read-limit", "GROUNDWORK_BOOKINGS_READ_LIMIT", bookings.ReadLimitDefault},
		{&l.bookingsFeed, "bookings-feed-limit", "GROUNDWORK_BOOKINGS_FEED_LIMIT", bookings.ICalLimitDefault},
		{&l.analyticsCollect, "analytics-collect-limit", "GROUNDWORK_ANALYTICS_COLLECT_LIMIT", reporting.CollectLimitDefault},
	} {
		if err := limitFlag(fs, getenv, f.p, f.name, f.env, f.def, "a minute, or off"); err != nil {
			return err
		}
	}
	return nil
}

// envDuration sets *d from the variable name when it is set.
func envDuration(getenv func(string) string, name string, d *time.Duration) error {
	v := getenv(name)
	if v == "" {
		return nil
	}
	parsed, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	*d = parsed
	return nil
}

func readServeFlags(args []string, getenv func(string) string) (*config, error) {
	fs := newFlagSet("reference")
	addr := fs.String("addr", envOr(getenv, "GROUNDWORK_ADDR", defaultAddr), "address to listen on")
	db := dbFlag(fs, getenv)
	logFormat := fs.String("log-format", envOr(getenv, "GROUNDWORK_LOG_FORMAT", "text"), "text or json")
	logLevel := fs.String("log-level", envOr(getenv, "GROUNDWORK_LOG_LEVEL", "info"), "debug, info, warn or error")
	trusted := fs.String("trusted-proxies", getenv("GROUNDWORK_TRUSTED_PROXIES"), "CIDRs allowed to set X-Forwarded-For")
	shutdown := fs.Duration("shutdown-timeout", defaultShutdownTimeout, "how long shutdown waits for requests and jobs")
	drain := fs.Duration("drain-delay", 0, "how long a stopping server keeps serving with /readyz at 503")
	metricsAddr := fs.String("metrics-addr", getenv("GROUNDWORK_METRICS_ADDR"), "address of the metrics listener")
	uploads := fs.String("uploads", getenv("GROUNDWORK_UPLOADS"), "directory for uploaded files")
	baseURL := fs.String("base-url", getenv("GROUNDWORK_BASE_URL"), "public address of the server")
	sites := fs.String("analytics-sites", getenv("GROUNDWORK_ANALYTICS_SITES"), "hosts whose page views are collected")
	frames := fs.String("frame-origins", getenv("GROUNDWORK_FRAME_ORIGINS"), "origins whose pages may frame the booking and form pages")
	formTokens := fs.String("form-tokens", envOr(getenv, "GROUNDWORK_FORM_TOKENS", "required"), "required or optional")
	organizations := fs.String("organizations", envOr(getenv, "GROUNDWORK_ORGANIZATIONS", "off"), "on or off")
	openIDIssuer := fs.String("openid-issuer", getenv("GROUNDWORK_OPENID_ISSUER"), "issuer URL of an OpenID provider to sign in with")
	requestLog := fs.String("request-log", envOr(getenv, "GROUNDWORK_REQUEST_LOG", "all"), "all, none or 1/N")
	var lim limits
	if err := limitFlags(fs, getenv, &lim); err != nil {
		return nil, err
	}
	if err := errors.Join(envDuration(getenv, "GROUNDWORK_SHUTDOWN_TIMEOUT", shutdown), envDuration(getenv, "GROUNDWORK_DRAIN_DELAY", drain)); err != nil {
		return nil, err
	}
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 {
		return nil, fmt.Errorf("unexpected argument %q; see reference --help", rest[0])
	}
	cfg := &config{addr: *addr, db: *db, logFormat: *logFormat, shutdownTimeout: *shutdown, drainDelay: *drain, metricsAddr: *metricsAddr, uploads: *uploads,
		adminEmail: getenv("GROUNDWORK_ADMIN_EMAIL"), limits: lim, siteName: envOr(getenv, "GROUNDWORK_SITE_NAME", "groundwork"),
		bookingsContact: getenv("GROUNDWORK_BOOKINGS_CONTACT")}
	if cfg.requestLogEvery, err = parseRequestLog(*requestLog); err != nil {
		return nil, err
	}
	if err := readChoices(cfg, *sites, *frames, *organizations, *formTokens); err != nil {
		return nil, err
	}
	if *openIDIssuer != "" {
		p := openid.Provider{Name: "sso", Label: envOr(getenv, "GROUNDWORK_OPENID_LABEL", "your organization's account"), Issuer: *openIDIssuer,
			ClientID: getenv("GROUNDWORK_OPENID_CLIENT_ID"), ClientSecret: getenv("GROUNDWORK_OPENID_CLIENT_SECRET")}
		if u, err := url.Parse(*openIDIssuer); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || p.ClientID == "" {
			return nil, fmt.Errorf("--openid-issuer must be an http(s) URL, with GROUNDWORK_OPENID_CLIENT_ID set, not %q", *openIDIssuer)
		}
		cfg.signInWith = append(cfg.signInWith, p)
	}
	if id := getenv("GROUNDWORK_GITHUB_CLIENT_ID"); id != "" {
		cfg.signInWith = append(cfg.signInWith, openid.Provider{Name: "github", Label: "GitHub", Issuer: "https://github.com", GitHub: true,
			ClientID: id, ClientSecret: getenv("GROUNDWORK_GITHUB_CLIENT_SECRET")})
	}
	if *baseURL != "" {
		u, err := url.Parse(*baseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("--base-url must be an http(s) URL, not %q", *baseURL)
		}
		cfg.baseURL = u
	}
	if err := store.CheckDSN(cfg.db); err != nil {
		return nil, fmt.Errorf("--db: %w", err)
	}
	if cfg.uploads == "" {
		cfg.uploads = defaultUploads(cfg.db)
	}
	if cfg.logFormat != "text" && cfg.logFormat != "json" {
		return nil, fmt.Errorf("--log-format must be text or json, not %q", cfg.logFormat)
	}
	if err := cfg.logLevel.UnmarshalText([]byte(*logLevel)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	if cfg.trustedProxies, err = proxies.ParsePrefixes(*trusted); err != nil {
		return nil, fmt.Errorf("--trusted-proxies: %w", err)
	}
	if cfg.metricsAddr != "" && cfg.metricsAddr == cfg.addr {
		return nil, errors.New("--metrics-addr must not be the public address (--addr): the metrics are for the operator only")
	}
	if cfg.drainDelay < 0 {
		return nil, errors.New("--drain-delay must not be negative")
	}
	if cfg.shutdownTimeout <= 0 {
		return nil, errors.New("--shutdown-timeout must be positive")
	}
	if cfg.ai, err = readAIOptions(getenv); err != nil {
		return nil, err
	}
	if cfg.webhooks, err = readWebhooksConfig(getenv); err != nil {
		return nil, err
	}
	if cfg.emaillist, err = readEmaillistConfig(getenv); err != nil {
		return nil, err
	}
	if cfg.reporting, err = readReportingConfig(getenv); err != nil {
		return nil, err
	}
	if cfg.calendars, err = readCalendarConfig(getenv); err != nil {
		return nil, err
	}
	if cfg.sheetsID, cfg.sheetsSecret = getenv("GROUNDWORK_GOOGLE_SHEETS_CLIENT_ID"), getenv("GROUNDWORK_GOOGLE_SHEETS_CLIENT_SECRET"); (cfg.sheetsID == "") != (cfg.sheetsSecret == "") {
		return nil, errors.New("GROUNDWORK_GOOGLE_SHEETS_CLIENT_ID and _SECRET go together")
	}
	cfg.mailFrom = envOr(getenv, "GROUNDWORK_MAIL_FROM", "groundwork@localhost")
	if host := getenv("GROUNDWORK_SMTP_HOST"); host != "" {
		cfg.smtp = &mail.SMTPOptions{Host: host, Username: getenv("GROUNDWORK_SMTP_USERNAME"),
			Password: getenv("GROUNDWORK_SMTP_PASSWORD"), TLS: mail.TLSMode(getenv("GROUNDWORK_SMTP_TLS")), From: cfg.mailFrom}
		if p := getenv("GROUNDWORK_SMTP_PORT"); p != "" {
			if cfg.smtp.Port, err = strconv.Atoi(p); err != nil {
				return nil, fmt.Errorf("GROUNDWORK_SMTP_PORT: %w", err)
			}
		}
	}
	return cfg, nil
}

// defaultUploads keeps uploads beside a SQLite file ("groundwork.db" →
// "groundwork-uploads"), else in ./groundwork-uploads.
func defaultUploads(dsn string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return "groundwork-uploads"
	}
	path := strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite:"), "//")
	if path == ":memory:" || path == "" {
		return "groundwork-uploads"
	}
	return strings.TrimSuffix(path, filepath.Ext(path)) + "-uploads"
}

// readAIOptions reads the GROUNDWORK_AI_* variables.
func readAIOptions(getenv func(string) string) (a11yai.Options, error) {
	o := a11yai.Options{AIOptions: a11y.AIOptions{Provider: a11y.Provider(getenv("GROUNDWORK_AI_PROVIDER")), Model: getenv("GROUNDWORK_AI_MODEL"),
		Models: map[a11y.Feature]string{}}, APIKey: getenv("GROUNDWORK_AI_API_KEY"), BaseURL: getenv("GROUNDWORK_AI_BASE_URL")}
	for f, name := range map[a11y.Feature]string{
		a11y.FeatureContentAnalysis:     "GROUNDWORK_AI_MODEL_CONTENT_ANALYSIS",
		a11y.FeatureAriaSuggestion:      "GROUNDWORK_AI_MODEL_ARIA_SUGGESTION",
		a11y.FeatureContrastExplanation: "GROUNDWORK_AI_MODEL_CONTRAST_EXPLANATION",
	} {
		if m := getenv(name); m != "" {
			o.Models[f] = m
		}
	}
	for f := range strings.SplitSeq(getenv("GROUNDWORK_AI_DISABLED"), ",") {
		if f = strings.TrimSpace(f); f != "" {
			o.Disabled = append(o.Disabled, a11y.Feature(f))
		}
	}
	// NewAI checks provider and feature names; check them here too, so a
	// typo stops the server at start with the variable's name.
	if _, err := a11y.NewAI(nil, &a11y.AIOptions{Provider: o.Provider, Disabled: o.Disabled}); err != nil {
		return o, fmt.Errorf("GROUNDWORK_AI_PROVIDER / GROUNDWORK_AI_DISABLED: %w", err)
	}
	return o, nil
}

// readChoices reads into cfg the analytics' sites, the origins that may
// frame the pages, whether users work in organizations and whether form
// tokens are required.
func readChoices(cfg *config, sites, frames, organizations, formTokens string) error {
	for host := range strings.SplitSeq(sites, ",") {
		host = strings.ToLower(strings.TrimSpace(host))
		switch {
		case host == "":
		case strings.ContainsAny(host, "/:@ "):
			return fmt.Errorf("--analytics-sites takes host names (shop.example.com), not %q", host)
		default:
			cfg.analyticsSites = append(cfg.analyticsSites, host)
		}
	}
	for o := range strings.SplitSeq(frames, ",") {
		if o = strings.TrimSuffix(strings.TrimSpace(o), "/"); o != "" {
			cfg.frameOrigins = append(cfg.frameOrigins, o)
		}
	}
	if web.CheckFrameOrigins(cfg.frameOrigins) != nil {
		return fmt.Errorf("--frame-origins takes origins (https://www.example.com), not %q", frames)
	}
	switch organizations {
	case "on":
		cfg.organizations = true
	case "off":
	default:
		return fmt.Errorf("--organizations must be on or off, not %q", organizations)
	}
	switch formTokens {
	case "required":
	case "optional":
		cfg.formTokensOptional = true
	default:
		return fmt.Errorf("--form-tokens must be required or optional, not %q", formTokens)
	}
	return nil
}
