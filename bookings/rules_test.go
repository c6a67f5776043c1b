package bookings_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/bookings/slots"
	"github.com/groundwork-go/groundwork/store"
)

func daySlots(t *testing.T, b *bundle, svc bookings.Offering, day string, provider int64) []bookings.Slot {
	t.Helper()
	d, ok := slots.ParseDate(day)
	require.True(t, ok)
	loc, _ := time.LoadLocation(svc.TimeZone)
	slots, err := b.svc.Slots(context.Background(), svc, bookings.SlotQuery{From: d.In(loc), To: d.AddDays(1).In(loc), ProviderID: provider})
	require.NoError(t, err)
	return slots
}

// Overrides, blackouts and the bounds of weekly rules, read on the
// provider's local date.
func TestCalendarRules(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	ctx := context.Background()
	st := bookingssql.New(b.db)
	p := b.provider.ID
	date := func(s string) bookings.Date { d, _ := slots.ParseDate(s); return d }
	require.Len(t, daySlots(t, b, b.service, "2026-06-02", 0), 16*2-1)

	_, err := st.AddOverride(ctx, bookings.Override{ProviderID: p, Date: date("2026-06-02"), Type: bookings.OverrideUnavailable})
	require.NoError(t, err)
	require.Empty(t, daySlots(t, b, b.service, "2026-06-02", 0), "unavailable closes the day")

	ten, eleven := 600, 660
	_, err = st.AddOverride(ctx, bookings.Override{ProviderID: p, Date: date("2026-06-03"), Type: bookings.OverrideCustomHours, Start: &ten, End: &eleven})
	require.NoError(t, err)
	require.Len(t, daySlots(t, b, b.service, "2026-06-03", 0), 3, "custom hours replace the week: 10:00, 10:15, 10:30")
	_, err = st.AddOverride(ctx, bookings.Override{ProviderID: p, Date: date("2026-06-04"), Type: bookings.OverrideCustomHours})
	require.NoError(t, err)
	require.Empty(t, daySlots(t, b, b.service, "2026-06-04", 0), "custom hours without times still replace the week")

	_, err = st.AddBlackout(ctx, bookings.Blackout{ServiceID: &b.service.ID, From: date("2026-06-05"), To: date("2026-06-08")})
	require.NoError(t, err)
	require.Empty(t, daySlots(t, b, b.service, "2026-06-05", 0))
	require.Empty(t, daySlots(t, b, b.service, "2026-06-08", 0), "inclusive")
	require.NotEmpty(t, daySlots(t, b, b.service, "2026-06-09", 0))
	_, err = st.AddBlackout(ctx, bookings.Blackout{From: date("2026-06-10"), To: date("2026-06-10")})
	require.NoError(t, err)
	require.Empty(t, daySlots(t, b, b.service, "2026-06-10", 0), "a blackout of every service")

	// A weekly rule in force from a date.
	from := date("2026-06-15")
	_, err = st.AddWeeklyHours(ctx, bookings.WeeklyHours{ProviderID: p, Weekday: time.Saturday, Start: 600, End: 660, EffectiveFrom: &from, IsAvailable: true})
	require.NoError(t, err)
	require.Empty(t, daySlots(t, b, b.service, "2026-06-13", 0))
	require.Len(t, daySlots(t, b, b.service, "2026-06-20", 0), 3)
	// A rule that is not available adds nothing.
	_, err = st.AddWeeklyHours(ctx, bookings.WeeklyHours{ProviderID: p, Weekday: time.Sunday, Start: 600, End: 660})
	require.NoError(t, err)
	require.Empty(t, daySlots(t, b, b.service, "2026-06-21", 0))
}

// The booking window: notice and horizon clip the list; a service may
// set its own; the month is read in the service's zone.
func TestBookingWindow(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	// 13:30 UTC is 09:30 in New York: with 60 minutes' notice, 10:30 is first.
	b.clock.Set(time.Date(2026, 6, 1, 13, 30, 0, 0, time.UTC))
	slots := daySlots(t, b, b.service, "2026-06-01", 0)
	require.Equal(t, time.Date(2026, 6, 1, 14, 30, 0, 0, time.UTC), slots[0].Start)
	// Ninety days ahead: 2026-08-30 13:30 UTC; nothing on the 31st.
	require.Empty(t, daySlots(t, b, b.service, "2026-08-31", 0))
	require.NotEmpty(t, daySlots(t, b, b.service, "2026-08-28", 0))

	st := bookingssql.New(b.db)
	none, five, week := 0, 5, 7*24*60
	svc := b.service
	svc.Slug, svc.MinAdvance, svc.MaxAdvance, svc.SlotInterval = "quick", &none, &week, &five
	svc, err := st.CreateService(context.Background(), svc)
	require.NoError(t, err)
	require.NoError(t, st.LinkProvider(context.Background(), svc.ID, b.provider.ID, nil, nil))
	slots = daySlots(t, b, svc, "2026-06-01", 0)
	require.Equal(t, time.Date(2026, 6, 1, 13, 30, 0, 0, time.UTC), slots[0].Start, "no notice, a 5-minute grid")
	require.Equal(t, time.Date(2026, 6, 1, 13, 35, 0, 0, time.UTC), slots[1].Start)
	require.Empty(t, daySlots(t, b, svc, "2026-06-09", 0), "a week ahead at most")
}

