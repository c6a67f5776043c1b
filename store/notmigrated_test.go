package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

// A store or queue used before its migrations says which Migrate call is
// missing, on either database, instead of "no such table".
func TestUseBeforeMigrateNamesTheCall(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db, err := store.Open(ctx, storetest.DSN(t, d))
		require.NoError(t, err)
		t.Cleanup(func() { db.Close() })

		fs, err := forms.NewService(formssql.New(db), nil)
		require.NoError(t, err)
		err = fs.CreateForm(ctx, &forms.Form{Name: "Contact"})
		require.ErrorIs(t, err, store.ErrNotMigrated)
		require.ErrorContains(t, err, "the table forms_forms does not exist")
		require.ErrorContains(t, err, "call store.Migrate(ctx, db, formssql.Migrations) at start")

		ws, err := webhooks.NewService(webhookssql.New(db), &webhooks.Options{SecretKey: []byte("0123456789abcdef0123456789abcdef")})
		require.NoError(t, err)
		_, _, err = ws.Subscriptions(ctx, webhooks.SubscriptionQuery{}, false)
		require.ErrorIs(t, err, store.ErrNotMigrated)
		require.ErrorContains(t, err, "store.Migrate(ctx, db, webhookssql.Migrations)")

		bs, err := bookings.NewService(bookingssql.New(db), nil)
		require.NoError(t, err)
		name, slug, minutes, zone := "Consultation", "consultation", 30, "UTC"
		_, err = bs.CreateService(ctx, bookings.OfferingInput{Name: &name, Slug: &slug, Duration: &minutes, TimeZone: &zone})
		require.ErrorIs(t, err, store.ErrNotMigrated)
		require.ErrorContains(t, err, "store.Migrate(ctx, db, bookingssql.Migrations)")
		_, err = bs.Services(ctx)
		require.ErrorContains(t, err, "store.Migrate(ctx, db, bookingssql.Migrations)", "a read too")

		q, err := store.NewQueue(db, &store.QueueOptions{TestOnly: true})
		require.NoError(t, err)
		err = q.Enqueue(ctx, store.RateLimitSweepArgs{}, nil)
		require.ErrorIs(t, err, store.ErrNotMigrated)
		require.ErrorContains(t, err, "the table river_job does not exist")
		require.ErrorContains(t, err, "without MigrateOptions.WithoutQueue (it makes River's tables)")
	})
}
