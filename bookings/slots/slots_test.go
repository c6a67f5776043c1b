package slots_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings/slots"
)

func zone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	require.NoError(t, err)
	return loc
}

func hm(h, m int) int { return h*60 + m }

// starts renders slot starts as local wall-clock "15:04 MST".
func starts(ps []slots.Period, loc *time.Location) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Start.In(loc).Format("15:04 MST"))
	}
	return out
}

func TestDaySlotsRules(t *testing.T) {
	t.Parallel()
	ny := zone(t, "America/New_York")
	day := slots.Date{Year: 2026, Month: time.June, Day: 1}
	base := slots.Day{Date: day, Loc: ny, Length: 30 * time.Minute, Interval: 15 * time.Minute}
	at := func(h, m int) time.Time { return day.At(hm(h, m), ny) }
	busy := func(h1, m1, h2, m2 int, before, after time.Duration) slots.Busy {
		return slots.Busy{Period: slots.Period{Start: at(h1, m1), End: at(h2, m2)}, BufferBefore: before, BufferAfter: after}
	}
	cases := []struct {
		name   string
		change func(d *slots.Day)
		want   []string
	}{
		{"a window fits its slots, the last ending at the window's end", func(d *slots.Day) {
			d.Windows = []slots.Clock{{hm(9, 0), hm(10, 0)}}
		}, []string{"09:00 EDT", "09:15 EDT", "09:30 EDT"}},
		{"the grid runs from local midnight, not the window's start", func(d *slots.Day) {
			d.Windows = []slots.Clock{{hm(9, 10), hm(10, 0)}}
		}, []string{"09:15 EDT", "09:30 EDT"}},
		{"a slot fits inside one window, not across two that touch", func(d *slots.Day) {
			d.Windows = []slots.Clock{{hm(9, 0), hm(9, 45)}, {hm(9, 45), hm(10, 30)}}
		}, []string{"09:00 EDT", "09:15 EDT", "09:45 EDT", "10:00 EDT"}},
		{"a window shorter than the slot offers nothing", func(d *slots.Day) {
			d.Windows = []slots.Clock{{hm(9, 0), hm(9, 20)}}
		}, nil},
		{"a window ending before it starts offers nothing", func(d *slots.Day) {
			d.Windows = []slots.Clock{{hm(10, 0), hm(9, 0)}}
		}, nil},
		{"back to back with a booking is allowed (half-open)", func(d *slots.Day) {
			d.Windows = []slots.Clock{{hm(9, 0), hm(11, 0)}}
			d.Busy = []slots.Busy{busy(9, 30, 10, 0, 0, 0)}
		}, []string{"09:00 EDT", "10:00 EDT", "10:15 EDT", "10:30 EDT"}},
		{"the slot's own buffers keep it off a booking", func(d *slots.Day) {
			d.Windows = []slots.Clock{{hm(9, 0), hm(11, 0)}}
			d.BufferBefore, d.BufferAfter = 15*time.Minute, 15*time.Minute
			d.Busy = []slots.Busy{busy(10, 0, 10, 30, 0, 0)}
		}, []string{"09:00 EDT", "09:15 EDT"}}, // 09:15-09:45 widened ends at 10:00; 10:45 would end past 11:00
		{"the booking's buffers keep the slot off it", func(d *slots.Day) {
			d.Windows = []slots.Clock{{hm(9, 0), hm(11, 30)}}
			d.Busy = []slots.Busy{busy(10, 0, 10, 30, 30*time.Minute, 15*time.Minute)}
		}, []string{"09:00 EDT", "10:45 EDT", "11:00 EDT"}},
		{"the larger of two buffers survives, not their sum", func(d *slots.Day) {
			d.Windows = []slots.Clock{{hm(9, 0), hm(12, 0)}}
			d.BufferBefore = 15 * time.Minute
			d.Busy = []slots.Busy{busy(10, 0, 10, 30, 0, 30*time.Minute)}
		}, []string{"09:00 EDT", "09:15 EDT", "09:30 EDT", "11:00 EDT", "11:15 EDT", "11:30 EDT"}}, // after: 30, not 30+15
		{"another interval", func(d *slots.Day) {
			d.Windows = []slots.Clock{{hm(9, 0), hm(10, 0)}}
			d.Interval = 20 * time.Minute
		}, []string{"09:00 EDT", "09:20 EDT"}},
		{"a window to midnight", func(d *slots.Day) {
			d.Windows = []slots.Clock{{hm(23, 0), 1440}}
		}, []string{"23:00 EDT", "23:15 EDT", "23:30 EDT"}},
	}
	for _, c := range cases {
		d := base
		c.change(&d)
		require.Equal(t, c.want, starts(slots.DaySlots(d), ny), c.name)
	}
}

