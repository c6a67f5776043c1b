// Package calendarstest holds the conformance suite every
// [calendars.Store] must pass ([RunStoreTests]), and [Google], a test
// double of Google's OAuth and Calendar API; bookingssql passes the suite
// on SQLite and Postgres.
package calendarstest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/calendars"
)

// ctx is the context of every store call of the suite.
var ctx = context.Background()

// at is the suite's clock; exact is at as stored (to the microsecond).
var (
	at    = time.Date(2026, 6, 1, 8, 0, 0, 123456789, time.UTC)
	exact = at.Truncate(time.Microsecond)
)

// Stores are a calendars.Store and the bookings.Store on the same
// database, which keeps the providers the connections belong to.
type Stores struct {
	Calendars calendars.Store
	Bookings  bookings.Store
}

// RunStoreTests checks newStores' calendar stores against the
// calendars.Store contract: connections kept and listed, their syncs
// claimed once at a time, good and failed reads recorded, and their busy
// periods merged into each provider's busy time. Each call gets fresh
// stores.
func RunStoreTests(t *testing.T, newStores func(t *testing.T) Stores) {
	st := newStores(t)
	s := st.Calendars
	ada, bob := provider(t, st.Bookings, "ada", 1), provider(t, st.Bookings, "bob", 2)
	c, other := connectionsKept(t, s, ada.ID, bob.ID)
	syncsClaimed(t, s, c.ID, other.ID)
	day := time.Date(2026, 6, 2, 0, 0, 0, 0, time.UTC)
	period := func(h1, h2 int) bookings.Period {
		return bookings.Period{Start: day.Add(time.Duration(h1) * time.Hour), End: day.Add(time.Duration(h2) * time.Hour)}
	}
	syncsRecorded(t, s, c.ID, day, period)

	// The periods are the provider's busy time: those overlapping the
	// span asked, each provider's by start; a provider with none is left
	// out.
	busy, err := s.Busy(ctx, []int64{ada.ID, bob.ID}, day, day.Add(48*time.Hour))
	require.NoError(t, err)
	require.Equal(t, map[int64][]bookings.Period{ada.ID: {period(9, 10), period(35, 36)}}, busy)
	busy, err = s.Busy(ctx, []int64{ada.ID}, day.Add(9*time.Hour+30*time.Minute), day.Add(24*time.Hour))
	require.NoError(t, err)
	require.Equal(t, map[int64][]bookings.Period{ada.ID: {period(9, 10)}}, busy)
	// Two connections of one provider overlapping are one span.
	second := connection(t, s, ada.ID, "Home")
	require.NoError(t, s.FinishSync(ctx, calendars.Sync{ConnectionID: second.ID, From: day, To: day.Add(24 * time.Hour),
		Periods: []bookings.Period{period(8, 9), period(9, 11)}, At: at, Next: at}))
	busy, err = s.Busy(ctx, []int64{ada.ID}, day, day.Add(24*time.Hour))
	require.NoError(t, err)
	require.Equal(t, map[int64][]bookings.Period{ada.ID: {period(8, 11)}}, busy)

	// Deleting a connection deletes its periods, and its busy time.
	require.NoError(t, s.DeleteConnection(ctx, second.ID))
	require.NoError(t, s.DeleteConnection(ctx, c.ID))
	require.ErrorIs(t, s.DeleteConnection(ctx, c.ID), calendars.ErrNotFound)
	periods, err := s.BusyPeriods(ctx, c.ID, day, day.Add(72*time.Hour))
	require.NoError(t, err)
	require.Empty(t, periods)
	busy, err = s.Busy(ctx, []int64{ada.ID}, day, day.Add(72*time.Hour))
	require.NoError(t, err)
	require.Empty(t, busy)
}

// provider stores an active provider with slug as its name.
func provider(t *testing.T, s bookings.Store, slug string, order int) bookings.Provider {
	p, err := s.CreateProvider(ctx, bookings.Provider{Slug: slug, Name: slug, TimeZone: "Europe/Berlin", Email: slug + "@example.com",
		RoundRobinWeight: 2, SortOrder: order, IsActive: true, CreatedAt: at, UpdatedAt: at})
	require.NoError(t, err)
	return p
}

