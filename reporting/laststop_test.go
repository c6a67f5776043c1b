package reporting_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// slowDisk is a store whose every write takes a while longer: a writer
// behind the traffic, whatever the machine.
type slowDisk struct {
	reporting.Store
	delay  time.Duration
	writes atomic.Int64
}

func (s *slowDisk) Record(ctx context.Context, hits []reporting.Hit, reached func(context.Context, *sql.Tx, []reporting.GoalReached) error) error {
	time.Sleep(s.delay)
	s.writes.Add(1)
	return s.Store.Record(ctx, hits, reached)
}

// A normal stop with a full backlog of varied traffic (many paths,
// referrers, campaigns, visitors and events, answered 202 until the
// buffer is full and a view is refused with 503) writes every view it
// answered 202, however long the drain takes: ShutdownFlush bounds only
// how long it goes on while every write fails, not the drain.
func TestStopWritesEveryAnsweredView(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, d)
		ctx := context.Background()
		_, err := b.analytics.AddGoal(ctx, reporting.Goal{Event: "signup"})
		require.NoError(t, err)
		// Each write a tenth of a second slower: 20 writes of a full
		// buffer take over two seconds, twice the ShutdownFlush given.
		st := &slowDisk{Store: b.analytics.Store(), delay: 100 * time.Millisecond}
		maxPending, batch := 20_000, 1000
		if testkit.RaceEnabled {
			// Under the race detector a view takes several times as long
			// to answer: a tenth of the buffer, in as many writes.
			maxPending, batch = 2000, 100
		}
		a, err := reporting.NewAnalytics(st, &reporting.AnalyticsOptions{Now: b.clock.Now, MaxPending: maxPending,
			FlushBatch: batch, ShutdownFlush: time.Second})
		require.NoError(t, err)
		h, err := reporting.NewCollectHandler(a, &reporting.CollectOptions{Hosts: []string{"shop.example"}, Limit: -1})
		require.NoError(t, err)
		srv := httptest.NewServer(h)
		run, stop := context.WithCancel(ctx)
		collected := make(chan struct{})
		go func() { a.Run(run); close(collected) }()

		var views, events, refused atomic.Int64
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(w), uint64(len(d))))
				for refused.Load() == 0 {
					body, event := variedView(rng)
					req, err := http.NewRequest("POST", srv.URL+"/analytics/collect", strings.NewReader(body))
					if err != nil {
						panic(err)
					}
					req.Header.Set("User-Agent", fmt.Sprintf("%s v%d", browser, rng.IntN(200_000)))
					res, err := srv.Client().Do(req)
					if err != nil {
						panic(err)
					}
					res.Body.Close()
					switch res.StatusCode {
					case http.StatusAccepted:
						if event {
							events.Add(1)
						} else {
							views.Add(1)
						}
					case http.StatusServiceUnavailable:
						refused.Add(1)
					default:
						panic(fmt.Sprintf("collect answered %d", res.StatusCode))
					}
				}
			}()
		}
		wg.Wait()
		srv.Close() // no more views taken: then the stop
		require.GreaterOrEqual(t, a.Pending(), maxPending/2, "the writer is behind: a backlog waits at the stop")
		stop()
		<-collected
		require.Zero(t, a.Pending())

		ov, err := b.analytics.Overview(ctx, reporting.AnalyticsQuery{Days: 1})
		require.NoError(t, err)
		require.EqualValues(t, views.Load(), ov.Totals.PageViews, "every page view answered 202 is stored")
		goals, err := b.analytics.GoalConversions(ctx, reporting.AnalyticsQuery{Days: 1})
		require.NoError(t, err)
		require.Len(t, goals.Goals, 1)
		require.EqualValues(t, events.Load(), goals.Goals[0].Period.Conversions, "every event answered 202 is stored")
		require.Greater(t, st.writes.Load(), int64(10), "the drain took many writes, well past ShutdownFlush")
	})
}

// variedView is a view as varied traffic makes them: one of 2,000 paths,
// one of 500 referrers or none, a campaign one time in ten, and a custom
// event one time in ten (reported by event).
func variedView(rng *rand.Rand) (body string, event bool) {
	u := fmt.Sprintf("https://shop.example/p/%d", rng.IntN(2000))
	if rng.IntN(10) == 0 {
		u += fmt.Sprintf("?utm_source=s%d&utm_medium=m%d&utm_campaign=c%d", rng.IntN(20), rng.IntN(5), rng.IntN(50))
	}
	ref := ""
	if rng.IntN(2) == 0 {
		ref = fmt.Sprintf("https://ref%d.example/", rng.IntN(500))
	}
	if rng.IntN(10) == 0 {
		return fmt.Sprintf(`{"name":"signup","url":%q,"referrer":%q,"props":{"plan":"p%d"}}`, u, ref, rng.IntN(3)), true
	}
	return fmt.Sprintf(`{"url":%q,"referrer":%q,"title":"Page"}`, u, ref), false
}
