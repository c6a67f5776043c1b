package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/groundwork-go/groundwork/mail"
)

// Enqueuer inserts jobs: a *store.Queue is one.
type Enqueuer interface {
	Enqueue(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) error
}

// mailArgs is a queued mail: the message sealed with the service's key,
// since it may hold a reset or confirmation link.
type mailArgs struct {
	Sealed string `json:"sealed"`
}

// Kind implements river.JobArgs.
func (mailArgs) Kind() string { return "auth_mail" }

// InsertOpts gives the job mail.MaxAttempts tries.
func (mailArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: mail.MaxAttempts} }

// mailContext binds a sealed queued mail to its purpose.
var mailContext = []byte("auth queued mail")

// queueMail inserts the job that sends msg.
func (s *Service) queueMail(msg mail.Message) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.enqueuer.Enqueue(ctx, mailArgs{Sealed: s.secrets.Seal(string(b), mailContext)}, nil)
}

type mailWorker struct {
	river.WorkerDefaults[mailArgs]
	svc *Service
}

// Work sends the queued mail, with the job's Message-ID; a message that
// cannot be opened or sent as it stands is not tried again.
func (w *mailWorker) Work(ctx context.Context, job *river.Job[mailArgs]) error {
	s := w.svc
	if s.mailer == nil {
		return errors.New("auth: send queued mail: no mailer")
	}
	plain, err := s.secrets.Open(job.Args.Sealed, mailContext)
	if err != nil {
		return river.JobCancel(fmt.Errorf("auth: open queued mail (another key?): %w", err))
	}
	var msg mail.Message
	if err := json.Unmarshal([]byte(plain), &msg); err != nil {
		return river.JobCancel(fmt.Errorf("auth: read queued mail: %w", err))
	}
	if err := s.mailer.Send(mail.WithMessageID(ctx, mail.JobMessageID(job.Kind, job.ID)), msg); err != nil {
		if errors.Is(err, mail.ErrInvalidMessage) {
			return river.JobCancel(fmt.Errorf("auth: send %q: %w", msg.Subject, err))
		}
		return fmt.Errorf("auth: send %q: %w", msg.Subject, err)
	}
	return nil
}

// NextRetry waits mail.RetryDelay after a failed try.
func (w *mailWorker) NextRetry(job *river.Job[mailArgs]) time.Time {
	return time.Now().Add(mail.RetryDelay(job.Attempt))
}
