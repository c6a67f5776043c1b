package webhooks

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/webhooks/webhooksstore"
)

var paceStart = time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)

// due lists deliveries 1, 2, ... of the subscriptions given, in order.
func due(subs ...int64) []webhooksstore.DueDelivery {
	out := make([]webhooksstore.DueDelivery, len(subs))
	for i, s := range subs {
		out[i] = webhooksstore.DueDelivery{ID: int64(i + 1), SubscriptionID: s}
	}
	return out
}

// chosen runs a pick at now, with slots free, over deliveries of subs and
// returns what it chose and whether it held some back.
func chosen(p *pacer, slots int, now time.Time, subs ...int64) ([]int64, bool) {
	pick, _, held := p.pick(slots, now)
	out := pick.Choose(due(subs...))
	return out, *held
}

// try makes an attempt to sub with the outcome given, taking took.
func try(p *pacer, sub int64, o Outcome, took time.Duration, now time.Time) {
	p.end(p.begin(sub, now), o, took, now.Add(took))
}

func TestPacerWindows(t *testing.T) {
	t0 := paceStart
	p := newPacer(8)
	pick, limit, held := p.pick(10, t0)
	require.Empty(t, pick.Skip)
	require.Equal(t, 10+4, limit, "ten slots, and four aside")
	require.Equal(t, limit*scanFactor, pick.Scan)

	// An endpoint not seen before gets one attempt at a time.
	got, held2 := chosen(p, 10, t0, 1, 1, 2, 1)
	require.Equal(t, []int64{1, 3}, got)
	require.True(t, held2)
	require.False(t, *held, "a pick not yet shown anything held nothing back")

	// Under way: its window is full, and the claim skips it.
	a := p.begin(1, t0)
	require.False(t, a.aside)
	pick, _, _ = p.pick(10, t0)
	require.Equal(t, []int64{1}, pick.Skip)

	// A quick success doubles the window: two at a time.
	p.end(a, OutcomeSuccess, 10*time.Millisecond, t0)
	got, _ = chosen(p, 10, t0, 1, 1, 1)
	require.Equal(t, []int64{1, 2}, got)
	try(p, 1, OutcomeSuccess, time.Millisecond, t0)
	try(p, 1, OutcomeSuccess, time.Millisecond, t0)
	require.Equal(t, 8, p.endpoints[1].window, "2, 4, 8: doubled by each success, up to MaxInFlight")
	try(p, 1, OutcomeSuccess, time.Millisecond, t0)
	require.Equal(t, 8, p.endpoints[1].window)

	// The free slots hold too.
	got, held2 = chosen(p, 3, t0, 1, 1, 1, 1, 1)
	require.Equal(t, []int64{1, 2, 3}, got)
	require.True(t, held2)

	// A slow success halves it; an attempt not made leaves it.
	try(p, 1, OutcomeSuccess, slowAttempt, t0)
	require.Equal(t, 4, p.endpoints[1].window)
	try(p, 1, OutcomeNone, time.Millisecond, t0)
	require.Equal(t, 4, p.endpoints[1].window)
	require.False(t, p.endpoints[1].suspect())
	select {
	case <-p.ended:
	default:
		t.Fatal("an attempt's end wakes the loop")
	}
}

