package webhooks

import (
	"cmp"
	"context"
	"errors"
	"net/http"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/store"
)

// ModuleOptions configures NewModule (and webhookssql.Join). Nil means the
// defaults; whatever a field leaves unset comes from the environment.
type ModuleOptions struct {
	// Service configures the service; its Now, Meter, Enqueuer, SecretKey
	// and Logger default to the environment's.
	Service Options
	// Tokens checks the subscription API's bearer tokens; without it
	// there is no subscription API.
	Tokens groundwork.TokenVerifier
	// API, Inbound and Portal configure the subscription API, the inbound
	// endpoint and the customers' portal, each at its Prefix (its
	// ...PrefixDefault when empty). The API's Idempotency defaults to
	// records in the environment's database, the portal's Key to the
	// page key.
	API     HandlerOptions
	Inbound InboundHandlerOptions
	Portal  PortalOptions
}

// Module is webhooks joined to a host: the service and its handlers, with
// its workers and periodic jobs (retries, reconciliation, pruning)
// registered on the environment's queue and its delivery loop run by
// env.Start on every instance. Mount puts the handlers on a mux.
type Module struct {
	Service *Service
	API     *Handler // nil without ModuleOptions.Tokens
	Inbound *InboundHandler
	Portal  *PortalHandler

	prefix [3]string
}

// NewModule joins webhooks, on st, to env: the service and its handlers
// built from env and opts, its workers, periodic jobs and delivery loop
// registered, and migrations declared for env.Migrate (nil when st's
// schema is the host's to make). webhookssql.Join calls it with the SQL
// store.
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
	s.Enqueuer = cmp.Or[store.Enqueuer](s.Enqueuer, env.Queue)
	s.Logger = cmp.Or(s.Logger, env.Logger)
	if s.SecretKey == nil {
		s.SecretKey = env.Keys.WebhookSecrets()
	}
	svc, err := NewService(st, s)
	if err != nil {
		return nil, err
	}
	m := &Module{Service: svc}
	o.API.HTTPOptions = env.HTTPOptions(o.API.HTTPOptions)
	o.Inbound.HTTPOptions = env.HTTPOptions(o.Inbound.HTTPOptions)
	o.Portal.HTTPOptions = env.HTTPOptions(o.Portal.HTTPOptions)
	if o.API.Idempotency == nil {
		o.API.Idempotency = store.NewIdempotency(env.DB, nil)
	}
	if o.Portal.Key == nil {
		o.Portal.Key = env.Keys.PageFlash()
	}
	var errs [3]error
	if o.Tokens != nil {
		m.API, errs[0] = NewHandler(svc, o.Tokens, &o.API)
	}
	m.Inbound, errs[1] = NewInboundHandler(svc, &o.Inbound)
	m.Portal, errs[2] = NewPortalHandler(svc, &o.Portal)
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	m.prefix = [3]string{cmp.Or(o.API.Prefix, PrefixDefault), cmp.Or(o.Inbound.Prefix, InboundPrefixDefault),
		cmp.Or(o.Portal.Prefix, PortalPrefixDefault)}
	if err := RegisterWorkers(env.Queue.Workers(), svc); err != nil {
		return nil, err
	}
	// The delivery loop sends what is due, on every instance; the
	// attempts under way when it stops finish and are recorded.
	deliver := store.Loop{Name: "webhooks delivery loop", Run: func(ctx context.Context) error { return svc.RunDeliveries(ctx) }}
	return m, env.Join("webhooks", migrations, PeriodicJobs(), deliver)
}

// Mount puts every handler on mux, each at its prefix and everything
// under it.
func (m *Module) Mount(mux *http.ServeMux) {
	if m.API != nil {
		store.Mount(mux, m.prefix[0], m.API)
	}
	store.Mount(mux, m.prefix[1], m.Inbound)
	store.Mount(mux, m.prefix[2], m.Portal)
}

// Routes are the routes Mount serves, "METHOD /path".
func (m *Module) Routes() []string {
	routes := append(m.Inbound.Routes(), m.Portal.Routes()...)
	if m.API != nil {
		routes = append(routes, m.API.Routes()...)
	}
	return routes
}
