package slots

import "time"

// Rules are what the engine needs of the service being booked.
type Rules struct {
	// ServiceID is the service's: bookings of it share seats (Seats) and
	// count against its Limits.
	ServiceID int64
	// Interval is the grid of starts from local midnight; the buffers
	// keep a booking clear of the provider's other busy time.
	Interval, BufferBefore, BufferAfter time.Duration
	// Seats above 1 lets that many bookings of the service share one
	// period (a group class); otherwise a booking takes its period alone.
	Seats int
	// Limits are the service's own, counted per provider.
	Limits []Limit
	// WeekStart is the first day of a week limit's week.
	WeekStart time.Weekday
}

// Hours is one weekly window of a provider's: Window on Weekday, from
// From to Until inclusive (nil: open-ended).
type Hours struct {
	Weekday     time.Weekday
	Window      Clock
	From, Until *Date
}

// Override replaces a provider's week on one date: Closed, or the
// windows of the date's overrides (none still replaces the week).
type Override struct {
	Date   Date
	Closed bool
	Window *Clock
}

// DateSpan is a span of dates, both ends included.
type DateSpan struct {
	From, To Date
}

// Provider is one host's side of a booking: their zone, the length they
// take, their hours, the dates they are closed for the service, their
// busy time and their own limits.
type Provider struct {
	ID  int64
	Loc *time.Location
	// Length is the booked period.
	Length    time.Duration
	Hours     []Hours
	Overrides []Override
	// Closed are the dates with no slots at all (the service's, or the
	// site's, blackouts).
	Closed []DateSpan
	// Busy is the provider's busy time near the span asked about, of any
	// service, with its buffers: it must cover the periods of the limits
	// (see [Reach]).
	Busy   []Busy
	Limits []Limit
}

// Day is the engine's input for p on one local date: the windows of the
// date's overrides if it has any, else of the weekly hours in force on
// it; none on a closed date.
func (r Rules) Day(p Provider, date Date) Day {
	d := Day{Date: date, Loc: p.Loc, Length: p.Length, Interval: r.Interval, BufferBefore: r.BufferBefore,
		BufferAfter: r.BufferAfter, Busy: p.Busy, ServiceID: r.ServiceID, Seats: r.Seats}
	for _, c := range p.Closed {
		if !date.Before(c.From) && !c.To.Before(date) {
			return d
		}
	}
	overridden := false
	for _, ov := range p.Overrides {
		if ov.Date != date {
			continue
		}
		if ov.Closed {
			d.Windows = nil
			return d
		}
		overridden = true
		if ov.Window != nil {
			d.Windows = append(d.Windows, *ov.Window)
		}
	}
	if overridden {
		return d
	}
	for _, h := range p.Hours {
		if h.Weekday != date.Weekday() || h.From != nil && date.Before(*h.From) || h.Until != nil && h.Until.Before(date) {
			continue
		}
		d.Windows = append(d.Windows, h.Window)
	}
	return d
}

// Range appends to dst the slots p offers over [from, to), in order,
// each within the span, in UTC, keeping every limit, with the seats left
// on it (a month of several providers' slots grows one list).
func (r Rules) Range(dst []Slot, p Provider, from, to time.Time) []Slot {
	out := dst
	var limits *limitIndex
	if r.limited(p) {
		limits = r.newLimitIndex(p)
	}
	last := DateOf(to.In(p.Loc))
	for date := DateOf(from.In(p.Loc)); !last.Before(date); date = date.AddDays(1) {
		day := r.Day(p, date)
		for _, s := range DaySlots(day) {
			if limits != nil && !limits.allows(s.Start, s.End.Sub(s.Start)) {
				continue
			}
			if !s.Start.Before(from) && !s.End.After(to) {
				out = append(out, Slot{Period: Period{s.Start.UTC(), s.End.UTC()}, ProviderID: p.ID, SeatsLeft: SeatsLeft(day, s)})
			}
		}
	}
	return out
}

// Offers reports whether p offers a slot starting exactly at start,
// limits kept: what Range would hold, without drawing the days.
func (r Rules) Offers(p Provider, start time.Time) bool {
	return r.Day(p, DateOf(start.In(p.Loc))).Offers(start) && (!r.limited(p) || r.withinLimits(p, start, p.Length))
}
