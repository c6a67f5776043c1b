package bookingstest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/slots"
)

// connection stores a CalDAV connection of p, due at once.
func connection(t *testing.T, s bookings.Store, providerID int64, name string) bookings.CalendarConnection {
	c, err := s.CreateCalendarConnection(ctx, bookings.CalendarConnection{ProviderID: providerID, Kind: bookings.CalendarCalDAV,
		Name: name, Endpoint: "https://caldav.example.com/", Username: "ada", SealedSecret: "sealed:" + name,
		Calendars: []string{"/ada/work/", "/ada/home/"}, Destination: "/ada/work/", NextSyncAt: at, CreatedAt: at, UpdatedAt: at})
	require.NoError(t, err)
	return c
}

// exerciseCalendarConnections is the CalendarConnections part of
// RunStoreTests: connections kept and listed, their syncs claimed once at
// a time, good and failed reads recorded, and their busy periods counted
// as busy time (no service, no buffers) by Calendar and by Reserve.
func exerciseCalendarConnections(t *testing.T, newStore func(t *testing.T) bookings.Store) {
	t.Parallel()
	s := newStore(t)
	v := service(t, s, "cut")
	ada, bob := provider(t, s, "ada", 1), provider(t, s, "bob", 2)
	c, other := connectionsKept(t, s, ada.ID, bob.ID)
	syncsClaimed(t, s, c.ID, other.ID)
	day := time.Date(2026, 6, 2, 0, 0, 0, 0, time.UTC)
	period := func(h1, h2 int) bookings.Period {
		return bookings.Period{Start: day.Add(time.Duration(h1) * time.Hour), End: day.Add(time.Duration(h2) * time.Hour)}
	}
	syncsRecorded(t, s, c.ID, day, period)

	// The periods are the provider's busy time: no service, no buffers.
	cal, err := s.Availability(ctx, bookings.AvailabilityQuery{ServiceID: v.ID, ProviderIDs: []int64{ada.ID, bob.ID},
		From: slots.DateOf(day), To: slots.DateOf(day.Add(48 * time.Hour)), BusyFrom: day, BusyTo: day.Add(48 * time.Hour), Now: at})
	require.NoError(t, err)
	require.Equal(t, []bookings.Busy{{Period: period(9, 10)}, {Period: period(35, 36)}}, cal.Busy[ada.ID])
	require.Empty(t, cal.Busy[bob.ID])
	_, err = s.Reserve(ctx, nil, bookings.Reservation{Booking: booking(v.ID, ada.ID, day.Add(9*time.Hour+30*time.Minute), 45, at, "B-1"),
		ManageTokenHash: []byte("t1"), Lock: "ada", LockWait: time.Second, BusyFrom: day, BusyTo: day.Add(24 * time.Hour),
		Check: func(busy []bookings.Busy) bool {
			require.Equal(t, []bookings.Busy{{Period: period(9, 10)}}, busy)
			return false
		}})
	require.ErrorIs(t, err, bookings.ErrSlotTaken)

	// Deleting a connection deletes its periods.
	require.NoError(t, s.DeleteCalendarConnection(ctx, c.ID))
	require.ErrorIs(t, s.DeleteCalendarConnection(ctx, c.ID), bookings.ErrNotFound)
	periods, err := s.BusyPeriods(ctx, c.ID, day, day.Add(72*time.Hour))
	require.NoError(t, err)
	require.Empty(t, periods)
	cal, err = s.Availability(ctx, bookings.AvailabilityQuery{ServiceID: v.ID, ProviderIDs: []int64{ada.ID},
		From: slots.DateOf(day), To: slots.DateOf(day), BusyFrom: day, BusyTo: day.Add(24 * time.Hour), Now: at})
	require.NoError(t, err)
	require.Empty(t, cal.Busy[ada.ID])
}