// Spring forward: the labels in the gap are skipped; fall back: the
// repeated hour's labels are offered once each; a slot lasts its length
// in real time either way.
func TestDaySlotsAcrossDST(t *testing.T) {
	t.Parallel()
	ny := zone(t, "America/New_York")
	spring := slots.Day{Date: slots.Date{Year: 2026, Month: time.March, Day: 8}, Loc: ny, Length: 30 * time.Minute,
		Interval: 30 * time.Minute, Windows: []slots.Clock{{hm(1, 0), hm(4, 0)}}}
	got := slots.DaySlots(spring)
	require.Equal(t, []string{"01:00 EST", "01:30 EST", "03:00 EDT", "03:30 EDT"}, starts(got, ny))
	for _, s := range got {
		require.Equal(t, 30*time.Minute, s.End.Sub(s.Start))
	}
	fall := spring
	fall.Date = slots.Date{Year: 2026, Month: time.November, Day: 1}
	fall.Windows = []slots.Clock{{hm(0, 0), hm(3, 0)}}
	got = slots.DaySlots(fall)
	labels := starts(got, ny)
	require.Len(t, labels, 6, "00:00 … 02:30, each label once: %v", labels)
	for i := 1; i < len(got); i++ {
		require.True(t, got[i].Start.After(got[i-1].Start))
	}
}

// A minute the end of summer time repeats is its first occurrence, east
// and west of Greenwich, with a 30-minute shift (Lord Howe) and a
// two-hour one (Troll); a minute of a spring-forward gap moves forward
// by the gap; every other minute is as time.Date has it.
func TestDateAtRepeatedHour(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		zone        string
		date        slots.Date
		minute      int
		want        string // UTC
		description string
	}{
		{"Europe/London", slots.Date{Year: 2026, Month: time.October, Day: 25}, hm(1, 30), "2026-10-25T00:30:00Z", "01:30 BST, not GMT"},
		{"Europe/London", slots.Date{Year: 2026, Month: time.October, Day: 25}, hm(1, 0), "2026-10-25T00:00:00Z", "the repeat's first minute"},
		{"Europe/London", slots.Date{Year: 2026, Month: time.October, Day: 25}, hm(2, 0), "2026-10-25T02:00:00Z", "after the repeat"},
		{"Europe/London", slots.Date{Year: 2026, Month: time.October, Day: 25}, hm(0, 59), "2026-10-24T23:59:00Z", "before the repeat"},
		{"America/New_York", slots.Date{Year: 2026, Month: time.November, Day: 1}, hm(1, 30), "2026-11-01T05:30:00Z", "01:30 EDT, not EST"},
		{"America/New_York", slots.Date{Year: 2026, Month: time.November, Day: 1}, hm(1, 59), "2026-11-01T05:59:00Z", "the repeat's last minute"},
		{"Australia/Lord_Howe", slots.Date{Year: 2026, Month: time.April, Day: 5}, hm(1, 45), "2026-04-04T14:45:00Z", "+11, not +10:30"},
		{"Antarctica/Troll", slots.Date{Year: 2026, Month: time.October, Day: 25}, hm(2, 0), "2026-10-25T00:00:00Z", "+02, not +00"},
		{"Antarctica/Troll", slots.Date{Year: 2026, Month: time.October, Day: 25}, hm(1, 0), "2026-10-24T23:00:00Z", "the two-hour repeat's first minute"},
		{"Europe/London", slots.Date{Year: 2026, Month: time.March, Day: 29}, hm(1, 30), "2026-03-29T01:30:00Z", "a gap: 02:30 BST"},
		{"Australia/Lord_Howe", slots.Date{Year: 2026, Month: time.October, Day: 4}, hm(2, 15), "2026-10-03T15:45:00Z", "a 30-minute gap: 02:45 +11"},
		{"Asia/Tokyo", slots.Date{Year: 2026, Month: time.October, Day: 25}, hm(1, 30), "2026-10-24T16:30:00Z", "no summer time"},
		{"Europe/London", slots.Date{Year: 2026, Month: time.October, Day: 24}, 1440, "2026-10-24T23:00:00Z", "24:00 is the next midnight"},
	} {
		got := c.date.At(c.minute, zone(t, c.zone)).UTC().Format(time.RFC3339)
		require.Equal(t, c.want, got, "%s %s %02d:%02d: %s", c.zone, c.date, c.minute/60, c.minute%60, c.description)
	}
}

func TestMergeDistinct(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 6, 1, 13, 0, 0, 0, time.UTC)
	p := func(min int, provider int64) slots.Slot {
		return slots.Slot{Period: slots.Period{Start: at.Add(time.Duration(min) * time.Minute), End: at.Add(time.Duration(min+30) * time.Minute)}, ProviderID: provider}
	}
	got := slots.Merge([]slots.Slot{p(15, 2), p(0, 2), p(0, 1), p(15, 1), p(30, 3)}, true)
	require.Len(t, got, 3)
	for _, s := range got {
		require.Zero(t, s.ProviderID)
	}
	got = slots.Merge([]slots.Slot{p(15, 2), p(0, 2), p(0, 1)}, false)
	require.Equal(t, []int64{1, 2, 2}, []int64{got[0].ProviderID, got[1].ProviderID, got[2].ProviderID})
}

