package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
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
	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/internal/web"
	"github.com/groundwork-go/groundwork/link"
	"github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/metrics"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportinggoogle"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/driverless"
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
	// apiDoc describes the JSON routes (GET /openapi.json);
	// jsonHandlers are the handlers of those routes, by name.
	apiDoc       *groundwork.OpenAPI
	jsonHandlers map[string]any
	// pageRoutes are the routes that answer HTML pages (not in apiDoc).
	pageRoutes []string
	// metrics are kept when --metrics-addr is set; nil otherwise.
	metrics *metrics.Metrics
	// stopping is set when shutdown begins (/readyz answers 503);
	// migrated once the schema was found current.
	stopping, migrated atomic.Bool
}

// handlers are every handler the server mounts, made by the wiring steps
// of newApp in turn.
type handlers struct {
	auth           *auth.Handler
	signIn         *auth.Web
	color, colorAI *a11y.Handler
	forms          *forms.Handler
	formPages      *forms.PageHandler
	formSummary    *forms.SummaryPage
	webhooks       *webhooks.Handler
	inbound        *webhooks.InboundHandler
	portal         *webhooks.PortalHandler
	bookings       *bookings.Handler
	bookingsAdmin  *bookings.AdminHandler
	bookingPages   *bookings.PageHandler
	bookingFeeds   *bookings.FeedHandler
	calendarPages  *bookings.CalendarsPageHandler
	bookingList    *bookings.ListPage
	listAdmin      *emaillist.AdminHandler
	listSubscribe  *emaillist.SubscribeHandler
	reports        *reportingParts
	// site is the server's own pages: home, dashboard, error pages.
	site *site
}

// wiring is what every wiring step of newApp reads.
type wiring struct {
	cfg *config
	// keys are every key the domains take, from the one secret key.
	keys   groundwork.Keys
	logger *slog.Logger
	// limiter counts every throttle; web is the HTTP options every
	// handler takes.
	limiter groundwork.RateLimiter
	web     groundwork.HTTPOptions
	h       handlers
	// meter is the services' Meter: the metrics, nil when off.
	meter groundwork.Meter
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
	// One budget per throttle across instances on Postgres; a single
	// SQLite instance counts in memory.
	var limiter groundwork.RateLimiter = driverless.NewMemoryRateLimiter(nil)
	if db.Dialect() == store.Postgres {
		limiter = store.NewSQLRateLimiter(db, nil)
	}
	// Every handler takes the same logger, limiter, proxies and address.
	keys, err := groundwork.NewKeys(secretKey)
	if err != nil {
		return nil, err
	}
	w := &wiring{cfg: cfg, keys: keys, logger: logger, limiter: limiter,
		web: groundwork.HTTPOptions{RateLimiter: limiter, TrustedProxies: cfg.trustedProxies, BaseURL: cfg.baseURL, Logger: logger,
			Brand: groundwork.Brand{Name: cfg.siteName}}}
	if cfg.metricsAddr != "" {
		a.metrics = metrics.New()
		w.meter = a.metrics
	}
	for _, step := range []func(*wiring) error{a.wireAuth, a.wireSignIn, a.wireA11y, a.wireForms, a.wireWebhooks, a.wireBookings, a.wireEmaillist,
		a.wireReporting, a.wireSite} {
		if err := step(w); err != nil {
			return nil, err
		}
	}
	a.handler, a.routes = a.mount(w)
	if a.metrics != nil {
		a.handler = a.metrics.Instrument(a.handler, routes)
	}
	return a, nil
}

// wireAuth: tokens and users, lock-outs counted in the database (so they
// hold across instances), verification links signed with a key derived
// from the secret key, mail queued for the server's mailer.
func (a *app) wireAuth(w *wiring) error {
	var err error
	if a.tokens, err = auth.NewService(authsql.New(a.db), &auth.Options{Key: w.keys.SignIn(), Mailer: a.mailer, Enqueuer: a.queue,
		MailFrom: w.cfg.mailFrom, LoginLimiter: store.NewSQLRateLimiter(a.db, nil), AppName: "groundwork", Logger: w.logger,
		Meter: w.meter}); err != nil {
		return err
	}
	if err := auth.RegisterWorkers(a.queue.Workers(), a.tokens); err != nil {
		return err
	}
	a.queue.AddPeriodicJobs(auth.PeriodicJobs()...)
	w.h.auth, err = auth.NewHandler(a.tokens, &auth.HandlerOptions{HTTPOptions: w.web, APILimit: w.cfg.limits.api})
	return err
}

// wireA11y: the colour endpoints at /api/a11y, and again at
// /api/v1/a11y (the PHP package's address) with the AI endpoints beside
// them.
func (a *app) wireA11y(w *wiring) error {
	var err error
	if a.colors, err = a11y.NewService(&a11y.Options{Logger: w.logger}); err != nil {
		return err
	}
	aiOpts := w.cfg.ai
	aiOpts.Logger = w.logger
	ai, err := a11yai.NewAI(a.colors, &aiOpts)
	if err != nil {
		return err
	}
	o := a11y.HandlerOptions{HTTPOptions: w.web, APILimit: w.cfg.limits.api, Tokens: a.tokens}
	if w.h.color, err = a11y.NewHandler(a.colors, &o); err != nil {
		return err
	}
	o.Prefix, o.AI = "/api/v1/a11y", ai
	w.h.colorAI, err = a11y.NewHandler(a.colors, &o)
	return err
}

// wireForms: the API, the no-JavaScript pages, files in a directory, and
// notifications sent from the queue.
func (a *app) wireForms(w *wiring) error {
	var err error
	if a.blobs, err = forms.NewDirBlobStore(w.cfg.uploads); err != nil {
		return err
	}
	if a.forms, err = forms.NewService(formssql.New(a.db), &forms.Options{Enqueuer: a.queue, Mailer: a.mailer, MailFrom: w.cfg.mailFrom,
		AdminRecipients: w.cfg.adminEmail, Blobs: a.blobs, FormTokenKey: w.keys.FormTokens(),
		FormTokenOptional: w.cfg.formTokensOptional, FormTokenUses: w.limiter, Logger: w.logger,
		Meter: w.meter}); err != nil {
		return err
	}
	if err := forms.RegisterWorkers(a.queue.Workers(), a.forms); err != nil {
		return err
	}
	a.queue.AddPeriodicJobs(forms.PeriodicJobs()...)
	if w.h.forms, err = forms.NewHandler(a.forms, &forms.HandlerOptions{HTTPOptions: w.web, Tokens: a.tokens, SubmitLimit: w.cfg.limits.formsSubmit}); err != nil {
		return err
	}
	w.h.formPages, err = forms.NewPageHandler(a.forms, &forms.PageOptions{HTTPOptions: w.web, SubmitLimit: w.cfg.limits.formsSubmit,
		FlashKey: w.keys.PageFlash(), Respondent: signedInUser})
	return err
}

// wireWebhooks: subscriptions and their API, deliveries from the queue, a
// form.submitted event for every accepted submission, and the inbound
// endpoint.
func (a *app) wireWebhooks(w *wiring) error {
	var err error
	hooks := w.cfg.webhooks
	hooks.meter = w.meter
	if a.webhooks, err = newWebhooks(hooks, w.keys.WebhookSecrets(), a.db, a.queue, w.logger); err != nil {
		return err
	}
	if err := link.FormsToWebhooks(a.forms, a.webhooks); err != nil {
		return err
	}
	if w.h.webhooks, err = webhooks.NewHandler(a.webhooks, a.tokens, &webhooks.HandlerOptions{HTTPOptions: w.web,
		Idempotency: store.NewIdempotency(a.db, nil)}); err != nil {
		return err
	}
	if w.h.portal, err = webhooks.NewPortalHandler(a.webhooks, &webhooks.PortalOptions{HTTPOptions: w.web,
		Key: w.keys.PageFlash()}); err != nil {
		return err
	}
	w.h.inbound, err = webhooks.NewInboundHandler(a.webhooks, &webhooks.InboundHandlerOptions{HTTPOptions: w.web,
		PerIP: w.cfg.limits.inboundIP, PerProvider: w.cfg.limits.inboundProvider})
	return err
}

