// Package waitlisttest holds the conformance suite every [waitlist.Store]
// must pass ([RunStoreTests]); waitlistsql passes it on SQLite and
// Postgres.
package waitlisttest

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/waitlist"
)

// ctx is the context of every store call of the suite.
var ctx = context.Background()

// at is the suite's clock; exact is at as stored (to the microsecond).
var (
	at    = time.Date(2026, 6, 1, 8, 0, 0, 123456789, time.UTC)
	exact = at.Truncate(time.Microsecond)
)

// Stores are a waitlist.Store and the bookings.Store on the same
// database, which keeps the services the entries wait for.
type Stores struct {
	Waitlist waitlist.Store
	Bookings bookings.Store
}

// RunStoreTests checks newStores' waitlist store against the
// waitlist.Store contract: entries added once a customer and time, the
// first in line found, entries moved only from the status they had, found
// by their offer, listed, and lapsed. Each call gets fresh stores.
func RunStoreTests(t *testing.T, newStores func(t *testing.T) Stores) {
	st := newStores(t)
	s := st.Waitlist
	svc, err := st.Bookings.CreateService(ctx, bookings.Offering{Slug: "cut", Name: "Cut", Duration: 30, MaxBookingsPerSlot: 1,
		AssignmentStrategy: bookings.AssignRoundRobin, IsActive: true, TimeZone: "Europe/Berlin", CreatedAt: at, UpdatedAt: at})
	require.NoError(t, err)
	ten, eleven := time.Date(2026, 6, 2, 10, 0, 0, 0, time.UTC), time.Date(2026, 6, 2, 11, 0, 0, 0, time.UTC)
	entry := func(name string, start time.Time) waitlist.Entry {
		return waitlist.Entry{ServiceID: svc.ID, Start: start, Name: name, Email: name + "@example.com", TimeZone: "Europe/Berlin",
			Status: waitlist.StatusWaiting, CreatedAt: at, UpdatedAt: at}
	}
	// Added once a customer and time: the second add answers the first.
	ann, added, err := s.Add(ctx, entry("ann", ten))
	require.NoError(t, err)
	require.True(t, added)
	require.Positive(t, ann.ID)
	require.Equal(t, waitlist.StatusWaiting, ann.Status)
	require.Equal(t, exact, ann.CreatedAt)
	again := entry("ann", ten)
	again.Email = "ANN@example.com"
	same, added, err := s.Add(ctx, again)
	require.NoError(t, err)
	require.False(t, added, "the same customer, in any case")
	require.Equal(t, ann, same)
	bob, _, err := s.Add(ctx, entry("bob", ten))
	require.NoError(t, err)
	cat, _, err := s.Add(ctx, entry("cat", eleven))
	require.NoError(t, err)
	_, _, err = s.Add(ctx, waitlist.Entry{ServiceID: 999, Start: ten, Name: "x", Email: "x@example.com", CreatedAt: at, UpdatedAt: at})
	require.ErrorIs(t, err, waitlist.ErrNotFound, "no such service")

	got := offersMoved(t, s, svc.ID, ten, ann, bob, entry)
	listedAndLapsed(t, s, svc.ID, ten, eleven, got, []waitlist.Entry{ann, bob, cat}, entry)
}

// offersMoved: the first in line found, an entry moved only from the
// status it had and found by its offer; it returns ann's entry offered.
func offersMoved(t *testing.T, s waitlist.Store, serviceID int64, ten time.Time, ann, bob waitlist.Entry,
	entry func(name string, start time.Time) waitlist.Entry) waitlist.Entry {
	var added bool
	// In line, by the order they joined, over a span of times.
	line, err := s.Waiting(ctx, serviceID, ten, ten.Add(2*time.Hour), 10)
	require.NoError(t, err)
	require.Equal(t, []string{"ann", "bob", "cat"}, names(line))
	line, err = s.Waiting(ctx, serviceID, ten, ten.Add(time.Hour), 1)
	require.NoError(t, err)
	require.Equal(t, []string{"ann"}, names(line), "the first, of the times in the span")
	line, err = s.Waiting(ctx, serviceID, ten.Add(5*time.Hour), ten.Add(6*time.Hour), 10)
	require.NoError(t, err)
	require.Empty(t, line)

	// Moved only from the status it had; found by its offer.
	hash := sha256.Sum256([]byte("token"))
	expires, pid := at.Add(2*time.Hour), int64(7)
	offered := ann
	offered.Status, offered.OfferHash, offered.OfferSealed, offered.ProviderID = waitlist.StatusOffered, hash[:], "sealed", &pid
	offered.OfferedAt, offered.OfferExpires, offered.UpdatedAt = &at, &expires, at.Add(time.Minute)
	got, err := s.Update(ctx, offered, waitlist.StatusWaiting)
	require.NoError(t, err)
	require.Equal(t, waitlist.StatusOffered, got.Status)
	require.Equal(t, exact.Add(2*time.Hour), *got.OfferExpires)
	require.Equal(t, int64(7), *got.ProviderID)
	_, err = s.Update(ctx, offered, waitlist.StatusWaiting)
	require.ErrorIs(t, err, waitlist.ErrNotFound, "no longer waiting")
	byOffer, err := s.ByOffer(ctx, hash[:])
	require.NoError(t, err)
	require.Equal(t, got, byOffer)
	require.Equal(t, "sealed", byOffer.OfferSealed)
	none := sha256.Sum256([]byte("other"))
	_, err = s.ByOffer(ctx, none[:])
	require.ErrorIs(t, err, waitlist.ErrNotFound)
	line, err = s.Waiting(ctx, serviceID, ten, ten.Add(time.Hour), 10)
	require.NoError(t, err)
	require.Equal(t, []int64{bob.ID}, ids(line), "the offered one is no longer in line")
	// Still one entry for the customer while offered.
	_, added, err = s.Add(ctx, entry("ann", ten))
	require.NoError(t, err)
	require.False(t, added)

	return got
}