func TestPacerRestsFailingEndpoints(t *testing.T) {
	t0 := paceStart
	p := newPacer(8)
	try(p, 1, OutcomeSuccess, time.Millisecond, t0)
	try(p, 1, OutcomeSuccess, time.Millisecond, t0)
	require.Equal(t, 4, p.endpoints[1].window)

	// A failure: back to one, and a second's rest.
	try(p, 1, OutcomeFailure, 0, t0)
	require.Equal(t, 1, p.endpoints[1].window)
	require.True(t, p.endpoints[1].suspect())
	pick, _, _ := p.pick(10, t0.Add(999*time.Millisecond))
	require.Equal(t, []int64{1}, pick.Skip, "resting")
	pick, _, _ = p.pick(10, t0.Add(time.Second))
	require.Empty(t, pick.Skip, "rested: one attempt")
	got, _ := chosen(p, 10, t0.Add(time.Second), 1, 1)
	require.Equal(t, []int64{1}, got)

	// Each failure in a row doubles the rest, up to a minute.
	at := t0.Add(time.Second)
	for _, rest := range []time.Duration{2, 4, 8, 16, 32, 60, 60} {
		try(p, 1, OutcomeFailure, 0, at)
		require.Equal(t, at.Add(rest*time.Second), p.endpoints[1].rest)
		at = p.endpoints[1].rest
	}
	// A success ends the streak: no rest after it, two at a time.
	try(p, 1, OutcomeSuccess, time.Millisecond, at)
	require.False(t, p.endpoints[1].suspect())
	got, _ = chosen(p, 10, at, 1, 1, 1)
	require.Equal(t, []int64{1, 2}, got)
	try(p, 1, OutcomeFailure, 0, at)
	require.Equal(t, at.Add(time.Second), p.endpoints[1].rest, "a new streak rests a second again")
}

func TestPacerKeepsTheSlotsForTheHealthy(t *testing.T) {
	t0 := paceStart
	p := newPacer(4) // two aside
	for sub := int64(1); sub <= 3; sub++ {
		try(p, sub, OutcomeFailure, 0, t0)
	}
	t1 := t0.Add(restFirst) // rested
	// Suspects go aside, as many as there is room for; the healthy ones
	// have the slots, here one.
	got, _ := chosen(p, 1, t1, 1, 2, 3, 4, 5)
	require.Equal(t, []int64{1, 2, 4}, got)
	first, second := p.begin(1, t1), p.begin(2, t1)
	require.True(t, first.aside)
	require.True(t, second.aside)
	healthy := p.begin(4, t1)
	require.False(t, healthy.aside)
	require.Equal(t, 2, p.asideNow)
	pick, limit, _ := p.pick(3, t1)
	require.ElementsMatch(t, []int64{1, 2, 3, 4}, pick.Skip, "full windows, and no room aside for suspects")
	require.Equal(t, 3, limit)
	got, held := chosen(p, 3, t1, 3, 5)
	require.Equal(t, []int64{2}, got)
	require.True(t, held)

	// A slow attempt leaves its slot when there is room aside.
	require.False(t, p.slow(healthy), "no room aside")
	a := p.begin(6, t1)
	p.end(first, OutcomeSuccess, time.Millisecond, t1)
	require.Equal(t, 1, p.asideNow)
	require.True(t, p.slow(a))
	require.True(t, a.aside)
	require.False(t, p.slow(a), "moved once")
	require.Equal(t, 2, p.asideNow)
	p.end(a, OutcomeSuccess, slowAttempt, t1)
	require.Equal(t, 1, p.asideNow)
	late := p.begin(7, t1)
	p.end(late, OutcomeSuccess, time.Millisecond, t1)
	require.False(t, p.slow(late), "ended: its timer, firing late, moves nothing")
	require.Equal(t, 1, p.asideNow)
	require.False(t, p.endpoints[1].suspect(), "a suspect's success clears it")
}

func TestPacerForgetsIdleEndpoints(t *testing.T) {
	t0 := paceStart
	p := newPacer(8)
	try(p, 1, OutcomeSuccess, 0, t0)
	p.begin(2, t0)
	for range 7 { // resting a minute, up to the end of the test
		try(p, 4, OutcomeFailure, 0, t0.Add(paceForget-restMost))
	}
	later := t0.Add(paceForget)
	try(p, 3, OutcomeSuccess, 0, later)
	require.NotContains(t, p.endpoints, int64(1), "idle two minutes: forgotten")
	require.Contains(t, p.endpoints, int64(2), "under way: kept")
	require.Contains(t, p.endpoints, int64(3))
	require.Contains(t, p.endpoints, int64(4), "resting: kept, with its streak")
	require.Equal(t, 7, p.endpoints[4].failures)
}