// connectionsKept: connections are stored, read, listed and updated, one
// for each provider; it returns them.
func connectionsKept(t *testing.T, s bookings.Store, adaID, bobID int64) (c, other bookings.CalendarConnection) {
	c = connection(t, s, adaID, "Work")
	require.Positive(t, c.ID)
	require.Equal(t, []string{"/ada/work/", "/ada/home/"}, c.Calendars)
	require.Nil(t, c.SyncedAt)
	require.Equal(t, exact, c.NextSyncAt)
	got, err := s.CalendarConnection(ctx, c.ID)
	require.NoError(t, err)
	require.Equal(t, c, got)
	_, err = s.CalendarConnection(ctx, 999)
	require.ErrorIs(t, err, bookings.ErrNotFound)
	_, err = s.CreateCalendarConnection(ctx, bookings.CalendarConnection{ProviderID: 999, Kind: bookings.CalendarICS, NextSyncAt: at,
		CreatedAt: at, UpdatedAt: at})
	require.ErrorIs(t, err, bookings.ErrNotFound, "no such provider")
	other = connection(t, s, bobID, "Bob's")
	list, err := s.ListCalendarConnections(ctx, adaID)
	require.NoError(t, err)
	require.Equal(t, []bookings.CalendarConnection{c}, list)
	list, err = s.ListCalendarConnections(ctx, 0)
	require.NoError(t, err)
	require.Len(t, list, 2)

	c.Name, c.Calendars, c.Destination, c.BlockWhenStale, c.SealedSecret = "Work calendar", []string{"/ada/work/"}, "", true, "sealed:new"
	c.UpdatedAt = at.Add(time.Minute)
	updated, err := s.UpdateCalendarConnection(ctx, c)
	require.NoError(t, err)
	require.Equal(t, "Work calendar", updated.Name)
	require.Equal(t, []string{"/ada/work/"}, updated.Calendars)
	require.True(t, updated.BlockWhenStale)
	require.Equal(t, "sealed:new", updated.SealedSecret)
	require.Equal(t, exact.Add(time.Minute), updated.UpdatedAt)
	c.ID = 999
	_, err = s.UpdateCalendarConnection(ctx, c)
	require.ErrorIs(t, err, bookings.ErrNotFound)
	c = updated
	return c, other
}

// syncsClaimed: one claim at a time, and a lapsed claim can be taken
// again.
func syncsClaimed(t *testing.T, s bookings.Store, id, otherID int64) {
	due, err := s.DueCalendarSyncs(ctx, at, 10)
	require.NoError(t, err)
	require.ElementsMatch(t, []int64{id, otherID}, due)
	ok, err := s.ClaimCalendarSync(ctx, id, at, at.Add(time.Minute))
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = s.ClaimCalendarSync(ctx, id, at.Add(30*time.Second), at.Add(2*time.Minute))
	require.NoError(t, err)
	require.False(t, ok, "held")
	due, err = s.DueCalendarSyncs(ctx, at.Add(30*time.Second), 10)
	require.NoError(t, err)
	require.Equal(t, []int64{otherID}, due, "a claimed one is not due")
	ok, err = s.ClaimCalendarSync(ctx, id, at.Add(time.Minute), at.Add(2*time.Minute))
	require.NoError(t, err)
	require.True(t, ok, "the claim lapsed")
	ok, err = s.ClaimCalendarSync(ctx, 999, at, at.Add(time.Minute))
	require.NoError(t, err)
	require.False(t, ok)
}

