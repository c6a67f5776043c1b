package auth

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// pruneInterval is how often the prune job runs.
const pruneInterval = 15 * time.Minute

// pruneArgs is the periodic job that deletes ended sessions, expired
// remember-me tokens and stale password resets ([Service.PruneSessions]).
type pruneArgs struct{}

// Kind implements river.JobArgs.
func (pruneArgs) Kind() string { return "auth_prune" }

type pruneWorker struct {
	river.WorkerDefaults[pruneArgs]
	svc *Service
}

// Work prunes once.
func (w *pruneWorker) Work(ctx context.Context, _ *river.Job[pruneArgs]) error {
	n, err := w.svc.PruneSessions(ctx)
	if err == nil && n > 0 {
		w.svc.logger.DebugContext(ctx, "auth: pruned", "rows", n)
	}
	return err
}

// RegisterWorkers adds the auth jobs to a queue's workers (see
// store.Queue.Workers). Register before the queue starts.
func RegisterWorkers(workers *river.Workers, svc *Service) error {
	if err := river.AddWorkerSafely(workers, svc.mailWorker()); err != nil {
		return err
	}
	return river.AddWorkerSafely(workers, &pruneWorker{svc: svc})
}

// PeriodicJobs is the prune, every 15 minutes; add it with
// store.Queue.AddPeriodicJobs. River runs it on the leader only.
func PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(pruneInterval),
		func() (river.JobArgs, *river.InsertOpts) { return pruneArgs{}, nil },
		&river.PeriodicJobOpts{ID: pruneArgs{}.Kind(), RunOnStart: true})}
}
