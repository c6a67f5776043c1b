package reporting_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// get is the body of a GET of url, which must answer 200.
func get(t *testing.T, url string) string {
	t.Helper()
	res, err := http.Get(url)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode, string(body))
	return string(body)
}

// Revenue: an event may carry an amount and a currency (the script's
// {"revenue": {...}}, a number or a decimal in text); each goal it
// reaches reports the total and the average per conversion that carried
// one, per currency, in the range and the one before; a bad amount or
// currency is refused with 422 naming revenue, and nothing is counted.
func TestGoalRevenue(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, d)
		ctx := context.Background()
		purchase, err := b.analytics.AddGoal(ctx, reporting.Goal{Name: "Purchase", Event: "purchase"})
		require.NoError(t, err)
		pro, err := b.analytics.AddGoal(ctx, reporting.Goal{Name: "Pro plan", Event: "purchase", Property: "plan", Value: "pro"})
		require.NoError(t, err)
		ua := func(i int) string {
			return fmt.Sprintf("Mozilla/5.0 (X11; Linux x86_64; rv:%d.0) Gecko/20100101 Firefox/%d.0", 100+i, 100+i)
		}
		buy := func(i int, plan, revenue string) int {
			t.Helper()
			return b.view(t, "", ua(i), `{"name":"purchase","url":"https://shop.example/checkout","props":{"plan":"`+plan+`"}`+revenue+`}`)
		}
		b.clock.Set(now.Add(-24 * time.Hour)) // yesterday: one sale
		require.Equal(t, 202, buy(0, "pro", `,"revenue":{"amount":"10","currency":"EUR"}`))
		b.flush(t)
		b.clock.Set(now)
		require.Equal(t, 202, buy(1, "pro", `,"revenue":{"amount":49.9,"currency":"EUR"}`))
		require.Equal(t, 202, buy(2, "free", `,"revenue":{"amount":"0.10","currency":"eur"}`))
		require.Equal(t, 202, buy(3, "pro", `,"revenue":{"amount":"1999.999","currency":"USD"}`))
		require.Equal(t, 202, buy(4, "free", ``)) // a conversion without revenue
		for _, bad := range []string{`{"amount":"-1","currency":"EUR"}`, `{"amount":"1.2345","currency":"EUR"}`, `{"amount":"12","currency":"euro"}`,
			`{"amount":"12"}`, `{"amount":true,"currency":"EUR"}`, `{"amount":"1e3","currency":"EUR"}`, `{"amount":"9999999999999","currency":"EUR"}`} {
			require.Equal(t, 422, buy(5, "pro", `,"revenue":`+bad), bad)
		}
		b.flush(t)

		c, err := b.analytics.GoalConversions(ctx, reporting.AnalyticsQuery{Days: 1})
		require.NoError(t, err)
		byID := map[int64]reporting.GoalConversion{}
		for _, g := range c.Goals {
			byID[g.Goal.ID] = g
		}
		all, plan := byID[purchase.ID], byID[pro.ID]
		require.Equal(t, 4.0, all.Period.Conversions)
		require.Equal(t, map[string]float64{"EUR": 50, "USD": 1999.999}, all.Period.Revenue)
		require.Equal(t, map[string]float64{"EUR": 25, "USD": 1999.999}, all.Period.AverageRevenue, "over the conversions that carried an amount")
		require.Equal(t, map[string]float64{"EUR": 10}, all.Previous.Revenue)
		require.Equal(t, map[string]float64{"EUR": 49.9, "USD": 1999.999}, plan.Period.Revenue)
		require.Equal(t, map[string]float64{"EUR": 49.9, "USD": 1999.999}, plan.Period.AverageRevenue)

		// The dashboard's Goals panel says it, and its CSV (over its
		// shortest range, a week: both days).
		svc, err := reporting.NewService(&reporting.Options{Analytics: b.analytics, Now: b.clock.Now})
		require.NoError(t, err)
		dash, err := reporting.NewDashboard(svc, nil)
		require.NoError(t, err)
		srv := httptest.NewServer(dash)
		t.Cleanup(srv.Close)
		page := get(t, srv.URL+"/reporting?days=7")
		require.Contains(t, page, `<th scope="col" class="num">Revenue</th><th scope="col" class="num">Average</th>`)
		require.Contains(t, page, `<td class="num">60.00 EUR, 1,999.999 USD</td><td class="num">20.00 EUR, 1,999.999 USD</td>`)
		csv := get(t, srv.URL+"/reporting?days=7&export=goals")
		require.Contains(t, csv, "goal,visitors,conversions,conversion_rate,previous_conversion_rate,revenue,average_revenue\n")
		require.Contains(t, csv, ",60.00 EUR; 1999.999 USD,20.00 EUR; 1999.999 USD\n")

		// A goal deleted takes its revenue with it: one made after, which
		// may take its number, starts with none.
		require.NoError(t, b.analytics.DeleteGoal(ctx, pro.ID))
		again, err := b.analytics.AddGoal(ctx, reporting.Goal{Name: "Pro again", Event: "purchase", Property: "plan", Value: "pro"})
		require.NoError(t, err)
		c, err = b.analytics.GoalConversions(ctx, reporting.AnalyticsQuery{Days: 1})
		require.NoError(t, err)
		for _, g := range c.Goals {
			if g.Goal.ID == again.ID || g.Goal.ID == pro.ID {
				require.Nil(t, g.Period.Revenue, g.Goal.Name)
			}
		}

		// Under a filter, the revenue is not said (it is not kept by visitor).
		f, err := b.analytics.GoalConversions(ctx, reporting.AnalyticsQuery{Days: 1, Filters: reporting.Filters{{Dim: reporting.DimDevice, Value: "desktop"}}})
		if err == nil {
			for _, g := range f.Goals {
				require.Nil(t, g.Period.Revenue)
			}
		}
	})
}