// wireSignIn: the sign-in pages, with the dashboard as the signed-in
// user's home; from here on every page's header shows whoever is signed
// in, with the reports for those who may see them.
func (a *app) wireSignIn(w *wiring) error {
	w.h.site = &site{adminEmail: w.cfg.adminEmail, logger: w.logger}
	if w.cfg.baseURL != nil {
		w.h.site.publicOrigin = publicOrigin(w.cfg)
	}
	links := append(auth.NavLinksDefault(auth.HomePathDefault), groundwork.NavLink{Text: "Reports", URL: "/reporting", Capability: reporting.CapabilityView},
		groundwork.NavLink{Text: "Form answers", URL: forms.SummaryPathDefault + "/", Capability: forms.CapabilityViewAnswers},
		groundwork.NavLink{Text: "Bookings", URL: bookings.ListPagePrefixDefault + "/", Capability: bookings.CapabilityViewBookings})
	var err error
	// A session's place comes from the analytics' country lookup, wired
	// later; none until then, and none when it is not configured.
	place := func(r *http.Request) string {
		if w.h.reports == nil || w.h.reports.country == nil {
			return ""
		}
		return w.h.reports.country(r)
	}
	w.h.signIn, err = auth.NewWeb(a.tokens, &auth.WebOptions{HTTPOptions: w.web, LogoutPath: "/login", Home: http.HandlerFunc(w.h.site.dashboard), Place: place,
		TokenAbilities: knownAbilities, NavLinks: links, AdminContact: w.cfg.adminEmail})
	w.web.Navigator = w.h.signIn
	return err
}

// wireSite: the home page, the dashboard and the error pages, in the same
// layout as every other page.
func (a *app) wireSite(w *wiring) error {
	s := w.h.site
	s.forms = a.forms
	var err error
	s.render, err = web.New(web.Options{Pages: pagesFS, AssetPrefix: auth.AssetPrefix, Logger: w.logger, Brand: w.web.Brand, Navigator: w.web.Navigator})
	if err != nil {
		return err
	}
	if w.h.formSummary, err = forms.NewSummaryPage(a.forms, &forms.SummaryPageOptions{HTTPOptions: w.web, Key: w.keys.PageFlash(),
		Allow: answersAllowed}); err != nil {
		return err
	}
	a.jsonHandlers = jsonHandlers(&w.h)
	a.pageRoutes = slices.Concat(w.h.signIn.Routes(), w.h.formPages.Routes(), w.h.formSummary.Routes(), w.h.bookingPages.Routes(), w.h.calendarPages.Routes(), w.h.bookingList.Routes(), w.h.portal.Routes(), []string{"GET /docs/api"})
	if w.h.reports != nil {
		a.pageRoutes = append(a.pageRoutes, w.h.reports.dashboard.Routes()...)
	}
	var described []describer
	for _, name := range slices.Sorted(maps.Keys(a.jsonHandlers)) {
		if d, ok := a.jsonHandlers[name].(describer); ok {
			described = append(described, d)
		}
	}
	if a.apiDoc, err = apiDocument(described...); err != nil {
		return err
	}
	s.api, err = newAPIDocsPage(a.apiDoc)
	return err
}

// jsonHandlers are the handlers of JSON routes, by name: those that
// describe themselves make the OpenAPI document.
func jsonHandlers(h *handlers) map[string]any {
	out := map[string]any{"auth": h.auth, "a11y": h.color, "a11y AI": h.colorAI, "forms": h.forms, "webhooks": h.webhooks,
		"inbound webhooks": h.inbound, "bookings": h.bookings, "bookings admin": h.bookingsAdmin, "bookings feeds": h.bookingFeeds,
		"email-list admin": h.listAdmin, "email-list subscribe": h.listSubscribe}
	if h.reports != nil {
		out["reports"], out["analytics collection"] = h.reports.routes, h.reports.collect
		if h.reports.oauth != nil {
			out["google connection"] = h.reports.oauth
		}
	}
	return out
}

