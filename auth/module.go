package auth

import (
	"cmp"
	"net/http"

	"github.com/groundwork-go/groundwork/store"
)

// ModuleOptions configures NewModule (and authsql.Join). Nil means the
// defaults; whatever a field leaves unset comes from the environment.
type ModuleOptions struct {
	// Service configures the service; its Now, Meter, Key, Mailer,
	// Enqueuer, MailFrom and Logger default to the environment's, and its
	// LoginLimiter to counters in the environment's database (a lock-out
	// holds across instances).
	Service Options
	// API configures the tokens API (at API.Prefix, PrefixDefault when
	// empty).
	API HandlerOptions
	// Web, when set, adds the sign-in pages and their middleware; the
	// environment's Navigator then becomes them, so every page a later
	// module makes shows who is signed in.
	Web *WebOptions
}

// Module is auth joined to a host: the service (users, sessions, API
// tokens: a groundwork.TokenVerifier for the other modules' APIs), the
// tokens API and (when asked for) the sign-in pages, with its workers and
// periodic jobs (mail, housekeeping) registered on the environment's
// queue. Mount puts the handlers on a mux.
type Module struct {
	Service *Service
	API     *Handler
	// Web is nil unless ModuleOptions.Web was set.
	Web *Web

	prefix string
}

// NewModule joins auth, on st, to env: the service and its handlers built
// from env and opts, its workers and periodic jobs registered, and
// migrations declared for env.Migrate (nil when st's schema is the host's
// to make). authsql.Join calls it with the SQL store.
func NewModule(env *store.Env, st Store, migrations *store.Migrations, opts *ModuleOptions) (*Module, error) {
	var o ModuleOptions
	if opts != nil {
		o = *opts
	}
	s := &o.Service
	if s.Now == nil {
		s.Now = env.Now
	}
	s.Meter = cmp.Or(s.Meter, env.Meter)
	s.Mailer = cmp.Or(s.Mailer, env.Mailer)
	s.Enqueuer = cmp.Or[Enqueuer](s.Enqueuer, env.Queue)
	s.MailFrom = cmp.Or(s.MailFrom, env.MailFrom)
	s.Logger = cmp.Or(s.Logger, env.Logger)
	if s.Key == nil {
		s.Key = env.Keys.SignIn()
	}
	if s.LoginLimiter == nil {
		s.LoginLimiter = store.NewSQLRateLimiter(env.DB, nil)
	}
	svc, err := NewService(st, s)
	if err != nil {
		return nil, err
	}
	m := &Module{Service: svc, prefix: cmp.Or(o.API.Prefix, PrefixDefault)}
	o.API.HTTPOptions = env.HTTPOptions(o.API.HTTPOptions)
	if m.API, err = NewHandler(svc, &o.API); err != nil {
		return nil, err
	}
	if o.Web != nil {
		web := *o.Web
		web.HTTPOptions = env.HTTPOptions(web.HTTPOptions)
		if m.Web, err = NewWeb(svc, &web); err != nil {
			return nil, err
		}
		if env.HTTP.Navigator == nil {
			env.HTTP.Navigator = m.Web
		}
	}
	if err := RegisterWorkers(env.Queue.Workers(), svc); err != nil {
		return nil, err
	}
	return m, env.Join("auth", migrations, PeriodicJobs())
}

// Mount puts the tokens API and the sign-in pages on mux.
func (m *Module) Mount(mux *http.ServeMux) {
	store.Mount(mux, m.prefix, m.API)
	if m.Web != nil {
		m.Web.Mount(mux)
	}
}

// Routes are the routes Mount serves, "METHOD /path".
func (m *Module) Routes() []string {
	routes := m.API.Routes()
	if m.Web != nil {
		routes = append(routes, m.Web.Routes()...)
	}
	return routes
}
