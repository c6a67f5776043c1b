package formssql

import (
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/store"
)

// Join joins forms to a host's environment on env's database: the
// service and its handlers, its workers and periodic jobs, and its
// migrations for env.Migrate. See forms.NewModule.
func Join(env *store.Env, opts *forms.ModuleOptions) (*forms.Module, error) {
	return forms.NewModule(env, New(env.DB), &Migrations, opts)
}
