package waitlistsql_test

import (
	"testing"

	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/bookings/waitlist/waitlistsql"
	"github.com/groundwork-go/groundwork/bookings/waitlist/waitlisttest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

func TestStore(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		waitlisttest.RunStoreTests(t, func(t *testing.T) waitlisttest.Stores {
			db := storetest.Open(t, d, bookingssql.Migrations)
			return waitlisttest.Stores{Waitlist: waitlistsql.New(db), Bookings: bookingssql.New(db)}
		})
	})
}
