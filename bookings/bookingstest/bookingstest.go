// Package bookingstest holds the conformance suite every [bookings.Store]
// must pass ([RunStoreTests]); bookingssql passes it on SQLite and
// Postgres.
package bookingstest

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingsstore"
	"github.com/groundwork-go/groundwork/bookings/slots"
	"github.com/groundwork-go/groundwork/internal/testkit"
)

// ctx is the context of every store call of the suite.
var ctx = context.Background()

// at is the suite's clock; exact is at as stored (to the microsecond).
var (
	at    = time.Date(2026, 6, 1, 8, 0, 0, 123456789, time.UTC)
	exact = at.Truncate(time.Microsecond)
)

// service stores an active round-robin service of 45 minutes with
// buffers, a price and an intake schema.
func service(t *testing.T, s bookings.Store, slug string) bookings.Offering {
	interval, minAdvance := 10, 30
	price := "12.50"
	v, err := s.CreateService(ctx, bookings.Offering{Slug: slug, Name: "Cut", Duration: 45, BufferBefore: 5, BufferAfter: 10, Price: &price,
		TimeZone: "Europe/Berlin", AssignmentStrategy: bookings.AssignRoundRobin, SlotInterval: &interval, MinAdvance: &minAdvance,
		MaxBookingsPerSlot: 1, IntakeSchema: &bookings.IntakeSchema{Fields: []bookings.IntakeField{{Name: "topic", Type: "select", Label: "Topic",
			Required: true, Options: []string{"a", "b"}}}}, IntakeSchemaVersion: 2, IsActive: true, CreatedAt: at, UpdatedAt: at})
	require.NoError(t, err)
	return v
}

// provider stores an active provider with slug as its name.
func provider(t *testing.T, s bookings.Store, slug string, order int) bookings.Provider {
	p, err := s.CreateProvider(ctx, bookings.Provider{Slug: slug, Name: slug, TimeZone: "Europe/Berlin", Email: slug + "@example.com",
		RoundRobinWeight: 2, SortOrder: order, IsActive: true, CreatedAt: at, UpdatedAt: at})
	require.NoError(t, err)
	return p
}

// reserve books one confirmed booking of p without a check.
func reserve(t *testing.T, s bookings.Store, serviceID, providerID int64, start time.Time, number string) bookings.Booking {
	b, err := s.Reserve(ctx, nil, bookings.Reservation{Booking: booking(serviceID, providerID, start, 45, at, number),
		ManageTokenHash: []byte("token of " + number), Lock: "l", LockWait: time.Second, BusyFrom: start, BusyTo: start})
	require.NoError(t, err)
	return b
}

// RunStoreTests checks newStore's stores against the bookings.Store
// contract. Each subtest gets a fresh store.
func RunStoreTests(t *testing.T, newStore func(t *testing.T) bookings.Store) {
	testkit.RunAreas(t, newStore, []testkit.Area[bookings.Store]{
		{Name: "Services", Run: exerciseServices},
		{Name: "ProvidersAndOffers", Run: exerciseProvidersAndOffers},
		{Name: "Calendar", Run: exerciseCalendar},
		{Name: "Reserve", Run: exerciseReserve},
		{Name: "HoldsAndSeats", Run: exerciseHoldsAndSeats},
		{Name: "UpdatesListsAndDeletes", Run: exerciseUpdatesListsAndDeletes},
		{Name: "FeedsAndSequence", Run: exerciseFeedsAndSequence},
		{Name: "NotificationsAndHousekeeping", Run: exerciseNotificationsAndHousekeeping},
		{Name: "Payments", Run: exercisePayments},
	})
}

// exerciseServices is the Services part of RunStoreTests.
func exerciseServices(t *testing.T, newStore func(t *testing.T) bookings.Store) {
	t.Parallel()
	s := newStore(t)
	v := service(t, s, "cut")
	require.Positive(t, v.ID)
	require.Equal(t, "12.50", *v.Price)
	require.Equal(t, 10, *v.SlotInterval)
	require.Nil(t, v.MaxAdvance)
	require.Equal(t, exact, v.CreatedAt)
	require.Equal(t, "topic", v.IntakeSchema.Fields[0].Name)
	got, err := s.ServiceBySlug(ctx, "cut")
	require.NoError(t, err)
	require.Equal(t, v, got)
	_, err = s.ServiceBySlug(ctx, "nope")
	require.ErrorIs(t, err, bookings.ErrNotFound)
	_, err = s.CreateService(ctx, v)
	require.ErrorIs(t, err, bookings.ErrSlugTaken)
	off := v
	off.Slug, off.Name, off.IsActive, off.IntakeSchema = "off", "Another", false, nil
	_, err = s.CreateService(ctx, off)
	require.NoError(t, err)
	all, err := s.ListServices(ctx, false)
	require.NoError(t, err)
	require.Len(t, all, 2)
	require.Equal(t, "Another", all[0].Name, "name order")
	active, err := s.ListServices(ctx, true)
	require.NoError(t, err)
	require.Len(t, active, 1)
}

