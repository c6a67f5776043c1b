package reporting_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/reporting"
)

// cannedAnalytics is a source of one's own: figures from elsewhere.
type cannedAnalytics struct{}

func (cannedAnalytics) Overview(_ context.Context, q reporting.AnalyticsQuery) (reporting.Overview, error) {
	return reporting.Overview{Range: reporting.Range{StartDate: "2026-05-03", EndDate: "2026-06-01"},
		Totals: reporting.OverviewTotals{Users: 120, Sessions: 150, PageViews: 480, AvgEngagementSeconds: 95}}, nil
}

func (cannedAnalytics) TopContent(context.Context, reporting.AnalyticsQuery) (reporting.TopContent, error) {
	return reporting.TopContent{TopPages: []reporting.ContentPage{{Path: "/", Title: "Home", Views: 300, Users: 100}}}, nil
}

// A custom source behind the report routes, mounted for anyone (a real
// host checks who asks).
func ExampleNewHandler() {
	svc, err := reporting.NewService(&reporting.Options{Analytics: cannedAnalytics{}})
	if err != nil {
		panic(err)
	}
	h, err := reporting.NewHandler(svc, groundwork.RequestAuthorizerFunc(func(*http.Request, string, any) groundwork.Access { return groundwork.Allowed }), nil)
	if err != nil {
		panic(err)
	}
	for _, path := range []string{"/analytics-reporting/overview?days=30", "/search-reporting/performance"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		body, _ := io.ReadAll(w.Result().Body)
		fmt.Print(w.Code, " ", string(body))
	}
	// Output:
	// 200 {"range":{"startDate":"2026-05-03","endDate":"2026-06-01"},"totals":{"sessions":150,"users":120,"page_views":480,"avg_engagement_seconds":95},"trend":null}
	// 501 {"error":"base_not_installed","message":"Search reporting is not set up: no search source is configured.","baseInstalled":false}
}

// Goals count page views of a path (each * any characters) or events,
// optionally with one property value.
func ExampleGoal_Matches() {
	blog := reporting.Goal{Page: "/blog/*"}
	pro := reporting.Goal{Event: "signup", Property: "plan", Value: "pro"}
	for _, h := range []reporting.Hit{
		{Path: "/blog/2026/spring"},
		{Path: "/pricing"},
		{Event: "signup", Props: []reporting.Prop{{Name: "plan", Value: "pro"}}},
		{Event: "signup", Props: []reporting.Prop{{Name: "plan", Value: "free"}}},
	} {
		fmt.Println(blog.Matches(h), pro.Matches(h))
	}
	// Output:
	// true false
	// false false
	// false true
	// false false
}
