package emaillist

import (
	"cmp"
	"errors"
	"net/http"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/store"
)

// ModuleOptions configures NewModule (and emaillistsql.Join). Nil means
// the defaults; whatever a field leaves unset comes from the environment.
type ModuleOptions struct {
	// Service configures the service; its Now and Logger default to the
	// environment's. With forms joined too, give it
	// FormExists: link.FormExists(forms.Service), so a feed names one of
	// the host's forms.
	Service Options
	// Authorizer decides who may administer the feeds
	// (auth.Service.Authorizer is ready for it); without it there is no
	// administration API.
	Authorizer groundwork.RequestAuthorizer
	// AdminGuard wraps the administration API where Mount puts it (auth's
	// Web.Protect and LoadUser, so a signed-in user's session reaches
	// Authorizer); optional.
	AdminGuard func(http.Handler) http.Handler
	// Admin and Subscribe configure the administration API and the public
	// subscribe endpoint, each at its Prefix (its ...PrefixDefault when
	// empty).
	Admin     AdminHandlerOptions
	Subscribe SubscribeHandlerOptions
}

// Module is the email list joined to a host: the service, its
// administration API and its public subscribe endpoint, with its subscribe
// jobs registered on the environment's queue. Mount puts the handlers on a
// mux.
type Module struct {
	Service   *Service
	Admin     *AdminHandler // nil without ModuleOptions.Authorizer
	Subscribe *SubscribeHandler

	guard  func(http.Handler) http.Handler
	prefix [2]string
}

// NewModule joins the email list, on st, to env: the service and its
// handlers built from env and opts, its workers registered, and migrations
// declared for env.Migrate (nil when st's schema is the host's to make).
// emaillistsql.Join calls it with the SQL store.
func NewModule(env *store.Env, st Store, migrations *store.Migrations, opts *ModuleOptions) (*Module, error) {
	var o ModuleOptions
	if opts != nil {
		o = *opts
	}
	s := &o.Service
	if s.Now == nil {
		s.Now = env.Now
	}
	s.Logger = cmp.Or(s.Logger, env.Logger)
	svc, err := NewService(st, env.Queue, s)
	if err != nil {
		return nil, err
	}
	m := &Module{Service: svc, guard: o.AdminGuard}
	o.Admin.HTTPOptions = env.HTTPOptions(o.Admin.HTTPOptions)
	o.Subscribe.HTTPOptions = env.HTTPOptions(o.Subscribe.HTTPOptions)
	var errs [2]error
	if o.Authorizer != nil {
		m.Admin, errs[0] = NewAdminHandler(svc, o.Authorizer, &o.Admin)
	}
	m.Subscribe, errs[1] = NewSubscribeHandler(svc, &o.Subscribe)
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	m.prefix = [2]string{cmp.Or(o.Admin.Prefix, AdminPrefixDefault), cmp.Or(o.Subscribe.Prefix, SubscribePrefixDefault)}
	if err := RegisterWorkers(env.Queue.Workers(), svc); err != nil {
		return nil, err
	}
	return m, env.Join("emaillist", migrations, nil)
}

// Mount puts the administration API and the subscribe endpoint on mux,
// each at its prefix and everything under it.
func (m *Module) Mount(mux *http.ServeMux) {
	if m.Admin != nil {
		var admin http.Handler = m.Admin
		if m.guard != nil {
			admin = m.guard(admin)
		}
		store.Mount(mux, m.prefix[0], admin)
	}
	store.Mount(mux, m.prefix[1], m.Subscribe)
}

// Routes are the routes Mount serves, "METHOD /path".
func (m *Module) Routes() []string {
	routes := m.Subscribe.Routes()
	if m.Admin != nil {
		routes = append(routes, m.Admin.Routes()...)
	}
	return routes
}
