package webhookstest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhooksstore"
)

// exerciseClaimAndFinish is the ClaimAndFinish part of RunStoreTests.
func exerciseClaimAndFinish(t *testing.T, newStore func(t *testing.T) webhooks.Store) {
	t.Parallel()
	s := newStore(t)
	sub := newSub(t, s, "a", true)
	claim, lease := at(5*time.Minute), at(10*time.Minute)
	d := create(t, s, newDelivery(sub.ID, 1, webhooks.StatusPending, &claim))[0]

	_, _, err := s.ClaimDelivery(ctx, d.ID, claim.Add(time.Second), lease)
	require.ErrorIs(t, err, webhooks.ErrClaimLost, "a stale claim")

	// lease == claim only checks and reads.
	_, _, err = s.ClaimDelivery(ctx, d.ID, claim.Add(time.Second), claim.Add(time.Second))
	require.ErrorIs(t, err, webhooks.ErrClaimLost)
	read, readSub, err := s.ClaimDelivery(ctx, d.ID, claim, claim)
	require.NoError(t, err)
	require.Equal(t, claim.Truncate(time.Microsecond), *read.NextAttemptAt)
	require.Equal(t, string(payload(1)), string(read.Payload))
	require.Equal(t, sub.ID, readSub.ID)
	unchanged, err := s.Delivery(ctx, d.ID)
	require.NoError(t, err)
	require.Equal(t, claim.Truncate(time.Microsecond), *unchanged.NextAttemptAt)
	got, gotSub, err := s.ClaimDelivery(ctx, d.ID, claim, lease)
	require.NoError(t, err)
	require.Equal(t, lease.Truncate(time.Microsecond), *got.NextAttemptAt)
	require.Equal(t, string(payload(1)), string(got.Payload))
	require.Equal(t, sub.ID, gotSub.ID)
	require.Equal(t, "sealed-a", gotSub.SealedSecret)
	_, _, err = s.ClaimDelivery(ctx, d.ID, claim, lease)
	require.ErrorIs(t, err, webhooks.ErrClaimLost, "a claim is taken once")

	// A write under a lost lease changes nothing.
	got.Status, got.Attempts, got.UpdatedAt = webhooks.StatusDelivered, 1, at(11*time.Minute)
	_, err = s.FinishAttempt(ctx, got, at(time.Hour), webhooks.OutcomeSuccess, 10)
	require.ErrorIs(t, err, webhooks.ErrClaimLost)
	still, err := s.Delivery(ctx, d.ID)
	require.NoError(t, err)
	require.Equal(t, webhooks.StatusPending, still.Status)
	failed := *got
	failed.Status = webhooks.StatusRetrying
	_, err = s.FinishAttempt(ctx, &failed, at(time.Hour), webhooks.OutcomeFailure, 1)
	require.ErrorIs(t, err, webhooks.ErrClaimLost, "a failure under a lost lease")
	untouched, err := s.Subscription(ctx, sub.ID)
	require.NoError(t, err)
	require.True(t, untouched.IsActive)
	require.Zero(t, untouched.ConsecutiveFailures, "a failure under a lost lease counts for nothing")
	log, err := s.FailedAttempts(ctx, d.ID)
	require.NoError(t, err)
	require.Empty(t, log, "a failure under a lost lease is not logged")

	failuresCounted(t, s, sub.ID, got, lease)
	parkedThenDelivered(t, s, sub.ID, got)
}

