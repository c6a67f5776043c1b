package auth_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/auth/authsql"
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
