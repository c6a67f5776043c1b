package bookings

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/bookings/bookingsstore"
)

// SendReminders claims and queues the reminders due now: for each of
// Options.ReminderHoursBefore, the confirmed bookings whose reminder time
// (start − hours) has come, no longer ago than ReminderMaxCatchUp, and
// whose start has not. Each reminder is claimed by a row unique on
// (booking, "reminder", reminder time) in the transaction that queues its
// mail, so none is sent twice whatever the instances or runs. It returns
// how many it queued.
func (s *Service) SendReminders(ctx context.Context) (int, error) {
	if s.o.Enqueuer == nil {
		return 0, errors.New("bookings: send reminders: no Enqueuer")
	}
	now := s.o.Now().UTC()
	queued := 0
	for _, hours := range s.o.ReminderHoursBefore {
		before := time.Duration(hours) * time.Hour
		// start − before ∈ [now − catchUp, now] and start > now.
		from, to := now.Add(time.Microsecond), now.Add(before).Add(time.Microsecond)
		if s.o.ReminderMaxCatchUp > 0 {
			if earliest := now.Add(before - s.o.ReminderMaxCatchUp); earliest.After(from) {
				from = earliest
			}
		}
		list, err := s.store.BookingsStarting(ctx, []Status{StatusConfirmed}, from, to)
		if err != nil {
			return queued, fmt.Errorf("bookings: send reminders: %w", err)
		}
		for _, b := range list {
			if b.CustomerEmail == "" {
				continue
			}
			n := bookingsstore.Notification{BookingID: b.ID, Kind: mailReminder, ScheduledFor: b.Start.Add(-before), Recipient: b.CustomerEmail, ClaimedAt: now}
			// The claim and the mail's job commit together.
			claimed := false
			err := s.store.RunInTx(ctx, func(ctx context.Context, tx *sql.Tx) (err error) {
				if claimed, err = s.store.ClaimNotification(ctx, n); err != nil || !claimed {
					return err
				}
				return s.o.Enqueuer.EnqueueTx(ctx, tx, mailArgs{Mail: mailReminder, BookingID: b.ID}, nil)
			})
			if err != nil {
				return queued, fmt.Errorf("bookings: send reminders: %w", err)
			}
			if claimed {
				queued++
			}
		}
	}
	return queued, nil
}

// CompletePast moves the confirmed bookings that have ended to completed,
// with booking.completed for each (recorded in the change's transaction,
// delivered after it), and returns how many.
func (s *Service) CompletePast(ctx context.Context) (int, error) {
	now := s.o.Now()
	completed := func(b Booking) []Event { return []Event{{Type: EventCompleted, Booking: b, Actor: ActorSystem}} }
	list, err := change(ctx, s, s.changeHook(completed), 0, func(ctx context.Context) ([]Booking, error) {
		return s.store.CompleteEnded(ctx, now, now)
	}, all)
	if err != nil {
		return 0, fmt.Errorf("bookings: complete past: %w", err)
	}
	for _, b := range list {
		s.emit(ctx, completed(b)[0])
	}
	return len(list), nil
}

// PruneBookings deletes the bookings that ended longer ago than
// Options.Retention (none when it is negative), and returns how many.
func (s *Service) PruneBookings(ctx context.Context) (int, error) {
	if s.o.Retention < 0 {
		return 0, nil
	}
	n, err := s.store.PruneBookings(ctx, s.o.Now().Add(-s.o.Retention))
	if err != nil {
		return 0, fmt.Errorf("bookings: prune: %w", err)
	}
	return n, nil
}

// EraseCustomer redacts the personal data of the customer with this
// email from every booking of theirs, in place (the rows stay for the
// accounts): name, email, phone, time zone, intake answers and notes;
// the notification log's recipients. Their manage and calendar links
// stop working. Each booking's booking.erased (the booking as it is
// now) is recorded in the erasure's transaction and delivered after it.
// It returns the numbers of the bookings erased.
func (s *Service) EraseCustomer(ctx context.Context, email string) ([]string, error) {
	email = strings.TrimSpace(email)
	if email == "" {
		return nil, invalid("email", "The email field is required.")
	}
	var events []Event
	erased := func(b Booking) []Event {
		e := Event{Type: EventErased, Booking: b, Actor: ActorAdmin}
		events = append(events, e)
		return []Event{e}
	}
	hook := s.changeHook(erased)
	if hook == nil {
		hook = func(_ context.Context, _ *sql.Tx, b Booking) error { erased(b); return nil }
	}
	list, err := change(ctx, s, hook, 0, func(ctx context.Context) ([]Booking, error) {
		return s.store.EraseCustomer(ctx, email, s.o.Now())
	}, all)
	if err != nil {
		return nil, fmt.Errorf("bookings: erase customer: %w", err)
	}
	numbers := make([]string, len(list))
	for i, b := range list {
		numbers[i] = b.Number
	}
	for _, e := range events {
		s.emit(ctx, e)
	}
	return numbers, nil
}
