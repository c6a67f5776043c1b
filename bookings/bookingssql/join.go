package bookingssql

import (
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/store"
)

// Join joins bookings to a host's environment on env's database: the
// service and its handlers, its workers and periodic jobs, and its
// migrations for env.Migrate. See bookings.NewModule.
func Join(env *store.Env, opts *bookings.ModuleOptions) (*bookings.Module, error) {
	return bookings.NewModule(env, New(env.DB), &Migrations, opts)
}
