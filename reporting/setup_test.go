package reporting_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

type clock = testkit.Clock

// now is Monday 2026-06-01 09:00 UTC.
var now = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)

type bundle struct {
	db        *store.DB
	clock     *clock
	analytics *reporting.Analytics
	collect   *httptest.Server
}

func setup(t testing.TB, d store.Dialect) *bundle {
	t.Helper()
	b := &bundle{db: storetest.Open(t, d, reportingsql.Migrations), clock: &clock{}}
	b.clock.Set(now)
	var err error
	b.analytics, err = reporting.NewAnalytics(reportingsql.New(b.db), &reporting.AnalyticsOptions{Now: b.clock.Now})
	require.NoError(t, err)
	h, err := reporting.NewCollectHandler(b.analytics, &reporting.CollectOptions{Hosts: []string{"shop.example"}, Limit: -1,
		Country: func(r *http.Request) string { return r.Header.Get("CF-IPCountry") }})
	require.NoError(t, err)
	b.collect = httptest.NewServer(apitest.Of(t, h).Handler(h))
	t.Cleanup(b.collect.Close)
	return b
}

const browser = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15"
const phone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"

// view posts one view from ip with ua and returns the status.
func (b *bundle) view(t testing.TB, ip, ua, body string, header ...string) int {
	t.Helper()
	req, err := http.NewRequest("POST", b.collect.URL+"/analytics/collect", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "text/plain;charset=UTF-8") // as sendBeacon sends it
	req.Header.Set("User-Agent", ua)
	req.RemoteAddr = ip
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := b.collect.Client().Do(req)
	require.NoError(t, err)
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

func (b *bundle) flush(t testing.TB) {
	t.Helper()
	require.NoError(t, b.analytics.Flush(context.Background()))
}

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }
