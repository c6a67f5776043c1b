package bookings

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"
)

// Intervals of the periodic jobs.
const (
	// ReminderInterval is how often reminders are looked for.
	ReminderInterval = 15 * time.Minute
	// HousekeepingInterval is how often past bookings are completed and
	// old ones pruned.
	HousekeepingInterval = 24 * time.Hour
)

// RemindersArgs is the periodic job that queues the reminders due
// ([Service.SendReminders]).
type RemindersArgs struct{}

// Kind implements river.JobArgs.
func (RemindersArgs) Kind() string { return "bookings_reminders" }

// HousekeepingArgs is the daily job that completes past bookings and
// prunes those past retention ([Service.CompletePast],
// [Service.PruneBookings]).
type HousekeepingArgs struct{}

// Kind implements river.JobArgs.
func (HousekeepingArgs) Kind() string { return "bookings_housekeeping" }

type mailWorker struct {
	river.WorkerDefaults[MailArgs]
	svc *Service
}

func (w *mailWorker) Work(ctx context.Context, job *river.Job[MailArgs]) error {
	return w.svc.SendMail(ctx, job.Args)
}

type remindersWorker struct {
	river.WorkerDefaults[RemindersArgs]
	svc *Service
}

func (w *remindersWorker) Work(ctx context.Context, _ *river.Job[RemindersArgs]) error {
	n, err := w.svc.SendReminders(ctx)
	if n > 0 {
		w.svc.o.Logger.DebugContext(ctx, "bookings: reminders queued", "count", n)
	}
	return err
}

type housekeepingWorker struct {
	river.WorkerDefaults[HousekeepingArgs]
	svc *Service
}

func (w *housekeepingWorker) Work(ctx context.Context, _ *river.Job[HousekeepingArgs]) error {
	completed, err := w.svc.CompletePast(ctx)
	if err != nil {
		return err
	}
	pruned, err := w.svc.PruneBookings(ctx)
	w.svc.o.Logger.DebugContext(ctx, "bookings: housekeeping", "completed", completed, "pruned", pruned)
	return err
}

// RegisterWorkers adds the bookings jobs to a queue's workers (see
// store.Queue.Workers): mail, reminders and housekeeping. The service
// needs a Mailer and an Enqueuer. Register before the queue starts.
func RegisterWorkers(workers *river.Workers, svc *Service) error {
	if svc.o.Mailer == nil || svc.o.Enqueuer == nil {
		return errors.New("bookings: register workers: the service needs a Mailer and an Enqueuer")
	}
	return errors.Join(river.AddWorkerSafely(workers, &mailWorker{svc: svc}),
		river.AddWorkerSafely(workers, &remindersWorker{svc: svc}),
		river.AddWorkerSafely(workers, &housekeepingWorker{svc: svc}))
}

// PeriodicJobs are the reminders every ReminderInterval and housekeeping
// every HousekeepingInterval; add them with store.Queue.AddPeriodicJobs.
// River runs them on the leader only (and the reminders' claims hold
// even if two ran at once).
func PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(ReminderInterval),
			func() (river.JobArgs, *river.InsertOpts) { return RemindersArgs{}, nil },
			&river.PeriodicJobOpts{ID: RemindersArgs{}.Kind(), RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(HousekeepingInterval),
			func() (river.JobArgs, *river.InsertOpts) { return HousekeepingArgs{}, nil },
			&river.PeriodicJobOpts{ID: HousekeepingArgs{}.Kind(), RunOnStart: true}),
	}
}
