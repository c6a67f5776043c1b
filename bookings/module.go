package bookings

import (
	"cmp"
	"errors"
	"net/http"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/store"
)

// ModuleOptions configures NewModule (and bookingssql.Join). Nil means the
// defaults; whatever a field leaves unset comes from the environment.
type ModuleOptions struct {
	// Service configures the service; its Now, Meter, Enqueuer, Mailer,
	// MailFrom, SecretKey and Logger default to the environment's, its
	// FeedHost to the public address's host, its ManageURL to the
	// manage page under the public address (so every confirmation and
	// reminder carries its manage link), and its PagesURL to the booking
	// pages there.
	Service Options
	// Tokens checks the admin API's bearer tokens; without it there is no
	// admin API.
	Tokens groundwork.TokenVerifier
	// API, Admin, Pages and Feeds configure the public API, the admin
	// API, the booking pages and the calendar feeds, each at its Prefix
	// (its ...PrefixDefault when empty); the pages' Key defaults to the
	// environment's page key.
	API   HandlerOptions
	Admin AdminHandlerOptions
	Pages PageOptions
	Feeds FeedHandlerOptions
	// List, when set, adds the owner's list of bookings (its Viewer says
	// who may see what); ListGuard wraps it where Mount puts it (the
	// host's sign-in check), and is required with it.
	List      *ListPageOptions
	ListGuard func(http.Handler) http.Handler
}

// Module is bookings joined to a host: the service and every handler,
// with its workers and periodic jobs (mail, reminders, housekeeping)
// registered on the environment's queue. Mount puts the
// handlers on a mux.
type Module struct {
	Service *Service
	API     *Handler
	Admin   *AdminHandler // nil without ModuleOptions.Tokens
	Pages   *PageHandler
	Feeds   *FeedHandler
	List    *ListPage // nil unless ModuleOptions.List was set

	guard  func(http.Handler) http.Handler
	wrap   []func(http.Handler) http.Handler
	prefix [5]string
}

// NewModule joins bookings, on st, to env: the service and its handlers
// built from env and opts, its workers and periodic jobs registered, and
// migrations declared for env.Migrate (nil when st's schema is the host's
// to make). bookingssql.Join calls it with the SQL store.
func NewModule(env *store.Env, st Store, migrations *store.Migrations, opts *ModuleOptions) (*Module, error) {
	var o ModuleOptions
	if opts != nil {
		o = *opts
	}
	if o.List != nil && o.ListGuard == nil {
		return nil, errors.New("bookings: module: the list of bookings (List) needs a ListGuard: it shows customers' bookings")
	}
	s := &o.Service
	if s.Now == nil {
		s.Now = env.Now
	}
	s.Meter = cmp.Or(s.Meter, env.Meter)
	s.Enqueuer = cmp.Or[store.Enqueuer](s.Enqueuer, env.Queue)
	s.Mailer = cmp.Or(s.Mailer, env.Mailer)
	s.MailFrom = cmp.Or(s.MailFrom, env.MailFrom)
	s.Logger = cmp.Or(s.Logger, env.Logger)
	if s.SecretKey == nil {
		s.SecretKey = env.Keys.ManageLinks()
	}
	pages := cmp.Or(o.Pages.Prefix, PagePrefixDefault)
	if env.BaseURL != nil {
		s.FeedHost = cmp.Or(s.FeedHost, env.BaseURL.Hostname())
		s.ManageURL = cmp.Or(s.ManageURL, env.Origin()+pages+"/manage/{token}")
		s.PagesURL = cmp.Or(s.PagesURL, env.Origin()+pages)
	}
	svc, err := NewService(st, s)
	if err != nil {
		return nil, err
	}
	m := &Module{Service: svc, guard: o.ListGuard}
	key := env.Keys.PageFlash()
	o.API.HTTPOptions = env.HTTPOptions(o.API.HTTPOptions)
	o.Admin.HTTPOptions = env.HTTPOptions(o.Admin.HTTPOptions)
	o.Pages.HTTPOptions = env.HTTPOptions(o.Pages.HTTPOptions)
	o.Feeds.HTTPOptions = env.HTTPOptions(o.Feeds.HTTPOptions)
	if o.Pages.Key == nil {
		o.Pages.Key = key
	}
	var errs [5]error
	m.API, errs[0] = NewHandler(svc, &o.API)
	if o.Tokens != nil {
		m.Admin, errs[1] = NewAdminHandler(svc, o.Tokens, &o.Admin)
	}
	m.Pages, errs[2] = NewPageHandler(svc, &o.Pages)
	m.Feeds, errs[3] = NewFeedHandler(svc, &o.Feeds)
	if o.List != nil {
		list := *o.List
		list.HTTPOptions = env.HTTPOptions(list.HTTPOptions)
		if list.Key == nil {
			list.Key = key
		}
		m.prefix[4] = cmp.Or(list.Prefix, ListPagePrefixDefault)
		m.List, errs[4] = NewListPage(svc, &list)
	}
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	m.prefix[0] = cmp.Or(o.API.Prefix, PrefixDefault)
	m.prefix[1] = cmp.Or(o.Admin.Prefix, AdminPrefixDefault)
	m.prefix[2] = pages
	m.prefix[3] = cmp.Or(o.Feeds.Prefix, FeedPrefixDefault)
	if err := RegisterWorkers(env.Queue.Workers(), svc); err != nil {
		return nil, err
	}
	return m, env.Join("bookings", migrations, PeriodicJobs())
}

// WrapPages adds a middleware the public booking pages are served
// through, in the order added, outermost last (reporting's TrackViews,
// say). Call it before Mount.
func (m *Module) WrapPages(mw func(http.Handler) http.Handler) { m.wrap = append(m.wrap, mw) }

// Mount puts every handler on mux, each at its prefix and everything
// under it.
func (m *Module) Mount(mux *http.ServeMux) {
	store.Mount(mux, m.prefix[0], m.API)
	if m.Admin != nil {
		store.Mount(mux, m.prefix[1], m.Admin)
	}
	var pages http.Handler = m.Pages
	for _, mw := range m.wrap {
		pages = mw(pages)
	}
	store.Mount(mux, m.prefix[2], pages)
	store.Mount(mux, m.prefix[3], m.Feeds)
	if m.List != nil {
		store.Mount(mux, m.prefix[4], m.guard(m.List))
	}
}

// Routes are the routes Mount serves, "METHOD /path".
func (m *Module) Routes() []string {
	routes := append(m.API.Routes(), m.Pages.Routes()...)
	routes = append(routes, m.Feeds.Routes()...)
	if m.Admin != nil {
		routes = append(routes, m.Admin.Routes()...)
	}
	if m.List != nil {
		routes = append(routes, m.List.Routes()...)
	}
	return routes
}
