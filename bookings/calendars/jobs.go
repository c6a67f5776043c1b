package calendars

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"
)

// syncArgs is the periodic job that reads the calendar connections whose
// next sync is due. Its kind is the one it had inside bookings, so a
// database's queued jobs still run.
type syncArgs struct{}

// Kind implements river.JobArgs.
func (syncArgs) Kind() string { return "bookings_calendar_sync" }

// sweepInterval is how often the due connections are looked for (each is
// read every Options.SyncInterval).
const sweepInterval = time.Minute

// syncBatch is the most connections one sweep reads.
const syncBatch = 100

type syncWorker struct {
	river.WorkerDefaults[syncArgs]
	svc *Service
}

// Timeout lets a sweep read a full batch, one connection at a time.
func (w *syncWorker) Timeout(*river.Job[syncArgs]) time.Duration {
	return sweepInterval + syncBatch*w.svc.o.ReadTimeout
}

func (w *syncWorker) Work(ctx context.Context, _ *river.Job[syncArgs]) error {
	n, err := w.svc.SyncDue(ctx, syncBatch)
	w.svc.o.Logger.DebugContext(ctx, "calendars: sweep", "read", n)
	return err
}

// RegisterWorkers adds the calendar jobs to a queue's workers (see
// store.Queue.Workers): the sweep that reads the due connections and the
// writes of bookings to the providers' calendars. Register before the
// queue starts.
func RegisterWorkers(workers *river.Workers, svc *Service) error {
	if svc == nil {
		return errors.New("calendars: register workers: a service is required")
	}
	return errors.Join(river.AddWorkerSafely(workers, &syncWorker{svc: svc}),
		river.AddWorkerSafely(workers, &writeWorker{svc: svc}))
}

// PeriodicJobs is the calendar sweep, every minute; add it with
// store.Queue.AddPeriodicJobs. River runs it on the leader only (and each
// connection's claim holds even if two ran at once).
func PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(sweepInterval),
		func() (river.JobArgs, *river.InsertOpts) { return syncArgs{}, nil },
		&river.PeriodicJobOpts{ID: syncArgs{}.Kind(), RunOnStart: true})}
}
