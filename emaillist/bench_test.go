package emaillist_test

import (
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/emaillist"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// The public subscribe over loopback HTTP: validate, throttle (keyed per
// simulated client: each request comes from its own address through a
// trusted proxy), insert the job. 16 clients at once; jobs are not
// worked.
func BenchmarkSubscribe(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			bd := setupBench(b, d)
			var n atomic.Int64
			body := `{"list_form_id":217,"email":"grace@example.com","first_name":"Grace","fields":{"company":"Navy"},"tags":[3,4]}`
			b.SetParallelism(8)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
				for pb.Next() {
					i := n.Add(1)
					req, _ := http.NewRequest("POST", bd.public.URL+"/emailmarketing/subscribers", strings.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("X-Forwarded-For", "10."+strconv.Itoa(int(i>>16&255))+"."+strconv.Itoa(int(i>>8&255))+"."+strconv.Itoa(int(i&255)))
					res, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					res.Body.Close()
					if res.StatusCode != http.StatusAccepted {
						b.Errorf("status %d", res.StatusCode)
						return
					}
				}
			})
		})
	}
}

func setupBench(b *testing.B, d store.Dialect) *bundle {
	b.Helper()
	return setupTB(b, func(o *setupOptions) {
		o.dialect = d
		o.subscribe = &emaillist.SubscribeHandlerOptions{HTTPOptions: groundwork.HTTPOptions{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}}
	})
}
