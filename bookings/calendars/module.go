package calendars

import (
	"cmp"
	"net/http"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/store"
)

// ModuleOptions configures NewModule (and calendarssql.Join). Nil
// means the defaults; whatever a field leaves unset comes from the
// environment.
type ModuleOptions struct {
	// Service configures the service; its Now, Enqueuer and Logger
	// default to the environment's, and its SecretKey to the
	// environment's manage-link key (the one bookings seals with, so
	// connections made before the calendars had a package of their own
	// still open).
	Service Options
	// Tokens checks the admin API's bearer tokens; without it there are
	// no admin routes.
	Tokens groundwork.TokenVerifier
	// Admin configures the admin routes; its Prefix must be the bookings
	// admin API's (bookings.AdminPrefixDefault when empty).
	Admin AdminHandlerOptions
	// Page configures the providers' calendar page at its Prefix
	// (PagePrefixDefault when empty); its Key defaults to the
	// environment's page key.
	Page PageOptions
}

// Module is the providers' calendars joined to a host beside bookings:
// the service (attached to the bookings service), the admin routes and
// the page, with the sweep and the write-back jobs registered on the
// environment's queue. Mount puts the handlers on a mux.
type Module struct {
	Service *Service
	Admin   *AdminHandler // nil without ModuleOptions.Tokens
	Page    *PageHandler

	prefix string
}

// NewModule joins the calendars of bk's providers, kept in st, to env.
// Join the bookings module first; the calendars' tables are in its
// migrations.
func NewModule(env *store.Env, bk *bookings.Service, st Store, opts *ModuleOptions) (*Module, error) {
	var o ModuleOptions
	if opts != nil {
		o = *opts
	}
	s := &o.Service
	if s.Now == nil {
		s.Now = env.Now
	}
	s.Enqueuer = cmp.Or[store.Enqueuer](s.Enqueuer, env.Queue)
	s.Logger = cmp.Or(s.Logger, env.Logger)
	if s.SecretKey == nil {
		s.SecretKey = env.Keys.ManageLinks()
	}
	svc, err := New(st, bk, s)
	if err != nil {
		return nil, err
	}
	m := &Module{Service: svc}
	o.Page.HTTPOptions = env.HTTPOptions(o.Page.HTTPOptions)
	if o.Page.Key == nil {
		o.Page.Key = env.Keys.PageFlash()
	}
	if m.Page, err = NewPageHandler(svc, &o.Page); err != nil {
		return nil, err
	}
	m.prefix = cmp.Or(o.Page.Prefix, PagePrefixDefault)
	if o.Tokens != nil {
		o.Admin.HTTPOptions = env.HTTPOptions(o.Admin.HTTPOptions)
		if m.Admin, err = NewAdminHandler(svc, o.Tokens, &o.Admin); err != nil {
			return nil, err
		}
	}
	if err := RegisterWorkers(env.Queue.Workers(), svc); err != nil {
		return nil, err
	}
	return m, env.Join("calendars", nil, PeriodicJobs())
}

// Mount puts the page at its prefix and the admin routes beside the
// bookings admin API's.
func (m *Module) Mount(mux *http.ServeMux) {
	store.Mount(mux, m.prefix, m.Page)
	if m.Admin != nil {
		m.Admin.Mount(mux)
	}
}

// Routes are the routes Mount serves, "METHOD /path".
func (m *Module) Routes() []string {
	routes := m.Page.Routes()
	if m.Admin != nil {
		routes = append(routes, m.Admin.Routes()...)
	}
	return routes
}
