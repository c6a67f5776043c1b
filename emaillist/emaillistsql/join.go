package emaillistsql

import (
	"github.com/groundwork-go/groundwork/emaillist"
	"github.com/groundwork-go/groundwork/store"
)

// Join joins the email list to a host's environment on env's database:
// the service and its handlers, its workers, and its migrations for
// env.Migrate. See emaillist.NewModule.
func Join(env *store.Env, opts *emaillist.ModuleOptions) (*emaillist.Module, error) {
	return emaillist.NewModule(env, New(env.DB), &Migrations, opts)
}
