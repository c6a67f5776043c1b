package forms

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"

	"github.com/groundwork-go/groundwork/mail"
)

// notificationWorker sends queued notifications.
type notificationWorker struct {
	river.WorkerDefaults[notificationArgs]
	svc *Service
}

func (w *notificationWorker) Work(ctx context.Context, job *river.Job[notificationArgs]) error {
	return w.svc.SendNotification(mail.WithMessageID(ctx, mail.JobMessageID(job.Kind, job.ID)), job.Args)
}

// NextRetry waits mail.RetryDelay after a failed try.
func (w *notificationWorker) NextRetry(job *river.Job[notificationArgs]) time.Time {
	return time.Now().Add(mail.RetryDelay(job.Attempt))
}

// sweepInterval is how often the sweep of kept uploads runs.
const sweepInterval = 15 * time.Minute

// sweepArgs is the periodic job that deletes uploads kept longer than
// uploadKeepTime, with their files ([Service.SweepKeptUploads]), and
// leaves unpaid the submissions whose payment page closed unpaid with no
// word from the provider.
type sweepArgs struct{}

// Kind implements river.JobArgs.
func (sweepArgs) Kind() string { return "forms_sweep_kept_uploads" }

type sweepWorker struct {
	river.WorkerDefaults[sweepArgs]
	svc *Service
}

// Work sweeps once.
func (w *sweepWorker) Work(ctx context.Context, _ *river.Job[sweepArgs]) error {
	n, err := w.svc.SweepKeptUploads(ctx)
	if err == nil && n > 0 {
		w.svc.logger.DebugContext(ctx, "forms: swept kept uploads", "files", n)
	}
	unpaid, perr := w.svc.expireUnpaid(ctx)
	if perr == nil && unpaid > 0 {
		w.svc.logger.InfoContext(ctx, "forms: submissions left unpaid", "submissions", unpaid)
	}
	return errors.Join(err, perr)
}

// RegisterWorkers adds the forms jobs to a queue's workers (see
// store.Queue.Workers): notification sending, which needs the service's
// Mailer, as access links do, and the sweep of kept uploads. Register before the queue
// starts.
func RegisterWorkers(workers *river.Workers, svc *Service) error {
	if svc.mailer == nil {
		return errors.New("forms: register workers: the service has no Mailer")
	}
	if err := river.AddWorkerSafely(workers, &sweepWorker{svc: svc}); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, &linkMailWorker{svc: svc}); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, &routedCheckWorker{svc: svc}); err != nil {
		return err
	}
	return river.AddWorkerSafely(workers, &notificationWorker{svc: svc})
}

// PeriodicJobs is the sweep of kept uploads, every 15 minutes; add it
// with store.Queue.AddPeriodicJobs.
func PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(sweepInterval),
		func() (river.JobArgs, *river.InsertOpts) { return sweepArgs{}, nil },
		&river.PeriodicJobOpts{ID: sweepArgs{}.Kind(), RunOnStart: true})}
}