// connection stores a CalDAV connection of p, due at once.
func connection(t *testing.T, s calendars.Store, providerID int64, name string) calendars.Connection {
	c, err := s.CreateConnection(ctx, calendars.Connection{ProviderID: providerID, Kind: calendars.CalDAV,
		Name: name, Endpoint: "https://caldav.example.com/", Username: "ada", SealedSecret: "sealed:" + name,
		Calendars: []string{"/ada/work/", "/ada/home/"}, Destination: "/ada/work/", NextSyncAt: at, CreatedAt: at, UpdatedAt: at,
		CalendarNames: map[string]string{"/ada/work/": "Work", "/ada/home/": "Home"}})
	require.NoError(t, err)
	return c
}

// connectionsKept: connections are stored, read, listed and updated, one
// for each provider; it returns them.
func connectionsKept(t *testing.T, s calendars.Store, adaID, bobID int64) (c, other calendars.Connection) {
	c = connection(t, s, adaID, "Work")
	require.Positive(t, c.ID)
	require.Equal(t, []string{"/ada/work/", "/ada/home/"}, c.Calendars)
	require.Equal(t, map[string]string{"/ada/work/": "Work", "/ada/home/": "Home"}, c.CalendarNames, "the calendars' names kept")
	require.Nil(t, c.SyncedAt)
	require.Equal(t, exact, c.NextSyncAt)
	got, err := s.Connection(ctx, c.ID)
	require.NoError(t, err)
	require.Equal(t, c, got)
	_, err = s.Connection(ctx, 999)
	require.ErrorIs(t, err, calendars.ErrNotFound)
	_, err = s.CreateConnection(ctx, calendars.Connection{ProviderID: 999, Kind: calendars.ICS, NextSyncAt: at,
		CreatedAt: at, UpdatedAt: at})
	require.ErrorIs(t, err, calendars.ErrNotFound, "no such provider")
	other = connection(t, s, bobID, "Bob's")
	list, err := s.ListConnections(ctx, adaID)
	require.NoError(t, err)
	require.Equal(t, []calendars.Connection{c}, list)
	list, err = s.ListConnections(ctx, 0)
	require.NoError(t, err)
	require.Len(t, list, 2)

	c.Name, c.Calendars, c.Destination, c.BlockWhenStale, c.SealedSecret = "Work calendar", []string{"/ada/work/"}, "", true, "sealed:new"
	c.CalendarNames = map[string]string{"/ada/work/": "Work (renamed)"}
	c.UpdatedAt = at.Add(time.Minute)
	updated, err := s.UpdateConnection(ctx, c)
	require.NoError(t, err)
	require.Equal(t, "Work calendar", updated.Name)
	require.Equal(t, []string{"/ada/work/"}, updated.Calendars)
	require.True(t, updated.BlockWhenStale)
	require.Equal(t, "sealed:new", updated.SealedSecret)
	require.Equal(t, map[string]string{"/ada/work/": "Work (renamed)"}, updated.CalendarNames)
	require.Equal(t, exact.Add(time.Minute), updated.UpdatedAt)
	c.ID = 999
	_, err = s.UpdateConnection(ctx, c)
	require.ErrorIs(t, err, calendars.ErrNotFound)
	c = updated
	return c, other
}

// syncsClaimed: one claim at a time, and a lapsed claim can be taken
// again.
func syncsClaimed(t *testing.T, s calendars.Store, id, otherID int64) {
	due, err := s.DueSyncs(ctx, at, 10)
	require.NoError(t, err)
	require.ElementsMatch(t, []int64{id, otherID}, due)
	ok, err := s.ClaimSync(ctx, id, at, at.Add(time.Minute))
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = s.ClaimSync(ctx, id, at.Add(30*time.Second), at.Add(2*time.Minute))
	require.NoError(t, err)
	require.False(t, ok, "held")
	due, err = s.DueSyncs(ctx, at.Add(30*time.Second), 10)
	require.NoError(t, err)
	require.Equal(t, []int64{otherID}, due, "a claimed one is not due")
	ok, err = s.ClaimSync(ctx, id, at.Add(time.Minute), at.Add(2*time.Minute))
	require.NoError(t, err)
	require.True(t, ok, "the claim lapsed")
	ok, err = s.ClaimSync(ctx, 999, at, at.Add(time.Minute))
	require.NoError(t, err)
	require.False(t, ok)
}