// exerciseProvidersAndOffers is the ProvidersAndOffers part of RunStoreTests.
func exerciseProvidersAndOffers(t *testing.T, newStore func(t *testing.T) bookings.Store) {
	t.Parallel()
	s := newStore(t)
	v := service(t, s, "cut")
	b := provider(t, s, "bea", 2)
	a := provider(t, s, "al", 1)
	got, err := s.Provider(ctx, b.ID)
	require.NoError(t, err)
	require.Equal(t, b, got)
	require.Equal(t, "bea@example.com", got.Email)
	_, err = s.Provider(ctx, 999)
	require.ErrorIs(t, err, bookings.ErrNotFound)
	_, err = s.CreateProvider(ctx, b)
	require.ErrorIs(t, err, bookings.ErrSlugTaken)
	sixty := 60
	require.NoError(t, s.LinkProvider(ctx, v.ID, b.ID, nil, nil))
	require.NoError(t, s.LinkProvider(ctx, v.ID, a.ID, nil, nil))
	require.NoError(t, s.LinkProvider(ctx, v.ID, a.ID, &sixty, nil), "linking again updates")
	require.ErrorIs(t, s.LinkProvider(ctx, v.ID, 999, nil, nil), bookings.ErrNotFound)
	offers, err := s.Offers(ctx, v.ID)
	require.NoError(t, err)
	require.Len(t, offers, 2)
	require.Equal(t, a.ID, offers[0].ID, "sort order")
	require.Equal(t, 60, *offers[0].CustomDuration)
	require.Nil(t, offers[1].CustomDuration)
}

// exerciseCalendar is the Calendar part of RunStoreTests.
func exerciseCalendar(t *testing.T, newStore func(t *testing.T) bookings.Store) {
	t.Parallel()
	s := newStore(t)
	v := service(t, s, "cut")
	other := service(t, s, "other")
	p := provider(t, s, "al", 1)
	q := provider(t, s, "bo", 2)
	from, _ := slots.ParseDate("2026-06-01")
	until, _ := slots.ParseDate("2026-06-30")
	h, err := s.AddWeeklyHours(ctx, bookings.WeeklyHours{ProviderID: p.ID, Weekday: time.Monday, Start: 540, End: 720, EffectiveFrom: &from, EffectiveUntil: &until, IsAvailable: true})
	require.NoError(t, err)
	require.Positive(t, h.ID)
	_, err = s.AddWeeklyHours(ctx, bookings.WeeklyHours{ProviderID: q.ID, Weekday: time.Sunday, Start: 0, End: 1440, IsAvailable: true})
	require.NoError(t, err)
	d2, _ := slots.ParseDate("2026-06-02")
	d9, _ := slots.ParseDate("2026-06-09")
	_, err = s.AddOverride(ctx, bookings.Override{ProviderID: p.ID, Date: d2, Type: bookings.OverrideUnavailable, Reason: "dentist"})
	require.NoError(t, err)
	start, end := 600, 660
	_, err = s.AddOverride(ctx, bookings.Override{ProviderID: p.ID, Date: d9, Type: bookings.OverrideCustomHours, Start: &start, End: &end})
	require.NoError(t, err)
	_, err = s.AddBlackout(ctx, bookings.Blackout{ServiceID: &v.ID, From: d2, To: d2, Reason: "closed"})
	require.NoError(t, err)
	_, err = s.AddBlackout(ctx, bookings.Blackout{From: d9, To: d9, Reason: "holiday"})
	require.NoError(t, err)
	_, err = s.AddBlackout(ctx, bookings.Blackout{ServiceID: &other.ID, From: d2, To: d9})
	require.NoError(t, err)

	slot := time.Date(2026, 6, 2, 9, 0, 0, 0, time.UTC)
	_, err = s.Reserve(ctx, nil, bookings.Reservation{Booking: booking(v.ID, p.ID, slot, 45, at, "BK-AAAAAAAAAAAA"), ManageTokenHash: []byte("h1"), Lock: "x", LockWait: time.Second,
		BusyFrom: slot, BusyTo: slot})
	require.NoError(t, err)

	cal, err := s.Availability(ctx, bookings.AvailabilityQuery{ServiceID: v.ID, ProviderIDs: []int64{p.ID}, From: d2, To: d2,
		BusyFrom: slot.Add(-time.Hour), BusyTo: slot.Add(time.Hour), Now: at})
	require.NoError(t, err)
	require.Len(t, cal.Hours, 1, "only the providers asked for")
	require.Equal(t, from, *cal.Hours[0].EffectiveFrom)
	require.Len(t, cal.Overrides, 1, "only the dates asked for")
	require.Equal(t, "dentist", cal.Overrides[0].Reason)
	require.Len(t, cal.Blackouts, 1, "the service's, not another's")
	require.Equal(t, []bookings.Busy{{Period: bookings.Period{Start: slot, End: slot.Add(45 * time.Minute)}, BufferBefore: 5 * time.Minute,
		BufferAfter: 10 * time.Minute, ServiceID: v.ID}}, cal.Busy[p.ID])

	cal, err = s.Availability(ctx, bookings.AvailabilityQuery{ServiceID: v.ID, ProviderIDs: []int64{p.ID, q.ID}, From: d9, To: d9,
		BusyFrom: slot.Add(2 * time.Hour), BusyTo: slot.Add(3 * time.Hour), Now: at})
	require.NoError(t, err)
	require.Len(t, cal.Hours, 2)
	require.Equal(t, 600, *cal.Overrides[0].Start)
	require.Len(t, cal.Blackouts, 1)
	require.Nil(t, cal.Blackouts[0].ServiceID, "one for every service")
	require.Empty(t, cal.Busy[p.ID], "the booking is outside the busy span")

	// A tenant's: its service, provider and blackouts keep its key; a
	// blackout of every service closes every service of its tenant only;
	// bookings are listed by their service's tenant.
	acme := service(t, s, "acme-cut")
	acme.Tenant = "acme"
	acme, err = s.UpdateService(ctx, acme)
	require.NoError(t, err)
	require.Empty(t, acme.Tenant, "an update does not move a service to another tenant")
	acme, err = s.CreateService(ctx, bookings.Offering{Slug: "acme-shave", Name: "Shave", Duration: 30, TimeZone: "UTC", MaxBookingsPerSlot: 1,
		IsActive: true, CreatedAt: at, UpdatedAt: at, Tenant: "acme"})
	require.NoError(t, err)
	require.Equal(t, "acme", acme.Tenant)
	got, err := s.ServiceByID(ctx, acme.ID)
	require.NoError(t, err)
	require.Equal(t, "acme", got.Tenant)
	ap, err := s.CreateProvider(ctx, bookings.Provider{Slug: "acme-al", Name: "Al", TimeZone: "UTC", RoundRobinWeight: 1, IsActive: true,
		CreatedAt: at, UpdatedAt: at, Tenant: "acme"})
	require.NoError(t, err)
	ap, err = s.Provider(ctx, ap.ID)
	require.NoError(t, err)
	require.Equal(t, "acme", ap.Tenant)
	d3, _ := slots.ParseDate("2026-06-03")
	acmeClosed, err := s.AddBlackout(ctx, bookings.Blackout{From: d3, To: d3, Reason: "acme's holiday", Tenant: "acme"})
	require.NoError(t, err)
	all, err := s.ListBlackouts(ctx)
	require.NoError(t, err)
	require.Equal(t, "acme", all[slices.IndexFunc(all, func(b bookings.Blackout) bool { return b.ID == acmeClosed.ID })].Tenant)
	for svc, want := range map[int64][]string{acme.ID: {"acme's holiday"}, v.ID: nil} {
		cal, err := s.Availability(ctx, bookings.AvailabilityQuery{ServiceID: svc, ProviderIDs: []int64{p.ID}, From: d3, To: d3,
			BusyFrom: slot, BusyTo: slot, Now: at})
		require.NoError(t, err)
		var reasons []string
		for _, b := range cal.Blackouts {
			reasons = append(reasons, b.Reason)
		}
		require.Equal(t, want, reasons, "service %d", svc)
	}
	reserve(t, s, acme.ID, ap.ID, slot.Add(24*time.Hour), "BK-ACMEACMEACME")
	for key, want := range map[string]int{"acme": 1, "": 1, "other": 0} {
		list, total, err := s.ListBookings(ctx, bookings.BookingFilter{Tenant: &key})
		require.NoError(t, err)
		require.Equal(t, want, total, key)
		require.Len(t, list, want, key)
	}
}

