package webhookstest

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/webhooks"
)

// inboundEvent is a verified Stripe event id received d after at, about
// session pi_1 and ann@example.test.
func inboundEvent(id string, d time.Duration) *webhooks.InboundRecord {
	return &webhooks.InboundRecord{Provider: "stripe", EventID: id, EventType: "payment_intent.succeeded", Verified: true,
		PayloadHash: "h1", PayloadSize: 40, Payload: `{"id":"` + id + `","email":"ann@example.test"}`,
		Parsed: map[string]any{"id": id, "n": 1.0}, ResponseStatus: 200, CorrelationID: "req-1", SessionReference: "pi_1",
		ReceivedAt: at(d)}
}

// claimsOfRace receives event id n times at once and counts the claims.
func claimsOfRace(t *testing.T, s webhooks.Store, n int, id string) int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for range n {
		wg.Go(func() {
			claimed, err := s.ReceiveEvent(ctx, inboundEvent(id, 0))
			if err != nil {
				t.Error(err)
			}
			if claimed {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return wins
}

// exerciseInbound is the Inbound part of RunStoreTests.
func exerciseInbound(t *testing.T, newStore func(t *testing.T) webhooks.Store) {
	t.Parallel()
	s := newStore(t)
	verified := inboundEvent("evt_1", 0)
	claimed, err := s.ReceiveEvent(ctx, verified)
	require.NoError(t, err)
	require.True(t, claimed)
	require.False(t, verified.Duplicate)
	require.Positive(t, verified.ID)
	dup := inboundEvent("evt_1", 2*time.Hour)
	claimed, err = s.ReceiveEvent(ctx, dup)
	require.NoError(t, err)
	require.False(t, claimed, "a redelivery")
	require.True(t, dup.Duplicate)
	// The claim and the row are a step of the transaction the context
	// carries: rolled back with it, the event is free to be claimed by
	// the redelivery.
	rolledBack := errors.New("a hook failed")
	err = s.RunInTx(ctx, func(ctx context.Context, _ *sql.Tx) error {
		other := inboundEvent("evt_1", 0)
		other.Provider = "other"
		claimed, err := s.ReceiveEvent(ctx, other)
		require.NoError(t, err)
		require.True(t, claimed, "claims are per provider")
		refusedToo := &webhooks.InboundRecord{Provider: "other", ErrorCode: "signature_mismatch", PayloadHash: "h3", ResponseStatus: 400,
			ReceivedAt: at(0)}
		require.NoError(t, s.RecordInbound(ctx, refusedToo))
		return rolledBack
	})
	require.ErrorIs(t, err, rolledBack)
	again := inboundEvent("evt_1", 0)
	again.Provider, again.ResponseStatus = "other", 500
	claimed, err = s.ReceiveEvent(ctx, again)
	require.NoError(t, err)
	require.True(t, claimed, "a claim rolled back with its caller's transaction can be taken again")

	require.Equal(t, 1, claimsOfRace(t, s, 10, "evt_race"), "many at once: one claims")

	refused := &webhooks.InboundRecord{Provider: "stripe", ErrorCode: "signature_mismatch", PayloadHash: "h2", PayloadSize: 5000,
		Payload: strings.Repeat("x", 1024), PayloadTruncated: true, ResponseStatus: 400, ReceivedAt: at(time.Hour)}
	require.NoError(t, s.RecordInbound(ctx, refused))
	require.Positive(t, refused.ID)

	list, total, err := s.ListInbound(ctx, webhooks.InboundQuery{Provider: "stripe", Limit: 100})
	require.NoError(t, err)
	require.Equal(t, 13, total, "every delivery has its row")
	byID := map[int64]webhooks.InboundRecord{}
	for _, r := range list {
		byID[r.ID] = r
	}
	require.Equal(t, refused.ID, list[0].ID, "newest first")
	got := byID[verified.ID]
	require.Equal(t, "evt_1", got.EventID)
	require.Equal(t, "payment_intent.succeeded", got.EventType)
	require.True(t, got.Verified)
	require.Equal(t, map[string]any{"id": "evt_1", "n": 1.0}, got.Parsed)
	require.Equal(t, "req-1", got.CorrelationID)
	require.Equal(t, "pi_1", got.SessionReference)
	require.Equal(t, at(0).Truncate(time.Microsecond), got.ReceivedAt)
	require.False(t, got.Duplicate)
	require.True(t, byID[refused.ID].PayloadTruncated)
	require.Equal(t, "signature_mismatch", byID[refused.ID].ErrorCode)
	require.Equal(t, 5000, byID[refused.ID].PayloadSize)
	require.Nil(t, byID[refused.ID].Parsed)
	require.True(t, byID[dup.ID].Duplicate)
	_, total, err = s.ListInbound(ctx, webhooks.InboundQuery{EventID: "evt_1", Limit: 10})
	require.NoError(t, err)
	require.Equal(t, 3, total, "no row of the transaction rolled back")
	otherRows, _, err := s.ListInbound(ctx, webhooks.InboundQuery{Provider: "other", Limit: 10})
	require.NoError(t, err)
	require.Len(t, otherRows, 1, "no row of the transaction rolled back")
	require.Equal(t, 500, otherRows[0].ResponseStatus)

	// Redaction: by session and by email; rows, hashes and sizes stay.
	n, err := s.RedactInbound(ctx, []string{"pi_1"}, "")
	require.NoError(t, err)
	require.Equal(t, 13, n, "every row about pi_1 (none of the transaction rolled back)")
	n, err = s.RedactInbound(ctx, nil, "ann@example.test")
	require.NoError(t, err)
	require.Zero(t, n, "already empty")
	list, _, err = s.ListInbound(ctx, webhooks.InboundQuery{EventID: "evt_1", Limit: 10})
	require.NoError(t, err)
	for _, r := range list {
		require.Empty(t, r.Payload)
		require.Nil(t, r.Parsed)
		require.Equal(t, "h1", r.PayloadHash)
		require.Equal(t, 40, r.PayloadSize)
	}
	bob := &webhooks.InboundRecord{Provider: "stripe", Verified: true, PayloadHash: "h3", PayloadSize: 30,
		Payload: `{"email":"bob_x%@example.test"}`, ResponseStatus: 200, ReceivedAt: at(3 * time.Hour)}
	require.NoError(t, s.RecordInbound(ctx, bob))
	n, err = s.RedactInbound(ctx, nil, "bob_x%@example.test")
	require.NoError(t, err)
	require.Equal(t, 1, n, "the email is matched literally")
	n, err = s.RedactInbound(ctx, nil, "bobXx%@example.test")
	require.NoError(t, err)
	require.Zero(t, n, "_ and % are not wildcards")
	cy := &webhooks.InboundRecord{Provider: "stripe", Verified: true, PayloadHash: "h4", PayloadSize: 30,
		Payload: `{"email":"Cy@Example.TEST"}`, ResponseStatus: 200, ReceivedAt: at(3 * time.Hour)}
	require.NoError(t, s.RecordInbound(ctx, cy))
	n, err = s.RedactInbound(ctx, nil, "cy@example.test")
	require.NoError(t, err)
	require.Equal(t, 1, n, "an email matches whatever its case")
	n, err = s.RedactInbound(ctx, nil, "")
	require.NoError(t, err)
	require.Zero(t, n)

	// Prune: rows and claims older than the cut.
	n, err = s.PruneInbound(ctx, at(90*time.Minute), 1)
	require.NoError(t, err)
	require.Equal(t, 13, n)
	_, total, err = s.ListInbound(ctx, webhooks.InboundQuery{Limit: 100})
	require.NoError(t, err)
	require.Equal(t, 3, total, "the rows received after the cut, cy's among them")
	claimed, err = s.ReceiveEvent(ctx, inboundEvent("evt_race", 4*time.Hour))
	require.NoError(t, err)
	require.True(t, claimed, "the old claim was pruned with the rows")
}
