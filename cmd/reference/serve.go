package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/a11y"
	"github.com/groundwork-go/groundwork/a11y/a11yai"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/emaillist"
	"github.com/groundwork-go/groundwork/emaillist/emaillistsql"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportinggoogle"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/lite"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

// migrations lists every domain's schema, in the order they apply.
var migrations = []store.Migrations{authsql.Migrations, formssql.Migrations, webhookssql.Migrations, bookingssql.Migrations,
	emaillistsql.Migrations, reportingsql.Migrations}

func newLogger(cfg *config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.logLevel}
	if cfg.logFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// secretKeyName is the name the secret key's fingerprint is kept under.
const secretKeyName = "secret"

// openDB opens and migrates the database named by dsn. Given the secret
// key, it first checks the key against the fingerprint the database keeps
// (so an instance with another key changes nothing), and records it after
// migrating when the database has none.
func openDB(ctx context.Context, dsn string, logger *slog.Logger, secretKey []byte) (*store.DB, error) {
	db, err := store.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	if secretKey != nil {
		err = checkSecretKey(store.CheckKey(ctx, db, secretKeyName, secretKey), secretKey)
	}
	if err == nil {
		err = store.MigrateWithOptions(ctx, db, &store.MigrateOptions{Logger: logger}, migrations...)
	}
	if err == nil && secretKey != nil {
		err = checkSecretKey(store.RecordKey(ctx, db, secretKeyName, secretKey), secretKey)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// checkSecretKey explains a key mismatch in the reference server's terms.
func checkSecretKey(err error, key []byte) error {
	if key == nil || !errors.Is(err, store.ErrKeyMismatch) {
		return err
	}
	return fmt.Errorf("%w\nThis instance's secret key (GROUNDWORK_SECRET_KEY, or the key file beside a SQLite database) "+
		"cannot open the webhook secrets sealed with the database's key; start it with the key the other instances use", err)
}

// app is the wired server.
type app struct {
	db       *store.DB
	queue    *store.Queue
	mailer   mail.Mailer
	tokens   *auth.Service
	colors   *a11y.Service
	forms    *forms.Service
	blobs    *forms.DirBlobStore
	webhooks *webhooks.Service
	// analytics collects page views in the background (Run).
	analytics *reporting.Analytics
	handler   http.Handler
	// routes are the domain handlers' routes, "METHOD /path/{param}".
	routes []string
}

// newApp wires every domain on db.
func newApp(cfg *config, db *store.DB, secretKey []byte, logger *slog.Logger) (*app, error) {
	a := &app{db: db}
	var err error
	if cfg.smtp != nil {
		if a.mailer, err = mail.NewSMTPMailer(cfg.smtp); err != nil {
			return nil, err
		}
	} else {
		a.mailer = mail.NewOutbox(&mail.OutboxOptions{From: cfg.mailFrom, Logger: logger})
	}
	if a.queue, err = store.NewQueue(db, &store.QueueOptions{Logger: logger, Queues: map[string]int{webhooksQueue: webhooksWorkers}}); err != nil {
		return nil, err
	}
	// Sign-in: lock-outs counted in the database (so they hold across
	// instances), verification links signed with a key derived from the
	// secret key, mail through the server's mailer.
	if a.tokens, err = auth.NewService(authsql.New(db), &auth.Options{Key: deriveKey(secretKey, "sign-in"), Mailer: a.mailer,
		MailFrom: cfg.mailFrom, LoginLimiter: store.NewSQLRateLimiter(db, nil), AppName: "groundwork", Logger: logger}); err != nil {
		return nil, err
	}
	if err := auth.RegisterWorkers(a.queue.Workers(), a.tokens); err != nil {
		return nil, err
	}
	a.queue.AddPeriodicJobs(auth.PeriodicJobs()...)
	if a.colors, err = a11y.NewService(&a11y.Options{Logger: logger}); err != nil {
		return nil, err
	}

	// One budget per throttle across instances on Postgres; a single
	// SQLite instance counts in memory.
	var limiter lite.RateLimiter = lite.NewMemoryRateLimiter(nil)
	if db.Dialect() == store.Postgres {
		limiter = store.NewSQLRateLimiter(db, nil)
	}
	// Every handler takes the same logger, limiter, proxies and address.
	web := groundwork.HTTPOptions{RateLimiter: limiter, TrustedProxies: cfg.trustedProxies, BaseURL: cfg.baseURL, Logger: logger}
	authHandler, err := auth.NewHandler(a.tokens, &auth.HandlerOptions{HTTPOptions: web, APILimit: cfg.limits.api})
	if err != nil {
		return nil, err
	}

	// a11y: the colour endpoints at /api/a11y, and again at the
	// original's /api/v1/a11y with the AI endpoints beside them.
	aiOpts := cfg.ai
	aiOpts.Logger = logger
	ai, err := a11yai.NewAI(a.colors, &aiOpts)
	if err != nil {
		return nil, err
	}
	a11yOpts := a11y.HandlerOptions{HTTPOptions: web, APILimit: cfg.limits.api, Tokens: a.tokens}
	colorHandler, err := a11y.NewHandler(a.colors, &a11yOpts)
	if err != nil {
		return nil, err
	}
	a11yOpts.Prefix, a11yOpts.AI = "/api/v1/a11y", ai
	colorAIHandler, err := a11y.NewHandler(a.colors, &a11yOpts)
	if err != nil {
		return nil, err
	}

	// forms: the API, the no-JavaScript pages, files in a directory, and
	// notifications sent from the queue.
	if a.blobs, err = forms.NewDirBlobStore(cfg.uploads); err != nil {
		return nil, err
	}
	if a.forms, err = forms.NewService(formssql.New(db), &forms.Options{Enqueuer: a.queue, Mailer: a.mailer, MailFrom: cfg.mailFrom,
		AdminRecipients: cfg.adminEmail, Blobs: a.blobs, FormTokenKey: deriveKey(secretKey, "form load token"),
		FormTokenOptional: cfg.formTokensOptional, FormTokenUses: limiter, Logger: logger}); err != nil {
		return nil, err
	}
	if err := forms.RegisterWorkers(a.queue.Workers(), a.forms); err != nil {
		return nil, err
	}
	formsHandler, err := forms.NewHandler(a.forms, &forms.HandlerOptions{
		HTTPOptions: web,
		Tokens:      a.tokens,
		SubmitLimit: cfg.limits.formsSubmit,
	})
	if err != nil {
		return nil, err
	}
	pages, err := forms.NewPageHandler(a.forms, &forms.PageOptions{
		HTTPOptions: web,
		SubmitLimit: cfg.limits.formsSubmit,
		FlashKey:    deriveKey(secretKey, "page flash"),
	})
	if err != nil {
		return nil, err
	}

	// webhooks: subscriptions and their API, deliveries from the queue,
	// and a form.submitted event for every accepted submission.
	if a.webhooks, err = newWebhooks(cfg.webhooks, secretKey, db, a.queue, logger); err != nil {
		return nil, err
	}
	linkFormsToWebhooks(a.forms, a.webhooks)
	webhooksHandler, err := webhooks.NewHandler(a.webhooks, a.tokens, &webhooks.HandlerOptions{HTTPOptions: web, Idempotency: store.NewIdempotency(db, nil)})
	if err != nil {
		return nil, err
	}

	inboundHandler, err := webhooks.NewInboundHandler(a.webhooks, &webhooks.InboundHandlerOptions{
		HTTPOptions: web,
		PerIP:       cfg.limits.inboundIP,
		PerProvider: cfg.limits.inboundProvider,
	})
	if err != nil {
		return nil, err
	}

	signIn, err := auth.NewWeb(a.tokens, &auth.WebOptions{
		HTTPOptions:    groundwork.HTTPOptions{BaseURL: cfg.baseURL, RateLimiter: limiter, TrustedProxies: cfg.trustedProxies, Logger: logger},
		LogoutPath:     "/login",
		TokenAbilities: knownAbilities,
	})
	if err != nil {
		return nil, err
	}
	dashboard, err := newDashboard(signIn, logger)
	if err != nil {
		return nil, err
	}

	// bookings: the public API with holds, the admin API for bookings,
	// events delivered as webhooks and a confirmation mail.
	bookingsSvc, err := bookings.NewService(bookingssql.New(db), &bookings.Options{FeedHost: feedHost(cfg.baseURL), Enqueuer: a.queue,
		Mailer: a.mailer, MailFrom: cfg.mailFrom, ManageURL: publicOrigin(cfg) + bookings.PagePrefixDefault + "/manage/{token}",
		SecretKey: deriveKey(secretKey, "bookings manage token"), Logger: logger})
	if err != nil {
		return nil, err
	}
	if err := bookings.RegisterWorkers(a.queue.Workers(), bookingsSvc); err != nil {
		return nil, err
	}
	a.queue.AddPeriodicJobs(bookings.PeriodicJobs()...)
	bookingsHandler, err := bookings.NewHandler(bookingsSvc, &bookings.HandlerOptions{
		HTTPOptions: web,
		PostLimit:   cfg.limits.bookingsPost,
		ReadLimit:   cfg.limits.bookingsRead,
	})
	if err != nil {
		return nil, err
	}
	bookingsAdmin, err := bookings.NewAdminHandler(bookingsSvc, a.tokens, &bookings.AdminHandlerOptions{HTTPOptions: web, APILimit: cfg.limits.api})
	if err != nil {
		return nil, err
	}
	linkBookings(bookingsSvc, a.webhooks, logger)
	bookingPages, err := bookings.NewPageHandler(bookingsSvc, &bookings.PageOptions{
		HTTPOptions: web,
		Key:         deriveKey(secretKey, "page flash"),
		PostLimit:   cfg.limits.bookingsPost,
	})
	if err != nil {
		return nil, err
	}

	bookingFeeds, err := bookings.NewFeedHandler(bookingsSvc, &bookings.FeedHandlerOptions{
		HTTPOptions: web,
	})
	if err != nil {
		return nil, err
	}

	// emaillist: feeds fed by accepted submissions, their administration
	// (a token with emailmarketing:* or a user with the capability), the
	// public subscribe.
	lists, err := newEmaillist(cfg.emaillist, db, a.queue, a.forms, logger)
	if err != nil {
		return nil, err
	}
	listAdmin, err := emaillist.NewAdminHandler(lists, feedAuthorizer(a.tokens), &emaillist.AdminHandlerOptions{HTTPOptions: web})
	if err != nil {
		return nil, err
	}
	listSubscribe, err := emaillist.NewSubscribeHandler(lists, &emaillist.SubscribeHandlerOptions{
		HTTPOptions: web,
		Limit:       cfg.emaillist.subscribeLimit,
	})
	if err != nil {
		return nil, err
	}

	// reporting: the first-party analytics (the server's own pages are
	// counted), Google's sources when configured, the routes, the
	// dashboard for users with view_search_reporting.
	reports, err := newReporting(cfg.reporting, db, a.tokens, secretKey, web)
	if err != nil {
		return nil, err
	}
	a.analytics = reports.analytics

	mux := http.NewServeMux()
	mux.Handle("/search-reporting/", signIn.LoadUser(reports.routes))
	mux.Handle("/analytics-reporting/", signIn.LoadUser(reports.routes))
	mux.Handle(reporting.CollectPrefixDefault+"/", reports.collect)
	dashboardGuard := signIn.RequireCapability(reporting.CapabilityView)
	mux.Handle("/reporting", dashboardGuard(reports.dashboard))
	mux.Handle("/reporting/", dashboardGuard(reports.dashboard))
	if reports.oauth != nil {
		mux.Handle(reportinggoogle.OAuthPrefixDefault+"/", signIn.Protect(signIn.LoadUser(reports.oauth)))
	}
	mux.Handle(emaillist.AdminPrefixDefault+"/", signIn.Protect(signIn.LoadUser(listAdmin)))
	mux.Handle(emaillist.SubscribePrefixDefault+"/", listSubscribe)
	mux.Handle(bookings.FeedPrefixDefault+"/", bookingFeeds)
	mux.Handle(bookings.PrefixDefault, bookingsHandler)
	mux.Handle(bookings.PrefixDefault+"/", bookingsHandler)
	mux.Handle(bookings.AdminPrefixDefault+"/", bookingsAdmin)
	mux.Handle(bookings.PagePrefixDefault+"/", trackViews(reports.analytics, bookingPages, cfg, logger))
	signIn.Mount(mux)
	mux.Handle("GET /dashboard", signIn.RequireUser(dashboard))
	mux.Handle(webhooks.PrefixDefault+"/", webhooksHandler)
	mux.Handle(webhooks.InboundPrefixDefault+"/", inboundHandler)
	mux.HandleFunc("GET /healthz", a.healthz)
	mux.HandleFunc("GET /{$}", index)
	mux.Handle(auth.PrefixDefault+"/", authHandler)
	mux.Handle(a11y.PrefixDefault+"/", colorHandler)
	mux.Handle(forms.PrefixDefault, formsHandler)
	mux.Handle(forms.PrefixDefault+"/", formsHandler)
	mux.Handle(forms.PagePrefixDefault+"/", trackViews(reports.analytics, pages, cfg, logger))
	mux.Handle("/api/v1/a11y/", colorAIHandler)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		api.WriteError(w, r, logger, nil, api.ErrNotFound)
	})
	a.routes = slices.Concat(authHandler.Routes(), signIn.Routes(), []string{"GET /dashboard"}, colorHandler.Routes(), colorAIHandler.Routes(), formsHandler.Routes(),
		pages.Routes(), webhooksHandler.Routes(), inboundHandler.Routes(), bookingsHandler.Routes(), bookingsAdmin.Routes(), bookingPages.Routes(),
		bookingFeeds.Routes(), listAdmin.Routes(), listSubscribe.Routes(), reports.routes.Routes(), reports.collect.Routes(),
		reports.dashboard.Routes())
	if reports.oauth != nil {
		a.routes = append(a.routes, reports.oauth.Routes()...)
	}
	a.handler = recoverPanics(logRequests(mux, logger, cfg.requestLogEvery), logger)
	return a, nil
}

