package orgs

import (
	"cmp"
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

// invitationArgs is a queued invitation: its message sealed, since it
// holds the link.
type invitationArgs struct {
	Sealed string `json:"sealed"`
}

// Kind implements river.JobArgs.
func (invitationArgs) Kind() string { return "orgs_invitation_mail" }

// InsertOpts gives the job mail.MaxAttempts tries.
func (invitationArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: mail.MaxAttempts}
}

var invitationContext = []byte("orgs queued invitation")

// mailInvitation queues the invitation's mail, in ctx's transaction when
// it has one; nothing when the service does not mail.
func (s *Service) mailInvitation(ctx context.Context, inv Invitation, token string) error {
	if s.sealer == nil {
		return nil
	}
	prefix := cmp.Or(s.o.PagePrefix, PagePrefixDefault)
	link := invitationPath(prefix, token)
	if s.o.BaseURL != nil {
		u := s.o.BaseURL.JoinPath(prefix, "join")
		u.RawQuery = InvitationQuery + "=" + token
		link = u.String()
	}
	msg := mail.Message{From: s.o.MailFrom, To: []string{inv.Email}, Subject: "Join " + inv.OrganizationName + " on " + s.o.AppName,
		Text: fmt.Sprintf("Hello,\n\nYou are invited to join %s on %s, as %s.\n\nTo join, open this link (it works once, until %s):\n%s\n\n"+
			"If you did not expect this, ignore it: nothing happens unless you open the link.\n",
			inv.OrganizationName, s.o.AppName, inv.Role, inv.ExpiresAt.Format("2 January 2006 at 15:04 MST"), link)}
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if err := s.o.Enqueuer.Enqueue(ctx, invitationArgs{Sealed: s.sealer.Seal(string(b), invitationContext)}, nil); err != nil {
		return fmt.Errorf("orgs: queue the invitation's mail: %w", err)
	}
	return nil
}

type invitationWorker struct {
	river.WorkerDefaults[invitationArgs]
	svc *Service
}

// Work sends the queued invitation; one that cannot be opened or sent as
// it stands is not tried again.
func (w *invitationWorker) Work(ctx context.Context, job *river.Job[invitationArgs]) error {
	s := w.svc
	if s.sealer == nil || s.o.Mailer == nil {
		return errors.New("orgs: send an invitation: no mailer")
	}
	plain, err := s.sealer.Open(job.Args.Sealed, invitationContext)
	if err != nil {
		return river.JobCancel(fmt.Errorf("orgs: open a queued invitation (another key?): %w", err))
	}
	var msg mail.Message
	if err := json.Unmarshal([]byte(plain), &msg); err != nil {
		return river.JobCancel(fmt.Errorf("orgs: read a queued invitation: %w", err))
	}
	if err := s.o.Mailer.Send(mail.WithMessageID(ctx, mail.JobMessageID(job.Kind, job.ID)), msg); err != nil {
		if errors.Is(err, mail.ErrInvalidMessage) {
			return river.JobCancel(fmt.Errorf("orgs: send an invitation: %w", err))
		}
		return fmt.Errorf("orgs: send an invitation: %w", err)
	}
	return nil
}

// NextRetry waits mail.RetryDelay after a failed try.
func (w *invitationWorker) NextRetry(job *river.Job[invitationArgs]) time.Time {
	return time.Now().Add(mail.RetryDelay(job.Attempt))
}

// RegisterWorkers adds the invitations' mail job to workers.
func RegisterWorkers(workers *river.Workers, svc *Service) error {
	return river.AddWorkerSafely(workers, &invitationWorker{svc: svc})
}