// exerciseReserve is the Reserve part of RunStoreTests.
func exerciseReserve(t *testing.T, newStore func(t *testing.T) bookings.Store) {
	t.Parallel()
	s := newStore(t)
	v := service(t, s, "cut")
	p := provider(t, s, "al", 1)
	slot := time.Date(2026, 6, 2, 9, 0, 0, 0, time.UTC)
	r := bookings.Reservation{Booking: booking(v.ID, p.ID, slot, 45, at, "BK-AAAAAAAAAAAA"), ManageTokenHash: []byte("h1"), Lock: "l", LockWait: time.Second,
		BusyFrom: slot.Add(-time.Hour), BusyTo: slot.Add(time.Hour), Check: func(busy []bookings.Busy) bool { return len(busy) == 0 }}
	b, err := s.Reserve(ctx, nil, r)
	require.NoError(t, err)
	require.Positive(t, b.ID)
	require.Equal(t, "BK-AAAAAAAAAAAA", b.Number)
	require.Equal(t, map[string]any{"topic": "a"}, b.IntakeData)
	got, err := s.Booking(ctx, b.ID)
	require.NoError(t, err)
	require.Equal(t, b, got)
	_, err = s.Booking(ctx, 999)
	require.ErrorIs(t, err, bookings.ErrNotFound)
	moved, err := s.Provider(ctx, p.ID)
	require.NoError(t, err)
	require.Equal(t, exact, *moved.LastAssignedAt, "the rota cursor moves")

	// A new manage token in a transaction that fails afterwards is undone
	// with it.
	failAfter(t, s, func(ctx context.Context) error {
		_, err := s.SetManageTokenHash(ctx, b.ID, []byte("h9"), "", at.Add(time.Minute))
		return err
	})
	_, _, err = s.BookingByTokenHash(ctx, []byte("h1"))
	require.NoError(t, err, "the old token still works")
	reissued, err := s.SetManageTokenHash(ctx, b.ID, []byte("h9"), "", at.Add(time.Minute))
	require.NoError(t, err)
	byNew, _, err := s.BookingByTokenHash(ctx, []byte("h9"))
	require.NoError(t, err)
	require.Equal(t, reissued, byNew)
	require.Equal(t, exact.Add(time.Minute), reissued.UpdatedAt)
	_, _, err = s.BookingByTokenHash(ctx, []byte("h1"))
	require.ErrorIs(t, err, bookings.ErrNotFound)
	_, err = s.SetManageTokenHash(ctx, 999, []byte("h8"), "", at)
	require.ErrorIs(t, err, bookings.ErrNotFound)

	// The check sees the booking and refuses.
	r.Booking.Number, r.ManageTokenHash = "BK-BBBBBBBBBBBB", []byte("h2")
	_, err = s.Reserve(ctx, nil, r)
	require.ErrorIs(t, err, bookings.ErrSlotTaken)
	// In a caller's transaction, the one ctx carries or one handed over:
	// a refusal leaves it usable, and its failure afterwards undoes the
	// booking.
	later := r
	later.Booking = booking(v.ID, p.ID, slot.Add(3*time.Hour), 45, at, "BK-LATER")
	later.BusyFrom, later.BusyTo, later.ManageTokenHash = later.Booking.Start.Add(-time.Hour), later.Booking.Start.Add(time.Hour), []byte("h4")
	failAfter(t, s, func(ctx context.Context) error {
		_, err := s.Reserve(ctx, nil, r)
		require.ErrorIs(t, err, bookings.ErrSlotTaken)
		_, err = s.Reserve(ctx, nil, later)
		return err
	})
	boom := errors.New("boom")
	err = s.RunInTx(ctx, func(_ context.Context, tx *sql.Tx) error {
		_, err := s.Reserve(context.Background(), tx, r)
		require.ErrorIs(t, err, bookings.ErrSlotTaken)
		_, err = s.Reserve(context.Background(), tx, later)
		require.NoError(t, err)
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.NoError(t, s.RunInTx(ctx, func(ctx context.Context, _ *sql.Tx) error {
		_, err := s.Reserve(ctx, nil, later)
		return err
	}))
	_, _, err = s.BookingByTokenHash(ctx, []byte("h4"))
	require.NoError(t, err, "committed with the caller's transaction")

	// A cancelled booking is not busy time.
	r.Check = nil
	r.Booking.Status, r.Booking.Number, r.ManageTokenHash = bookings.StatusCancelled, "BK-CCCCCCCCCCCC", []byte("h3")
	_, err = s.Reserve(ctx, nil, r)
	require.NoError(t, err)
	cal, err := s.Availability(ctx, bookings.AvailabilityQuery{ServiceID: v.ID, ProviderIDs: []int64{p.ID}, BusyFrom: r.BusyFrom, BusyTo: r.BusyTo, Now: at})
	require.NoError(t, err)
	require.Len(t, cal.Busy[p.ID], 1)
}

// exerciseHoldsAndSeats is the HoldsAndSeats part of RunStoreTests.
func exerciseHoldsAndSeats(t *testing.T, newStore func(t *testing.T) bookings.Store) {
	t.Parallel()
	s := newStore(t)
	v := service(t, s, "cut")
	p := provider(t, s, "al", 1)
	slot := time.Date(2026, 6, 2, 9, 0, 0, 0, time.UTC)
	free := func(busy []bookings.Busy) bool { return len(busy) == 0 }
	span := bookings.AvailabilityQuery{ServiceID: v.ID, ProviderIDs: []int64{p.ID}, BusyFrom: slot.Add(-time.Hour), BusyTo: slot.Add(time.Hour), Now: at}

	// A hold is busy time until it expires, except for its owner.
	_, err := s.Reserve(ctx, nil, bookings.Reservation{Booking: booking(v.ID, p.ID, slot, 45, at, "BK-HOLD"), Lock: "l", LockWait: time.Second,
		BusyFrom: span.BusyFrom, BusyTo: span.BusyTo, Check: free, Hold: true, HoldTokenHash: []byte("ht"), HoldExpires: at.Add(5 * time.Minute)})
	require.NoError(t, err)
	h, err := s.HoldByHash(ctx, []byte("ht"))
	require.NoError(t, err)
	require.Equal(t, slot, h.Start)
	require.Equal(t, exact.Add(5*time.Minute), h.ExpiresAt)
	_, err = s.HoldByHash(ctx, []byte("nope"))
	require.ErrorIs(t, err, bookings.ErrNotFound)
	cal, err := s.Availability(ctx, span)
	require.NoError(t, err)
	require.Len(t, cal.Busy[p.ID], 1, "held")
	later := span
	later.Now = at.Add(5 * time.Minute)
	cal, err = s.Availability(ctx, later)
	require.NoError(t, err)
	require.Empty(t, cal.Busy[p.ID], "expired")
	mine := span
	mine.ExceptHold = h.ID
	cal, err = s.Availability(ctx, mine)
	require.NoError(t, err)
	require.Empty(t, cal.Busy[p.ID], "not busy for its owner")

	_, err = s.Reserve(ctx, nil, bookings.Reservation{Booking: booking(v.ID, p.ID, slot, 45, at, "BK-OTHER"), ManageTokenHash: []byte("o"), Lock: "l",
		LockWait: time.Second, BusyFrom: span.BusyFrom, BusyTo: span.BusyTo, Check: free})
	require.ErrorIs(t, err, bookings.ErrSlotTaken, "someone else meets the hold")
	_, err = s.Reserve(ctx, nil, bookings.Reservation{Booking: booking(v.ID, p.ID, slot, 45, at, "BK-OWNER"), ManageTokenHash: []byte("w"), Lock: "l",
		LockWait: time.Second, BusyFrom: span.BusyFrom, BusyTo: span.BusyTo, Check: free, UseHold: h.ID})
	require.NoError(t, err, "the owner books it")
	_, err = s.HoldByHash(ctx, []byte("ht"))
	require.ErrorIs(t, err, bookings.ErrNotFound, "the hold is used up")

	// Seats: more bookings at one provider and start take the next
	// seat; without a check, the unique guard is per seat.
	second, err := s.Reserve(ctx, nil, bookings.Reservation{Booking: booking(v.ID, p.ID, slot, 45, at, "BK-SEAT2"), ManageTokenHash: []byte("s2"),
		Lock: "l", LockWait: time.Second, BusyFrom: span.BusyFrom, BusyTo: span.BusyTo})
	require.NoError(t, err)
	require.Positive(t, second.ID)
}

// exerciseUpdatesListsAndDeletes is the UpdatesListsAndDeletes part of RunStoreTests.
func exerciseUpdatesListsAndDeletes(t *testing.T, newStore func(t *testing.T) bookings.Store) {
	t.Parallel()
	s := newStore(t)
	v := service(t, s, "cut")
	other := service(t, s, "trim")
	got, err := s.ServiceByID(ctx, v.ID)
	require.NoError(t, err)
	require.Equal(t, v, got)
	_, err = s.ServiceByID(ctx, 999)
	require.ErrorIs(t, err, bookings.ErrNotFound)
	v.Name, v.Duration, v.UpdatedAt = "Long cut", 90, at.Add(time.Hour)
	updated, err := s.UpdateService(ctx, v)
	require.NoError(t, err)
	require.Equal(t, 90, updated.Duration)
	require.Equal(t, exact.Add(time.Hour), updated.UpdatedAt)
	other.Slug = "cut"
	_, err = s.UpdateService(ctx, other)
	require.ErrorIs(t, err, bookings.ErrSlugTaken)
	v.ID = 999
	_, err = s.UpdateService(ctx, v)
	require.ErrorIs(t, err, bookings.ErrNotFound)

	b := provider(t, s, "bo", 2)
	a := provider(t, s, "al", 1)
	b.Name, b.IsActive = "Bo B", false
	ub, err := s.UpdateProvider(ctx, b)
	require.NoError(t, err)
	require.False(t, ub.IsActive)
	all, err := s.ListProviders(ctx)
	require.NoError(t, err)
	require.Equal(t, []int64{a.ID, b.ID}, []int64{all[0].ID, all[1].ID})
	require.NoError(t, s.LinkProvider(ctx, updated.ID, a.ID, nil, nil))
	require.NoError(t, s.UnlinkProvider(ctx, updated.ID, a.ID))
	require.NoError(t, s.UnlinkProvider(ctx, updated.ID, a.ID), "again")
	offers, err := s.Offers(ctx, updated.ID)
	require.NoError(t, err)
	require.Empty(t, offers)

	h, err := s.AddWeeklyHours(ctx, bookings.WeeklyHours{ProviderID: a.ID, Weekday: time.Friday, Start: 60, End: 120, IsAvailable: true})
	require.NoError(t, err)
	d, _ := slots.ParseDate("2026-06-05")
	o, err := s.AddOverride(ctx, bookings.Override{ProviderID: a.ID, Date: d, Type: bookings.OverrideUnavailable})
	require.NoError(t, err)
	bo, err := s.AddBlackout(ctx, bookings.Blackout{From: d, To: d})
	require.NoError(t, err)
	hours, err := s.ListWeeklyHours(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, []bookings.WeeklyHours{h}, hours)
	overrides, err := s.ListOverrides(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, []bookings.Override{o}, overrides)
	blackouts, err := s.ListBlackouts(ctx)
	require.NoError(t, err)
	require.Equal(t, []bookings.Blackout{bo}, blackouts)
	require.ErrorIs(t, s.DeleteWeeklyHours(ctx, b.ID, h.ID), bookings.ErrNotFound, "another provider's")
	require.NoError(t, s.DeleteWeeklyHours(ctx, a.ID, h.ID))
	require.NoError(t, s.DeleteOverride(ctx, a.ID, o.ID))
	require.NoError(t, s.DeleteBlackout(ctx, bo.ID))
	require.ErrorIs(t, s.DeleteBlackout(ctx, bo.ID), bookings.ErrNotFound)
	hours, err = s.ListWeeklyHours(ctx, a.ID)
	require.NoError(t, err)
	require.Empty(t, hours)
}

// exerciseFeedsAndSequence is the FeedsAndSequence part of RunStoreTests.
func exerciseFeedsAndSequence(t *testing.T, newStore func(t *testing.T) bookings.Store) {
	t.Parallel()
	s := newStore(t)
	v := service(t, s, "cut")
	p := provider(t, s, "al", 1)
	q := provider(t, s, "bo", 2)
	_, _, err := s.ProviderByFeedHash(ctx, []byte("feed"))
	require.ErrorIs(t, err, bookings.ErrNotFound, "no feed until minted")
	require.NoError(t, s.SetProviderFeedHash(ctx, p.ID, []byte("feed"), at.Add(time.Minute)))
	got, hash, err := s.ProviderByFeedHash(ctx, []byte("feed"))
	require.NoError(t, err)
	require.Equal(t, p.ID, got.ID)
	require.Equal(t, []byte("feed"), hash)
	require.Equal(t, exact.Add(time.Minute), got.UpdatedAt, "minting touches the provider")
	require.ErrorIs(t, s.SetProviderFeedHash(ctx, 999, []byte("x"), at), bookings.ErrNotFound)
	p.IsActive = false
	_, err = s.UpdateProvider(ctx, p)
	require.NoError(t, err)
	_, _, err = s.ProviderByFeedHash(ctx, []byte("feed"))
	require.ErrorIs(t, err, bookings.ErrNotFound, "inactive provider")
	p.IsActive = true
	_, err = s.UpdateProvider(ctx, p)
	require.NoError(t, err)
	require.NoError(t, s.SetProviderFeedHash(ctx, p.ID, nil, at))
	_, _, err = s.ProviderByFeedHash(ctx, []byte("feed"))
	require.ErrorIs(t, err, bookings.ErrNotFound, "revoked")

	from, to := at.Add(-24*time.Hour), at.Add(30*24*time.Hour)
	empty, err := s.FeedStamp(ctx, p.ID, from, to)
	require.NoError(t, err)
	require.Equal(t, bookingsstore.FeedStamp{ServicesUpdated: exact}, empty)
	d1 := time.Date(2026, 6, 3, 9, 0, 0, 0, time.UTC)
	b1 := reserve(t, s, v.ID, p.ID, d1, "BK-ONE")
	b2 := reserve(t, s, v.ID, p.ID, d1.Add(-time.Hour), "BK-TWO")
	reserve(t, s, v.ID, q.ID, d1, "BK-OTHERS")
	reserve(t, s, v.ID, p.ID, to, "BK-LATE")
	require.Zero(t, b1.Sequence)
	moved, err := s.Move(ctx, bookings.Move{BookingID: b1.ID, ProviderID: p.ID, Period: bookings.Period{Start: d1.Add(time.Hour),
		End: d1.Add(105 * time.Minute)}, Lock: "l", LockWait: time.Second, BusyFrom: d1, BusyTo: d1, At: at.Add(2 * time.Hour)})
	require.NoError(t, err)
	require.Equal(t, 1, moved.Sequence, "a move counts")
	cancelled, err := s.SetStatus(ctx, b2.ID, []bookings.Status{bookings.StatusConfirmed}, bookings.StatusCancelled, at.Add(3*time.Hour), nil)
	require.NoError(t, err)
	require.Equal(t, 1, cancelled.Sequence, "a cancellation counts")
	stamp, err := s.FeedStamp(ctx, p.ID, from, to)
	require.NoError(t, err)
	require.Equal(t, bookingsstore.FeedStamp{LastUpdated: exact.Add(3 * time.Hour), Count: 2, Live: 1, ServicesUpdated: exact}, stamp)
	feed, err := s.FeedBookings(ctx, p.ID, from, to)
	require.NoError(t, err)
	require.Len(t, feed, 1, "cancelled, other providers' and later bookings left out")
	fb := feed[0]
	require.Equal(t, []any{moved.ID, moved.Number, moved.ServiceID, *moved.ProviderID, moved.Status, moved.Start, moved.End, moved.CustomerName,
		moved.CustomerEmail, moved.CustomerTimeZone, moved.Sequence, moved.CreatedAt, moved.UpdatedAt},
		[]any{fb.ID, fb.Number, fb.ServiceID, *fb.ProviderID, fb.Status, fb.Start, fb.End, fb.CustomerName,
			fb.CustomerEmail, fb.CustomerTimeZone, fb.Sequence, fb.CreatedAt, fb.UpdatedAt}, "what a feed shows")
	completed, err := s.SetStatus(ctx, b1.ID, []bookings.Status{bookings.StatusConfirmed}, bookings.StatusCompleted, at.Add(4*time.Hour), nil)
	require.NoError(t, err)
	require.Equal(t, 1, completed.Sequence, "completing does not count")
}

// exerciseNotificationsAndHousekeeping is the NotificationsAndHousekeeping part of RunStoreTests.
func exerciseNotificationsAndHousekeeping(t *testing.T, newStore func(t *testing.T) bookings.Store) {
	t.Parallel()
	s := newStore(t)
	v := service(t, s, "cut")
	p := provider(t, s, "al", 1)
	d1 := time.Date(2026, 6, 3, 9, 0, 0, 0, time.UTC)
	b1 := reserve(t, s, v.ID, p.ID, d1, "BK-ONE")
	b2 := reserve(t, s, v.ID, p.ID, d1.Add(24*time.Hour), "BK-TWO")
	_, err := s.SetStatus(ctx, b2.ID, []bookings.Status{bookings.StatusConfirmed}, bookings.StatusRequested, at, nil)
	require.NoError(t, err)
	list, err := s.BookingsStarting(ctx, []bookings.Status{bookings.StatusConfirmed}, d1, d1.Add(48*time.Hour))
	require.NoError(t, err)
	require.Equal(t, []int64{b1.ID}, []int64{list[0].ID})
	require.Len(t, list, 1)
	list, err = s.BookingsStarting(ctx, []bookings.Status{bookings.StatusConfirmed, bookings.StatusRequested}, d1.Add(time.Second), d1.Add(48*time.Hour))
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, b2.ID, list[0].ID)

	n := bookingsstore.Notification{BookingID: b1.ID, Kind: "reminder", ScheduledFor: d1.Add(-24 * time.Hour), Recipient: "grace@example.com", ClaimedAt: at}
	claimed, err := s.ClaimNotification(ctx, n)
	require.NoError(t, err)
	require.True(t, claimed)
	claimed, err = s.ClaimNotification(ctx, n)
	require.NoError(t, err)
	require.False(t, claimed, "claimed once only")
	n2 := n
	n2.ScheduledFor = n.ScheduledFor.Add(time.Hour)
	failAfter(t, s, func(ctx context.Context) error {
		claimed, err := s.ClaimNotification(ctx, n2)
		require.True(t, claimed)
		return err
	})
	claimed, err = s.ClaimNotification(ctx, n2)
	require.NoError(t, err)
	require.True(t, claimed, "a transaction that failed after the claim undid it")

	// A completion in a transaction that fails afterwards is undone whole.
	failAfter(t, s, func(ctx context.Context) error {
		done, err := s.CompleteEnded(ctx, d1.Add(45*time.Minute), at.Add(time.Hour))
		require.Len(t, done, 1)
		return err
	})
	b, err := s.Booking(ctx, b1.ID)
	require.NoError(t, err)
	require.Equal(t, bookings.StatusConfirmed, b.Status, "undone")
	done, err := s.CompleteEnded(ctx, d1.Add(45*time.Minute), at.Add(time.Hour))
	require.NoError(t, err)
	require.Len(t, done, 1)
	require.Equal(t, bookings.StatusCompleted, done[0].Status)
	require.Equal(t, exact.Add(time.Hour), done[0].UpdatedAt)
	done, err = s.CompleteEnded(ctx, d1.Add(72*time.Hour), at)
	require.NoError(t, err)
	require.Empty(t, done, "requested bookings are not completed")

	failAfter(t, s, func(ctx context.Context) error {
		erased, err := s.EraseCustomer(ctx, "grace@example.com", at.Add(2*time.Hour))
		require.Len(t, erased, 2)
		return err
	})
	b, err = s.Booking(ctx, b1.ID)
	require.NoError(t, err)
	require.Equal(t, "Grace", b.CustomerName, "a transaction that failed afterwards undid the erasure")
	erased, err := s.EraseCustomer(ctx, " GRACE@example.com", at.Add(2*time.Hour))
	require.NoError(t, err)
	require.Len(t, erased, 2)
	require.ElementsMatch(t, []string{"BK-ONE", "BK-TWO"}, []string{erased[0].Number, erased[1].Number})
	require.Empty(t, erased[0].CustomerName+erased[1].CustomerEmail, "returned as erased")
	for _, id := range []int64{b1.ID, b2.ID} {
		b, err := s.Booking(ctx, id)
		require.NoError(t, err)
		require.Empty(t, b.CustomerName+b.CustomerEmail+b.CustomerPhone+b.Notes+b.CustomerTimeZone)
		require.Nil(t, b.IntakeData)
		require.Equal(t, exact.Add(2*time.Hour), b.UpdatedAt)
	}
	_, _, err = s.BookingByTokenHash(ctx, []byte("token of BK-ONE"))
	require.ErrorIs(t, err, bookings.ErrNotFound, "the old link is gone")
	erased, err = s.EraseCustomer(ctx, "", at)
	require.NoError(t, err)
	require.Empty(t, erased)

	pruned, err := s.PruneBookings(ctx, d1.Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, 1, pruned)
	_, err = s.Booking(ctx, b1.ID)
	require.ErrorIs(t, err, bookings.ErrNotFound)
	claimed, err = s.ClaimNotification(ctx, bookingsstore.Notification{BookingID: b2.ID, Kind: "reminder", ScheduledFor: d1, ClaimedAt: at})
	require.NoError(t, err)
	require.True(t, claimed)
}

// exercisePayments is the Payments part of RunStoreTests: a booking
// awaiting payment holds its seat, its payment is stored whole and
// replaced with a change of status, and writing it again with the status
// unchanged does not count in the sequence.
func exercisePayments(t *testing.T, newStore func(t *testing.T) bookings.Store) {
	t.Parallel()
	s := newStore(t)
	v := service(t, s, "cut")
	p := provider(t, s, "al", 1)
	d1 := time.Date(2026, 6, 3, 9, 0, 0, 0, time.UTC)
	due := at.Add(30 * time.Minute)
	b := booking(v.ID, p.ID, d1, 45, at, "BK-PAY")
	b.Status, b.Payment = bookings.StatusAwaitingPayment, &bookings.Payment{Amount: "12.50", Currency: "EUR", DueAt: due}
	held, err := s.Reserve(ctx, nil, bookings.Reservation{Booking: b, ManageTokenHash: []byte("token of BK-PAY"), Lock: "l", LockWait: time.Second,
		BusyFrom: d1, BusyTo: d1})
	require.NoError(t, err)
	require.Equal(t, bookings.StatusAwaitingPayment, held.Status)
	require.Equal(t, b.Payment, held.Payment)
	other := booking(v.ID, p.ID, d1, 45, at, "BK-SEAT")
	_, err = s.Reserve(ctx, nil, bookings.Reservation{Booking: other, ManageTokenHash: []byte("token of BK-SEAT"), Lock: "l", LockWait: time.Second,
		BusyFrom: d1, BusyTo: d1.Add(time.Hour), Check: func(busy []bookings.Busy) bool {
			require.Len(t, busy, 1, "the booking awaiting payment is busy time")
			return false
		}})
	require.ErrorIs(t, err, bookings.ErrSlotTaken, "it holds its time")

	pay := *b.Payment
	pay.CheckoutURL, pay.Session = "https://pay.example/cs_1", "cs_1"
	again, err := s.SetStatus(ctx, held.ID, []bookings.Status{bookings.StatusAwaitingPayment}, bookings.StatusAwaitingPayment, at.Add(time.Minute), &pay)
	require.NoError(t, err)
	require.Equal(t, &pay, again.Payment)
	require.Zero(t, again.Sequence)
	paid := pay
	paidAt := at.Add(2 * time.Minute)
	paid.Reference, paid.PaidAt = "pi_1", &paidAt
	confirmed, err := s.SetStatus(ctx, held.ID, []bookings.Status{bookings.StatusAwaitingPayment}, bookings.StatusConfirmed, paidAt, &paid)
	require.NoError(t, err)
	require.Equal(t, bookings.StatusConfirmed, confirmed.Status)
	require.Equal(t, &paid, confirmed.Payment)
	cancelled, err := s.SetStatus(ctx, held.ID, []bookings.Status{bookings.StatusConfirmed}, bookings.StatusCancelled, at.Add(time.Hour), nil)
	require.NoError(t, err)
	require.Equal(t, &paid, cancelled.Payment, "nil keeps the payment")
	require.Equal(t, 1, cancelled.Sequence)
	refunded := paid
	refundedAt := at.Add(2 * time.Hour)
	refunded.RefundedAt = &refundedAt
	rec, err := s.SetStatus(ctx, held.ID, []bookings.Status{bookings.StatusCancelled}, bookings.StatusCancelled, refundedAt, &refunded)
	require.NoError(t, err)
	require.Equal(t, 1, rec.Sequence, "a refund recorded is no change to the calendar")
	got, err := s.Booking(ctx, held.ID)
	require.NoError(t, err)
	require.Equal(t, &refunded, got.Payment)
	list, err := s.BookingsStarting(ctx, []bookings.Status{bookings.StatusCancelled}, d1, d1.Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, &refunded, list[0].Payment)
}

func booking(serviceID, providerID int64, start time.Time, minutes int, at time.Time, number string) bookings.Booking {
	return bookings.Booking{Number: number, ServiceID: serviceID, ProviderID: &providerID, Status: bookings.StatusConfirmed, Start: start,
		End: start.Add(time.Duration(minutes) * time.Minute), CustomerName: "Grace", CustomerEmail: "grace@example.com", CustomerTimeZone: "UTC",
		AssignmentStrategy: "customer", IntakeVersion: 2, IntakeData: map[string]any{"topic": "a"}, CreatedAt: at, UpdatedAt: at}
}

// failAfter runs step in a transaction of s that fails afterwards, and
// wants that failure back: what step wrote is undone with it.
func failAfter(t *testing.T, s bookings.Store, step func(ctx context.Context) error) {
	t.Helper()
	boom := errors.New("outbox down")
	err := s.RunInTx(ctx, func(ctx context.Context, _ *sql.Tx) error {
		require.NoError(t, step(ctx))
		return boom
	})
	require.ErrorIs(t, err, boom)
}