// wireBookings: the public API with holds, the admin API, the pages,
// the calendar feeds, events delivered as webhooks and mail.
func (a *app) wireBookings(w *wiring) error {
	sources, err := w.cfg.calendars.sources()
	if err != nil {
		return err
	}
	svc, err := bookings.NewService(bookingssql.New(a.db), &bookings.Options{FeedHost: feedHost(w.cfg.baseURL), Enqueuer: a.queue,
		Mailer: a.mailer, MailFrom: w.cfg.mailFrom, ManageURL: publicOrigin(w.cfg) + bookings.PagePrefixDefault + "/manage/{token}",
		SecretKey: w.keys.ManageLinks(), Logger: w.logger, Meter: w.meter, CalendarSources: sources})
	if err != nil {
		return err
	}
	if err := bookings.RegisterWorkers(a.queue.Workers(), svc); err != nil {
		return err
	}
	a.queue.AddPeriodicJobs(bookings.PeriodicJobs()...)
	if err := link.BookingsToWebhooks(svc, a.webhooks); err != nil {
		return err
	}
	w.h.site.bookings = svc
	if w.h.bookings, err = bookings.NewHandler(svc, &bookings.HandlerOptions{HTTPOptions: w.web, PostLimit: w.cfg.limits.bookingsPost,
		ReadLimit: w.cfg.limits.bookingsRead}); err != nil {
		return err
	}
	if w.h.bookingsAdmin, err = bookings.NewAdminHandler(svc, a.tokens, &bookings.AdminHandlerOptions{HTTPOptions: w.web,
		APILimit: w.cfg.limits.api}); err != nil {
		return err
	}
	if w.h.bookingPages, err = bookings.NewPageHandler(svc, &bookings.PageOptions{HTTPOptions: w.web, Key: w.keys.PageFlash(), Contact: w.cfg.bookingsContact,
		PostLimit: w.cfg.limits.bookingsPost}); err != nil {
		return err
	}
	if w.h.calendarPages, err = bookings.NewCalendarsPageHandler(svc, &bookings.CalendarsPageOptions{HTTPOptions: w.web,
		Key: w.keys.PageFlash()}); err != nil {
		return err
	}
	if w.h.bookingList, err = bookings.NewListPage(svc, &bookings.ListPageOptions{HTTPOptions: w.web, Key: w.keys.PageFlash(),
		Viewer: bookingViewer(svc)}); err != nil {
		return err
	}
	w.h.bookingFeeds, err = bookings.NewFeedHandler(svc, &bookings.FeedHandlerOptions{HTTPOptions: w.web, ICalLimit: w.cfg.limits.bookingsFeed})
	return err
}

// wireEmaillist: feeds fed by accepted submissions, their administration
// (a token with emailmarketing:* or a user with the capability), the
// public subscribe.
func (a *app) wireEmaillist(w *wiring) error {
	lists, err := newEmaillist(w.cfg.emaillist, a.db, a.queue, a.forms, w.logger)
	if err != nil {
		return err
	}
	if w.h.listAdmin, err = emaillist.NewAdminHandler(lists, requestAuthorizer(a.tokens), &emaillist.AdminHandlerOptions{HTTPOptions: w.web}); err != nil {
		return err
	}
	w.h.listSubscribe, err = emaillist.NewSubscribeHandler(lists, &emaillist.SubscribeHandlerOptions{HTTPOptions: w.web,
		Limit: w.cfg.emaillist.subscribeLimit})
	return err
}

// wireReporting: the first-party analytics (the server's own pages are
// counted), Google's sources when configured, the routes, the dashboard
// for users with view_search_reporting.
func (a *app) wireReporting(w *wiring) error {
	var err error
	c := w.cfg.reporting
	c.sites, c.collectLimit, c.meter = w.cfg.analyticsSites, w.cfg.limits.analyticsCollect, w.meter
	c.queue, c.mailer, c.mailFrom, c.siteName = a.queue, a.mailer, w.cfg.mailFrom, w.cfg.siteName
	c.dashboardURL = publicOrigin(w.cfg) + "/reporting"
	if w.h.reports, err = newReporting(c, a.db, a.tokens, w.keys, w.web); err != nil {
		return err
	}
	a.analytics = w.h.reports.analytics
	// Submissions and bookings count on the server, as the visitor whose
	// request made them (mount wraps every handler in CarryVisitor).
	if err := link.FormsToAnalytics(a.forms, a.analytics, publicOrigin(w.cfg)); err != nil {
		return err
	}
	// The forms' summaries count their pages' views.
	if err := link.AnalyticsToForms(a.forms, a.analytics, forms.PagePrefixDefault); err != nil {
		return err
	}
	return link.BookingsToAnalytics(w.h.site.bookings, a.analytics, publicOrigin(w.cfg))
}

