package reporting_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

func TestGlob(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{"/thanks", "/thanks", true}, {"/thanks", "/thanks/", false}, {"/blog/*", "/blog/", true},
		{"/blog/*", "/blog/a/b", true}, {"/blog/*", "/Blog/a", false}, {"/blog/*", "/blog", false},
		{"*/thanks", "/shop/thanks", true}, {"/a*b*c", "/abc", true}, {"/a*b*c", "/axxbyyc", true},
		{"/a*b*c", "/acb", false}, {"/a*a", "/a", false}, {"/a*a", "/aa", true}, {"*", "/x", true},
		{"/a_*", "/a_b", true}, {"/a_*", "/axb", false}, {"/50%", "/50%", true}, {"/50%", "/500", false},
	} {
		require.Equal(t, c.want, reporting.Glob(c.pattern, c.path), "%q ~ %q", c.pattern, c.path)
	}
}

func TestGoalNormalize(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in    reporting.Goal
		field string
	}{
		{reporting.Goal{}, "page"}, {reporting.Goal{Page: "/a", Event: "b"}, "event"}, {reporting.Goal{Page: "thanks"}, "page"},
		{reporting.Goal{Page: "/a", Property: "p", Value: "v"}, "property"}, {reporting.Goal{Event: "e", Property: "p"}, "property"},
		{reporting.Goal{Event: "e", Value: "v"}, "property"}, {reporting.Goal{Event: "e\x00"}, "event"},
		{reporting.Goal{Event: "e", Name: strings.Repeat("n", 121)}, "name"}, {reporting.Goal{Page: "/" + strings.Repeat("p", 1024)}, "page"},
	} {
		_, err := c.in.Normalize()
		require.ErrorIs(t, err, reporting.ErrBadGoal, "%+v", c.in)
		require.Contains(t, err.Error(), c.field+":", "%+v", c.in)
	}
	g, err := reporting.Goal{Page: " /thanks "}.Normalize()
	require.NoError(t, err)
	require.Equal(t, reporting.Goal{Page: "/thanks", Name: "Visit /thanks"}, g)
	g, err = reporting.Goal{Event: "signup", Property: "plan", Value: "pro"}.Normalize()
	require.NoError(t, err)
	require.Equal(t, "signup (plan: pro)", g.Name)
}

