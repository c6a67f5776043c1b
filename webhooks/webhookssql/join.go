package webhookssql

import (
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/webhooks"
)

// Join joins webhooks to a host's environment on env's database: the
// service (its payment sessions kept there too, unless opts gives
// others) and its handlers, its workers, periodic jobs and delivery loop,
// and its migrations for env.Migrate. See webhooks.NewModule.
func Join(env *store.Env, opts *webhooks.ModuleOptions) (*webhooks.Module, error) {
	var o webhooks.ModuleOptions
	if opts != nil {
		o = *opts
	}
	if o.Service.PaymentSessions == nil {
		o.Service.PaymentSessions = NewPaymentSessions(env.DB, nil)
	}
	return webhooks.NewModule(env, New(env.DB), &Migrations, &o)
}
