package reporting

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// The queue gives back what it took in, in order, across blocks, partial
// takes and hits put back at the front, as a plain slice would.
func TestHitQueueKeepsOrder(t *testing.T) {
	t.Parallel()
	var q hitQueue
	var model []string // the paths the queue holds, in order (each hit's is its own)
	rng := rand.New(rand.NewPCG(1, 2))
	next := 0
	hit := func() Hit { next++; return Hit{Path: "/" + strconv.Itoa(next)} }
	for step := range 2000 {
		switch r := rng.IntN(10); {
		case r < 6: // a burst of views (fewer than the flushes take, on average: the queue spans blocks, runs dry now and then, and stays small)
			for range rng.IntN(2 * queueBlock) {
				h := hit()
				q.push(h)
				model = append(model, h.Path)
			}
		case r < 9: // a flush
			n := rng.IntN(6*queueBlock + 10)
			got := q.take(n)
			want := model[:min(n, len(model))]
			if len(want) == 0 { // the queue ran dry
				require.Empty(t, got, "step %d", step)
			} else {
				require.Equal(t, want, paths(got), "step %d", step)
			}
			model = model[len(want):]
			if rng.IntN(4) == 0 { // its write failed: back at the front
				q.pushFront(got)
				model = append(paths(got), model...)
			}
		default:
			require.Empty(t, q.take(0))
		}
		require.Equal(t, len(model), q.len(), "step %d", step)
	}
	require.Equal(t, model, paths(q.take(len(model)+1)))
	require.Zero(t, q.len())
	require.Nil(t, q.take(1))
}

// paths are the paths of hs, in order.
func paths(hs []Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Path
	}
	return out
}

// sliceQueue is the one slice the collector kept before hitQueue, with
// its flush's two copies: the batch, and the rest left for later.
type sliceQueue struct{ pending []Hit }

func (q *sliceQueue) push(h Hit) { q.pending = append(q.pending, h) }

func (q *sliceQueue) take(n int) []Hit {
	batch := q.pending
	if len(batch) > n {
		batch = slices.Clone(q.pending[:n])
		q.pending = slices.Clone(q.pending[n:])
	} else {
		q.pending = nil
	}
	return batch
}

// A writer behind the traffic: 100,000 hits wait, and each round a flush
// takes a batch of 5,000 off the front while as many new views come in.
// Per round: what the buffer costs the collector and the writer.
func BenchmarkBacklog(b *testing.B) {
	const waiting, batch = 100_000, 5_000
	h := Hit{Day: "2026-11-29", Visitor: "0123456789abcdef0123456789abcdef", Path: "/pricing", Title: "Pricing", Source: "search.example"}
	for _, c := range []struct {
		name string
		q    interface {
			push(Hit)
			take(int) []Hit
		}
	}{{"queue", &hitQueue{}}, {"slice", &sliceQueue{}}} {
		b.Run(c.name, func(b *testing.B) {
			for range waiting {
				c.q.push(h)
			}
			b.ReportAllocs()
			for b.Loop() {
				_ = c.q.take(batch)
				for range batch {
					c.q.push(h)
				}
			}
		})
	}
}
