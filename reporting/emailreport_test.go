package reporting_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/reporting/reportingsql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// The weekly and monthly reports: chosen over the routes, claimed once
// per period however many instances look, mailed by the queue with the
// figures of their period (checked against the hits sent).
func TestEmailReports(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		dsn := storetest.DSN(t, d)
		db := storetest.OpenDSN(t, dsn, reportingsql.Migrations)
		clock := &clock{}
		clock.Set(now) // Monday 1 June 2026, 09:00 UTC
		a, err := reporting.NewAnalytics(reportingsql.New(db), &reporting.AnalyticsOptions{Now: clock.Now})
		require.NoError(t, err)
		hits := seedSite(t, &bundle{db: db, clock: clock, analytics: a})
		outbox := mail.NewOutbox(&mail.OutboxOptions{From: "reports@shop.example", Logger: slog.New(slog.DiscardHandler)})
		queue, err := store.NewQueue(db, &store.QueueOptions{TestOnly: true, FetchPollInterval: 50 * time.Millisecond})
		require.NoError(t, err)
		reports, err := reporting.NewEmailReports(reporting.EmailReportsOptions{Analytics: a, Store: reportingsql.New(db), Enqueuer: queue,
			Mailer: outbox, SiteName: "Shop", DashboardURL: "https://shop.example/reporting"})
		require.NoError(t, err)

		svc, err := reporting.NewService(&reporting.Options{Analytics: a})
		require.NoError(t, err)
		h, err := reporting.NewHandler(svc, groundwork.RequestAuthorizerFunc(func(*http.Request, string, any) groundwork.Access { return groundwork.Allowed }),
			&reporting.HandlerOptions{EmailReports: reports})
		require.NoError(t, err)
		srv := httptest.NewServer(apitest.Documented(t, h))
		t.Cleanup(srv.Close)
		post := func(body string) (int, string) {
			res, err := http.Post(srv.URL+"/analytics-email-reports", "application/json", strings.NewReader(body))
			require.NoError(t, err)
			defer res.Body.Close()
			out, _ := io.ReadAll(res.Body)
			return res.StatusCode, string(out)
		}
		for body, want := range map[string]string{`{"email":"not an address","period":"weekly"}`: "email:",
			`{"email":"ann@example.com","period":"daily"}`: "period:"} {
			code, out := post(body)
			require.Equal(t, 422, code, body)
			require.Contains(t, out, want)
		}
		code, out := post(`{"email":"ann@example.com","period":"weekly"}`)
		require.Equal(t, 201, code, out)
		code, out = post(`{"email":"ann@example.com","period":"weekly"}`)
		require.Equal(t, 422, code)
		require.Contains(t, out, "gets the weekly report already")
		code, _ = post(`{"email":"bo@example.com","period":"monthly"}`)
		require.Equal(t, 201, code)
		code, out = post(`{"email":"gone@example.com","period":"weekly"}`)
		require.Equal(t, 201, code)
		var made struct{ Data reporting.EmailReport }
		require.NoError(t, json.Unmarshal([]byte(out), &made))
		gone := made.Data
		req, _ := http.NewRequest("DELETE", fmt.Sprintf("%s/analytics-email-reports/%d", srv.URL, gone.ID), nil)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, 204, res.StatusCode)

		// Two instances look at once: each report is claimed once.
		other, err := reporting.NewEmailReports(reporting.EmailReportsOptions{Analytics: a, Store: reportingsql.New(storetest.OpenDSN(t, dsn)),
			Enqueuer: queue, Mailer: outbox})
		require.NoError(t, err)
		var wg sync.WaitGroup
		counts := make([]int, 2)
		for i, e := range []*reporting.EmailReports{reports, other} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n, err := e.Due(ctx)
				require.NoError(t, err)
				counts[i] = n
			}()
		}
		wg.Wait()
		require.Equal(t, 2, counts[0]+counts[1], "the weekly and the monthly, once")
		n, err := reports.Due(ctx)
		require.NoError(t, err)
		require.Zero(t, n, "nothing more this period")

		require.NoError(t, reports.RegisterWorkers(queue.Workers()))
		queue.AddPeriodicJobs(reports.PeriodicJobs()...)
		require.NoError(t, queue.Start(ctx))
		t.Cleanup(func() { require.NoError(t, queue.Stop(context.Background())) })
		wait, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		msgs, err := outbox.Wait(wait, 2)
		require.NoError(t, err)
		sort.Slice(msgs, func(i, j int) bool { return msgs[i].To[0] < msgs[j].To[0] })

		// The week before: 25 to 31 May, from the hits sent.
		expect := func(from, to string) (visitors, views int, top string) {
			seen, pages := map[string]bool{}, map[string]int{}
			for _, h := range hits {
				if h.Day < from || h.Day > to || h.Event != "" {
					continue
				}
				views++
				pages[h.Path]++
				if !seen[h.Day+h.Visitor] {
					seen[h.Day+h.Visitor] = true
					visitors++
				}
			}
			for p, n := range pages {
				if top == "" || n > pages[top] || n == pages[top] && p < top {
					top = p
				}
			}
			return visitors, views, top
		}
		weekly := msgs[0]
		require.Equal(t, []string{"ann@example.com"}, weekly.To)
		require.Equal(t, "Analytics of Shop, 25 May to 31 May 2026", weekly.Subject)
		visitors, views, top := expect("2026-05-25", "2026-05-31")
		require.Contains(t, weekly.Text, fmt.Sprintf("Visitors: %s (", groupDigits(visitors)))
		require.Contains(t, weekly.Text, fmt.Sprintf("Page views: %s (", groupDigits(views)))
		require.Contains(t, weekly.Text, "Top pages (Views):\n- "+top+": ")
		require.Contains(t, weekly.Text, "Goals (Conversion rate):\n- Reached thank-you page: ")
		require.Contains(t, weekly.Text, "Top countries (Views):\n- ")
		require.Contains(t, weekly.Text, "All the reports: https://shop.example/reporting")
		require.Contains(t, weekly.HTML, `<a href="https://shop.example/reporting">All the reports</a>`)
		monthly := msgs[1]
		require.Equal(t, "Analytics of Shop, 1 May to 31 May 2026", monthly.Subject)
		visitors, _, _ = expect("2026-05-01", "2026-05-31")
		require.Contains(t, monthly.Text, fmt.Sprintf("Visitors: %s (", groupDigits(visitors)))
		list, err := reportingsql.New(db).EmailReports(ctx)
		require.NoError(t, err)
		require.Equal(t, "2026-W22", list[0].LastSent)
		require.Equal(t, "2026-05", list[1].LastSent)
	})
}

// groupDigits writes n as the reports do: 1,234.
func groupDigits(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
