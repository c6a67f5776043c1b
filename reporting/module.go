package reporting

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/riverqueue/river"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/driverless"
)

// ModuleOptions configures NewModule (and reportingsql.Join). Nil means
// the defaults; whatever a field leaves unset comes from the
// environment.
type ModuleOptions struct {
	// Analytics configures the first-party analytics; its Now, Logger and
	// Meter default to the environment's, and FlushWriters to two on
	// Postgres (which writes two transactions at once).
	Analytics AnalyticsOptions
	// Service configures the reports; its Analytics defaults to the
	// first-party analytics (give Google's sources here instead).
	Service Options
	// Collect configures the collection endpoint (at Collect.Prefix,
	// CollectPrefixDefault when empty). Its Hosts default to the public
	// address's host; its RateLimiter counts in memory, per instance (it
	// guards load, not money).
	Collect CollectOptions
	// Authorizer decides who may read the reports and change the
	// settings (auth.Service.Authorizer is ready for it); without it
	// there are no report routes and no dashboard.
	Authorizer groundwork.RequestAuthorizer
	// LoadUser wraps the report routes where Mount puts them, so a
	// signed-in user's session reaches Authorizer (auth's Web.LoadUser).
	LoadUser func(http.Handler) http.Handler
	// Dashboard, with DashboardGuard (the host's sign-in check, required
	// with it), adds the dashboard at Dashboard.Path (DashboardPathDefault
	// when empty) and the read-only shared links under it.
	Dashboard      *DashboardOptions
	DashboardGuard func(http.Handler) http.Handler
}

// DashboardPathDefault is where Module.Mount puts the dashboard.
const DashboardPathDefault = "/reporting"

// Module is reporting joined to a host: the first-party analytics and
// its writer (run by env.Start, stopped after the queue, writing every
// view it took), the collection endpoint, the report routes, the email
// reports' jobs and (when asked for) the dashboard. Mount puts the
// handlers on a mux.
type Module struct {
	Analytics *Analytics
	Service   *Service
	Collect   *CollectHandler
	// API and EmailReports are nil without ModuleOptions.Authorizer,
	// Dashboard without ModuleOptions.Dashboard.
	API          *Handler
	EmailReports *EmailReports
	Dashboard    *Dashboard

	loadUser, guard func(http.Handler) http.Handler
	prefix          [3]string
}

