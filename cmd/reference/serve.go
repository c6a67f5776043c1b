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
	"net/url"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/a11y"
	"github.com/groundwork-go/groundwork/a11y/a11yai"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/auth/openid"
	"github.com/groundwork-go/groundwork/auth/openid/openidsql"
	"github.com/groundwork-go/groundwork/auth/orgs"
	"github.com/groundwork-go/groundwork/auth/orgs/orgssql"
	"github.com/groundwork-go/groundwork/auth/useradmin"
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/bookings/bookingsstripe"
	"github.com/groundwork-go/groundwork/bookings/calendars"
	"github.com/groundwork-go/groundwork/bookings/calendars/calendarssql"
	"github.com/groundwork-go/groundwork/bookings/waitlist"
	"github.com/groundwork-go/groundwork/bookings/waitlist/waitlistsql"
	"github.com/groundwork-go/groundwork/emaillist"
	"github.com/groundwork-go/groundwork/emaillist/emaillistsql"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/forms/formsstripe"
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
	"github.com/groundwork-go/groundwork/tenant"
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
		err = checkSecretKey(store.CheckKey(ctx, db, store.SecretKeyName, secretKey), secretKey)
	}
	if err == nil {
		err = store.MigrateWithOptions(ctx, db, &store.MigrateOptions{Logger: logger}, migrations...)
	}
	if err == nil && secretKey != nil {
		err = checkSecretKey(store.RecordKey(ctx, db, store.SecretKeyName, secretKey), secretKey)
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

// app is the wired server: the environment every module joined, and
// what the reference's own pages and commands read.
type app struct {
	env      *store.Env
	db       *store.DB
	queue    *store.Queue
	mailer   mail.Mailer
	tokens   *auth.Service
	colors   *a11y.Service
	forms    *forms.Service
	blobs    *forms.DirBlobStore
	webhooks *webhooks.Service
	// analytics collects page views in the background.
	analytics *reporting.Analytics
	// The modules, as a host joins them.
	auth           *auth.Module
	formsModule    *forms.Module
	bookingsModule *bookings.Module
	calendars      *calendars.Module
	waitlist       *waitlist.Module
	webhooksModule *webhooks.Module
	listsModule    *emaillist.Module
	// orgs are the users' organizations, each a tenant (--organizations);
	// nil when off.
	orgs       *orgs.Service
	orgsModule *orgs.Module
	// openID signs users in with an OpenID provider (--openid-issuer);
	// nil when off.
	openID *openid.Handler
	// userAdmin is the administrators' users page.
	userAdmin *useradmin.Handler
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
	calendarPages  *calendars.PageHandler
	calendarsAdmin *calendars.AdminHandler
	waitlist       *waitlist.Handler
	waitlistPages  *waitlist.PageHandler
	bookingList    *bookings.ListPage
	listAdmin      *emaillist.AdminHandler
	listSubscribe  *emaillist.SubscribeHandler
	reports        *reportingParts
	// site is the server's own pages: home, dashboard, error pages.
	site *site
}

// wiring is what every wiring step of newApp reads.
type wiring struct {
	cfg    *config
	logger *slog.Logger
	// web is the HTTP options every handler takes (the environment's,
	// once the sign-in pages are made).
	web groundwork.HTTPOptions
	h   handlers
	// meter is the services' Meter: the metrics, nil when off.
	meter groundwork.Meter
}

// newApp joins every domain to one environment on db, as any host does,
// and mounts them with the reference's own pages.
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
	w := &wiring{cfg: cfg, logger: logger}
	if cfg.metricsAddr != "" {
		a.metrics = metrics.New()
		w.meter = a.metrics
	}
	origin, err := url.Parse(publicOrigin(cfg))
	if err != nil {
		return nil, err
	}
	// Every handler takes the same logger, limiter (one budget per
	// throttle across instances on Postgres, in memory on SQLite),
	// proxies and address.
	if a.env, err = store.EnvOn(db, &store.EnvOptions{Secret: secretKey, Mailer: a.mailer, MailFrom: cfg.mailFrom, Logger: logger, Meter: w.meter,
		BaseURL: origin, HTTP: groundwork.HTTPOptions{TrustedProxies: cfg.trustedProxies, Brand: groundwork.Brand{Name: cfg.siteName}},
		Queue: &store.QueueOptions{Logger: logger, Queues: map[string]int{webhooksQueue: webhooksWorkers}}}); err != nil {
		return nil, err
	}
	// Links are made from the address a request came in on unless one
	// is configured.
	a.env.HTTP.BaseURL = cfg.baseURL
	a.queue = a.env.Queue
	for _, step := range []func(*wiring) error{a.wireAuth, a.wireA11y, a.wireForms, a.wireWebhooks, a.wireBookings, a.wireEmaillist,
		a.wireReporting, a.link, a.wireSite} {
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
// from the secret key, mail queued for the server's mailer; the sign-in
// pages, with the dashboard as the signed-in user's home: from here on
// every page's header shows whoever is signed in, with the reports for
// those who may see them.
func (a *app) wireAuth(w *wiring) error {
	w.h.site = &site{adminEmail: w.cfg.adminEmail, logger: w.logger}
	if w.cfg.baseURL != nil {
		w.h.site.publicOrigin = publicOrigin(w.cfg)
	}
	links := append(auth.NavLinksDefault(auth.HomePathDefault), groundwork.NavLink{Text: "Reports", URL: "/reporting", Capability: reporting.CapabilityView},
		groundwork.NavLink{Text: "Form answers", URL: forms.SummaryPathDefault + "/", Capability: forms.CapabilityViewAnswers},
		groundwork.NavLink{Text: "Bookings", URL: bookings.ListPagePrefixDefault + "/", Capability: bookings.CapabilityViewBookings})
	if w.cfg.organizations {
		links = append(links, groundwork.NavLink{Text: "Organizations", URL: orgs.PagePrefixDefault})
	}
	links = append(links, groundwork.NavLink{Text: "Users", URL: useradmin.PagePath, Capability: useradmin.Capability})
	// A session's place comes from the analytics' country lookup, wired
	// later; none until then, and none when it is not configured.
	place := func(r *http.Request) string {
		if w.h.reports == nil || w.h.reports.country == nil {
			return ""
		}
		return w.h.reports.country(r)
	}
	var signInWith, profileLinks []groundwork.NavLink
	if len(w.cfg.signInWith) > 0 {
		signInWith = openid.SignInButtons(w.cfg.signInWith)
		profileLinks = []groundwork.NavLink{{Text: "Accounts you sign in with", URL: openid.PagePath}}
	}
	m, err := authsql.Join(a.env, &auth.ModuleOptions{Service: auth.Options{AppName: "groundwork"},
		API: auth.HandlerOptions{APILimit: w.cfg.limits.api},
		Web: &auth.WebOptions{LogoutPath: "/login", Home: http.HandlerFunc(w.h.site.dashboard), Place: place,
			TokenAbilities: knownAbilities, NavLinks: links, AdminContact: w.cfg.adminEmail, SignInLinks: true,
			SignInWith: signInWith, ProfileLinks: profileLinks}})
	if err != nil {
		return err
	}
	a.auth, a.tokens, w.h.auth, w.h.signIn = m, m.Service, m.API, m.Web
	if len(signInWith) > 0 {
		if a.openID, err = openidsql.Join(a.env, openid.Options{Providers: w.cfg.signInWith, Users: a.tokens, SignIn: w.h.signIn}); err != nil {
			return err
		}
	}
	w.web = a.env.HTTPOptions(groundwork.HTTPOptions{})
	if w.cfg.organizations {
		// The organizations page is a signed-in user's; invitations are
		// mailed from the queue; a bearer token's tenant is known before
		// the routes the host authorizes itself.
		signIn := w.h.signIn
		m, err := orgssql.Join(a.env, &orgs.ModuleOptions{Service: orgs.Options{AppName: w.cfg.siteName, Tokens: a.tokens},
			Guard: func(h http.Handler) http.Handler { return signIn.LoadUser(signIn.RequireUser(h)) }})
		if err != nil {
			return err
		}
		a.orgs, a.orgsModule = m.Service, m
		// Who leaves an organization takes none of its data along: the
		// tokens they made for it stop.
		a.orgs.OnMemberLeft(func(ctx context.Context, m orgs.Membership) {
			revokeTokensOf(ctx, a.tokens, m.UserID, tenant.AbilityPrefix+m.Tenant(), w.logger)
		})
	}
	return a.wireUserAdmin(w)
}

// wireUserAdmin: the users' page, for those with its capability, with
// each user's organizations when there are organizations.
func (a *app) wireUserAdmin(w *wiring) error {
	o := useradmin.Options{Users: a.tokens, SignIn: w.h.signIn}
	if a.orgs != nil {
		o.Organizations = func(ctx context.Context, userID int64) ([]useradmin.Membership, error) {
			ms, err := a.orgs.Organizations(ctx, userID)
			out := make([]useradmin.Membership, len(ms))
			for i, m := range ms {
				out[i] = useradmin.Membership{Name: m.Name, Role: string(m.Role)}
			}
			return out, err
		}
	}
	var err error
	a.userAdmin, err = useradmin.Join(a.env, o)
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

// wireForms: the API, the no-JavaScript pages (which know who is signed
// in, for forms that take one response a person), files in a directory,
// notifications sent from the queue, and the answers pages for readers
// of answers and users given the forms API's reading ability as a
// capability.
func (a *app) wireForms(w *wiring) error {
	var err error
	if a.blobs, err = forms.NewDirBlobStore(w.cfg.uploads); err != nil {
		return err
	}
	limit := w.cfg.limits.formsSubmit
	// Paid forms with Stripe's key and its webhooks' secret, as paid
	// bookings.
	var payments forms.Payments
	if stripe := w.cfg.webhooks.stripe; stripe.APIKey != "" && len(stripe.WebhookSecrets) > 0 {
		if payments, err = formsstripe.New(formsstripe.Options{APIKey: stripe.APIKey, APIBase: stripe.APIBase}); err != nil {
			return err
		}
	}
	m, err := formssql.Join(a.env, &forms.ModuleOptions{
		Service: forms.Options{AdminRecipients: w.cfg.adminEmail, Blobs: a.blobs, FormTokenOptional: w.cfg.formTokensOptional,
			Payments: payments, GoogleClientID: w.cfg.sheetsID, GoogleClientSecret: w.cfg.sheetsSecret},
		API:          forms.HandlerOptions{Tokens: a.tokens, SubmitLimit: limit},
		Pages:        forms.PageOptions{SubmitLimit: limit, Respondent: signedInUser, FrameOrigins: w.cfg.frameOrigins},
		Summary:      &forms.SummaryPageOptions{Allow: answersAllowed},
		SummaryGuard: w.h.signIn.RequireAnyCapability(forms.CapabilityViewAnswers, forms.AbilityViewAny)})
	if err != nil {
		return err
	}
	m.WrapPages(w.h.signIn.LoadUser)
	a.formsModule, a.forms = m, m.Service
	w.h.forms, w.h.formPages, w.h.formSummary = m.API, m.Pages, m.Summary
	return nil
}

// wireWebhooks: subscriptions and their API, deliveries from the queue
// and the delivery loop, the inbound endpoint and the portal.
func (a *app) wireWebhooks(w *wiring) error {
	hooks := w.cfg.webhooks
	hooks.meter = w.meter
	m, err := webhookssql.Join(a.env, &webhooks.ModuleOptions{Service: webhooksOptions(hooks, nil, nil), Tokens: a.tokens,
		Inbound: webhooks.InboundHandlerOptions{PerIP: w.cfg.limits.inboundIP, PerProvider: w.cfg.limits.inboundProvider}})
	if err != nil {
		return err
	}
	if err := setUpWebhooks(m.Service, hooks); err != nil {
		return err
	}
	a.webhooksModule, a.webhooks = m, m.Service
	w.h.webhooks, w.h.inbound, w.h.portal = m.API, m.Inbound, m.Portal
	return nil
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
	a.jsonHandlers = jsonHandlers(&w.h)
	a.pageRoutes = slices.Concat(w.h.signIn.Routes(), w.h.formPages.Routes(), w.h.formSummary.Routes(), w.h.bookingPages.Routes(), w.h.calendarPages.Routes(), w.h.waitlistPages.Routes(),
		w.h.bookingList.Routes(), w.h.portal.Routes(), []string{"GET /docs/api"})
	if w.h.reports != nil {
		a.pageRoutes = append(a.pageRoutes, w.h.reports.dashboard.Routes()...)
	}
	if a.orgsModule != nil {
		a.pageRoutes = append(a.pageRoutes, a.orgsModule.Routes()...)
	}
	a.pageRoutes = append(a.pageRoutes, a.userAdmin.Routes()...)
	if a.openID != nil {
		a.pageRoutes = append(a.pageRoutes, a.openID.Routes()...)
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
		"calendars admin": h.calendarsAdmin, "waitlist": h.waitlist,
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
// the calendar feeds and pages, the owner's list, the waitlists, events
// delivered as webhooks and mail.
func (a *app) wireBookings(w *wiring) error {
	sources, err := w.cfg.calendars.sources()
	if err != nil {
		return err
	}
	l := w.cfg.limits
	// The owner's list shows each provider their own bookings (the
	// service is made by Join).
	var viewer func(*http.Request) (bool, int64, bool)
	// Paid bookings with Stripe's key and its webhooks' secret: the
	// checkout through the one, its settlement through the other.
	var payments bookings.Payments
	if stripe := w.cfg.webhooks.stripe; stripe.APIKey != "" && len(stripe.WebhookSecrets) > 0 {
		if payments, err = bookingsstripe.New(bookingsstripe.Options{APIKey: stripe.APIKey, APIBase: stripe.APIBase}); err != nil {
			return err
		}
	}
	m, err := bookingssql.Join(a.env, &bookings.ModuleOptions{
		Service: bookings.Options{FeedHost: cmp.Or(feedHost(w.cfg.baseURL), bookings.FeedHostDefault), Payments: payments},
		Tokens:  a.tokens,
		API:     bookings.HandlerOptions{PostLimit: l.bookingsPost, ReadLimit: l.bookingsRead},
		Admin:   bookings.AdminHandlerOptions{APILimit: l.api},
		Pages: bookings.PageOptions{Contact: w.cfg.bookingsContact, PostLimit: l.bookingsPost, Waitlist: waitlist.PagePrefixDefault,
			FrameOrigins: w.cfg.frameOrigins},
		Feeds:     bookings.FeedHandlerOptions{ICalLimit: l.bookingsFeed},
		List:      &bookings.ListPageOptions{Viewer: func(r *http.Request) (bool, int64, bool) { return viewer(r) }},
		ListGuard: w.h.signIn.RequireUser})
	if err != nil {
		return err
	}
	viewer = bookingViewer(m.Service)
	a.bookingsModule, w.h.site.bookings = m, m.Service
	w.h.bookings, w.h.bookingsAdmin, w.h.bookingPages, w.h.bookingFeeds, w.h.bookingList = m.API, m.Admin, m.Pages, m.Feeds, m.List
	// The providers' own calendars, beside bookings.
	c, err := calendarssql.Join(a.env, m.Service, &calendars.ModuleOptions{Service: calendars.Options{Sources: sources},
		Tokens: a.tokens, Admin: calendars.AdminHandlerOptions{APILimit: l.api}})
	if err != nil {
		return err
	}
	a.calendars, w.h.calendarPages, w.h.calendarsAdmin = c, c.Page, c.Admin
	// The waitlists of full times, beside bookings.
	wl, err := waitlistsql.Join(a.env, m.Service, &waitlist.ModuleOptions{Tokens: a.tokens, API: waitlist.HandlerOptions{APILimit: l.api},
		Page: waitlist.PageOptions{FrameOrigins: w.cfg.frameOrigins}})
	if err != nil {
		return err
	}
	a.waitlist, w.h.waitlist, w.h.waitlistPages = wl, wl.API, wl.Page
	return nil
}

// wireEmaillist: feeds fed by accepted submissions, their administration,
// the public subscribe.
func (a *app) wireEmaillist(w *wiring) error {
	m, err := newEmaillist(w.cfg.emaillist, a.env, a.forms, a.tokens, w.h.signIn)
	if err != nil {
		return err
	}
	a.listsModule, w.h.listAdmin, w.h.listSubscribe = m, m.Admin, m.Subscribe
	return nil
}

// wireReporting: the first-party analytics, Google's sources when
// configured, the routes, the dashboard for users with
// view_search_reporting.
func (a *app) wireReporting(w *wiring) error {
	c := w.cfg.reporting
	c.sites, c.collectLimit = w.cfg.analyticsSites, w.cfg.limits.analyticsCollect
	var err error
	if w.h.reports, err = newReporting(c, a.env, a.tokens, w.h.signIn); err != nil {
		return err
	}
	a.analytics = w.h.reports.analytics
	return nil
}

// link makes every link between the modules, as a host does:
// submissions and booking changes become webhooks; submissions and
// bookings count on the server, as the visitor whose request made them
// (mount wraps every handler in CarryVisitor), the form and booking pages'
// views too, and the forms' summaries read those views.
func (a *app) link(w *wiring) error {
	return link.Join(a.env, link.Modules{Forms: a.formsModule, Bookings: a.bookingsModule, Webhooks: a.webhooksModule,
		Reporting: w.h.reports.module, Lists: a.listsModule, Waitlist: a.waitlist})
}

// mount puts every handler on one mux, behind the request log and the
// panic guard, and lists their routes.
func (a *app) mount(w *wiring) (http.Handler, []string) {
	h, cfg, logger := &w.h, w.cfg, w.logger
	signIn, reports := h.signIn, h.reports
	mux := http.NewServeMux()
	// The modules, each at its documented prefixes.
	for _, m := range []interface{ Mount(*http.ServeMux) }{a.auth, a.formsModule, a.bookingsModule, a.calendars, a.waitlist, a.webhooksModule, a.listsModule, reports.module} {
		m.Mount(mux)
	}
	if reports.oauth != nil {
		mux.Handle(reportinggoogle.OAuthPrefixDefault+"/", signIn.Protect(signIn.LoadUser(reports.oauth)))
	}
	if a.orgsModule != nil {
		a.orgsModule.Mount(mux)
	}
	a.userAdmin.Mount(mux)
	if a.openID != nil {
		a.openID.Mount(mux)
	}
	mux.HandleFunc("GET /healthz", a.healthz)
	mux.HandleFunc("GET /readyz", a.readyz)
	mux.HandleFunc("GET /{$}", h.site.home)
	mux.Handle("GET /openapi.json", a.apiDoc)
	mux.HandleFunc("GET /docs/api", h.site.apiDocs)
	mux.Handle(a11y.PrefixDefault+"/", h.color)
	mux.Handle("/api/v1/a11y/", h.colorAI)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		api.WriteError(w, r, logger, nil, api.ErrNotFound)
	})
	routes := slices.Concat(a.auth.Routes(), a.formsModule.Routes(), a.bookingsModule.Routes(), a.calendars.Routes(), a.waitlist.Routes(), a.webhooksModule.Routes(), reports.module.Routes(),
		a.listsModule.Routes(), h.color.Routes(), h.colorAI.Routes())
	if reports.oauth != nil {
		routes = append(routes, reports.oauth.Routes()...)
	}
	// Every submission and booking keeps where its visit came from, the
	// API's too (a page's script that submits through it).
	visitor := reporting.VisitorOptions{TrustedProxies: cfg.trustedProxies, BaseURL: cfg.baseURL, Analytics: reports.analytics}
	body, upload := cmp.Or(cfg.bodyTimeout, api.BodyTimeoutDefault), cmp.Or(cfg.uploadTimeout, api.UploadTimeoutDefault)
	var routed http.Handler = mux
	if a.orgs != nil {
		// A signed-in user's requests act for their organization: the
		// owner's pages and the tokens they make are its (the public
		// pages serve anyone, and a token acts for its own).
		routed = signIn.LoadUser(a.orgs.Tenancy(mux))
		routes = append(routes, a.orgsModule.Routes()...)
	}
	visitors := reporting.CarryVisitor(routed, visitor)
	return h.site.pages(recoverPanics(logRequests(api.WithBodyDeadline(visitors, body, upload), logger, cfg.requestLogEvery), logger)), routes
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
	db, err := store.Open(ctx, cfg.db)
	if err != nil {
		return err
	}
	defer db.Close()
	a, err := newApp(cfg, db, secretKey, logger)
	if err != nil {
		return err
	}
	// Every module's schema, once, after the secret key is checked
	// against the database's.
	if err := checkSecretKey(a.env.Migrate(ctx), secretKey); err != nil {
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
	// The queue with every module's workers and periodic jobs, the
	// delivery loop and the analytics writer.
	if err := a.env.Start(ctx); err != nil {
		ln.Close()
		return err
	}
	if a.metrics != nil {
		// The metrics on a listener of their own, never the public one.
		mln, err := net.Listen("tcp", cfg.metricsAddr)
		if err != nil {
			ln.Close()
			return errors.Join(fmt.Errorf("metrics listener: %w", err), a.env.Stop(context.WithoutCancel(ctx)))
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", a.metrics.Handler())
		metricsSrv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = metricsSrv.Serve(mln) }()
		defer metricsSrv.Close()
		watchCtx, stopWatching := context.WithCancel(context.WithoutCancel(ctx))
		defer stopWatching()
		go a.metrics.WatchQueue(watchCtx, a.queue)
		logger.Info("metrics", "addr", "http://"+mln.Addr().String()+"/metrics")
	}
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
	// The delivery loop (its attempts under way finish and are
	// recorded), the queue, then the analytics writer: every view
	// answered 202 (or counted by a job) is written, however long the
	// backlog takes (the writer says how far it has got); a second
	// signal ends the process at once (main).
	if serr := a.env.Stop(shutdownCtx); serr != nil {
		err = errors.Join(err, fmt.Errorf("shutdown: %w", serr))
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	if err == nil {
		logger.Info("stopped")
	}
	return err
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

// revokeTokensOf revokes userID's live tokens that hold ability; a
// failure is logged (the member is gone either way).
func revokeTokensOf(ctx context.Context, tokens *auth.Service, userID int64, ability string, logger *slog.Logger) {
	list, err := tokens.UserTokens(ctx, userID)
	if err != nil {
		logger.ErrorContext(ctx, "organizations: list a leaver's tokens", "user", userID, "error", err)
		return
	}
	for _, t := range list {
		if t.RevokedAt == nil && slices.Contains(t.Abilities, ability) {
			if err := tokens.RevokeToken(ctx, t.ID); err != nil {
				logger.ErrorContext(ctx, "organizations: revoke a leaver's token", "token", t.ID, "error", err)
			}
		}
	}
}