// listedAndLapsed: entries listed, lapsed, booked, moved in a
// transaction, and pruned.
func listedAndLapsed(t *testing.T, s waitlist.Store, serviceID int64, ten, eleven time.Time, got waitlist.Entry, abc []waitlist.Entry,
	entry func(name string, start time.Time) waitlist.Entry) {
	ann, bob, cat := abc[0], abc[1], abc[2]
	var added bool
	// Listed by time, then place; from a time on.
	list, err := s.Entries(ctx, serviceID, ten)
	require.NoError(t, err)
	require.Equal(t, []int64{ann.ID, bob.ID, cat.ID}, ids(list))
	list, err = s.Entries(ctx, 0, eleven)
	require.NoError(t, err)
	require.Equal(t, []int64{cat.ID}, ids(list))

	// Lapsed: an offer past its expiry, a wait past its time.
	lapsed, err := s.Lapsed(ctx, at.Add(time.Hour), 10)
	require.NoError(t, err)
	require.Empty(t, lapsed)
	lapsed, err = s.Lapsed(ctx, at.Add(3*time.Hour), 10)
	require.NoError(t, err)
	require.Equal(t, []int64{ann.ID}, ids(lapsed))
	lapsed, err = s.Lapsed(ctx, ten.Add(time.Minute), 10)
	require.NoError(t, err)
	require.Equal(t, []int64{ann.ID, bob.ID}, ids(lapsed))
	lapsed, err = s.Lapsed(ctx, ten.Add(time.Minute), 1)
	require.NoError(t, err)
	require.Len(t, lapsed, 1)

	// Booked, with its booking.
	booked := got
	bid := int64(42)
	booked.Status, booked.BookingID, booked.UpdatedAt = waitlist.StatusBooked, &bid, at.Add(time.Hour)
	got, err = s.Update(ctx, booked, waitlist.StatusOffered)
	require.NoError(t, err)
	require.Equal(t, int64(42), *got.BookingID)
	// Once booked, the customer may wait for the time again.
	_, added, err = s.Add(ctx, entry("ann", ten))
	require.NoError(t, err)
	require.True(t, added)

	// A transaction's reads and writes are its own until it commits.
	require.NoError(t, s.RunInTx(ctx, func(ctx context.Context, _ *sql.Tx) error {
		line, err := s.Waiting(ctx, serviceID, ten, ten.Add(time.Hour), 1)
		require.NoError(t, err)
		require.Equal(t, []int64{bob.ID}, ids(line))
		e := line[0]
		e.Status, e.UpdatedAt = waitlist.StatusExpired, at
		_, err = s.Update(ctx, e, waitlist.StatusWaiting)
		return err
	}))
	line, err := s.Waiting(ctx, serviceID, ten, ten.Add(time.Hour), 10)
	require.NoError(t, err)
	require.Equal(t, []string{"ann"}, names(line), "bob lapsed; ann waits again")

	// Erased by email, in any case.
	n, err := s.Erase(ctx, " CAT@example.com")
	require.NoError(t, err)
	require.Equal(t, 1, n)
	n, err = s.Erase(ctx, "cat@example.com")
	require.NoError(t, err)
	require.Zero(t, n)
	cat, _, err = s.Add(ctx, entry("cat", eleven))
	require.NoError(t, err)

	// Pruned by their time, whatever their status.
	n, err = s.Prune(ctx, eleven)
	require.NoError(t, err)
	require.Equal(t, 3, n, "ann's two and bob's")
	list, err = s.Entries(ctx, 0, ten.Add(-time.Hour))
	require.NoError(t, err)
	require.Equal(t, []int64{cat.ID}, ids(list))
}

func names(es []waitlist.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Name
	}
	return out
}

func ids(es []waitlist.Entry) []int64 {
	out := make([]int64, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}