// exerciseFinishDelivered is the FinishDelivered part of RunStoreTests.
func exerciseFinishDelivered(t *testing.T, newStore func(t *testing.T) webhooks.Store) {
	t.Parallel()
	s := newStore(t)
	a := newSub(t, s, "a", true)
	b := newSub(t, s, "b", true)
	claim := at(5 * time.Minute)
	ds := create(t, s, newDelivery(a.ID, 1, webhooks.StatusPending, &claim), newDelivery(b.ID, 2, webhooks.StatusRetrying, &claim),
		newDelivery(a.ID, 3, webhooks.StatusPending, &claim))
	b.ConsecutiveFailures = 3
	require.NoError(t, s.UpdateSubscription(ctx, b))
	var batch []webhooks.SuccessfulAttempt
	for i := range ds {
		d := ds[i]
		code, body := 200+i, fmt.Sprintf("ok %d", i)
		d.Attempts, d.ResponseStatus, d.ResponseBody = i+1, &code, &body
		d.DeliveredAt, d.UpdatedAt = ptr(at(time.Minute+time.Duration(i)*time.Second)), at(time.Minute+time.Duration(i)*time.Second)
		lease := claim
		if i == 2 {
			lease = claim.Add(time.Hour) // lost
		}
		batch = append(batch, webhooks.SuccessfulAttempt{Delivery: &d, Lease: lease})
	}
	lost, err := s.FinishDelivered(ctx, batch)
	require.NoError(t, err)
	require.Equal(t, []int64{ds[2].ID}, lost)
	for i, want := range []webhooks.Status{webhooks.StatusDelivered, webhooks.StatusDelivered, webhooks.StatusPending} {
		row, err := s.Delivery(ctx, ds[i].ID)
		require.NoError(t, err)
		require.Equal(t, want, row.Status, i)
		if i < 2 {
			require.Nil(t, row.NextAttemptAt)
			require.Equal(t, i+1, row.Attempts)
			require.Equal(t, 200+i, *row.ResponseStatus)
			require.Equal(t, fmt.Sprintf("ok %d", i), *row.ResponseBody)
			require.Equal(t, at(time.Minute+time.Duration(i)*time.Second), *row.DeliveredAt)
		}
	}
	for _, sub := range []*webhooks.Subscription{a, b} {
		got, err := s.Subscription(ctx, sub.ID)
		require.NoError(t, err)
		require.Zero(t, got.ConsecutiveFailures)
		require.NotNil(t, got.LastSuccessAt)
	}
	lost, err = s.FinishDelivered(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, lost)
}

// exerciseClaimDue is the ClaimDue part of RunStoreTests.
func exerciseClaimDue(t *testing.T, newStore func(t *testing.T) webhooks.Store) {
	t.Parallel()
	s := newStore(t)
	sub := newSub(t, s, "a", true)
	ds := create(t, s,
		newDelivery(sub.ID, 1, webhooks.StatusRetrying, ptr(at(2*time.Minute))),
		newDelivery(sub.ID, 2, webhooks.StatusPending, ptr(at(time.Minute))),
		newDelivery(sub.ID, 3, webhooks.StatusRetrying, ptr(at(time.Hour))), // not due
		newDelivery(sub.ID, 4, webhooks.StatusParked, nil),
		newDelivery(sub.ID, 5, webhooks.StatusDelivered, nil),
		newDelivery(sub.ID, 6, webhooks.StatusPending, ptr(at(3*time.Minute))),
	)
	now, lease := at(5*time.Minute), at(10*time.Minute)
	boom := errors.New("boom")
	// A claim in a transaction that fails afterwards (its jobs not
	// queued) is undone with it.
	err := s.RunInTx(ctx, func(ctx context.Context, _ *sql.Tx) error {
		ids, err := s.ClaimDue(ctx, now, lease, 10)
		require.NoError(t, err)
		require.Len(t, ids, 3)
		return boom
	})
	require.ErrorIs(t, err, boom)
	ids, err := s.ClaimDue(ctx, now, lease, 2)
	require.NoError(t, err)
	require.ElementsMatch(t, []int64{ds[1].ID, ds[0].ID}, ids, "the oldest due, and the failed claim rolled back")
	row, err := s.Delivery(ctx, ds[1].ID)
	require.NoError(t, err)
	require.Equal(t, lease.Truncate(time.Microsecond), *row.NextAttemptAt)
	ids, err = s.ClaimDue(ctx, now, lease, 10)
	require.NoError(t, err)
	require.Equal(t, []int64{ds[5].ID}, ids)
	ids, err = s.ClaimDue(ctx, now, lease, 10)
	require.NoError(t, err)
	require.Empty(t, ids)

	// Sweeps at once never claim a row twice.
	more := make([]webhooks.Delivery, 40)
	for i := range more {
		more[i] = newDelivery(sub.ID, 100+i, webhooks.StatusPending, ptr(at(time.Minute)))
	}
	create(t, s, more...)
	claimed := claimSideBySide(t, func() ([]int64, error) { return s.ClaimDue(ctx, now, lease, 15) })
	requireEachOnce(t, claimed, 40)
}

