package calendars

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/riverqueue/river"

	"github.com/groundwork-go/groundwork/bookings"
)

// writeArgs is the job that puts a booking, as it is when the job
// runs, in its provider's destination calendars (and takes it out of a
// previous provider's): queued in the transaction of each change, so a
// change is written or the booking is not changed.
type writeArgs struct {
	BookingID          int64 `json:"booking_id"`
	PreviousProviderID int64 `json:"previous_provider_id,omitempty"`
}

// Kind implements river.JobArgs.
func (writeArgs) Kind() string { return "bookings_calendar_write" }

// InsertOpts retries a write for about a day with River's backoff.
func (writeArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 12} }

type writeWorker struct {
	river.WorkerDefaults[writeArgs]
	svc *Service
}

func (w *writeWorker) Work(ctx context.Context, job *river.Job[writeArgs]) error {
	return w.svc.WriteBooking(ctx, job.Args.BookingID, job.Args.PreviousProviderID)
}

// writes reports whether some source can hold bookings.
func (s *Service) writes() bool {
	for _, src := range s.o.Sources {
		if _, ok := src.(Writer); ok {
			return true
		}
	}
	return false
}

// queueWrite queues, in the transaction of a change (a
// bookings.EventTxHook), the write of a change that moves a booking in or
// out of a calendar.
func (s *Service) queueWrite(ctx context.Context, tx *sql.Tx, e bookings.Event) error {
	switch e.Type {
	case bookings.EventCreated, bookings.EventConfirmed, bookings.EventRescheduled, bookings.EventReassigned, bookings.EventCancelled, bookings.EventErased:
	default:
		return nil
	}
	args := writeArgs{BookingID: e.Booking.ID}
	if e.PreviousProviderID != nil {
		args.PreviousProviderID = *e.PreviousProviderID
	}
	if err := s.o.Enqueuer.EnqueueTx(ctx, tx, args, nil); err != nil {
		return fmt.Errorf("calendars: queue the calendar write: %w", err)
	}
	return nil
}

// WriteBooking puts a booking as it is now in the destination
// calendars of its provider's connections: an active booking written
// (replacing the event of its UID), a cancelled one removed; and removes
// it from previousProviderID's, after a reassignment. A booking deleted
// since writes nothing. The first failure is returned (the job tries
// again later); the calendars are written in any order, and writing
// twice is writing once.
func (s *Service) WriteBooking(ctx context.Context, bookingID, previousProviderID int64) error {
	b, err := s.bk.Booking(ctx, bookingID)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("calendars: write booking: %w", err)
	}
	svc, err := s.bk.Store().ServiceByID(ctx, b.ServiceID)
	if err != nil {
		return fmt.Errorf("calendars: write booking: %w", err)
	}
	ev := Event{UID: s.bk.EventUID(b), Start: b.Start, End: b.End, Sequence: b.Sequence, Location: b.Location.Text(), Cancelled: b.Status == bookings.StatusCancelled,
		Summary: svc.Name}
	if b.CustomerName != "" {
		ev.Summary += ": " + b.CustomerName
	}
	var errs []error
	if previousProviderID != 0 && (b.ProviderID == nil || *b.ProviderID != previousProviderID) {
		errs = append(errs, s.eachDestination(ctx, previousProviderID, func(ctx context.Context, w Writer, a Access) error {
			return w.DeleteEvent(ctx, a, ev.UID)
		}))
	}
	if b.ProviderID != nil {
		for _, id := range append([]int64{*b.ProviderID}, b.Hosts...) { // a collective booking's hosts too
			errs = append(errs, s.eachDestination(ctx, id, func(ctx context.Context, w Writer, a Access) error {
				if !b.Active() {
					return w.DeleteEvent(ctx, a, ev.UID)
				}
				return w.PutEvent(ctx, a, ev)
			}))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("calendars: write booking %d: %w", bookingID, err)
	}
	return nil
}

// eachDestination calls fn for each of a provider's connections with a
// destination calendar and a source that writes, within the read
// timeout each.
func (s *Service) eachDestination(ctx context.Context, providerID int64, fn func(context.Context, Writer, Access) error) error {
	conns, err := s.store.ListConnections(ctx, providerID)
	if err != nil {
		return err
	}
	var errs []error
	for _, c := range conns {
		w, ok := s.o.Sources[c.Kind].(Writer)
		if c.Destination == "" || !ok {
			continue
		}
		a, err := s.access(c)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, s.o.ReadTimeout)
		if err := fn(cctx, w, a); err != nil {
			errs = append(errs, fmt.Errorf("connection %d: %w", c.ID, err))
		}
		cancel()
	}
	return errors.Join(errs...)
}
