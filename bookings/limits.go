package bookings

import (
	"slices"
	"strconv"
	"time"

	"github.com/groundwork-go/groundwork/bookings/slots"
)

// Booking limits (ServiceRules.Limits, ProviderRules.Limits) are counted
// by the engine (slots.Limit says how). What this file adds is the
// locking: a day is the provider's day lock already; a week or a month
// limit adds a lock of its own, taken with the day's in one order, so two
// instances never both take a period's last place.

// hasLimits reports whether any limit applies to svc with o.
func hasLimits(svc Offering, o Offer) bool { return len(svc.Limits) > 0 || len(o.Rules.Limits) > 0 }

// limitReach is how far beyond a span busy time must be read to count
// the periods of the limits of svc and offers that reach out of it.
func limitReach(svc Offering, offers []Offer) time.Duration {
	limits := [][]Limit{svc.Limits}
	for _, o := range offers {
		limits = append(limits, o.Rules.Limits)
	}
	return slots.Reach(limits...)
}

// limitLocks names the locks of the week and month periods with limits
// that contain start, besides the provider's day lock.
func (s *Service) limitLocks(svc Offering, o Offer, start time.Time) []string {
	var out []string
	loc := location(o.TimeZone)
	r := s.engine(svc)
	for _, l := range slices.Concat(svc.Limits, o.Rules.Limits) {
		if l.Period == PeriodDay {
			continue
		}
		first, _, _ := r.LimitSpan(l.Period, start, loc)
		name := strconv.FormatInt(o.ID, 10) + "|" + string(l.Period) + "|" + first.String()
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}