// claimSideBySide runs claim four times at once and counts how often each
// ID was claimed.
func claimSideBySide(t *testing.T, claim func() ([]int64, error)) map[int64]int {
	var mu sync.Mutex
	claimed := map[int64]int{}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			ids, err := claim()
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			for _, id := range ids {
				claimed[id]++
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	return claimed
}

// requireEachOnce checks that n IDs were claimed, each once.
func requireEachOnce(t *testing.T, claimed map[int64]int, n int) {
	t.Helper()
	require.Len(t, claimed, n)
	for id, times := range claimed {
		require.Equal(t, 1, times, "delivery %d", id)
	}
}

// dueIDs chooses every delivery shown.
func dueIDs(due []webhooksstore.DueDelivery) []int64 {
	out := make([]int64, len(due))
	for i, d := range due {
		out[i] = d.ID
	}
	return out
}

// exerciseClaimChosen is the ClaimChosen part of RunStoreTests.
func exerciseClaimChosen(t *testing.T, newStore func(t *testing.T) webhooks.Store) {
	t.Parallel()
	s := newStore(t)
	a := newSub(t, s, "a", true)
	b := newSub(t, s, "b", true)
	c := newSub(t, s, "c", true)
	ds := create(t, s,
		newDelivery(a.ID, 1, webhooks.StatusPending, ptr(at(time.Minute))),
		newDelivery(b.ID, 2, webhooks.StatusRetrying, ptr(at(2*time.Minute))),
		newDelivery(b.ID, 3, webhooks.StatusPending, ptr(at(time.Minute))),
		newDelivery(c.ID, 4, webhooks.StatusPending, ptr(at(3*time.Minute))),
		newDelivery(b.ID, 5, webhooks.StatusPending, ptr(at(time.Hour))), // not due
		newDelivery(b.ID, 6, webhooks.StatusParked, nil),
		newDelivery(c.ID, 7, webhooks.StatusPending, ptr(at(4*time.Minute))),
	)
	now, lease := at(5*time.Minute), at(10*time.Minute)
	var shown []webhooksstore.DueDelivery
	all := func(due []webhooksstore.DueDelivery) []int64 {
		shown = due
		return dueIDs(due)
	}

	// Skip hides a subscription; Scan bounds what is read, oldest first
	// and the lower ID first among equals; what Choose leaves stays due.
	ids, err := s.ClaimChosen(ctx, now, lease, 10, webhooksstore.ClaimPick{Skip: []int64{c.ID}, Scan: 2,
		Choose: func(due []webhooksstore.DueDelivery) []int64 { shown = due; return []int64{due[1].ID} }})
	require.NoError(t, err)
	require.Equal(t, []webhooksstore.DueDelivery{{ID: ds[0].ID, SubscriptionID: a.ID}, {ID: ds[2].ID, SubscriptionID: b.ID}}, shown)
	require.Equal(t, []int64{ds[2].ID}, ids)
	row, err := s.Delivery(ctx, ds[2].ID)
	require.NoError(t, err)
	require.Equal(t, lease.Truncate(time.Microsecond), *row.NextAttemptAt)
	row, err = s.Delivery(ctx, ds[0].ID)
	require.NoError(t, err)
	require.Equal(t, at(time.Minute), *row.NextAttemptAt, "shown, not chosen: still due")

	// The limit caps what Choose returns; one not due is not claimed.
	ids, err = s.ClaimChosen(ctx, now, lease, 2, webhooksstore.ClaimPick{Scan: 10,
		Choose: func(due []webhooksstore.DueDelivery) []int64 {
			shown = due
			return []int64{ds[4].ID, ds[0].ID, ds[1].ID, ds[3].ID}
		}})
	require.NoError(t, err)
	require.Equal(t, []webhooksstore.DueDelivery{{ID: ds[0].ID, SubscriptionID: a.ID}, {ID: ds[1].ID, SubscriptionID: b.ID},
		{ID: ds[3].ID, SubscriptionID: c.ID}, {ID: ds[6].ID, SubscriptionID: c.ID}}, shown)
	require.ElementsMatch(t, []int64{ds[0].ID}, ids, "the first two chosen: one not due, one claimed")

	ids, err = s.ClaimChosen(ctx, now, lease, 10, webhooksstore.ClaimPick{Skip: []int64{a.ID, b.ID}, Scan: 10, Choose: all})
	require.NoError(t, err)
	require.ElementsMatch(t, []int64{ds[3].ID, ds[6].ID}, ids)
	ids, err = s.ClaimChosen(ctx, now, lease, 10, webhooksstore.ClaimPick{Scan: 10, Choose: all})
	require.NoError(t, err)
	require.Equal(t, []int64{ds[1].ID}, ids)
	shown = nil
	ids, err = s.ClaimChosen(ctx, now, lease, 10, webhooksstore.ClaimPick{Scan: 10, Choose: all})
	require.NoError(t, err)
	require.Empty(t, ids)
	require.Empty(t, shown, "nothing due: Choose is not called")

	// Claims at once never take a row twice.
	more := make([]webhooks.Delivery, 40)
	for i := range more {
		more[i] = newDelivery([]int64{a.ID, b.ID}[i%2], 100+i, webhooks.StatusPending, ptr(at(time.Minute)))
	}
	create(t, s, more...)
	claimed := claimSideBySide(t, func() ([]int64, error) {
		return s.ClaimChosen(ctx, now, lease, 15, webhooksstore.ClaimPick{Scan: 60, Choose: dueIDs})
	})
	// A claim beside another may find what it chose taken, so the rest is
	// claimed after.
	for {
		ids, err := s.ClaimChosen(ctx, now, lease, 15, webhooksstore.ClaimPick{Scan: 60, Choose: dueIDs})
		require.NoError(t, err)
		if len(ids) == 0 {
			break
		}
		for _, id := range ids {
			claimed[id]++
		}
	}
	requireEachOnce(t, claimed, 40)
}

// exerciseParkDue is the ParkDue part of RunStoreTests.
func exerciseParkDue(t *testing.T, newStore func(t *testing.T) webhooks.Store) {
	t.Parallel()
	s := newStore(t)
	a := newSub(t, s, "a", false)
	b := newSub(t, s, "b", true)
	now := at(10 * time.Minute)
	ds := create(t, s,
		newDelivery(a.ID, 1, webhooks.StatusPending, ptr(at(time.Minute))),
		newDelivery(a.ID, 2, webhooks.StatusRetrying, ptr(now)),
		newDelivery(a.ID, 3, webhooks.StatusRetrying, ptr(at(time.Hour))), // claimed, or due later
		newDelivery(a.ID, 4, webhooks.StatusDelivered, nil),
		newDelivery(b.ID, 5, webhooks.StatusPending, ptr(at(time.Minute))), // another's
	)
	n, err := s.ParkDue(ctx, a.ID, now)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	for i, want := range []webhooks.Status{webhooks.StatusParked, webhooks.StatusParked, webhooks.StatusRetrying,
		webhooks.StatusDelivered, webhooks.StatusPending} {
		row, err := s.Delivery(ctx, ds[i].ID)
		require.NoError(t, err)
		require.Equal(t, want, row.Status, i)
		if want == webhooks.StatusParked {
			require.Nil(t, row.NextAttemptAt)
			require.Equal(t, now, row.UpdatedAt)
		}
	}
	n, err = s.ParkDue(ctx, a.ID, now)
	require.NoError(t, err)
	require.Zero(t, n)
}

// exerciseRequeueParked is the RequeueParked part of RunStoreTests.
func exerciseRequeueParked(t *testing.T, newStore func(t *testing.T) webhooks.Store) {
	t.Parallel()
	s := newStore(t)
	a := newSub(t, s, "a", true)
	b := newSub(t, s, "b", true)
	never := newDelivery(a.ID, 1, webhooks.StatusParked, nil)
	tried := newDelivery(a.ID, 2, webhooks.StatusParked, nil)
	tried.Attempts = 3
	ds := create(t, s, never, tried, newDelivery(b.ID, 3, webhooks.StatusParked, nil), newDelivery(a.ID, 4, webhooks.StatusFailed, nil))
	n, err := s.RequeueParked(ctx, a.ID, at(time.Hour))
	require.NoError(t, err)
	require.Equal(t, 2, n)
	for i, want := range []webhooks.Status{webhooks.StatusPending, webhooks.StatusRetrying, webhooks.StatusParked, webhooks.StatusFailed} {
		row, err := s.Delivery(ctx, ds[i].ID)
		require.NoError(t, err)
		require.Equal(t, want, row.Status, i)
		if i < 2 {
			require.Equal(t, at(time.Hour), *row.NextAttemptAt)
		}
	}
}

// failuresCounted: a failed attempt retries and grows its subscription's
// streak; the one that reaches the limit switches it off, and says so
// once.
func failuresCounted(t *testing.T, s webhooks.Store, subID int64, got *webhooks.Delivery, lease time.Time) {
	// A failure: retrying, the streak grows.
	status, body := 500, "oops"
	next := at(20 * time.Minute)
	got.Status, got.NextAttemptAt, got.ResponseStatus, got.ResponseBody = webhooks.StatusRetrying, &next, &status, &body
	disabled, err := s.FinishAttempt(ctx, got, lease, webhooks.OutcomeFailure, 2)
	require.NoError(t, err)
	require.False(t, disabled)
	row, err := s.Delivery(ctx, got.ID)
	require.NoError(t, err)
	require.Equal(t, webhooks.StatusRetrying, row.Status)
	require.Equal(t, 1, row.Attempts)
	require.Equal(t, next, *row.NextAttemptAt)
	require.Equal(t, 500, *row.ResponseStatus)
	require.Equal(t, "oops", *row.ResponseBody)
	require.Equal(t, at(11*time.Minute), row.UpdatedAt)
	subNow, err := s.Subscription(ctx, subID)
	require.NoError(t, err)
	require.Equal(t, 1, subNow.ConsecutiveFailures)
	require.Equal(t, at(11*time.Minute), *subNow.LastFailureAt)
	require.True(t, subNow.IsActive)
	log, err := s.FailedAttempts(ctx, got.ID)
	require.NoError(t, err)
	require.Len(t, log, 1, "the failed attempt is logged")
	require.Equal(t, 1, log[0].Number)
	require.Equal(t, 500, *log[0].ResponseStatus)
	require.Equal(t, "oops", log[0].Response)
	require.Equal(t, at(11*time.Minute), log[0].At)

	// The second failure reaches disableAfter: switched off, once.
	_, _, err = s.ClaimDelivery(ctx, got.ID, next, at(30*time.Minute))
	require.NoError(t, err)
	got.Attempts, got.NextAttemptAt = 2, ptr(at(40*time.Minute))
	disabled, err = s.FinishAttempt(ctx, got, at(30*time.Minute), webhooks.OutcomeFailure, 2)
	require.NoError(t, err)
	require.True(t, disabled)
	subNow, err = s.Subscription(ctx, subID)
	require.NoError(t, err)
	require.False(t, subNow.IsActive)
	require.Equal(t, 2, subNow.ConsecutiveFailures)
	log, err = s.FailedAttempts(ctx, got.ID)
	require.NoError(t, err)
	require.Len(t, log, 2)
	require.Equal(t, 2, log[1].Number)
	_, _, err = s.ClaimDelivery(ctx, got.ID, at(40*time.Minute), at(50*time.Minute))
	require.NoError(t, err)
	got.Attempts, got.NextAttemptAt = 3, ptr(at(60*time.Minute))
	disabled, err = s.FinishAttempt(ctx, got, at(50*time.Minute), webhooks.OutcomeFailure, 2)
	require.NoError(t, err)
	require.False(t, disabled, "only the write that switches it off says so")
}

// parkedThenDelivered: parking leaves the subscription alone and cannot
// be claimed; requeued, a success resets the streak and ends the
// delivery.
func parkedThenDelivered(t *testing.T, s webhooks.Store, subID int64, got *webhooks.Delivery) {
	// Parking leaves the subscription alone.
	_, _, err := s.ClaimDelivery(ctx, got.ID, at(60*time.Minute), at(70*time.Minute))
	require.NoError(t, err)
	got.Status, got.NextAttemptAt, got.UpdatedAt = webhooks.StatusParked, nil, at(71*time.Minute)
	_, err = s.FinishAttempt(ctx, got, at(70*time.Minute), webhooks.OutcomeNone, 2)
	require.NoError(t, err)
	subNow, err := s.Subscription(ctx, subID)
	require.NoError(t, err)
	require.Equal(t, 3, subNow.ConsecutiveFailures)
	_, _, err = s.ClaimDelivery(ctx, got.ID, at(70*time.Minute), at(80*time.Minute))
	require.ErrorIs(t, err, webhooks.ErrClaimLost, "a parked delivery cannot be claimed")

	// A success resets the streak.
	subNow.IsActive, subNow.ConsecutiveFailures = true, 0
	require.NoError(t, s.UpdateSubscription(ctx, subNow))
	n, err := s.RequeueParked(ctx, subID, at(2*time.Hour))
	require.NoError(t, err)
	require.Equal(t, 1, n)
	row, err := s.Delivery(ctx, got.ID)
	require.NoError(t, err)
	require.Equal(t, webhooks.StatusRetrying, row.Status, "attempted before: retrying")
	_, _, err = s.ClaimDelivery(ctx, got.ID, at(2*time.Hour), at(3*time.Hour))
	require.NoError(t, err)
	subNow.ConsecutiveFailures = 4
	require.NoError(t, s.UpdateSubscription(ctx, subNow))
	ok := 200
	got.Status, got.Attempts, got.NextAttemptAt, got.ResponseStatus, got.DeliveredAt, got.UpdatedAt =
		webhooks.StatusDelivered, 4, nil, &ok, ptr(at(2*time.Hour+time.Second)), at(2*time.Hour+time.Second)
	_, err = s.FinishAttempt(ctx, got, at(3*time.Hour), webhooks.OutcomeSuccess, 2)
	require.NoError(t, err)
	subNow, err = s.Subscription(ctx, subID)
	require.NoError(t, err)
	require.Zero(t, subNow.ConsecutiveFailures)
	require.Equal(t, at(2*time.Hour+time.Second), *subNow.LastSuccessAt)
	row, err = s.Delivery(ctx, got.ID)
	require.NoError(t, err)
	require.Equal(t, webhooks.StatusDelivered, row.Status)
	require.Nil(t, row.NextAttemptAt)
	require.Equal(t, at(2*time.Hour+time.Second), *row.DeliveredAt)
	_, _, err = s.ClaimDelivery(ctx, got.ID, at(3*time.Hour), at(4*time.Hour))
	require.ErrorIs(t, err, webhooks.ErrClaimLost, "a delivered delivery cannot be claimed")
}
