package store_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

var envSecret = []byte("0123456789abcdef0123456789abcdef")

// The frame: modules join once each, before Start; Migrate applies their
// lines once, in order, and refuses another secret; Start runs the loops
// and names a link a host forgot; Stop stops the loops the queue does
// not feed, then the queue, then those it feeds.
func TestEnvJoinMigrateStartStop(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		dsn := storetest.DSN(t, d)
		var log testkit.Buffer
		env, err := store.OpenEnv(ctx, dsn, &store.EnvOptions{Secret: envSecret, Logger: slog.New(slog.NewTextHandler(&log, nil)),
			Queue: &store.QueueOptions{TestOnly: true}})
		require.NoError(t, err)
		t.Cleanup(func() { env.Close() })

		var mu sync.Mutex
		var order []string
		loop := func(name string, outlives bool) store.Loop {
			return store.Loop{Name: name, OutlivesQueue: outlives, Run: func(ctx context.Context) error {
				<-ctx.Done()
				if outlives {
					// Fed by jobs: the queue has stopped by now.
					assert.False(t, env.Queue.Running(), "%s stopped after the queue", name)
				} else {
					assert.True(t, env.Queue.Running(), "%s stopped before the queue", name)
				}
				mu.Lock()
				order = append(order, name)
				mu.Unlock()
				return nil
			}}
		}
		require.NoError(t, env.Join("forms", nil, nil, loop("sender", false)))
		require.NoError(t, env.Join("webhooks", nil, nil, loop("writer", true)))
		require.ErrorContains(t, env.Join("forms", nil, nil), "forms joined twice")
		require.True(t, env.Joined("webhooks"))
		require.False(t, env.Joined("bookings"))

		require.NoError(t, env.Migrate(ctx))
		require.NoError(t, env.Migrate(ctx), "idempotent")
		pending, err := store.Pending(ctx, env.DB)
		require.NoError(t, err)
		require.Empty(t, pending)

		// Another instance with another secret changes nothing.
		other, err := store.OpenEnv(ctx, dsn, &store.EnvOptions{Secret: bytes.Repeat([]byte("x"), 32)})
		require.NoError(t, err)
		var mismatch *store.KeyMismatchError
		require.ErrorAs(t, other.Migrate(ctx), &mismatch)
		require.NoError(t, other.Close())

		require.NoError(t, env.Start(ctx))
		require.ErrorContains(t, env.Start(ctx), "started twice")
		require.ErrorContains(t, env.Join("bookings", nil, nil), "joined after Start")
		require.Contains(t, log.String(), "forms and webhooks are joined but not linked", "a forgotten link is named")
		require.Contains(t, log.String(), "link.FormsToWebhooks")
		require.Eventually(t, env.Queue.Running, 10*time.Second, 10*time.Millisecond)

		require.NoError(t, env.Stop(ctx))
		require.Equal(t, []string{"sender", "writer"}, order)
		require.NoError(t, env.Stop(ctx), "a second Stop does nothing")
	})
}

// A link made is not named at Start; a loop that fails says which.
func TestEnvLinkedAndLoopErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var log testkit.Buffer
	env, err := store.OpenEnv(ctx, storetest.DSN(t, store.SQLite), &store.EnvOptions{Secret: envSecret,
		Logger: slog.New(slog.NewTextHandler(&log, nil)), Queue: &store.QueueOptions{TestOnly: true}})
	require.NoError(t, err)
	t.Cleanup(func() { env.Close() })
	broken := store.Loop{Name: "broken loop", Run: func(ctx context.Context) error { <-ctx.Done(); return errors.New("disk on fire") }}
	require.NoError(t, env.Join("bookings", nil, nil, broken))
	require.NoError(t, env.Join("webhooks", nil, nil))
	env.Linked("bookings→webhooks")
	require.NoError(t, env.Migrate(ctx))
	require.NoError(t, env.Start(ctx))
	require.NotContains(t, log.String(), "not linked")
	require.EqualError(t, env.Stop(ctx), "store: env: broken loop: disk on fire")
}

// An environment needs a secret long enough to derive keys from.
func TestEnvNeedsASecret(t *testing.T) {
	t.Parallel()
	_, err := store.OpenEnv(context.Background(), storetest.DSN(t, store.SQLite), &store.EnvOptions{Secret: []byte("short")})
	require.ErrorContains(t, err, "store: env:")
}
