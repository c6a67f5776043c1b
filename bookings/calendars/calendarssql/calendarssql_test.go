package calendarssql_test

import (
	"testing"

	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/bookings/calendars/calendarssql"
	"github.com/groundwork-go/groundwork/bookings/calendars/calendarstest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

func TestStore(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		calendarstest.RunStoreTests(t, func(t *testing.T) calendarstest.Stores {
			db := storetest.Open(t, d, bookingssql.Migrations)
			return calendarstest.Stores{Calendars: calendarssql.New(db), Bookings: bookingssql.New(db)}
		})
	})
}