// syncsRecorded: good, unchanged and failed reads of connection id, their
// periods and their errors.
func syncsRecorded(t *testing.T, s bookings.Store, id int64, day time.Time, period func(h1, h2 int) bookings.Period) {
	// A good read replaces the periods of the span read, and only those.
	require.NoError(t, s.FinishCalendarSync(ctx, bookings.CalendarSync{ConnectionID: id, From: day, To: day.Add(72 * time.Hour),
		Periods: []bookings.Period{period(9, 10), period(33, 34), period(60, 61)}, ETag: `"e1"`, LastModified: "Tue, 02 Jun 2026 08:00:00 GMT",
		At: at.Add(time.Minute), Next: at.Add(6 * time.Minute)}))
	c, err := s.CalendarConnection(ctx, id)
	require.NoError(t, err)
	require.Equal(t, exact.Add(time.Minute), *c.SyncedAt)
	require.Equal(t, day.Add(72*time.Hour), *c.SyncedUntil)
	require.Equal(t, `"e1"`, c.ETag)
	require.Equal(t, exact.Add(6*time.Minute), c.NextSyncAt)
	ok, err := s.ClaimCalendarSync(ctx, id, at.Add(time.Minute), at.Add(2*time.Minute))
	require.NoError(t, err)
	require.True(t, ok, "a finished sync lets its claim go")
	require.NoError(t, s.FinishCalendarSync(ctx, bookings.CalendarSync{ConnectionID: id, From: day.Add(24 * time.Hour), To: day.Add(48 * time.Hour),
		Periods: []bookings.Period{period(35, 36)}, At: at.Add(2 * time.Minute), Next: at.Add(7 * time.Minute)}))
	periods, err := s.BusyPeriods(ctx, id, day, day.Add(72*time.Hour))
	require.NoError(t, err)
	require.Equal(t, []bookings.Period{period(9, 10), period(35, 36), period(60, 61)}, periods)
	require.NoError(t, s.FinishCalendarSync(ctx, bookings.CalendarSync{ConnectionID: id, From: day, To: day.Add(72 * time.Hour),
		NotModified: true, ETag: `"e1"`, At: at.Add(3 * time.Minute), Next: at.Add(8 * time.Minute)}))
	periods, err = s.BusyPeriods(ctx, id, day, day.Add(72*time.Hour))
	require.NoError(t, err)
	require.Len(t, periods, 3, "not modified: the periods stand")
	require.ErrorIs(t, s.FinishCalendarSync(ctx, bookings.CalendarSync{ConnectionID: 999, At: at, Next: at}), bookings.ErrNotFound)

	// A failed read counts, keeps the periods, and lets the claim go.
	_, err = s.ClaimCalendarSync(ctx, id, at.Add(3*time.Minute), at.Add(4*time.Minute))
	require.NoError(t, err)
	require.NoError(t, s.FailCalendarSync(ctx, id, "401 Unauthorized", at.Add(20*time.Minute)))
	require.NoError(t, s.FailCalendarSync(ctx, id, "timeout", at.Add(40*time.Minute)))
	c, err = s.CalendarConnection(ctx, id)
	require.NoError(t, err)
	require.Equal(t, "timeout", c.LastError)
	require.Equal(t, 2, c.Failures)
	require.Equal(t, exact.Add(3*time.Minute), *c.SyncedAt, "the last good read stays")
	ok, err = s.ClaimCalendarSync(ctx, id, at.Add(3*time.Minute), at.Add(4*time.Minute))
	require.NoError(t, err)
	require.True(t, ok)
	require.ErrorIs(t, s.FailCalendarSync(ctx, 999, "x", at), bookings.ErrNotFound)

	// A good read's warning is the last error, with no failures; an
	// unchanged calendar keeps it; a changed one without one clears it;
	// an unchanged read after a failure clears the failure's reason.
	lastError := func() (string, int) {
		c, err := s.CalendarConnection(ctx, id)
		require.NoError(t, err)
		return c.LastError, c.Failures
	}
	finish := func(notModified bool, warning string) {
		require.NoError(t, s.FinishCalendarSync(ctx, bookings.CalendarSync{ConnectionID: id, From: day, To: day.Add(72 * time.Hour),
			Periods: []bookings.Period{period(9, 10), period(35, 36), period(60, 61)}, NotModified: notModified, Warning: warning,
			At: at.Add(3 * time.Minute), Next: at.Add(8 * time.Minute)}))
	}
	finish(false, "Some events repeat too often to read.")
	msg, failures := lastError()
	require.Equal(t, "Some events repeat too often to read.", msg)
	require.Zero(t, failures)
	finish(true, "")
	msg, _ = lastError()
	require.Equal(t, "Some events repeat too often to read.", msg, "unchanged: the warning stands")
	finish(false, "")
	msg, _ = lastError()
	require.Empty(t, msg)
	require.NoError(t, s.FailCalendarSync(ctx, id, "timeout", at.Add(40*time.Minute)))
	finish(true, "")
	msg, failures = lastError()
	require.Empty(t, msg, "a good read clears a failure's reason")
	require.Zero(t, failures)
}