// mount puts every handler on one mux, behind the request log and the
// panic guard, and lists their routes.
func (a *app) mount(w *wiring) (http.Handler, []string) {
	h, cfg, logger := &w.h, w.cfg, w.logger
	signIn, reports := h.signIn, h.reports
	mux := http.NewServeMux()
	visitor := reporting.VisitorOptions{TrustedProxies: cfg.trustedProxies, BaseURL: cfg.baseURL}
	mux.Handle("/search-reporting/", signIn.LoadUser(reports.routes))
	mux.Handle("/analytics-reporting/", signIn.LoadUser(reports.routes))
	mux.Handle("/analytics-goals", signIn.LoadUser(reports.routes))
	mux.Handle("/analytics-goals/", signIn.LoadUser(reports.routes))
	mux.Handle("/analytics-shared-links", signIn.LoadUser(reports.routes))
	mux.Handle("/analytics-shared-links/", signIn.LoadUser(reports.routes))
	mux.Handle("/analytics-email-reports", signIn.LoadUser(reports.routes))
	mux.Handle("/analytics-email-reports/", signIn.LoadUser(reports.routes))
	mux.Handle(reporting.CollectPrefixDefault+"/", reports.collect)
	dashboardGuard := signIn.RequireCapability(reporting.CapabilityView)
	mux.Handle("/reporting", dashboardGuard(reports.dashboard))
	mux.Handle("/reporting/", dashboardGuard(reports.dashboard))
	mux.Handle(reporting.SharedPathDefault+"/", reports.dashboard) // read-only links: their token is their guard
	if reports.oauth != nil {
		mux.Handle(reportinggoogle.OAuthPrefixDefault+"/", signIn.Protect(signIn.LoadUser(reports.oauth)))
	}
	mux.Handle(emaillist.AdminPrefixDefault+"/", signIn.Protect(signIn.LoadUser(h.listAdmin)))
	mux.Handle(emaillist.SubscribePrefixDefault+"/", h.listSubscribe)
	mux.Handle(bookings.FeedPrefixDefault+"/", h.bookingFeeds)
	mux.Handle(bookings.PrefixDefault, h.bookings)
	mux.Handle(bookings.PrefixDefault+"/", h.bookings)
	mux.Handle(bookings.AdminPrefixDefault+"/", h.bookingsAdmin)
	mux.Handle(bookings.PagePrefixDefault+"/", reports.analytics.TrackViews(h.bookingPages, visitor, logger))
	mux.Handle(bookings.CalendarsPagePrefixDefault+"/", h.calendarPages)
	signIn.Mount(mux)
	mux.Handle(webhooks.PrefixDefault+"/", h.webhooks)
	mux.Handle(webhooks.InboundPrefixDefault+"/", h.inbound)
	mux.Handle(webhooks.PortalPrefixDefault+"/", h.portal)
	mux.HandleFunc("GET /healthz", a.healthz)
	mux.HandleFunc("GET /readyz", a.readyz)
	mux.HandleFunc("GET /{$}", h.site.home)
	mux.Handle("GET /openapi.json", a.apiDoc)
	mux.HandleFunc("GET /docs/api", h.site.apiDocs)
	mux.Handle(auth.PrefixDefault+"/", h.auth)
	mux.Handle(a11y.PrefixDefault+"/", h.color)
	mux.Handle(forms.PrefixDefault, h.forms)
	mux.Handle(forms.PrefixDefault+"/", h.forms)
	// The form pages know who is signed in, for forms that take one
	// response a person.
	mux.Handle(forms.PagePrefixDefault+"/", reports.analytics.TrackViews(signIn.LoadUser(h.formPages), visitor, logger))
	// The answers: for readers of answers, and for users given the forms
	// API's reading ability as a capability.
	mux.Handle(forms.SummaryPathDefault+"/", signIn.RequireAnyCapability(forms.CapabilityViewAnswers, forms.AbilityViewAny)(h.formSummary))
	mux.Handle(bookings.ListPagePrefixDefault+"/", signIn.RequireUser(h.bookingList))
	mux.Handle("/api/v1/a11y/", h.colorAI)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		api.WriteError(w, r, logger, nil, api.ErrNotFound)
	})
	routes := slices.Concat(h.auth.Routes(), signIn.Routes(), h.color.Routes(), h.colorAI.Routes(), h.forms.Routes(),
		h.formPages.Routes(), h.formSummary.Routes(), h.webhooks.Routes(), h.inbound.Routes(), h.bookings.Routes(), h.bookingsAdmin.Routes(), h.bookingPages.Routes(),
		h.calendarPages.Routes(), h.bookingList.Routes(), h.portal.Routes(), h.bookingFeeds.Routes(), h.listAdmin.Routes(), h.listSubscribe.Routes(), reports.routes.Routes(), reports.collect.Routes(),
		reports.dashboard.Routes())
	if reports.oauth != nil {
		routes = append(routes, reports.oauth.Routes()...)
	}
	body, upload := cmp.Or(cfg.bodyTimeout, api.BodyTimeoutDefault), cmp.Or(cfg.uploadTimeout, api.UploadTimeoutDefault)
	visitors := reporting.CarryVisitor(mux, visitor)
	return h.site.pages(recoverPanics(logRequests(api.WithBodyDeadline(visitors, body, upload), logger, cfg.requestLogEvery), logger)), routes
}