// NewModule joins reporting, on st, to env: the analytics, the reports
// and their handlers built from env and opts, the writer and the email
// reports' jobs registered, and migrations declared for env.Migrate (nil
// when st's schema is the host's to make). The shared links and email
// reports are kept by st when it keeps them (reportingsql's does).
// reportingsql.Join calls it with the SQL store.
func NewModule(env *store.Env, st Store, migrations *store.Migrations, opts *ModuleOptions) (*Module, error) {
	var o ModuleOptions
	if opts != nil {
		o = *opts
	}
	if o.Dashboard != nil && (o.DashboardGuard == nil || o.Authorizer == nil) {
		return nil, errors.New("reporting: module: the dashboard needs a DashboardGuard and an Authorizer: it shows the site's traffic")
	}
	a := &o.Analytics
	if a.Now == nil {
		a.Now = env.Now
	}
	a.Logger = cmp.Or(a.Logger, env.Logger)
	a.Meter = cmp.Or(a.Meter, env.Meter)
	if a.FlushWriters == 0 && env.DB.Dialect() == store.Postgres {
		a.FlushWriters = 2
	}
	analytics, err := NewAnalytics(st, a)
	if err != nil {
		return nil, err
	}
	m := &Module{Analytics: analytics, loadUser: o.LoadUser, guard: o.DashboardGuard}
	if o.Service.Analytics == nil {
		o.Service.Analytics = analytics
	}
	if m.Service, err = NewService(&o.Service); err != nil {
		return nil, err
	}
	c := o.Collect
	c.HTTPOptions = env.HTTPOptions(c.HTTPOptions)
	if o.Collect.RateLimiter == nil {
		c.RateLimiter = driverless.NewMemoryRateLimiter(nil)
	}
	if c.Hosts == nil && env.BaseURL != nil {
		c.Hosts = []string{env.BaseURL.Hostname()}
	}
	if m.Collect, err = NewCollectHandler(analytics, &c); err != nil {
		return nil, err
	}
	m.prefix[0] = cmp.Or(c.Prefix, CollectPrefixDefault)
	var jobs []*river.PeriodicJob
	if o.Authorizer != nil {
		shared, _ := st.(SharedLinkStore)
		ho := &HandlerOptions{HTTPOptions: env.HTTPOptions(groundwork.HTTPOptions{}), SharedLinks: shared}
		if kept, ok := st.(EmailReportStore); ok {
			site := env.HTTP.Brand.Name
			dashboard := DashboardPathDefault
			if o.Dashboard != nil {
				dashboard = cmp.Or(o.Dashboard.Path, DashboardPathDefault)
			}
			if ho.EmailReports, err = NewEmailReports(EmailReportsOptions{Analytics: analytics, Store: kept, Enqueuer: env.Queue,
				Mailer: env.Mailer, From: env.MailFrom, SiteName: site, DashboardURL: env.Origin() + dashboard, Logger: env.Logger}); err != nil {
				return nil, err
			}
			if err := ho.EmailReports.RegisterWorkers(env.Queue.Workers()); err != nil {
				return nil, err
			}
			m.EmailReports, jobs = ho.EmailReports, ho.EmailReports.PeriodicJobs()
		}
		if m.API, err = NewHandler(m.Service, o.Authorizer, ho); err != nil {
			return nil, err
		}
		if o.Dashboard != nil {
			d := *o.Dashboard
			d.HTTPOptions = env.HTTPOptions(d.HTTPOptions)
			d.SharedLinks = cmp.Or[SharedLinkStore](d.SharedLinks, shared)
			if d.Key == nil {
				d.Key = env.Keys.For("reporting shared links")
			}
			d.Manage = cmp.Or(d.Manage, o.Authorizer)
			d.EmailReports = cmp.Or(d.EmailReports, m.EmailReports)
			m.prefix[1] = cmp.Or(d.Path, DashboardPathDefault)
			m.prefix[2] = cmp.Or(d.SharedPath, SharedPathDefault)
			if m.Dashboard, err = NewDashboard(m.Service, &d); err != nil {
				return nil, err
			}
		}
	}
	// The writer: every view answered 202 (or counted by a job) is
	// written, however long the backlog takes, so it stops after the
	// queue.
	writer := store.Loop{Name: "analytics writer", OutlivesQueue: true,
		Run: func(ctx context.Context) error { analytics.Run(ctx); return nil }}
	return m, env.Join("reporting", migrations, jobs, writer)
}

// Mount puts the collection endpoint, the report routes and the dashboard
// on mux, each at its prefixes and everything under them; the dashboard's
// shared links are guarded by their own tokens, the rest of it by
// DashboardGuard.
func (m *Module) Mount(mux *http.ServeMux) {
	store.Mount(mux, m.prefix[0], m.Collect)
	if m.API != nil {
		var routes http.Handler = m.API
		if m.loadUser != nil {
			routes = m.loadUser(routes)
		}
		for _, prefix := range prefixes(m.API.Routes()) {
			store.Mount(mux, prefix, routes)
		}
	}
	if m.Dashboard != nil {
		store.Mount(mux, m.prefix[1], m.guard(m.Dashboard))
		store.Mount(mux, m.prefix[2], m.Dashboard)
	}
}

// Routes are the routes Mount serves, "METHOD /path".
func (m *Module) Routes() []string {
	routes := m.Collect.Routes()
	if m.API != nil {
		routes = append(routes, m.API.Routes()...)
	}
	if m.Dashboard != nil {
		routes = append(routes, m.Dashboard.Routes()...)
	}
	return routes
}

// prefixes are the first path segments of routes ("/analytics-goals"),
// each once, in order.
func prefixes(routes []string) []string {
	var out []string
	for _, r := range routes {
		p := pathOf(r)
		if i := strings.IndexByte(p[1:], '/'); i >= 0 {
			p = p[:i+1]
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// pathOf is the path of a route "METHOD /path".
func pathOf(route string) string {
	_, path, _ := strings.Cut(route, " ")
	return path
}
