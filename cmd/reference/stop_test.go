package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// A normal stop writes every page view the server answered 202 before it
// exits, however long the drain takes (here far beyond the
// --shutdown-timeout given): a backlog of varied views is stopped with,
// and every one is found in the database after.
func TestStopWritesEveryView(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		dsn := storetest.DSN(t, d)
		cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", dsn, "--log-level", "info", "--uploads", t.TempDir(),
			"--shutdown-timeout", "1ms", "--analytics-collect-limit", "off", "--request-log", "none"}, env{"GROUNDWORK_SECRET_KEY": testSecretKey}.get)
		require.NoError(t, err)
		ctx, stop := context.WithCancel(context.Background())
		addr := make(chan string, 1)
		done := make(chan error, 1)
		logs := &syncBuffer{}
		go func() { done <- serve(ctx, cfg, logs, func(a string) { addr <- a }) }()
		base := "http://" + <-addr

		var answered atomic.Int64
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				client := &http.Client{}
				for i := range 999 { // not a whole number of flushes: some wait at the stop
					page := fmt.Sprintf("%s/p/%d?utm_campaign=c%d", base, (w*1000+i)%700, i%13)
					body := fmt.Sprintf(`{"name":"pageview","url":%q,"referrer":"https://ref%d.example/"}`, page, i%50)
					req, err := http.NewRequest("POST", base+"/analytics/collect", strings.NewReader(body))
					if err != nil {
						panic(err)
					}
					req.Header.Set("User-Agent", fmt.Sprintf("Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.%d", w*1000+i))
					res, err := client.Do(req)
					if err != nil {
						panic(err)
					}
					res.Body.Close()
					if res.StatusCode == http.StatusAccepted {
						answered.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		stop()
		select {
		case <-done: // its error says what the 1 ms did not let finish
		case <-time.After(2 * time.Minute):
			t.Fatal("the server did not stop")
		}
		require.NotContains(t, logs.String(), "views not written")

		db, err := store.Open(context.Background(), dsn)
		require.NoError(t, err)
		defer db.Close()
		a, err := reporting.NewAnalytics(reportingsql.New(db), nil)
		require.NoError(t, err)
		ov, err := a.Overview(context.Background(), reporting.AnalyticsQuery{Days: 1})
		require.NoError(t, err)
		require.Positive(t, answered.Load())
		require.EqualValues(t, answered.Load(), ov.Totals.PageViews, "every view answered 202 is stored")
	})
}