func (a *app) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := a.db.Ping(ctx); err != nil {
		api.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
		return
	}
	api.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func index(w http.ResponseWriter, _ *http.Request) {
	api.WriteJSON(w, http.StatusOK, map[string]any{"name": "groundwork reference server", "endpoints": endpoints()})
}

// serve runs the server until ctx ends, then shuts down gracefully:
// in-flight requests and running jobs get cfg.shutdownTimeout to finish.
// ready, when set, is told the address once the server listens.
func serve(ctx context.Context, cfg *config, logOut io.Writer, ready func(addr string)) error {
	logger := newLogger(cfg, logOut)
	secretKey, err := loadSecretKey(cfg.webhooks, cfg.db, logger)
	if err != nil {
		return err
	}
	db, err := openDB(ctx, cfg.db, logger, secretKey)
	if err != nil {
		return err
	}
	defer db.Close()
	a, err := newApp(cfg, db, secretKey, logger)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           a.handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	if err := a.queue.Start(context.WithoutCancel(ctx)); err != nil {
		ln.Close()
		return err
	}
	// Webhook deliveries are sent by the delivery loop, as they come due.
	loopCtx, stopLoop := context.WithCancel(context.WithoutCancel(ctx))
	defer stopLoop()
	// Collected page views are written every second.
	collected := make(chan struct{})
	go func() { a.analytics.Run(loopCtx); close(collected) }()
	looped := make(chan error, 1)
	go func() { looped <- a.webhooks.RunDeliveries(loopCtx) }()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	logger.Info("listening", "addr", "http://"+ln.Addr().String(), "db", string(db.Dialect()))
	if ready != nil {
		ready(ln.Addr().String())
	}

	select {
	case err = <-served:
		// The listener failed; still stop the queue below.
	case <-ctx.Done():
		logger.Info("shutting down", "timeout", cfg.shutdownTimeout)
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.shutdownTimeout)
	defer cancel()
	if serr := srv.Shutdown(shutdownCtx); serr != nil {
		err = errors.Join(err, fmt.Errorf("shutdown: %w", serr))
	}
	stopLoop() // the attempts under way finish and are recorded; the last views are written
	select {
	case lerr := <-looped:
		err = errors.Join(err, lerr)
	case <-shutdownCtx.Done():
		err = errors.Join(err, errors.New("shutdown: webhook deliveries still under way"))
	}
	select {
	case <-collected:
	case <-shutdownCtx.Done():
	}
	if qerr := a.queue.Stop(shutdownCtx); qerr != nil {
		err = errors.Join(err, qerr)
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	if err == nil {
		logger.Info("stopped")
	}
	return err
}

// logRequests logs a line per request: at info every one in every (all
// when every is 0 or 1, none when negative), and always at error for a
// 5xx to a client still waiting for it.
func logRequests(next http.Handler, logger *slog.Logger, every int) http.Handler {
	if every < 0 && !logger.Enabled(context.Background(), slog.LevelError) {
		return next
	}
	var n atomic.Uint64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &api.StatusWriter{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		level := slog.LevelInfo
		switch {
		case rec.Status >= 500 && r.Context().Err() == nil:
			// (A 5xx to a client that went away is the client's doing.)
			level = slog.LevelError
		case every < 0:
			return
		case every > 1 && (n.Add(1)-1)%uint64(every) != 0:
			return
		}
		logger.LogAttrs(r.Context(), level, "request",
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", rec.Status), slog.Duration("duration", time.Since(start)))
	})
}

// recoverPanics answers 500 for a handler that panics, and logs the
// stack: a panic is a bug.
func recoverPanics(next http.Handler, logger *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				logger.Error("handler panicked", "method", r.Method, "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
				api.WriteMessage(w, http.StatusInternalServerError, api.MsgServerError)
			}
		}()
		next.ServeHTTP(w, r)
	})
}
