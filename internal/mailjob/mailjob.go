// Package mailjob is the River job that sends one mail queued sealed: a
// message holding a link (a password reset, an invitation) waits in the
// job's row encrypted, and its worker opens it and sends it with the
// job's Message-ID, mail.MaxAttempts times at most, mail.RetryDelay
// apart. Each domain keeps its own job kind (its arguments type); the
// rest is here.
package mailjob

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/groundwork-go/groundwork/internal/seal"
	"github.com/groundwork-go/groundwork/mail"
)

// Args are a job kind's arguments: the sealed message.
type Args interface {
	river.JobArgs
	SealedMessage() string
}

// InsertOpts give a job mail.MaxAttempts tries (an Args' InsertOpts).
func InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: mail.MaxAttempts} }

// Seal is msg sealed by s for purpose (the worker's Purpose), for a
// job's arguments.
func Seal(s *seal.Sealer, purpose []byte, msg mail.Message) (string, error) {
	b, err := json.Marshal(msg)
	if err != nil {
		return "", err
	}
	return s.Seal(string(b), purpose), nil
}

// Worker sends the mail of the jobs of T.
type Worker[T Args] struct {
	river.WorkerDefaults[T]
	Sealer  *seal.Sealer
	Purpose []byte
	// Mailer sends; a job waits for the next try while it is nil.
	Mailer mail.Mailer
	// What starts the errors: "auth: send".
	What string
}

// Work sends the queued mail, with the job's Message-ID; one that cannot
// be opened or sent as it stands is not tried again.
func (w *Worker[T]) Work(ctx context.Context, job *river.Job[T]) error {
	if w.Sealer == nil || w.Mailer == nil {
		return fmt.Errorf("%s queued mail: no mailer", w.What)
	}
	plain, err := w.Sealer.Open(job.Args.SealedMessage(), w.Purpose)
	if err != nil {
		return river.JobCancel(fmt.Errorf("%s: open queued mail (another key?): %w", w.What, err))
	}
	var msg mail.Message
	if err := json.Unmarshal([]byte(plain), &msg); err != nil {
		return river.JobCancel(fmt.Errorf("%s: read queued mail: %w", w.What, err))
	}
	if err := w.Mailer.Send(mail.WithMessageID(ctx, mail.JobMessageID(job.Kind, job.ID)), msg); err != nil {
		err = fmt.Errorf("%s %q: %w", w.What, msg.Subject, err)
		if errors.Is(err, mail.ErrInvalidMessage) {
			return river.JobCancel(err)
		}
		return err
	}
	return nil
}

// NextRetry waits mail.RetryDelay after a failed try.
func (w *Worker[T]) NextRetry(job *river.Job[T]) time.Time {
	return time.Now().Add(mail.RetryDelay(job.Attempt))
}
