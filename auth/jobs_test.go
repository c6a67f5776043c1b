package auth_test

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
	"github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// The periodic prune, run by River on start, deletes a session that has
// been idle too long.
func TestPruneJobDeletesEndedSessions(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		db := storetest.Open(t, d, authsql.Migrations)
		st := authsql.New(db)
		c := &clock{}
		c.Set(time.Now())
		svc, err := auth.NewService(st, &auth.Options{Now: c.Now, Password: cheap})
		require.NoError(t, err)
		ctx := context.Background()
		u, err := svc.CreateUser(ctx, auth.NewUser{Name: "Ada", Email: "ada@example.com", Password: "correct horse"})
		require.NoError(t, err)
		idle, _, err := svc.StartSession(ctx, u, false)
		require.NoError(t, err)
		c.Advance(auth.SessionIdleDefault + time.Minute)
		live, _, err := svc.StartSession(ctx, u, false)
		require.NoError(t, err)

		q, err := store.NewQueue(db, &store.QueueOptions{TestOnly: true, FetchPollInterval: 20 * time.Millisecond, FetchCooldown: 5 * time.Millisecond})
		require.NoError(t, err)
		require.NoError(t, auth.RegisterWorkers(q.Workers(), svc))
		q.AddPeriodicJobs(auth.PeriodicJobs()...)
		require.NoError(t, q.Start(ctx))
		t.Cleanup(func() { require.NoError(t, q.Stop(context.Background())) })
		require.Eventually(t, func() bool {
			_, _, err := st.SessionByHash(ctx, auth.SessionHash(idle))
			return err != nil
		}, 10*time.Second, 20*time.Millisecond)
		_, _, err = st.SessionByHash(ctx, auth.SessionHash(live))
		require.NoError(t, err, "the live session stays")
	})
}

// flaky fails its first sends, then keeps what it is given.
type flaky struct {
	*mail.Outbox
	fails atomic.Int32
}

func (f *flaky) Send(ctx context.Context, msg mail.Message) error {
	if f.fails.Add(-1) >= 0 {
		return errors.New("421 try again later")
	}
	return f.Outbox.Send(ctx, msg)
}

// With an Enqueuer a reset mail is a job: its row holds the message
// sealed (no link in the clear), a failed send is tried again, and every
// try carries the job's Message-ID.
func TestMailIsQueuedSealedAndRetried(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		db := storetest.Open(t, d, authsql.Migrations)
		q, err := store.NewQueue(db, &store.QueueOptions{TestOnly: true, FetchPollInterval: 20 * time.Millisecond, FetchCooldown: 5 * time.Millisecond})
		require.NoError(t, err)
		mailer := &flaky{Outbox: mail.NewOutbox(&mail.OutboxOptions{From: "site@example.test", Logger: slog.New(slog.DiscardHandler)})}
		mailer.fails.Store(1)
		svc, err := auth.NewService(authsql.New(db), &auth.Options{Password: cheap, Mailer: mailer, Enqueuer: q})
		require.NoError(t, err)
		require.NoError(t, auth.RegisterWorkers(q.Workers(), svc))
		ctx := context.Background()
		_, err = svc.CreateUser(ctx, auth.NewUser{Name: "Ada", Email: "ada@example.com", Password: "correct horse"})
		require.NoError(t, err)
		require.NoError(t, svc.SendPasswordReset(ctx, "ada@example.com", "https://example.test/reset-password"))

		var args string
		require.NoError(t, db.Reader().GetContext(ctx, &args, "SELECT CAST(args AS TEXT) FROM river_job WHERE kind = 'auth_mail'"))
		require.NotContains(t, args, "reset-password", "the link is sealed")
		require.NotContains(t, args, "ada@example.com")

		require.NoError(t, q.Start(ctx))
		t.Cleanup(func() { require.NoError(t, q.Stop(context.Background())) })
		require.Eventually(t, func() bool { return len(mailer.Messages()) == 1 }, 20*time.Second, 20*time.Millisecond, "sent on the second try")
		msg := mailer.Messages()[0]
		require.Contains(t, msg.Text, "https://example.test/reset-password/")
		require.Regexp(t, `^auth_mail\.[0-9]+@example\.test$`, msg.ID)
	})
}
