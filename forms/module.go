package forms

import (
	"cmp"
	"errors"
	"net/http"

	"github.com/groundwork-go/groundwork/store"
)

// ModuleOptions configures NewModule (and formssql.Join). Nil means the
// defaults; whatever a field leaves unset comes from the environment.
type ModuleOptions struct {
	// Service configures the service; its Now, Meter, Enqueuer, Mailer,
	// MailFrom, FormTokenKey, FormTokenUses and Logger default to the
	// environment's.
	Service Options
	// API configures the admin and submission API (at API.Prefix,
	// PrefixDefault when empty); give it Tokens for the admin routes.
	API HandlerOptions
	// Pages configures the public pages (at Pages.Prefix,
	// PagePrefixDefault when empty); FlashKey defaults to the
	// environment's page key.
	Pages PageOptions
	// Summary, when set, adds the answers pages (at Summary.Path,
	// SummaryPathDefault when empty); Key defaults to the page key.
	Summary *SummaryPageOptions
	// SummaryGuard wraps the answers pages where Mount puts them: the
	// host's sign-in check (auth's Web.RequireAnyCapability, say).
	// Required with Summary: the pages show people's answers.
	SummaryGuard func(http.Handler) http.Handler
}

// Module is forms joined to a host: the service, its API, its pages and
// (when asked for) the answers pages, with its workers and periodic jobs
// (notifications, the upload sweep) registered on the environment's
// queue. Mount puts the handlers on a mux.
type Module struct {
	Service *Service
	API     *Handler
	Pages   *PageHandler
	// Summary is nil unless ModuleOptions.Summary was set.
	Summary *SummaryPage

	guard  func(http.Handler) http.Handler
	wrap   []func(http.Handler) http.Handler
	prefix [3]string
}

// NewModule joins forms, on st, to env: the service and its handlers
// built from env and opts, its workers and periodic jobs registered, and
// migrations declared for env.Migrate (nil when st's schema is the
// host's to make). formssql.Join calls it with the SQL store.
func NewModule(env *store.Env, st Store, migrations *store.Migrations, opts *ModuleOptions) (*Module, error) {
	var o ModuleOptions
	if opts != nil {
		o = *opts
	}
	if o.Summary != nil && o.SummaryGuard == nil {
		return nil, errors.New("forms: module: the answers pages (Summary) need a SummaryGuard: they show people's answers")
	}
	s := &o.Service
	if s.Now == nil {
		s.Now = env.Now
	}
	s.Meter = cmp.Or(s.Meter, env.Meter)
	s.Enqueuer = cmp.Or[store.Enqueuer](s.Enqueuer, env.Queue)
	s.Mailer = cmp.Or(s.Mailer, env.Mailer)
	s.MailFrom = cmp.Or(s.MailFrom, env.MailFrom)
	if s.FormTokenKey == nil {
		s.FormTokenKey = env.Keys.FormTokens()
	}
	s.FormTokenUses = cmp.Or(s.FormTokenUses, env.HTTP.RateLimiter)
	s.Logger = cmp.Or(s.Logger, env.Logger)
	svc, err := NewService(st, s)
	if err != nil {
		return nil, err
	}
	m := &Module{Service: svc, guard: o.SummaryGuard}
	o.API.HTTPOptions = env.HTTPOptions(o.API.HTTPOptions)
	if m.API, err = NewHandler(svc, &o.API); err != nil {
		return nil, err
	}
	o.Pages.HTTPOptions = env.HTTPOptions(o.Pages.HTTPOptions)
	if o.Pages.FlashKey == nil {
		o.Pages.FlashKey = env.Keys.PageFlash()
	}
	if m.Pages, err = NewPageHandler(svc, &o.Pages); err != nil {
		return nil, err
	}
	m.prefix = [3]string{cmp.Or(o.API.Prefix, PrefixDefault), cmp.Or(o.Pages.Prefix, PagePrefixDefault), SummaryPathDefault}
	if o.Summary != nil {
		sum := *o.Summary
		sum.HTTPOptions = env.HTTPOptions(sum.HTTPOptions)
		if sum.Key == nil {
			sum.Key = env.Keys.PageFlash()
		}
		m.prefix[2] = cmp.Or(sum.Path, SummaryPathDefault)
		if m.Summary, err = NewSummaryPage(svc, &sum); err != nil {
			return nil, err
		}
	}
	if err := RegisterWorkers(env.Queue.Workers(), svc); err != nil {
		return nil, err
	}
	return m, env.Join("forms", migrations, PeriodicJobs())
}

// WrapPages adds a middleware the public pages are served through, in
// the order added, outermost last (reporting's TrackViews, auth's
// LoadUser for forms that take one response a person). Call it before
// Mount.
func (m *Module) WrapPages(mw func(http.Handler) http.Handler) { m.wrap = append(m.wrap, mw) }

// Mount puts the API, the pages and the answers pages on mux, each at its
// prefix and everything under it.
func (m *Module) Mount(mux *http.ServeMux) {
	store.Mount(mux, m.prefix[0], m.API)
	var pages http.Handler = m.Pages
	for _, mw := range m.wrap {
		pages = mw(pages)
	}
	store.Mount(mux, m.prefix[1], pages)
	if m.Summary != nil {
		store.Mount(mux, m.prefix[2], m.guard(m.Summary))
	}
}

// Routes are the routes Mount serves, "METHOD /path".
func (m *Module) Routes() []string {
	routes := append(m.API.Routes(), m.Pages.Routes()...)
	if m.Summary != nil {
		routes = append(routes, m.Summary.Routes()...)
	}
	return routes
}

// PagesPrefix is where Mount puts the public pages.
func (m *Module) PagesPrefix() string { return m.prefix[1] }
