package auth

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/groundwork-go/groundwork/internal/mailjob"
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
func (mailArgs) InsertOpts() river.InsertOpts { return mailjob.InsertOpts() }

// SealedMessage implements mailjob.Args.
func (a mailArgs) SealedMessage() string { return a.Sealed }

// mailContext binds a sealed queued mail to its purpose.
var mailContext = []byte("auth queued mail")

// queueMail inserts the job that sends msg.
func (s *Service) queueMail(msg mail.Message) error {
	sealed, err := mailjob.Seal(s.secrets, mailContext, msg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.enqueuer.Enqueue(ctx, mailArgs{Sealed: sealed}, nil)
}

// mailWorker sends the service's queued mail.
func (s *Service) mailWorker() *mailjob.Worker[mailArgs] {
	return &mailjob.Worker[mailArgs]{Sealer: s.secrets, Purpose: mailContext, Mailer: s.mailer, What: "auth: send"}
}
