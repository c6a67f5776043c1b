package reportingsql

import (
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/store"
)

// Join joins reporting to a host's environment on env's database: the
// analytics (its shared links and email reports kept there too), the
// reports and their handlers, the writer and the email reports' jobs,
// and its migrations for env.Migrate. See reporting.NewModule.
func Join(env *store.Env, opts *reporting.ModuleOptions) (*reporting.Module, error) {
	return reporting.NewModule(env, New(env.DB), &Migrations, opts)
}
