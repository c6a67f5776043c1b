package slots

import (
	"slices"
	"time"
)

// Busy is time a provider is taken: a booking's (or a hold's) period and
// the buffers of its service.
type Busy struct {
	Period
	BufferBefore, BufferAfter time.Duration
	// ServiceID is the booking's service: bookings of the day's service
	// at exactly a slot's period share it while seats remain.
	ServiceID int64
}

func (b Busy) widened() Period {
	return Period{b.Start.Add(-b.BufferBefore), b.End.Add(b.BufferAfter)}
}

// Day is what [DaySlots] needs to know of one provider-local day.
type Day struct {
	Date Date
	// Loc is the provider's zone; the windows are wall-clock times in it.
	Loc     *time.Location
	Windows []Clock
	// Length is the booked period; Interval the grid of starts from local
	// midnight; the buffers are the service's.
	Length, Interval          time.Duration
	BufferBefore, BufferAfter time.Duration
	// Busy are the provider's active bookings near the day, of any
	// service, with their own buffers.
	Busy []Busy
	// ServiceID and Seats: with Seats above 1, up to Seats bookings of
	// this service share one period (a group class); otherwise a booking
	// takes its period alone.
	ServiceID int64
	Seats     int
}

// DaySlots are the slots a provider offers on one local day, in order:
//
//   - candidate starts are the wall-clock labels 00:00, 00:00+Interval, ...
//     before 24:00 of the date; a label that does not exist (the
//     spring-forward gap) is skipped, and a label of the repeated fall-back
//     hour is offered once;
//   - a slot [start, start+Length) must fit inside one window;
//   - it must not clash with a busy period: the slot widened by its own
//     service's buffers must not overlap the booking, and the slot must not
//     overlap the booking widened by the booking's service's buffers — so
//     the larger of two buffers separates them, not their sum;
//   - periods are half-open: back to back is allowed;
//   - with Seats above 1, bookings of the same service at exactly the
//     slot's period share it until Seats of them are booked.
func DaySlots(d Day) []Period {
	if d.Length <= 0 || d.Interval <= 0 || d.Loc == nil {
		return nil
	}
	windows := make([]Period, 0, len(d.Windows))
	for _, w := range d.Windows {
		if w.End <= w.Start || w.Start < 0 || w.End > 1440 {
			continue
		}
		p := Period{d.Date.At(w.Start, d.Loc), d.Date.At(w.End, d.Loc)}
		if p.End.After(p.Start) {
			windows = append(windows, p)
		}
	}
	if len(windows) == 0 {
		return nil
	}
	step := int(d.Interval / time.Minute)
	if step <= 0 {
		return nil
	}
	// Labels far from every window cannot fit one: a zone's offset moves
	// by at most a few hours within a day, so only labels within a
	// 3-hour margin of the windows' wall-clock span are tried.
	lo, hi := 1440, 0
	for _, w := range d.Windows {
		lo, hi = min(lo, w.Start), max(hi, w.End)
	}
	lo, hi = max(0, lo-180), min(1440, hi+180)
	// Only the busy periods near the day can clash.
	dayStart, dayEnd := windows[0].Start, windows[0].End
	for _, w := range windows {
		dayStart, dayEnd = minTime(dayStart, w.Start), maxTime(dayEnd, w.End)
	}
	near := d.Busy[:0:0]
	reach := max(d.BufferBefore, d.BufferAfter)
	for _, b := range d.Busy {
		wb := b.widened()
		if wb.Start.Before(dayEnd.Add(reach)) && dayStart.Add(-reach).Before(wb.End) {
			near = append(near, b)
		}
	}
	d.Busy = near
	var out []Period
	var last time.Time
	// On a day whose clock does not change, label m is midnight plus m
	// minutes: no zone lookups per label.
	midnight := d.Date.In(d.Loc)
	_, off1 := midnight.Zone()
	_, off2 := midnight.Add(24 * time.Hour).Zone()
	plain := midnight.Hour() == 0 && midnight.Minute() == 0 && off1 == off2
	for m := lo - lo%step; m < hi; m += step {
		var start time.Time
		if plain {
			start = midnight.Add(time.Duration(m) * time.Minute)
		} else {
			start = d.Date.At(m, d.Loc)
			// A label in the gap comes back moved; the fall-back hour's
			// labels map to one instant each, and a repeat is dropped.
			if start.Hour()*60+start.Minute() != m || DateOf(start) != d.Date || (!last.IsZero() && !start.After(last)) {
				continue
			}
		}
		last = start
		slot := Period{start, start.Add(d.Length)}
		if !fits(slot, windows) || clashes(slot, d) {
			continue
		}
		out = append(out, slot)
	}
	return out
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Offers reports whether DaySlots(d) holds a slot starting at start,
// without drawing the whole day: the label must be on the grid of d's
// date and map to start, and the slot must fit a window and clash with
// nothing.
func (d Day) Offers(start time.Time) bool {
	if d.Length <= 0 || d.Interval <= 0 || d.Loc == nil {
		return false
	}
	local := start.In(d.Loc)
	m := local.Hour()*60 + local.Minute()
	step := int(d.Interval / time.Minute)
	if DateOf(local) != d.Date || local.Second() != 0 || local.Nanosecond() != 0 || step <= 0 || m%step != 0 || !d.Date.At(m, d.Loc).Equal(start) {
		return false
	}
	var windows []Period
	for _, w := range d.Windows {
		if w.End <= w.Start || w.Start < 0 || w.End > 1440 {
			continue
		}
		windows = append(windows, Period{d.Date.At(w.Start, d.Loc), d.Date.At(w.End, d.Loc)})
	}
	slot := Period{start, start.Add(d.Length)}
	return fits(slot, windows) && !clashes(slot, d)
}

func fits(slot Period, windows []Period) bool {
	for _, w := range windows {
		if !slot.Start.Before(w.Start) && !slot.End.After(w.End) {
			return true
		}
	}
	return false
}

func clashes(slot Period, d Day) bool {
	wide := Period{slot.Start.Add(-d.BufferBefore), slot.End.Add(d.BufferAfter)}
	shared := 0
	for _, b := range d.Busy {
		if sharesSeat(d, b, slot) {
			shared++
			continue
		}
		if wide.Overlaps(b.Period) || slot.Overlaps(b.widened()) {
			return true
		}
	}
	return d.Seats > 1 && shared >= d.Seats
}

// sharesSeat reports whether b takes one of the seats of the day's
// seated service at slot: a booking of that service at exactly that
// period, which does not clash with another on the same seats.
func sharesSeat(d Day, b Busy, slot Period) bool {
	return d.Seats > 1 && b.ServiceID == d.ServiceID && b.Start.Equal(slot.Start) && b.End.Equal(slot.End)
}

// Slot is one offered slot: a period and the provider offering it (0 once
// the providers' lists are merged), and for a service with seats
// (MaxBookingsPerSlot above 1) how many places are left on it (every
// provider's together once merged); 0 for a service booked one at a time.
type Slot struct {
	Period
	ProviderID int64
	SeatsLeft  int
}

// SeatsLeft is how many more bookings of a seated day's service the
// period takes: its seats less the bookings of that service at exactly
// that period.
func SeatsLeft(d Day, p Period) int {
	if d.Seats <= 1 {
		return 0
	}
	taken := 0
	for _, b := range d.Busy {
		if sharesSeat(d, b, p) {
			taken++
		}
	}
	return d.Seats - taken
}

// Merge sorts slots by start, then end, then provider; with distinct it
// keeps one slot per period, with no provider and the places left of
// them all.
func Merge(slots []Slot, distinct bool) []Slot {
	// Sort on integer keys: comparing time.Time values costs more than
	// the sort itself.
	type keyed struct {
		start, end, provider int64
		i                    int
	}
	keys := make([]keyed, len(slots))
	for i, s := range slots {
		keys[i] = keyed{s.Start.UnixNano(), s.End.UnixNano(), s.ProviderID, i}
	}
	slices.SortFunc(keys, func(a, b keyed) int {
		switch {
		case a.start != b.start:
			return compareInt(a.start, b.start)
		case a.end != b.end:
			return compareInt(a.end, b.end)
		}
		return compareInt(a.provider, b.provider)
	})
	out := make([]Slot, 0, len(slots))
	for j, k := range keys {
		if distinct && j > 0 && keys[j-1].start == k.start && keys[j-1].end == k.end {
			out[len(out)-1].SeatsLeft += slots[k.i].SeatsLeft // any provider's place will do
			continue
		}
		s := slots[k.i]
		if distinct {
			s.ProviderID = 0
		}
		out = append(out, s)
	}
	return out
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Common are the periods every one of n providers offers, in order, with
// no provider: a collective meeting's slots.
func Common(slots []Slot, n int) []Slot {
	count := map[Period]int{}
	for _, sl := range slots {
		count[sl.Period]++
	}
	out := []Slot{}
	for p, c := range count {
		if c == n {
			out = append(out, Slot{Period: p})
		}
	}
	slices.SortFunc(out, func(a, b Slot) int { return a.Start.Compare(b.Start) })
	return out
}
