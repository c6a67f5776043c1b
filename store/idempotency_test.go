package store_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

func TestIdempotency(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		c := newClock()
		idem := store.NewIdempotency(db, c.Now)
		const ttl, stuck = 24 * time.Hour, time.Minute

		rec, err := idem.Begin(ctx, "token:1 POST /x", "k1", "hash-a", ttl, stuck)
		require.NoError(t, err)
		require.Nil(t, rec, "the first request owns the key")
		rec, err = idem.Begin(ctx, "token:1 POST /x", "k1", "hash-a", ttl, stuck)
		require.NoError(t, err)
		require.NotNil(t, rec)
		require.Zero(t, rec.Status, "still running")
		rec, err = idem.Begin(ctx, "token:2 POST /x", "k1", "hash-a", ttl, stuck)
		require.NoError(t, err)
		require.Nil(t, rec, "keys are scoped")

		body := []byte(`{"data":{"id":1}}`)
		require.NoError(t, idem.Complete(ctx, "token:1 POST /x", "k1", 201, map[string][]string{"Content-Type": {"application/json"}}, body))
		rec, err = idem.Begin(ctx, "token:1 POST /x", "k1", "hash-b", ttl, stuck)
		require.NoError(t, err)
		require.Equal(t, 201, rec.Status)
		require.Equal(t, "hash-a", rec.RequestHash, "the caller compares hashes")
		require.Equal(t, body, rec.Body)
		require.Equal(t, []string{"application/json"}, rec.Header["Content-Type"])
		require.Equal(t, c.Now().Add(ttl), rec.ExpiresAt)

		// A request that died is taken over once stuck has passed.
		_, err = idem.Begin(ctx, "s", "dead", "h", ttl, stuck)
		require.NoError(t, err)
		c.Advance(stuck - time.Second)
		rec, err = idem.Begin(ctx, "s", "dead", "h", ttl, stuck)
		require.NoError(t, err)
		require.NotNil(t, rec)
		c.Advance(time.Second)
		rec, err = idem.Begin(ctx, "s", "dead", "h2", ttl, stuck)
		require.NoError(t, err)
		require.Nil(t, rec)

		// Release frees a key; a completed one stays.
		_, err = idem.Begin(ctx, "s", "free", "h", ttl, stuck)
		require.NoError(t, err)
		require.NoError(t, idem.Release(ctx, "s", "free"))
		rec, err = idem.Begin(ctx, "s", "free", "h", ttl, stuck)
		require.NoError(t, err)
		require.Nil(t, rec)
		require.NoError(t, idem.Release(ctx, "token:1 POST /x", "k1"))
		rec, err = idem.Begin(ctx, "token:1 POST /x", "k1", "hash-a", ttl, stuck)
		require.NoError(t, err)
		require.Equal(t, 201, rec.Status)

		// Expired records are taken over, and swept.
		c.Advance(ttl)
		rec, err = idem.Begin(ctx, "token:1 POST /x", "k1", "hash-c", ttl, stuck)
		require.NoError(t, err)
		require.Nil(t, rec, "an expired key is free again")
		n, err := idem.Sweep(ctx)
		require.NoError(t, err)
		require.Equal(t, 3, n, "the other three records expired")

		// Many at once: one owner.
		var owners atomic.Int64
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				rec, err := idem.Begin(ctx, "race", "k", "h", ttl, stuck)
				if err != nil {
					t.Error(err)
				}
				if rec == nil {
					owners.Add(1)
				}
			})
		}
		wg.Wait()
		require.EqualValues(t, 1, owners.Load())
	})
}
