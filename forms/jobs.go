package forms

import (
	"context"
	"errors"

	"github.com/riverqueue/river"
)

// notificationWorker sends queued notifications.
type notificationWorker struct {
	river.WorkerDefaults[NotificationArgs]
	svc *Service
}

func (w *notificationWorker) Work(ctx context.Context, job *river.Job[NotificationArgs]) error {
	return w.svc.SendNotification(ctx, job.Args)
}

// RegisterWorkers adds the forms jobs to a queue's workers (see
// store.Queue.Workers): notification sending, which needs the service's
// Mailer. Register before the queue starts.
func RegisterWorkers(workers *river.Workers, svc *Service) error {
	if svc.mailer == nil {
		return errors.New("forms: register workers: the service has no Mailer")
	}
	return river.AddWorkerSafely(workers, &notificationWorker{svc: svc})
}