// Over many zones and every day of 2026 (both DST changes in each zone
// that has them), random windows, lengths, intervals, buffers and
// bookings: every slot starts on the local grid, lies inside a window,
// lasts its length, and keeps clear of every booking with buffers.
func TestDaySlotsProperties(t *testing.T) {
	t.Parallel()
	zones := []string{"UTC", "America/New_York", "America/Los_Angeles", "America/Sao_Paulo", "America/St_Johns", "Europe/London",
		"Europe/Berlin", "Africa/Casablanca", "Asia/Kolkata", "Asia/Kathmandu", "Australia/Adelaide", "Australia/Lord_Howe",
		"Pacific/Auckland", "Pacific/Chatham", "America/Santiago", "Asia/Tehran"}
	r := rand.New(rand.NewPCG(1, 2))
	for _, name := range zones {
		loc := zone(t, name)
		for day := (slots.Date{Year: 2026, Month: time.January, Day: 1}); day.Year == 2026; day = day.AddDays(1) {
			d := slots.Day{Date: day, Loc: loc, Length: time.Duration(15*(1+r.IntN(8))) * time.Minute,
				Interval:     time.Duration([]int{5, 10, 15, 20, 30, 60}[r.IntN(6)]) * time.Minute,
				BufferBefore: time.Duration(5*r.IntN(4)) * time.Minute, BufferAfter: time.Duration(5*r.IntN(4)) * time.Minute}
			for range 1 + r.IntN(3) {
				s := r.IntN(1440)
				d.Windows = append(d.Windows, slots.Clock{Start: s, End: min(1440, s+30+r.IntN(600))})
			}
			for range r.IntN(4) {
				s := day.At(r.IntN(1440), loc)
				d.Busy = append(d.Busy, slots.Busy{Period: slots.Period{Start: s, End: s.Add(time.Duration(15+r.IntN(90)) * time.Minute)},
					BufferBefore: time.Duration(5*r.IntN(4)) * time.Minute, BufferAfter: time.Duration(5*r.IntN(4)) * time.Minute})
			}
			for _, s := range slots.DaySlots(d) {
				local := s.Start.In(loc)
				require.Equal(t, day, slots.DateOf(local), "%s %s", name, day)
				require.Zero(t, (local.Hour()*60+local.Minute())%int(d.Interval/time.Minute), "on the grid: %s %s", name, local)
				require.Equal(t, d.Length, s.End.Sub(s.Start))
				inside := false
				for _, w := range d.Windows {
					if !s.Start.Before(day.At(w.Start, loc)) && !s.End.After(day.At(w.End, loc)) {
						inside = true
					}
				}
				require.True(t, inside, "in a window: %s %s", name, local)
				for _, b := range d.Busy {
					wide := slots.Period{Start: s.Start.Add(-d.BufferBefore), End: s.End.Add(d.BufferAfter)}
					bw := slots.Period{Start: b.Start.Add(-b.BufferBefore), End: b.End.Add(b.BufferAfter)}
					require.False(t, wide.Start.Before(b.End) && b.Start.Before(wide.End), "clear of a booking: %s %s", name, local)
					require.False(t, s.Start.Before(bw.End) && bw.Start.Before(s.End), "clear of a booking's buffers: %s %s", name, local)
				}
			}
		}
	}
}

// Offers agrees with DaySlots for every candidate label of many random
// days, across DST changes.
func TestOffersAgreesWithDaySlots(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for _, name := range []string{"America/New_York", "Europe/London", "Australia/Lord_Howe", "Asia/Kolkata"} {
		loc := zone(t, name)
		for day := (slots.Date{Year: 2026, Month: time.January, Day: 1}); day.Year == 2026; day = day.AddDays(3) {
			d := slots.Day{Date: day, Loc: loc, Length: time.Duration(15*(1+r.IntN(4))) * time.Minute, Interval: 15 * time.Minute,
				BufferBefore: time.Duration(5*r.IntN(3)) * time.Minute, BufferAfter: time.Duration(5*r.IntN(3)) * time.Minute,
				Windows: []slots.Clock{{Start: r.IntN(600), End: 600 + r.IntN(840)}}}
			s := day.At(r.IntN(1440), loc)
			d.Busy = []slots.Busy{{Period: slots.Period{Start: s, End: s.Add(time.Hour)}, BufferAfter: 10 * time.Minute}}
			offered := map[time.Time]bool{}
			for _, p := range slots.DaySlots(d) {
				offered[p.Start] = true
			}
			for m := -60; m < 1500; m += 5 {
				at := day.In(loc).Add(time.Duration(m) * time.Minute)
				require.Equal(t, offered[at], d.Offers(at), "%s %s", name, at)
			}
		}
	}
}
