package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
)

// runBookings is "reference bookings seed": a sample service and provider
// so that slots can be listed and booked at once.
func runBookings(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "seed" {
		return usageError{"bookings needs a sub-command: seed"}
	}
	fs := newFlagSet("reference bookings seed")
	db := dbFlag(fs, getenv)
	logger := logFlag(fs, getenv, stderr)
	zone := fs.String("timezone", "UTC", "the provider's and service's time zone (IANA name)")
	positional, err := parseInterspersed(fs, args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if len(positional) > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", positional[0])}
	}
	if _, err := time.LoadLocation(*zone); err != nil || *zone == "Local" {
		return usageError{fmt.Sprintf("%q is not a time zone (try Europe/London or America/New_York)", *zone)}
	}
	log, err := logger()
	if err != nil {
		return err
	}
	st, err := openDB(ctx, *db, log, nil)
	if err != nil {
		return err
	}
	defer st.Close()
	s := bookingssql.New(st)
	if _, err := s.ServiceBySlug(ctx, "consultation"); err == nil {
		fmt.Fprintln(stdout, "The sample service \"consultation\" is there already.")
		return nil
	}
	now := time.Now().UTC()
	svc, err := s.CreateService(ctx, bookings.Offering{Slug: "consultation", Name: "Consultation", Description: "A 30-minute call.",
		Duration: 30, TimeZone: *zone, AssignmentStrategy: bookings.AssignAny, MaxBookingsPerSlot: 1, IsFree: true,
		IntakeSchemaVersion: 1, IsActive: true, CreatedAt: now, UpdatedAt: now})
	if err != nil {
		return err
	}
	p, err := s.CreateProvider(ctx, bookings.Provider{Slug: "sam", Name: "Sam", TimeZone: *zone, RoundRobinWeight: 1, IsActive: true,
		CreatedAt: now, UpdatedAt: now})
	if err != nil {
		return err
	}
	if err := s.LinkProvider(ctx, svc.ID, p.ID, nil, nil); err != nil {
		return err
	}
	for d := time.Monday; d <= time.Friday; d++ {
		if _, err := s.AddWeeklyHours(ctx, bookings.WeeklyHours{ProviderID: p.ID, Weekday: d, Start: 9 * 60, End: 17 * 60, IsAvailable: true}); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "Service \"consultation\" (30 minutes) and provider %q (weekdays 09:00-17:00 %s) created.\n", p.Name, *zone)
	return nil
}
