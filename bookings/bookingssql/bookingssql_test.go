package bookingssql_test

import (
	"testing"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/bookings/bookingstest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

func TestStore(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		bookingstest.RunStoreTests(t, func(t *testing.T) bookings.Store {
			return bookingssql.New(storetest.Open(t, d, bookingssql.Migrations))
		})
	})
}
