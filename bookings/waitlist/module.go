package waitlist

import (
	"cmp"
	"net/http"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/store"
)

// ModuleOptions configures NewModule (and waitlistsql.Join). Nil means the
// defaults; whatever a field leaves unset comes from the environment.
type ModuleOptions struct {
	// Service configures the service; its Now, Enqueuer, Mailer, MailFrom
	// and Logger default to the environment's, its SecretKey to the
	// environment's manage-link key, and its OfferURL to the offer page
	// under the public address.
	Service Options
	// Tokens checks the admin route's bearer tokens; without it there is
	// no admin route.
	Tokens groundwork.TokenVerifier
	// API configures the routes beside the bookings APIs; Page the pages
	// at its Prefix (PagePrefixDefault when empty), whose Key defaults to
	// the environment's page key. Give the bookings pages the same prefix
	// (bookings.PageOptions.Waitlist) so a day links to its full times.
	API  HandlerOptions
	Page PageOptions
}

// Module is the waitlists joined to a host beside bookings: the service
// (hooked on the bookings service), the API routes and the pages, with
// the offer mail and the sweep registered on the environment's queue.
// Mount puts the handlers on a mux.
type Module struct {
	Service *Service
	API     *Handler
	Page    *PageHandler

	prefix string
}

// NewModule joins the waitlists of bk's services, kept in st, to env.
// Join the bookings module first; the waitlists' table is in its
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
	s.Mailer = cmp.Or(s.Mailer, env.Mailer)
	s.MailFrom = cmp.Or(s.MailFrom, env.MailFrom)
	s.Logger = cmp.Or(s.Logger, env.Logger)
	if s.SecretKey == nil {
		s.SecretKey = env.Keys.ManageLinks()
	}
	prefix := cmp.Or(o.Page.Prefix, PagePrefixDefault)
	s.OfferURL = cmp.Or(s.OfferURL, env.Origin()+prefix+"/offer/{token}")
	svc, err := New(st, bk, s)
	if err != nil {
		return nil, err
	}
	m := &Module{Service: svc, prefix: prefix}
	o.Page.HTTPOptions = env.HTTPOptions(o.Page.HTTPOptions)
	if o.Page.Key == nil {
		o.Page.Key = env.Keys.PageFlash()
	}
	if m.Page, err = NewPageHandler(svc, &o.Page); err != nil {
		return nil, err
	}
	o.API.HTTPOptions = env.HTTPOptions(o.API.HTTPOptions)
	o.API.Tokens = cmp.Or(o.API.Tokens, o.Tokens)
	if m.API, err = NewHandler(svc, &o.API); err != nil {
		return nil, err
	}
	if err := RegisterWorkers(env.Queue.Workers(), svc); err != nil {
		return nil, err
	}
	return m, env.Join("waitlist", nil, PeriodicJobs())
}

// Mount puts the pages at their prefix and the API routes beside the
// bookings APIs'.
func (m *Module) Mount(mux *http.ServeMux) {
	store.Mount(mux, m.prefix, m.Page)
	m.API.Mount(mux)
}

// Routes are the routes Mount serves, "METHOD /path".
func (m *Module) Routes() []string {
	return append(m.Page.Routes(), m.API.Routes()...)
}
