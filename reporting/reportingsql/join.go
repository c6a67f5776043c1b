package reportingsql

import (
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/store"
)

// Join joins reporting to a host's environment on env's database: the
// analytics (its shared links, email reports and, unless the options
// name a SiteOfHost or SiteHosts of their own, the sites' hosts kept
// there too), the reports and their handlers, the writer and the email
// reports' jobs, and its migrations for env.Migrate. See
// reporting.NewModule.
func Join(env *store.Env, opts *reporting.ModuleOptions) (*reporting.Module, error) {
	var o reporting.ModuleOptions
	if opts != nil {
		o = *opts
	}
	if o.Analytics.SiteOfHost == nil && o.Analytics.SiteHosts == nil {
		o.Analytics.SiteHosts = hosts{env.DB}
	}
	return reporting.NewModule(env, New(env.DB), &Migrations, &o)
}
