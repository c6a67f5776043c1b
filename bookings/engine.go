package bookings

import (
	"time"

	"github.com/groundwork-go/groundwork/bookings/slots"
)

// The slot engine is package slots: pure, it works out the slots from
// the rules and busy time this package reads. These are its types under
// the names the bookings API uses.
type (
	// Period is a half-open span of time [Start, End).
	Period = slots.Period
	// Date is a calendar date with no zone: the provider-local day a
	// slot belongs to.
	Date = slots.Date
	// Busy is time a provider is taken: a booking's (or a hold's, or an
	// external calendar's) period and the buffers of its service.
	Busy = slots.Busy
	// Slot is one offered slot (see slots.Slot).
	Slot = slots.Slot
	// LimitPeriod is the span a limit counts over.
	LimitPeriod = slots.LimitPeriod
	// Limit caps bookings in a period (see slots.Limit).
	Limit = slots.Limit
)

// Limit periods.
const (
	PeriodDay   = slots.PeriodDay
	PeriodWeek  = slots.PeriodWeek
	PeriodMonth = slots.PeriodMonth
)

// engine is the slot engine's view of svc.
func (s *Service) engine(svc Offering) slots.Rules {
	interval, _, _ := s.rules(svc)
	return slots.Rules{ServiceID: svc.ID, Interval: interval, BufferBefore: minutes(svc.BufferBefore),
		BufferAfter: minutes(svc.BufferAfter), Seats: svc.MaxBookingsPerSlot, Limits: svc.Limits, WeekStart: s.o.WeekStart}
}

// host is provider o's side of a booking of svc, from the availability
// read for it, with busy as their busy time.
func host(svc Offering, o Offer, cal Availability, busy []Busy) slots.Provider {
	p := slots.Provider{ID: o.ID, Loc: location(o.TimeZone), Length: length(svc, o), Busy: busy, Limits: o.Rules.Limits}
	for _, b := range cal.Blackouts {
		if b.ServiceID == nil || *b.ServiceID == svc.ID {
			p.Closed = append(p.Closed, slots.DateSpan{From: b.From, To: b.To})
		}
	}
	for _, ov := range cal.Overrides {
		if ov.ProviderID != o.ID {
			continue
		}
		x := slots.Override{Date: ov.Date, Closed: ov.Type == OverrideUnavailable}
		if ov.Start != nil && ov.End != nil {
			x.Window = &slots.Clock{Start: *ov.Start, End: *ov.End}
		}
		p.Overrides = append(p.Overrides, x)
	}
	for _, h := range cal.Hours {
		if h.ProviderID == o.ID && h.IsAvailable {
			p.Hours = append(p.Hours, slots.Hours{Weekday: h.Weekday, Window: slots.Clock{Start: h.Start, End: h.End},
				From: h.EffectiveFrom, Until: h.EffectiveUntil})
		}
	}
	return p
}

// offersStart reports whether provider o offers a slot of svc starting
// exactly at start, given the busy time.
func (s *Service) offersStart(svc Offering, o Offer, cal Availability, start time.Time, busy []Busy) bool {
	return s.engine(svc).Offers(host(svc, o, cal, busy), start)
}
