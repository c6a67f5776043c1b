package bookings

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"

	"github.com/groundwork-go/groundwork/mail"
)

// Intervals of the periodic jobs.
const (
	// reminderInterval is how often reminders are looked for.
	reminderInterval = 15 * time.Minute
	// housekeepingInterval is how often past bookings are completed and
	// old ones pruned.
	housekeepingInterval = 24 * time.Hour
)

// remindersArgs is the periodic job that queues the reminders due
// ([Service.SendReminders]).
type remindersArgs struct{}

// Kind implements river.JobArgs.
func (remindersArgs) Kind() string { return "bookings_reminders" }

// housekeepingArgs is the daily job that completes past bookings and
// prunes those past retention ([Service.CompletePast],
// [Service.PruneBookings]).
type housekeepingArgs struct{}

// Kind implements river.JobArgs.
func (housekeepingArgs) Kind() string { return "bookings_housekeeping" }

type mailWorker struct {
	river.WorkerDefaults[mailArgs]
	svc *Service
}

func (w *mailWorker) Work(ctx context.Context, job *river.Job[mailArgs]) error {
	return w.svc.sendMail(mail.WithMessageID(ctx, mail.JobMessageID(job.Kind, job.ID)), job.Args)
}

// NextRetry waits mail.RetryDelay after a failed try.
func (w *mailWorker) NextRetry(job *river.Job[mailArgs]) time.Time {
	return time.Now().Add(mail.RetryDelay(job.Attempt))
}

type remindersWorker struct {
	river.WorkerDefaults[remindersArgs]
	svc *Service
}

// Work queues the reminders due and, with payments, frees the time of
// the bookings left unpaid.
func (w *remindersWorker) Work(ctx context.Context, _ *river.Job[remindersArgs]) error {
	n, err := w.svc.SendReminders(ctx)
	if n > 0 {
		w.svc.o.Logger.DebugContext(ctx, "bookings: reminders queued", "count", n)
	}
	if w.svc.o.Payments != nil {
		expired, xerr := w.svc.expireUnpaid(ctx)
		if expired > 0 {
			w.svc.o.Logger.DebugContext(ctx, "bookings: unpaid bookings cancelled", "count", expired)
		}
		err = errors.Join(err, xerr)
	}
	return err
}

type refundWorker struct {
	river.WorkerDefaults[refundArgs]
	svc *Service
}

func (w *refundWorker) Work(ctx context.Context, job *river.Job[refundArgs]) error {
	return w.svc.refund(ctx, job.Args.BookingID)
}

type housekeepingWorker struct {
	river.WorkerDefaults[housekeepingArgs]
	svc *Service
}

func (w *housekeepingWorker) Work(ctx context.Context, _ *river.Job[housekeepingArgs]) error {
	completed, err := w.svc.CompletePast(ctx)
	if err != nil {
		return err
	}
	pruned, err := w.svc.PruneBookings(ctx)
	w.svc.o.Logger.DebugContext(ctx, "bookings: housekeeping", "completed", completed, "pruned", pruned)
	return err
}

// RegisterWorkers adds the bookings jobs to a queue's workers (see
// store.Queue.Workers): mail, reminders (which also free the time of
// bookings left unpaid), refunds and housekeeping (the providers'
// calendars have their own: calendars.RegisterWorkers). The service
// needs a Mailer and an Enqueuer. Register before the queue starts.
func RegisterWorkers(workers *river.Workers, svc *Service) error {
	if svc.o.Mailer == nil || svc.o.Enqueuer == nil {
		return errors.New("bookings: register workers: the service needs a Mailer and an Enqueuer")
	}
	return errors.Join(river.AddWorkerSafely(workers, &mailWorker{svc: svc}),
		river.AddWorkerSafely(workers, &remindersWorker{svc: svc}),
		river.AddWorkerSafely(workers, &housekeepingWorker{svc: svc}),
		river.AddWorkerSafely(workers, &refundWorker{svc: svc}))
}

// PeriodicJobs are the reminders every 15 minutes and housekeeping
// daily; add them with
// store.Queue.AddPeriodicJobs.
// River runs them on the leader only (and the reminders' claims hold
// even if two ran at once).
func PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(reminderInterval),
			func() (river.JobArgs, *river.InsertOpts) { return remindersArgs{}, nil },
			&river.PeriodicJobOpts{ID: remindersArgs{}.Kind(), RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(housekeepingInterval),
			func() (river.JobArgs, *river.InsertOpts) { return housekeepingArgs{}, nil },
			&river.PeriodicJobOpts{ID: housekeepingArgs{}.Kind(), RunOnStart: true}),
	}
}
