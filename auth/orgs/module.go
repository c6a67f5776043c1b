package orgs

import (
	"cmp"
	"errors"
	"net/http"

	"github.com/groundwork-go/groundwork/store"
)

// ModuleOptions configures NewModule (and orgssql.Join). Nil means the
// defaults; whatever a field leaves unset comes from the environment.
type ModuleOptions struct {
	// Service configures the service: its Now, Enqueuer, Mailer,
	// MailFrom and BaseURL default to the environment's, and its Key to
	// the environment's key for "organization invitations", so the
	// invitations are mailed from the queue.
	Service Options
	// Page configures the organizations page at its Prefix
	// (PagePrefixDefault when empty); its Key, Logger, Brand and
	// Navigator default to the environment's.
	Page PageOptions
	// Guard wraps the page: the host's sign-in (auth's LoadUser, then
	// RequireUser), since the page is a signed-in user's. Required.
	Guard func(http.Handler) http.Handler
}

// Module is the organizations joined to a host: the service, whose
// Tenancy the host puts around its routes, and the page, with the
// invitations' mail job registered on the environment's queue. Their
// tables are auth's: join auth first (authsql.Join).
type Module struct {
	Service *Service
	Page    *PageHandler

	page   http.Handler
	prefix string
}

// NewModule joins the organizations kept in st to env.
func NewModule(env *store.Env, st Store, opts *ModuleOptions) (*Module, error) {
	var o ModuleOptions
	if opts != nil {
		o = *opts
	}
	if o.Guard == nil {
		return nil, errors.New("orgs: new module: a Guard (the host's sign-in) is needed: the page is a signed-in user's")
	}
	s := &o.Service
	if s.Now == nil {
		s.Now = env.Now
	}
	s.Enqueuer = cmp.Or[Enqueuer](s.Enqueuer, env.Queue)
	s.Mailer = cmp.Or(s.Mailer, env.Mailer)
	s.MailFrom = cmp.Or(s.MailFrom, env.MailFrom)
	if s.BaseURL == nil {
		s.BaseURL = env.BaseURL
	}
	s.PagePrefix = cmp.Or(s.PagePrefix, o.Page.Prefix)
	if s.Key == nil {
		s.Key = env.Keys.For("organization invitations")
	}
	svc, err := New(st, s)
	if err != nil {
		return nil, err
	}
	web := env.HTTPOptions(env.HTTP)
	p := &o.Page
	if p.Key == nil {
		p.Key = env.Keys.PageFlash()
	}
	p.Logger, p.Brand = cmp.Or(p.Logger, web.Logger), cmp.Or(p.Brand, web.Brand)
	if p.Navigator == nil {
		p.Navigator = web.Navigator
	}
	page, err := NewPageHandler(svc, p)
	if err != nil {
		return nil, err
	}
	if err := RegisterWorkers(env.Queue.Workers(), svc); err != nil {
		return nil, err
	}
	m := &Module{Service: svc, Page: page, page: o.Guard(page), prefix: cmp.Or(p.Prefix, PagePrefixDefault)}
	return m, env.Join("orgs", nil, nil)
}

// Mount puts the page, behind its guard, at its prefix.
func (m *Module) Mount(mux *http.ServeMux) { store.Mount(mux, m.prefix, m.page) }

// Routes are the routes Mount serves, "METHOD /path".
func (m *Module) Routes() []string { return m.Page.Routes() }
