package reporting_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// A funnel counts, at each step, the visitors who took it and every step
// before it on one day: pricing, then contact, then the form sent.
// Steps are pages (patterns too), events or saved goals; filters narrow
// the visitors; the route answers the report as documented and refuses a
// funnel of one step or a goal that is not there.
func TestFunnel(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		b := setup(t, d)
		ua := func(i int) string {
			return fmt.Sprintf("Mozilla/5.0 (X11; Linux x86_64; rv:%d.0) Gecko/20100101 Firefox/%d.0", 100+i, 100+i)
		}
		send := func(agent, path, event string) {
			t.Helper()
			body := `{"url":"https://shop.example` + path + `"}`
			if event != "" {
				body = `{"name":"` + event + `","url":"https://shop.example` + path + `"}`
			}
			require.Equal(t, 202, b.view(t, "", agent, body))
		}
		// Yesterday one more visitor saw the pricing and left.
		b.clock.Set(now.Add(-24 * time.Hour))
		send(ua(9), "/pricing", "")
		b.flush(t)
		b.clock.Set(now)
		send(ua(0), "/pricing", "") // all three
		send(ua(0), "/contact", "")
		send(ua(0), "/contact", "form_submitted")
		send(ua(1), "/pricing", "") // pricing, contact
		send(ua(1), "/contact", "")
		send(ua(2), "/pricing/teams", "") // the pricing (by pattern) alone
		send(ua(3), "/contact", "")       // never saw the pricing
		send(ua(3), "/contact", "form_submitted")
		send(phone, "/pricing", "") // all three, on a phone
		send(phone, "/contact", "")
		send(phone, "/contact", "form_submitted")
		b.flush(t)

		steps := []string{"page:/pricing*", "page:/contact", "event:form_submitted"}
		f, err := b.analytics.Funnel(ctx, reporting.AnalyticsQuery{Days: 1}, steps)
		require.NoError(t, err)
		require.Equal(t, reporting.Range{StartDate: now.Format(time.DateOnly), EndDate: now.Format(time.DateOnly)}, f.Range)
		require.Equal(t, []reporting.FunnelStep{
			{Step: "page:/pricing*", Name: "Visit /pricing*", Visitors: 4, Conversion: 1},
			{Step: "page:/contact", Name: "Visit /contact", Visitors: 3, DropOff: 1, DropOffRate: 0.25, Conversion: 0.75},
			{Step: "event:form_submitted", Name: "form_submitted", Visitors: 2, DropOff: 1, DropOffRate: 1.0 / 3, Conversion: 0.5},
		}, f.Steps)
		require.Equal(t, 0.5, f.Conversion)

		f, err = b.analytics.Funnel(ctx, reporting.AnalyticsQuery{Days: 2}, steps)
		require.NoError(t, err)
		require.Equal(t, 5.0, f.Steps[0].Visitors, "yesterday's visitor too")
		require.Equal(t, 0.4, f.Conversion)

		phones := reporting.Filters{{Dim: reporting.DimDevice, Value: "mobile"}}
		f, err = b.analytics.Funnel(ctx, reporting.AnalyticsQuery{Days: 1, Filters: phones}, steps)
		require.NoError(t, err)
		for _, s := range f.Steps {
			require.Equal(t, 1.0, s.Visitors, "the phone's visitor alone: %s", s.Step)
		}

		// A saved goal is a step as its page or event is.
		sent, err := b.analytics.AddGoal(ctx, reporting.Goal{Name: "Sent the form", Event: "form_submitted"})
		require.NoError(t, err)
		f, err = b.analytics.Funnel(ctx, reporting.AnalyticsQuery{Days: 1}, []string{"page:/contact", fmt.Sprint(sent.ID)})
		require.NoError(t, err)
		require.Equal(t, "Sent the form", f.Steps[1].Name)
		require.Equal(t, []float64{4, 3}, []float64{f.Steps[0].Visitors, f.Steps[1].Visitors})

		_, err = b.analytics.Funnel(ctx, reporting.AnalyticsQuery{Days: 1}, []string{"page:/contact"})
		require.ErrorIs(t, err, reporting.ErrBadGoal)
		_, err = b.analytics.Funnel(ctx, reporting.AnalyticsQuery{Days: 1}, []string{"page:/contact", "contact"})
		require.ErrorIs(t, err, reporting.ErrBadGoal)
		_, err = b.analytics.Funnel(ctx, reporting.AnalyticsQuery{Days: 1}, []string{"page:/contact", "999"})
		require.ErrorIs(t, err, reporting.ErrGoalNotFound)

		// Over the route, as documented.
		svc, err := reporting.NewService(&reporting.Options{Analytics: b.analytics})
		require.NoError(t, err)
		h, err := reporting.NewHandler(svc, groundwork.RequestAuthorizerFunc(func(*http.Request, string, any) groundwork.Access {
			return groundwork.Allowed
		}), nil)
		require.NoError(t, err)
		srv := httptest.NewServer(apitest.Documented(t, h))
		t.Cleanup(srv.Close)
		get := func(q url.Values) (int, string) {
			t.Helper()
			res, err := srv.Client().Get(srv.URL + "/analytics-reporting/funnel?" + q.Encode())
			require.NoError(t, err)
			defer res.Body.Close()
			out, err := io.ReadAll(res.Body)
			require.NoError(t, err)
			return res.StatusCode, string(out)
		}
		code, body := get(url.Values{"step": steps, "days": {"1"}, "device": {"mobile"}})
		require.Equal(t, 200, code, body)
		var answer reporting.Funnel
		require.NoError(t, json.Unmarshal([]byte(body), &answer))
		require.Equal(t, 1.0, answer.Conversion)
		code, body = get(url.Values{"step": {"page:/contact"}})
		require.Equal(t, 422, code, body)
		require.JSONEq(t, `{"error":"bad_funnel","message":"A funnel has 2 to 8 steps."}`, body)
		code, body = get(url.Values{"step": {"page:/contact", "999"}})
		require.Equal(t, 422, code, body)
		require.JSONEq(t, `{"error":"bad_funnel","message":"Step 2: there is no goal 999."}`, body)
	})
}
