package slots_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings/slots"
)

// june is a Monday, 1 June 2026.
var june = slots.Date{Year: 2026, Month: time.June, Day: 1}

// weekdays are 09:00-12:00 hours Monday to Friday.
func weekdays() []slots.Hours {
	var hs []slots.Hours
	for d := time.Monday; d <= time.Friday; d++ {
		hs = append(hs, slots.Hours{Weekday: d, Window: slots.Clock{Start: hm(9, 0), End: hm(12, 0)}})
	}
	return hs
}

func days(ss []slots.Slot, loc *time.Location) map[string]int {
	out := map[string]int{}
	for _, s := range ss {
		out[slots.DateOf(s.Start.In(loc)).String()]++
	}
	return out
}

// A provider's week: hours in force between their dates, an override
// that replaces a day's hours, one that closes a day, and a closed span.
func TestRangeHoursOverridesClosed(t *testing.T) {
	t.Parallel()
	ny := zone(t, "America/New_York")
	r := slots.Rules{ServiceID: 1, Interval: time.Hour}
	until := june.AddDays(9) // Wednesday 10 June
	p := slots.Provider{ID: 7, Loc: ny, Length: time.Hour, Hours: weekdays()}
	p.Hours = append(p.Hours, slots.Hours{Weekday: time.Saturday, Window: slots.Clock{Start: hm(10, 0), End: hm(12, 0)}, Until: &until})
	p.Overrides = []slots.Override{
		{Date: june.AddDays(1), Window: &slots.Clock{Start: hm(14, 0), End: hm(15, 0)}}, // Tuesday: one afternoon hour
		{Date: june.AddDays(2), Closed: true},                                           // Wednesday: closed
		{Date: june.AddDays(3)},                                                         // Thursday: replaced by nothing
	}
	p.Closed = []slots.DateSpan{{From: june.AddDays(7), To: june.AddDays(8)}} // the next Monday and Tuesday
	from, to := june.In(ny), june.AddDays(14).In(ny)
	got := r.Range(nil, p, from, to)
	require.Equal(t, map[string]int{
		"2026-06-01": 3, "2026-06-02": 1, "2026-06-05": 3, "2026-06-06": 2,
		"2026-06-10": 3, "2026-06-11": 3, "2026-06-12": 3, // the Saturday rule ends on the 10th: not the 13th
	}, days(got, ny))
	for _, s := range got {
		require.Equal(t, int64(7), s.ProviderID)
		require.Equal(t, time.UTC, s.Start.Location(), "slots are in UTC")
		require.True(t, r.Offers(p, s.Start), "Offers agrees with Range at %s", s.Start)
	}
	require.False(t, r.Offers(p, june.AddDays(2).At(hm(9, 0), ny)), "a closed day offers nothing")
	require.Empty(t, r.Range(nil, p, from.Add(9*time.Hour+30*time.Minute), from.Add(10*time.Hour+45*time.Minute)), "a slot must lie inside the span asked for")
}

// Limits: a provider's count over all their bookings, a service's over
// its own; minutes as well as bookings; a week from the week's start;
// busy time of no service (an external calendar) counts for neither.
func TestRangeLimits(t *testing.T) {
	t.Parallel()
	utc := time.UTC
	booked := func(d slots.Date, h int, service int64) slots.Busy {
		s := d.At(hm(h, 0), utc)
		return slots.Busy{Period: slots.Period{Start: s, End: s.Add(time.Hour)}, ServiceID: service}
	}
	base := slots.Provider{ID: 1, Loc: utc, Length: time.Hour, Hours: weekdays(),
		Busy: []slots.Busy{booked(june, 9, 2), booked(june.AddDays(1), 9, 1), booked(june.AddDays(1), 10, 0)}}
	from, to := june.In(utc), june.AddDays(5).In(utc)
	cases := []struct {
		name     string
		service  []slots.Limit
		provider []slots.Limit
		want     map[string]int
	}{
		{"none", nil, nil, map[string]int{"2026-06-01": 2, "2026-06-02": 1, "2026-06-03": 3, "2026-06-04": 3, "2026-06-05": 3}},
		{"provider: 2 a day, any service", nil, []slots.Limit{{Period: slots.PeriodDay, Bookings: 2}},
			map[string]int{"2026-06-01": 2, "2026-06-02": 1, "2026-06-03": 3, "2026-06-04": 3, "2026-06-05": 3}},
		{"provider: 1 a day", nil, []slots.Limit{{Period: slots.PeriodDay, Bookings: 1}},
			map[string]int{"2026-06-03": 3, "2026-06-04": 3, "2026-06-05": 3}},
		{"service: 1 a day, its own only", []slots.Limit{{Period: slots.PeriodDay, Bookings: 1}}, nil,
			map[string]int{"2026-06-01": 2, "2026-06-03": 3, "2026-06-04": 3, "2026-06-05": 3}},
		{"provider: 180 minutes a week", nil, []slots.Limit{{Period: slots.PeriodWeek, Minutes: 180}},
			map[string]int{"2026-06-01": 2, "2026-06-02": 1, "2026-06-03": 3, "2026-06-04": 3, "2026-06-05": 3}},
		{"provider: 179 minutes a week", nil, []slots.Limit{{Period: slots.PeriodWeek, Minutes: 179}}, map[string]int{}},
		{"provider: 2 bookings a week", nil, []slots.Limit{{Period: slots.PeriodWeek, Bookings: 2}}, map[string]int{}},
		{"service: 2 a month", []slots.Limit{{Period: slots.PeriodMonth, Bookings: 2}}, nil,
			map[string]int{"2026-06-01": 2, "2026-06-02": 1, "2026-06-03": 3, "2026-06-04": 3, "2026-06-05": 3}},
	}
	for _, c := range cases {
		r := slots.Rules{ServiceID: 1, Interval: time.Hour, Limits: c.service, WeekStart: time.Monday}
		p := base
		p.Limits = c.provider
		got := r.Range(nil, p, from, to)
		require.Equal(t, c.want, days(got, utc), c.name)
		offered := map[time.Time]bool{}
		for _, s := range got {
			offered[s.Start] = true
		}
		for d := june; d.Before(june.AddDays(5)); d = d.AddDays(1) {
			for h := 8; h < 13; h++ {
				at := d.At(hm(h, 0), utc)
				require.Equal(t, offered[at], r.Offers(p, at), "%s: Offers agrees with Range at %s", c.name, at)
			}
		}
	}
}

