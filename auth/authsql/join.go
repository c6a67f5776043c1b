package authsql

import (
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/store"
)

// Join joins auth to a host's environment on env's database: the service
// and its handlers, its workers and periodic jobs, and its migrations for
// env.Migrate. See auth.NewModule.
func Join(env *store.Env, opts *auth.ModuleOptions) (*auth.Module, error) {
	return auth.NewModule(env, New(env.DB), &Migrations, opts)
}
