package webhooks

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"
)

// sweepArgs is the periodic job (every minute) that queues due retries
// and recovers lost jobs.
type sweepArgs struct{}

// Kind implements river.JobArgs.
func (sweepArgs) Kind() string { return "webhooks_sweep" }

// pruneArgs is the daily job (03:45) that prunes finished deliveries.
type pruneArgs struct{}

// Kind implements river.JobArgs.
func (pruneArgs) Kind() string { return "webhooks_prune" }

type deliverWorker struct {
	river.WorkerDefaults[deliverArgs]
	svc *Service
}

// Work attempts the job's deliveries at once; each stands alone, so one
// that fails to be recorded (an error here) is recovered by the sweeper
// once its claim runs out.
func (w *deliverWorker) Work(ctx context.Context, job *river.Job[deliverArgs]) error {
	return w.svc.attemptAll(ctx, job.Args.Deliveries)
}

// Timeout bounds one attempt: the request's timeout and a margin for the
// bookkeeping.
func (w *deliverWorker) Timeout(*river.Job[deliverArgs]) time.Duration {
	return w.svc.opts.Timeout + 30*time.Second
}

type sweepWorker struct {
	river.WorkerDefaults[sweepArgs]
	svc *Service
}

func (w *sweepWorker) Work(ctx context.Context, _ *river.Job[sweepArgs]) error {
	_, err := w.svc.Sweep(ctx)
	return err
}

type pruneWorker struct {
	river.WorkerDefaults[pruneArgs]
	svc *Service
}

func (w *pruneWorker) Work(ctx context.Context, _ *river.Job[pruneArgs]) error {
	_, err := w.svc.Prune(ctx)
	_, ierr := w.svc.PruneInbound(ctx)
	return errors.Join(err, ierr)
}

type reconcileSessionWorker struct {
	river.WorkerDefaults[reconcileSessionArgs]
	svc *Service
}

func (w *reconcileSessionWorker) Work(ctx context.Context, job *river.Job[reconcileSessionArgs]) error {
	if w.svc.opts.PaymentSessions == nil {
		return nil
	}
	a := job.Args
	return w.svc.opts.PaymentSessions.Settle(ctx, PaymentSession{Provider: a.Provider, Reference: a.Reference}, a.Outcome)
}

// reconcileBackoff is the wait before the second and third tries.
var reconcileBackoff = []time.Duration{30 * time.Second, 120 * time.Second}

// NextRetry waits 30 s, then 120 s.
func (w *reconcileSessionWorker) NextRetry(job *river.Job[reconcileSessionArgs]) time.Time {
	return time.Now().Add(reconcileBackoff[min(max(job.Attempt, 1), len(reconcileBackoff))-1])
}

type reconcileWorker struct {
	river.WorkerDefaults[reconcileArgs]
	svc *Service
}

func (w *reconcileWorker) Work(ctx context.Context, job *river.Job[reconcileArgs]) error {
	if w.svc.opts.PaymentSessions == nil {
		return nil
	}
	after := job.Args.After
	if after <= 0 {
		after = -1 // the service's ReconcileAfter
	}
	r, err := w.svc.Reconcile(ctx, after)
	if err == nil && r.Errors > 0 {
		w.svc.logger.WarnContext(ctx, "webhooks: reconcile", "report", r.String())
	}
	return err
}

// RegisterWorkers adds the webhooks jobs (attempts, sweep, prune,
// reconciliation) to a queue's workers (see store.Queue.Workers). Register
// before the queue starts.
func RegisterWorkers(workers *river.Workers, svc *Service) error {
	if svc.opts.Enqueuer == nil {
		return errors.New("webhooks: register workers: the service has no Enqueuer")
	}
	return errors.Join(
		river.AddWorkerSafely(workers, &deliverWorker{svc: svc}),
		river.AddWorkerSafely(workers, &sweepWorker{svc: svc}),
		river.AddWorkerSafely(workers, &pruneWorker{svc: svc}),
		river.AddWorkerSafely(workers, &reconcileSessionWorker{svc: svc}),
		river.AddWorkerSafely(workers, &reconcileWorker{svc: svc}),
	)
}

// sweepInterval is how often the sweep runs.
const sweepInterval = time.Minute

// PeriodicJobs are the sweep (every minute), the prune of both ledgers
// (daily at 03:45 UTC) and the payment reconciliation (every 15 minutes,
// when the service has PaymentSessions); add them with
// store.Queue.AddPeriodicJobs. River runs them on the leader only.
func PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(sweepInterval),
			func() (river.JobArgs, *river.InsertOpts) { return sweepArgs{}, nil },
			&river.PeriodicJobOpts{ID: sweepArgs{}.Kind(), RunOnStart: true}),
		river.NewPeriodicJob(DailyAt(3, 45, time.UTC),
			func() (river.JobArgs, *river.InsertOpts) { return pruneArgs{}, nil },
			&river.PeriodicJobOpts{ID: pruneArgs{}.Kind()}),
		river.NewPeriodicJob(river.PeriodicInterval(reconcileInterval),
			func() (river.JobArgs, *river.InsertOpts) { return reconcileArgs{}, nil },
			&river.PeriodicJobOpts{ID: reconcileArgs{}.Kind()}),
	}
}

// DailyAt is a river.PeriodicSchedule firing every day at hour:minute in
// loc.
func DailyAt(hour, minute int, loc *time.Location) river.PeriodicSchedule {
	return dailyAt{hour: hour, minute: minute, loc: loc}
}

type dailyAt struct {
	hour, minute int
	loc          *time.Location
}

// Next implements river.PeriodicSchedule: the first hour:minute after t.
func (d dailyAt) Next(t time.Time) time.Time {
	local := t.In(d.loc)
	next := time.Date(local.Year(), local.Month(), local.Day(), d.hour, d.minute, 0, 0, d.loc)
	if !next.After(local) {
		next = time.Date(local.Year(), local.Month(), local.Day()+1, d.hour, d.minute, 0, 0, d.loc)
	}
	return next
}