// A limit's period in the provider's zone, weeks from the rules' start.
func TestLimitSpan(t *testing.T) {
	t.Parallel()
	ny := zone(t, "America/New_York")
	at := slots.Date{Year: 2026, Month: time.November, Day: 4}.At(hm(23, 30), ny) // a Wednesday night in New York, Thursday in UTC
	for _, c := range []struct {
		kind  slots.LimitPeriod
		start time.Weekday
		first string
		days  int
	}{
		{slots.PeriodDay, time.Monday, "2026-11-04", 1},
		{slots.PeriodWeek, time.Monday, "2026-11-02", 7},
		{slots.PeriodWeek, time.Sunday, "2026-11-01", 7},
		{slots.PeriodWeek, time.Thursday, "2026-10-29", 7},
		{slots.PeriodMonth, time.Monday, "2026-11-01", 30},
	} {
		first, from, to := slots.Rules{WeekStart: c.start}.LimitSpan(c.kind, at, ny)
		require.Equal(t, c.first, first.String(), "%s from %s", c.kind, c.start)
		require.Equal(t, first.In(ny), from)
		require.Equal(t, first.AddDays(c.days).In(ny), to, "%s from %s", c.kind, c.start)
	}
	require.Equal(t, 32*24*time.Hour, slots.Reach([]slots.Limit{{Period: slots.PeriodDay}}, []slots.Limit{{Period: slots.PeriodMonth}}))
	require.Equal(t, 8*24*time.Hour, slots.Reach([]slots.Limit{{Period: slots.PeriodWeek}}))
	require.Zero(t, slots.Reach(nil, []slots.Limit{{Period: slots.PeriodDay}}))
}

// Common keeps the periods every provider offers; Merge with distinct
// keeps one slot per period and adds up the seats left.
func TestCommonAndMerge(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	var all []slots.Slot
	offered := map[time.Time]int{}
	for provider := int64(1); provider <= 3; provider++ {
		for m := 0; m < 240; m += 15 {
			if r.IntN(3) == 0 {
				continue
			}
			s := at.Add(time.Duration(m) * time.Minute)
			all = append(all, slots.Slot{Period: slots.Period{Start: s, End: s.Add(30 * time.Minute)}, ProviderID: provider, SeatsLeft: 2})
			offered[s]++
		}
	}
	common := slots.Common(all, 3)
	merged := slots.Merge(all, true)
	n := 0
	for s, c := range offered {
		if c == 3 {
			n++
			require.Contains(t, common, slots.Slot{Period: slots.Period{Start: s, End: s.Add(30 * time.Minute)}})
		}
	}
	require.Len(t, common, n)
	require.Len(t, merged, len(offered))
	for i, s := range merged {
		require.Zero(t, s.ProviderID)
		require.Equal(t, 2*offered[s.Start], s.SeatsLeft, "every provider's places")
		if i > 0 {
			require.True(t, merged[i-1].Start.Before(s.Start), "in order")
		}
	}
}