// readyz answers 200 when the instance can take traffic: not stopping,
// the database answers, its schema is current, the job queue runs and,
// after a request the database refused, it takes a write again; else 503
// with the reasons.
func (a *app) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	var reasons []string
	if a.stopping.Load() {
		reasons = append(reasons, "shutting down")
	}
	if err := a.db.Ping(ctx); err != nil {
		reasons = append(reasons, "the database does not answer")
	} else if !a.migrated.Load() {
		switch pending, err := store.Pending(ctx, a.db, migrations...); {
		case err != nil:
			reasons = append(reasons, "the schema could not be read")
		case len(pending) > 0:
			reasons = append(reasons, "migrations not applied: "+strings.Join(pending, ", "))
		default:
			a.migrated.Store(true)
		}
	}
	if !a.queue.Running() {
		reasons = append(reasons, "the job queue is not running")
	}
	// After a request the database refused (a read-only file or a full
	// disk let a ping through), a write tells whether it takes writes
	// again.
	if o, ok := api.LastOutage(); ok && len(reasons) == 0 {
		if err := a.probeWrite(ctx); err != nil {
			cause, _ := driverless.Unavailable(err)
			reasons = append(reasons, "writes fail: "+cmp.Or(cause, err.Error()))
		} else {
			api.OutageOver(o)
		}
	}
	if len(reasons) > 0 {
		reply.WriteJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "unavailable", "reasons": reasons})
		return
	}
	reply.WriteJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// probeWrite writes one row of the shared rate-limit table (a key no
// limiter uses, already reset), so a database that reads but does not
// write is seen.
func (a *app) probeWrite(ctx context.Context) error {
	_, err := a.db.ExecContext(ctx, a.db.Rebind(`INSERT INTO groundwork_rate_limits (key, hits, reset_at) VALUES ('readyz:probe', 0, ?)
		ON CONFLICT (key) DO UPDATE SET reset_at = excluded.reset_at`), time.Now().UTC())
	return err
}