// Who is bookable, and who gets a booking: the named provider, the
// default one, or round robin (least recently assigned first).
func TestProviderChoice(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	ctx := context.Background()
	st := bookingssql.New(b.db)
	bo := newProvider(t, st, "bo", "America/New_York")
	weekdays(t, st, bo.ID, 9*60, 17*60)
	require.NoError(t, st.LinkProvider(ctx, b.service.ID, bo.ID, nil, nil))

	book := func(start string, provider int64) bookings.Booking {
		t.Helper()
		st, err := time.Parse(time.RFC3339, start)
		require.NoError(t, err)
		bk, token, err := b.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", ProviderID: provider, Start: st,
			CustomerName: "Grace", CustomerEmail: "grace@example.com"})
		require.NoError(t, err)
		require.Regexp(t, `^[0-9a-f]{64}$`, token)
		require.Regexp(t, `^BK-[A-Z2-9]{12}$`, bk.Number)
		return bk
	}
	// Never-assigned first, then lower ID; then the least recent.
	first := book("2026-06-02T13:00:00Z", 0)
	require.Equal(t, b.provider.ID, *first.ProviderID)
	require.Equal(t, bookings.AssignRoundRobin, first.AssignmentStrategy)
	b.clock.Advance(time.Second)
	second := book("2026-06-02T13:00:00Z", 0)
	require.Equal(t, bo.ID, *second.ProviderID, "the same slot goes to the other provider")
	b.clock.Advance(time.Second)
	third := book("2026-06-02T15:00:00Z", 0)
	require.Equal(t, b.provider.ID, *third.ProviderID, "the least recently assigned")
	named := book("2026-06-02T16:00:00Z", bo.ID)
	require.Equal(t, bookings.Assignment("customer"), named.AssignmentStrategy)
	_, _, err := b.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: time.Date(2026, 6, 2, 13, 0, 0, 0, time.UTC),
		CustomerName: "Grace", CustomerEmail: "grace@example.com"})
	require.ErrorIs(t, err, bookings.ErrSlotTaken, "both providers are taken at 13:00")

	// A custom duration per provider.
	hour := 60
	require.NoError(t, st.LinkProvider(ctx, b.service.ID, bo.ID, &hour, nil))
	long := book("2026-06-03T14:00:00Z", bo.ID)
	require.Equal(t, time.Hour, long.End.Sub(long.Start))

	// A service with no links books its default provider.
	solo := b.service
	solo.Slug, solo.DefaultProviderID, solo.AssignmentStrategy = "solo", &bo.ID, bookings.AssignDefaultProvider
	_, err = st.CreateService(ctx, solo)
	require.NoError(t, err)
	bk, _, err := b.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "solo", Start: time.Date(2026, 6, 4, 13, 0, 0, 0, time.UTC), CustomerName: "G", CustomerEmail: "g@example.com"})
	require.NoError(t, err)
	require.Equal(t, bo.ID, *bk.ProviderID)
	require.Equal(t, bookings.AssignDefaultProvider, bk.AssignmentStrategy)
	// With no links and no default provider, nobody offers it.
	newOffering(t, st, "nobody", 30)
	_, _, err = b.svc.Create(ctx, bookings.NewBooking{ServiceSlug: "nobody", Start: time.Date(2026, 6, 4, 13, 0, 0, 0, time.UTC), CustomerName: "G", CustomerEmail: "g@example.com"})
	require.ErrorIs(t, err, bookings.ErrSlotTaken)
}

// A month's list is the union of its days' lists, across a DST change
// (November 2026 in New York), with bookings in it.
func TestMonthIsTheUnionOfItsDays(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	b.clock.Set(time.Date(2026, 10, 20, 0, 0, 0, 0, time.UTC))
	for _, start := range []string{"2026-11-02T15:00:00Z", "2026-11-03T14:30:00Z", "2026-11-10T20:00:00Z"} {
		code, body := b.do(t, "POST", "/api/bookings", bookBody("consultation", start))
		require.Equal(t, 201, code, body)
	}
	loc, _ := time.LoadLocation(b.service.TimeZone)
	from, to := bookings.MonthSpan(2026, time.November, loc)
	month, err := b.svc.Slots(context.Background(), b.service, bookings.SlotQuery{From: from, To: to})
	require.NoError(t, err)
	var days []bookings.Slot
	for d := (bookings.Date{Year: 2026, Month: time.November, Day: 1}); d.Month == time.November; d = d.AddDays(1) {
		days = append(days, daySlots(t, b, b.service, d.String(), 0)...)
	}
	require.Equal(t, days, month)
	require.NotEmpty(t, month)
}