// TestGoalRoutes makes goals over the routes and reads their conversions
// back, against the counts of the views and events sent.
func TestGoalRoutes(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, d)
		granted := map[string]bool{reporting.AbilityView: true}
		svc, err := reporting.NewService(&reporting.Options{Analytics: b.analytics})
		require.NoError(t, err)
		h, err := reporting.NewHandler(svc, groundwork.RequestAuthorizerFunc(func(_ *http.Request, ability string, _ any) groundwork.Access {
			if granted[ability] {
				return groundwork.Allowed
			}
			return groundwork.Forbidden
		}), nil)
		require.NoError(t, err)
		srv := httptest.NewServer(apitest.Documented(t, h))
		t.Cleanup(srv.Close)
		call := func(method, path, body string) (int, string) {
			t.Helper()
			req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			res, err := srv.Client().Do(req)
			require.NoError(t, err)
			defer res.Body.Close()
			out, _ := io.ReadAll(res.Body)
			return res.StatusCode, string(out)
		}

		// Yesterday: 2 of 4 visitors saw /thanks; 1 signed up for pro.
		// Today: 3 of 5 saw /thanks (one twice), 2 signed up for pro, 1 for free.
		b.clock.Set(now.Add(-24 * time.Hour))
		ua := func(i int) string {
			return fmt.Sprintf("Mozilla/5.0 (X11; Linux x86_64; rv:%d.0) Gecko/20100101 Firefox/%d.0", 100+i, 100+i)
		}
		send := func(i int, path, event, plan string) {
			t.Helper()
			body := `{"url":"https://shop.example` + path + `"}`
			if event != "" {
				body = `{"name":"` + event + `","url":"https://shop.example` + path + `","props":{"plan":"` + plan + `"}}`
			}
			require.Equal(t, 202, b.view(t, "", ua(i), body))
		}
		send(0, "/", "", "")
		send(1, "/thanks", "", "")
		send(2, "/thanks", "", "")
		send(3, "/pricing", "", "")
		send(3, "/pricing", "signup", "pro")
		b.flush(t)
		b.clock.Set(now)
		for i := 10; i < 15; i++ {
			send(i, "/", "", "")
		}
		send(10, "/thanks", "", "")
		send(10, "/thanks", "", "")
		send(11, "/thanks", "", "")
		send(12, "/thanks", "", "")
		send(13, "/pricing", "signup", "pro")
		send(14, "/pricing", "signup", "pro")
		send(12, "/pricing", "signup", "free")

		code, body := call("POST", "/analytics-goals", `{"page":"/thanks"}`)
		require.Equal(t, 403, code, "reporting:view does not make goals: %s", body)
		granted[reporting.AbilityManage] = true
		code, body = call("POST", "/analytics-goals", `{"page":"thanks"}`)
		require.Equal(t, 422, code)
		require.JSONEq(t, `{"error":"bad_goal","message":"page: a page starts with / (\"/thanks\")"}`, body)
		code, _ = call("POST", "/analytics-goals", `{"path":"/thanks"}`)
		require.Equal(t, 422, code, "a key a goal does not take")
		code, body = call("POST", "/analytics-goals", `{"page":"/thanks"}`)
		require.Equal(t, 201, code, body)
		var made struct{ Data reporting.Goal }
		require.NoError(t, json.Unmarshal([]byte(body), &made), "answered as {\"data\": …}, as every resource")
		thanks := made.Data
		require.Equal(t, "Visit /thanks", thanks.Name)
		require.Regexp(t, `"created_at":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z"`, body, "the APIs' one timestamp format")
		code, body = call("POST", "/analytics-goals", `{"name":"Pro","event":"signup","property":"plan","value":"pro"}`)
		require.Equal(t, 201, code, body)
		b.flush(t) // today's views are written after the goals are made: counted as written
		code, body = call("GET", "/analytics-goals", "")
		require.Equal(t, 200, code)
		var listed struct{ Data []reporting.Goal }
		require.NoError(t, json.Unmarshal([]byte(body), &listed))
		require.Len(t, listed.Data, 2)

		code, body = call("GET", "/analytics-reporting/goals?days=1", "")
		require.Equal(t, 200, code, body)
		var got reporting.GoalConversions
		require.NoError(t, json.Unmarshal([]byte(body), &got))
		require.Equal(t, 5.0, got.Visitors)
		require.Len(t, got.Goals, 2)
		require.Equal(t, reporting.GoalFigures{Visitors: 3, Conversions: 4, Rate: 3.0 / 5}, got.Goals[0].Period)
		require.Equal(t, reporting.GoalFigures{Visitors: 2, Conversions: 2, Rate: 2.0 / 4}, got.Goals[0].Previous, "yesterday, counted over what was kept")
		require.Equal(t, reporting.GoalFigures{Visitors: 2, Conversions: 2, Rate: 2.0 / 5}, got.Goals[1].Period)
		require.Equal(t, reporting.GoalFigures{Visitors: 1, Conversions: 1, Rate: 1.0 / 4}, got.Goals[1].Previous)
		// Narrowed to the visitors who saw /thanks: 10, 11 and 12 today
		// (12's signup was "free"), 1 and 2 yesterday.
		code, body = call("GET", "/analytics-reporting/goals?days=1&page=/thanks", "")
		require.Equal(t, 200, code, body)
		got = reporting.GoalConversions{}
		require.NoError(t, json.Unmarshal([]byte(body), &got))
		require.Equal(t, 3.0, got.Visitors)
		require.Equal(t, reporting.GoalFigures{Visitors: 3, Conversions: 4, Rate: 1}, got.Goals[0].Period)
		require.Equal(t, reporting.GoalFigures{Visitors: 2, Conversions: 2, Rate: 1}, got.Goals[0].Previous)
		require.Equal(t, reporting.GoalFigures{}, got.Goals[1].Period)
		// Narrowed to the visitors who reached Pro: 13 and 14.
		code, body = call("GET", fmt.Sprintf("/analytics-reporting/goals?days=1&goal=%d", got.Goals[1].Goal.ID), "")
		require.Equal(t, 200, code, body)
		got = reporting.GoalConversions{}
		require.NoError(t, json.Unmarshal([]byte(body), &got))
		require.Equal(t, 2.0, got.Visitors)
		require.Equal(t, reporting.GoalFigures{Visitors: 2, Conversions: 2, Rate: 1}, got.Goals[1].Period)
		require.Equal(t, reporting.GoalFigures{}, got.Goals[0].Period)
		// The same visitors by the property they sent, and stacked with a
		// page none of them saw: none.
		code, body = call("GET", "/analytics-reporting/overview?days=1&prop=plan:pro", "")
		require.Equal(t, 200, code, body)
		require.Contains(t, body, `"totals":{"sessions":2,"users":2,"page_views":2,`)
		code, body = call("GET", "/analytics-reporting/overview?days=1&prop=plan:pro&page=/thanks", "")
		require.Equal(t, 200, code, body)
		require.Contains(t, body, `"totals":{"sessions":0,"users":0,"page_views":0,`)
		code, body = call("GET", "/analytics-reporting/overview?days=1&prop=plan", "")
		require.Equal(t, 422, code, "a property is name:value: %s", body)
		code, body = call("GET", "/analytics-reporting/goals?days=1&goal=999", "")
		require.Equal(t, 422, code, "no such goal: %s", body)

		code, _ = call("DELETE", fmt.Sprintf("/analytics-goals/%d", thanks.ID), "")
		require.Equal(t, 204, code)
		code, body = call("DELETE", fmt.Sprintf("/analytics-goals/%d", thanks.ID), "")
		require.Equal(t, 404, code)
		require.JSONEq(t, `{"error":"not_found","message":"There is no such goal."}`, body)
		code, _ = call("DELETE", "/analytics-goals/x", "")
		require.Equal(t, 404, code)
	})
}
