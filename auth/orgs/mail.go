package orgs

import (
	"cmp"
	"context"
	"fmt"

	"github.com/riverqueue/river"

	"github.com/groundwork-go/groundwork/internal/mailjob"
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
func (invitationArgs) InsertOpts() river.InsertOpts { return mailjob.InsertOpts() }

// SealedMessage implements mailjob.Args.
func (a invitationArgs) SealedMessage() string { return a.Sealed }

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
	sealed, err := mailjob.Seal(s.sealer, invitationContext, msg)
	if err != nil {
		return err
	}
	if err := s.o.Enqueuer.Enqueue(ctx, invitationArgs{Sealed: sealed}, nil); err != nil {
		return fmt.Errorf("orgs: queue the invitation's mail: %w", err)
	}
	return nil
}

// RegisterWorkers adds the invitations' mail job to workers.
func RegisterWorkers(workers *river.Workers, svc *Service) error {
	return river.AddWorkerSafely(workers, &mailjob.Worker[invitationArgs]{Sealer: svc.sealer, Purpose: invitationContext, Mailer: svc.o.Mailer,
		What: "orgs: send"})
}
