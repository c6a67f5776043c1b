package bookings

import (
	"slices"
	"strconv"
	"time"
)

// Booking limits (ServiceRules.Limits, ProviderRules.Limits) are counted
// over the bookings and holds of the provider's period that contains a
// booking's start, in the provider's zone: a service's limits over that
// service's, the provider's over all of theirs. A day is the provider's
// day lock already; a week or a month limit adds a lock of its own, taken
// with the day's in one order, so two instances never both take a
// period's last place.

// hasLimits reports whether any limit applies to svc with o.
func hasLimits(svc Offering, o Offer) bool { return len(svc.Limits) > 0 || len(o.Rules.Limits) > 0 }

// limitReach is how far beyond a span busy time must be read to count
// the periods of the limits of svc and offers that reach out of it.
func limitReach(svc Offering, offers []Offer) time.Duration {
	var reach time.Duration
	grow := func(ls []Limit) {
		for _, l := range ls {
			switch l.Period {
			case PeriodWeek:
				reach = max(reach, 8*24*time.Hour)
			case PeriodMonth:
				reach = max(reach, 32*24*time.Hour)
			}
		}
	}
	grow(svc.Limits)
	for _, o := range offers {
		grow(o.Rules.Limits)
	}
	return reach
}

// period is the span of the period containing start in loc, from the
// first local day of it, and that day.
func (s *Service) period(kind LimitPeriod, start time.Time, loc *time.Location) (Date, time.Time, time.Time) {
	day := DateOf(start.In(loc))
	first, next := day, day.AddDays(1)
	switch kind {
	case PeriodWeek:
		first = day.AddDays(-((int(day.Weekday()) - int(s.o.WeekStart) + 7) % 7))
		next = first.AddDays(7)
	case PeriodMonth:
		first = Date{Year: day.Year, Month: day.Month, Day: 1}
		next = DateOf(time.Date(day.Year, day.Month+1, 1, 12, 0, 0, 0, time.UTC))
	}
	return first, first.In(loc), next.In(loc)
}

// withinLimits reports whether a booking of svc with o over [start,
// start+length) keeps every limit, given o's busy time (which must cover
// the limits' periods).
func (s *Service) withinLimits(svc Offering, o Offer, busy []Busy, start time.Time, length time.Duration) bool {
	loc := location(o.TimeZone)
	check := func(limits []Limit, counts func(Busy) bool) bool {
		for _, l := range limits {
			_, from, to := s.period(l.Period, start, loc)
			n, booked := 1, length
			for _, b := range busy {
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
	return check(svc.Limits, func(b Busy) bool { return b.ServiceID == svc.ID }) &&
		check(o.Rules.Limits, func(b Busy) bool { return b.ServiceID != 0 })
}

// limitLocks names the locks of the week and month periods with limits
// that contain start, besides the provider's day lock.
func (s *Service) limitLocks(svc Offering, o Offer, start time.Time) []string {
	var out []string
	loc := location(o.TimeZone)
	for _, l := range slices.Concat(svc.Limits, o.Rules.Limits) {
		if l.Period == PeriodDay {
			continue
		}
		first, _, _ := s.period(l.Period, start, loc)
		name := strconv.FormatInt(o.ID, 10) + "|" + string(l.Period) + "|" + first.String()
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// limitIndex counts, once, the bookings of a provider's limited periods,
// so that a month of slots asks each slot's periods in a map rather than
// going through the busy time again.
type limitIndex struct {
	s      *Service
	loc    *time.Location
	limits []Limit
	used   []map[Date]usage // by limit, by the period's first day
}

type usage struct {
	n      int
	booked time.Duration
}

// newLimitIndex counts busy (o's) against the limits of svc and o.
func (s *Service) newLimitIndex(svc Offering, o Offer, busy []Busy) *limitIndex {
	x := &limitIndex{s: s, loc: location(o.TimeZone), limits: slices.Concat(svc.Limits, o.Rules.Limits)}
	x.used = make([]map[Date]usage, len(x.limits))
	for i, l := range x.limits {
		ofService := i < len(svc.Limits)
		m := map[Date]usage{}
		for _, b := range busy {
			if b.ServiceID == 0 || ofService && b.ServiceID != svc.ID {
				continue
			}
			first, _, _ := s.period(l.Period, b.Start, x.loc)
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
		first, _, _ := x.s.period(l.Period, start, x.loc)
		u := x.used[i][first]
		if l.Bookings > 0 && u.n+1 > l.Bookings || l.Minutes > 0 && u.booked+length > time.Duration(l.Minutes)*time.Minute {
			return false
		}
	}
	return true
}
