package bookings

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ProviderCalendars is what the providers' own calendars add to the
// booking rules: busy time beside the bookings, a read of the day before a
// booking, and the providers not bookable while a calendar that must be
// read has not been. bookings/calendars implements it and attaches itself
// with [Service.UseCalendars].
type ProviderCalendars interface {
	// Busy returns the providers' busy time from their calendars
	// overlapping [from, to), each provider's sorted by start.
	Busy(ctx context.Context, providerIDs []int64, from, to time.Time) (map[int64][]Period, error)
	// Refresh reads the provider's calendars again around start, before a
	// booking there, when their busy time is older than it allows; it
	// logs its own failures (the booking goes ahead on what is known).
	Refresh(ctx context.Context, providerID int64, start time.Time)
	// Unbookable are the providers no slot or booking may go to now.
	Unbookable(ctx context.Context) (map[int64]bool, error)
}

// UseCalendars adds the providers' own calendars to the booking rules:
// their busy time is not offered, and is checked again inside each
// booking's lock. Call it before the service serves (calendars.New does).
func (s *Service) UseCalendars(c ProviderCalendars) { s.cal = c }

// readAvailability is the store's Availability with the providers'
// calendar busy time added to their bookings, and kept apart for the
// checks inside the lock ([Availability.withCalendars]).
func (s *Service) readAvailability(ctx context.Context, q AvailabilityQuery) (Availability, error) {
	cal, err := s.store.Availability(ctx, q)
	if err != nil || s.cal == nil {
		return cal, err
	}
	periods, err := s.cal.Busy(ctx, q.ProviderIDs, q.BusyFrom, q.BusyTo)
	if err != nil {
		return cal, fmt.Errorf("bookings: providers' calendars: %w", err)
	}
	if len(periods) == 0 {
		return cal, nil
	}
	cal.calendars = make(map[int64][]Busy, len(periods))
	for id, ps := range periods {
		busy := make([]Busy, len(ps))
		for i, p := range ps {
			busy[i] = Busy{Period: p}
		}
		cal.calendars[id] = busy
	}
	if cal.Busy == nil {
		cal.Busy = map[int64][]Busy{}
	}
	for id := range cal.calendars {
		cal.Busy[id] = cal.withCalendars(id, cal.Busy[id])
	}
	return cal, nil
}

// withCalendars is busy (a provider's bookings and holds, read inside the
// lock) with the provider's calendar busy time as a read, by start.
func (a Availability) withCalendars(providerID int64, busy []Busy) []Busy {
	ext := a.calendars[providerID]
	if len(ext) == 0 {
		return busy
	}
	out := append(append(make([]Busy, 0, len(busy)+len(ext)), busy...), ext...)
	slices.SortStableFunc(out, func(x, y Busy) int { return x.Start.Compare(y.Start) })
	return out
}

// refresh reads a provider's calendars again before a booking at start.
func (s *Service) refresh(ctx context.Context, providerID int64, start time.Time) {
	if s.cal != nil {
		s.cal.Refresh(ctx, providerID, start)
	}
}

// Horizon is how far ahead customers may book: Options.MaxAdvance (its
// default when zero; negative for no horizon). The providers' calendars
// are read that far.
func (s *Service) Horizon() time.Duration { return s.o.MaxAdvance }

// EventUID is a booking's UID in every calendar: the provider feed's, and
// the one the providers' calendars are written with ("BK-…@FeedHost").
func (s *Service) EventUID(b Booking) string { return b.Number + "@" + s.o.FeedHost }

// IsEventUID reports whether uid is one of this service's bookings'
// ([Service.EventUID]): a booking written to a provider's calendar is
// never read back as their busy time.
func (s *Service) IsEventUID(uid string) bool {
	return strings.HasPrefix(uid, "BK-") && strings.HasSuffix(uid, "@"+s.o.FeedHost)
}

// Zone is the provider's time zone: UTC when unset or unknown (zones are
// checked when written).
func (p Provider) Zone() *time.Location { return location(p.TimeZone) }