// syncsRecorded: good, unchanged and failed reads of connection id, their
// periods and their errors.
func syncsRecorded(t *testing.T, s calendars.Store, id int64, day time.Time, period func(h1, h2 int) bookings.Period) {
	// A good read replaces the periods of the span read, and only those.
	require.NoError(t, s.FinishSync(ctx, calendars.Sync{ConnectionID: id, From: day, To: day.Add(72 * time.Hour),
		Periods: []bookings.Period{period(9, 10), period(33, 34), period(60, 61)}, ETag: `"e1"`, LastModified: "Tue, 02 Jun 2026 08:00:00 GMT",
		At: at.Add(time.Minute), Next: at.Add(6 * time.Minute)}))
	c, err := s.Connection(ctx, id)
	require.NoError(t, err)
	require.Equal(t, exact.Add(time.Minute), *c.SyncedAt)
	require.Equal(t, day.Add(72*time.Hour), *c.SyncedUntil)
	require.Equal(t, `"e1"`, c.ETag)
	require.Equal(t, exact.Add(6*time.Minute), c.NextSyncAt)
	ok, err := s.ClaimSync(ctx, id, at.Add(time.Minute), at.Add(2*time.Minute))
	require.NoError(t, err)
	require.True(t, ok, "a finished sync lets its claim go")
	require.NoError(t, s.FinishSync(ctx, calendars.Sync{ConnectionID: id, From: day.Add(24 * time.Hour), To: day.Add(48 * time.Hour),
		Periods: []bookings.Period{period(35, 36)}, At: at.Add(2 * time.Minute), Next: at.Add(7 * time.Minute)}))
	periods, err := s.BusyPeriods(ctx, id, day, day.Add(72*time.Hour))
	require.NoError(t, err)
	require.Equal(t, []bookings.Period{period(9, 10), period(35, 36), period(60, 61)}, periods)
	require.NoError(t, s.FinishSync(ctx, calendars.Sync{ConnectionID: id, From: day, To: day.Add(72 * time.Hour),
		NotModified: true, ETag: `"e1"`, At: at.Add(3 * time.Minute), Next: at.Add(8 * time.Minute)}))
	periods, err = s.BusyPeriods(ctx, id, day, day.Add(72*time.Hour))
	require.NoError(t, err)
	require.Len(t, periods, 3, "not modified: the periods stand")
	require.ErrorIs(t, s.FinishSync(ctx, calendars.Sync{ConnectionID: 999, At: at, Next: at}), calendars.ErrNotFound)

	// A failed read counts, keeps the periods, and lets the claim go.
	_, err = s.ClaimSync(ctx, id, at.Add(3*time.Minute), at.Add(4*time.Minute))
	require.NoError(t, err)
	require.NoError(t, s.FailSync(ctx, id, "401 Unauthorized", at.Add(20*time.Minute)))
	require.NoError(t, s.FailSync(ctx, id, "timeout", at.Add(40*time.Minute)))
	c, err = s.Connection(ctx, id)
	require.NoError(t, err)
	require.Equal(t, "timeout", c.LastError)
	require.Equal(t, 2, c.Failures)
	require.Equal(t, exact.Add(3*time.Minute), *c.SyncedAt, "the last good read stays")
	ok, err = s.ClaimSync(ctx, id, at.Add(3*time.Minute), at.Add(4*time.Minute))
	require.NoError(t, err)
	require.True(t, ok)
	require.ErrorIs(t, s.FailSync(ctx, 999, "x", at), calendars.ErrNotFound)

	// A good read's warning is the last error, with no failures; an
	// unchanged calendar keeps it; a changed one without one clears it;
	// an unchanged read after a failure clears the failure's reason.
	lastError := func() (string, int) {
		c, err := s.Connection(ctx, id)
		require.NoError(t, err)
		return c.LastError, c.Failures
	}
	finish := func(notModified bool, warning string) {
		require.NoError(t, s.FinishSync(ctx, calendars.Sync{ConnectionID: id, From: day, To: day.Add(72 * time.Hour),
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
	require.NoError(t, s.FailSync(ctx, id, "timeout", at.Add(40*time.Minute)))
	finish(true, "")
	msg, failures = lastError()
	require.Empty(t, msg, "a good read clears a failure's reason")
	require.Zero(t, failures)
}
