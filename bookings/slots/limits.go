package slots

import (
	"time"
)

// LimitPeriod is the span a limit counts over.
type LimitPeriod string

// Limit periods.
const (
	PeriodDay   LimitPeriod = "day"
	PeriodWeek  LimitPeriod = "week"
	PeriodMonth LimitPeriod = "month"
)

// Limit caps bookings in a period, counted in the provider's zone: at most
// Bookings bookings and Minutes booked minutes (0: no cap of that kind).
// Weeks start on [Rules.WeekStart]. A booking is counted in the period
// that holds its start. A service's limits ([Rules.Limits]) count that
// service's bookings and holds, a provider's ([Provider.Limits]) all of
// theirs; busy time of no service (an external calendar's) is not a
// booking and counts for neither.
type Limit struct {
	Period   LimitPeriod `json:"period"`
	Bookings int         `json:"bookings,omitempty"`
	Minutes  int         `json:"minutes,omitempty"`
}

// limited reports whether any limit applies to p.
func (r Rules) limited(p Provider) bool { return len(r.Limits) > 0 || len(p.Limits) > 0 }

// Reach is how far beyond a span busy time must be read to count the
// periods of these limits that reach out of it: a week's or a month's
// bookings may lie outside the span asked for.
func Reach(limits ...[]Limit) time.Duration {
	var reach time.Duration
	for _, ls := range limits {
		for _, l := range ls {
			switch l.Period {
			case PeriodWeek:
				reach = max(reach, 8*24*time.Hour)
			case PeriodMonth:
				reach = max(reach, 32*24*time.Hour)
			}
		}
	}
	return reach
}

// LimitSpan is the period of kind containing start in loc: its first
// local day, and its span [from, to).
func (r Rules) LimitSpan(kind LimitPeriod, start time.Time, loc *time.Location) (first Date, from, to time.Time) {
	day := DateOf(start.In(loc))
	first, next := day, day.AddDays(1)
	switch kind {
	case PeriodWeek:
		first = day.AddDays(-((int(day.Weekday()) - int(r.WeekStart) + 7) % 7))
		next = first.AddDays(7)
	case PeriodMonth:
		first = Date{Year: day.Year, Month: day.Month, Day: 1}
		next = DateOf(time.Date(day.Year, day.Month+1, 1, 12, 0, 0, 0, time.UTC))
	}
	return first, first.In(loc), next.In(loc)
}

// withinLimits reports whether a booking with p over [start,
// start+length) keeps every limit, given p's busy time (which must cover
// the limits' periods).
func (r Rules) withinLimits(p Provider, start time.Time, length time.Duration) bool {
	check := func(limits []Limit, counts func(Busy) bool) bool {
		for _, l := range limits {
			_, from, to := r.LimitSpan(l.Period, start, p.Loc)
			n, booked := 1, length
			for _, b := range p.Busy {
				if counts(b) && !b.Start.Before(from) && b.Start.Before(to) {
					n++
					booked += b.End.Sub(b.Start)
				}
			}
			if l.Bookings > 0 && n > l.Bookings || l.Minutes > 0 && booked > time.Duration(l.Minutes)*time.Minute {
				return false
			}
		}
		return true
	}
	return check(r.Limits, func(b Busy) bool { return b.ServiceID == r.ServiceID }) &&
		check(p.Limits, func(b Busy) bool { return b.ServiceID != 0 })
}

// limitIndex counts, once, the bookings of a provider's limited periods,
// so that a month of slots asks each slot's periods in a map rather than
// going through the busy time again.
type limitIndex struct {
	r      Rules
	loc    *time.Location
	limits []Limit
	used   []map[Date]usage // by limit, by the period's first day
}

type usage struct {
	n      int
	booked time.Duration
}

// newLimitIndex counts p's busy time against the limits of r and p.
func (r Rules) newLimitIndex(p Provider) *limitIndex {
	x := &limitIndex{r: r, loc: p.Loc, limits: append(append([]Limit(nil), r.Limits...), p.Limits...)}
	x.used = make([]map[Date]usage, len(x.limits))
	for i, l := range x.limits {
		ofService := i < len(r.Limits)
		m := map[Date]usage{}
		for _, b := range p.Busy {
			if b.ServiceID == 0 || ofService && b.ServiceID != r.ServiceID {
				continue
			}
			first, _, _ := r.LimitSpan(l.Period, b.Start, x.loc)
			u := m[first]
			u.n++
			u.booked += b.End.Sub(b.Start)
			m[first] = u
		}
		x.used[i] = m
	}
	return x
}

// allows reports whether a booking over [start, start+length) keeps
// every limit.
func (x *limitIndex) allows(start time.Time, length time.Duration) bool {
	for i, l := range x.limits {
		first, _, _ := x.r.LimitSpan(l.Period, start, x.loc)
		u := x.used[i][first]
		if l.Bookings > 0 && u.n+1 > l.Bookings || l.Minutes > 0 && u.booked+length > time.Duration(l.Minutes)*time.Minute {
			return false
		}
	}
	return true
}