func (a *app) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := a.db.Ping(ctx); err != nil {
		reply.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
		return
	}
	reply.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func index(w http.ResponseWriter, _ *http.Request) {
	reply.WriteJSON(w, http.StatusOK, map[string]any{"name": "groundwork reference server", "endpoints": endpoints()})
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
	if a.metrics != nil {
		// The metrics on a listener of their own, never the public one.
		mln, err := net.Listen("tcp", cfg.metricsAddr)
		if err != nil {
			ln.Close()
			return errors.Join(fmt.Errorf("metrics listener: %w", err), a.queue.Stop(context.WithoutCancel(ctx)))
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", a.metrics.Handler())
		metricsSrv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = metricsSrv.Serve(mln) }()
		defer metricsSrv.Close()
		go a.metrics.WatchQueue(loopCtx, a.queue)
		logger.Info("metrics", "addr", "http://"+mln.Addr().String()+"/metrics")
	}
	// Collected page views are written every second, until the last
	// request and job that may count one have ended.
	collectCtx, stopCollecting := context.WithCancel(context.WithoutCancel(ctx))
	defer stopCollecting()
	collected := make(chan struct{})
	go func() { a.analytics.Run(collectCtx); close(collected) }()
	looped := make(chan error, 1)
	go func() { looped <- a.webhooks.RunDeliveries(loopCtx) }()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	logger.Info("listening", "addr", "http://"+ln.Addr().String(), "db", string(db.Dialect()))
	if cfg.baseURL == nil && !loopback(ln.Addr()) {
		logger.Warn("listening beyond loopback without --base-url: links in mail point at the listening address; "+
			"set --base-url (GROUNDWORK_BASE_URL) to the address people use", "addr", ln.Addr().String())
	}
	if ready != nil {
		ready(ln.Addr().String())
	}

	select {
	case err = <-served:
		// The listener failed; still stop the queue below.
	case <-ctx.Done():
		a.stopping.Store(true)
		if cfg.drainDelay > 0 {
			// Still serving, /readyz at 503: a load balancer takes the
			// instance out before it stops taking requests.
			logger.Info("draining", "delay", cfg.drainDelay)
			select {
			case err = <-served:
			case <-time.After(cfg.drainDelay):
			}
		}
		logger.Info("shutting down", "timeout", cfg.shutdownTimeout)
	}
	a.stopping.Store(true)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.shutdownTimeout)
	defer cancel()
	if serr := srv.Shutdown(shutdownCtx); serr != nil {
		err = errors.Join(err, fmt.Errorf("shutdown: %w", serr))
	}
	stopLoop() // the attempts under way finish and are recorded
	select {
	case lerr := <-looped:
		err = errors.Join(err, lerr)
	case <-shutdownCtx.Done():
		err = errors.Join(err, errors.New("shutdown: webhook deliveries still under way"))
	}
	if qerr := a.queue.Stop(shutdownCtx); qerr != nil {
		err = errors.Join(err, qerr)
	}
	// Every view answered 202 (or counted by a job) is written, however
	// long the backlog takes (the collector says how far it has got); a
	// second signal ends the process at once (main).
	stopCollecting()
	<-collected
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
		case rec.Status >= 500 && r.Context().Err() == nil && !comeBack(rec):
			// (A 5xx to a client that went away is the client's doing;
			// a 503 to come back to is logged, once in a while, where
			// it is made.)
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

// comeBack reports whether an answer is a 503 that says when to come
// back: the database away for a moment, or too many views waiting.
func comeBack(rec *api.StatusWriter) bool {
	return rec.Status == http.StatusServiceUnavailable && rec.Header().Get("Retry-After") != ""
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
				reply.WriteMessage(w, http.StatusInternalServerError, reply.MsgServerError)
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// answersAllowed is who may do what on the answers pages: what the
// forms API's ability allows, held as a capability; reading also with
// view_form_answers, changing also with manage_form_answers.
func answersAllowed(r *http.Request, ability string) bool {
	u, ok := auth.UserFrom(r.Context())
	if !ok {
		return false
	}
	switch ability {
	case forms.AbilityUpdate:
		return u.Can(ability) || u.Can(forms.CapabilityManageAnswers)
	default:
		return u.Can(ability) || u.Can(forms.CapabilityViewAnswers)
	}
}

// loopback reports whether a is a loopback address only (not every
// interface).
func loopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// signedInUser names the signed-in user of a request the sign-in pages
// loaded ("user:<id>"), for forms that take one response a person.
func signedInUser(r *http.Request) (string, bool) {
	u, ok := auth.UserFrom(r.Context())
	if !ok {
		return "", false
	}
	return "user:" + strconv.FormatInt(u.ID, 10), true
}
