package bookings

import (
	"context"
	"fmt"
	"time"
)

// Given is v as a given field of an input: every field of OfferingInput,
// ProviderInput, HoursInput and their siblings is a pointer, so that nil
// means "not given" (an update changes only what it is given):
//
//	svc.CreateService(ctx, bookings.OfferingInput{Name: bookings.Given("Consultation"), Duration: bookings.Given(30)})
func Given[T any](v T) *T { return &v }

// weekdays are Monday to Friday, for [Service.AddWeekdayHours].
var weekdays = []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday}

// AddWeekdayHours adds the same hours, from start to end ("09:00",
// "17:00"), on each of days: the working week in one call. It stops at
// the first day refused and returns the hours added so far.
func (s *Service) AddWeekdayHours(ctx context.Context, providerID int64, days []time.Weekday, start, end string) ([]WeeklyHours, error) {
	out := make([]WeeklyHours, 0, len(days))
	for _, d := range days {
		h, err := s.AddHours(ctx, providerID, HoursInput{DayOfWeek: Given(int(d)), Start: &start, End: &end})
		if err != nil {
			return out, err
		}
		out = append(out, h)
	}
	return out, nil
}

// Setup is a bookable service in one call: a service, a provider who
// offers it, and the provider's weekly hours.
type Setup struct {
	Service  OfferingInput
	Provider ProviderInput
	// Days, Start and End are the provider's hours: weekdays from 09:00
	// to 17:00 when Days is empty.
	Days       []time.Weekday
	Start, End string
}

// SetUp makes s.Service bookable: it creates the service and the
// provider, links them, and adds the hours. The inputs are checked as
// CreateService, CreateProvider and AddHours check them; what was made
// before a refusal stays.
func (s *Service) SetUp(ctx context.Context, in Setup) (Offering, Provider, error) {
	svc, err := s.CreateService(ctx, in.Service)
	if err != nil {
		return Offering{}, Provider{}, err
	}
	p, err := s.CreateProvider(ctx, in.Provider)
	if err != nil {
		return svc, Provider{}, err
	}
	if err := s.Link(ctx, svc.Slug, p.ID, LinkInput{}); err != nil {
		return svc, p, fmt.Errorf("bookings: set up: %w", err)
	}
	days, start, end := in.Days, in.Start, in.End
	if len(days) == 0 {
		days = weekdays
	}
	if start == "" {
		start = "09:00"
	}
	if end == "" {
		end = "17:00"
	}
	if _, err := s.AddWeekdayHours(ctx, p.ID, days, start, end); err != nil {
		return svc, p, err
	}
	return svc, p, nil
}
