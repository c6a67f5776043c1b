package reporting_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// TrackViews counts the HTML pages a handler serves, on the server: a
// GET answered 200 with text/html is a view of its path; a POST, a JSON
// answer, a 404 and a bot are not.
func TestTrackViewsCountsServedPages(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			b := setup(t, d)
			pages := http.NewServeMux()
			html := func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				_, _ = w.Write([]byte("<p>a page</p>"))
			}
			pages.HandleFunc("GET /forms/contact", html)
			pages.HandleFunc("POST /forms/contact", html)
			pages.HandleFunc("GET /forms/contact.json", func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{}`))
			})
			srv := httptest.NewServer(b.analytics.TrackViews(pages, reporting.VisitorOptions{}, nil))
			t.Cleanup(srv.Close)
			ask := func(method, path, ua string) {
				req, err := http.NewRequest(method, srv.URL+path, nil)
				require.NoError(t, err)
				req.Header.Set("User-Agent", ua)
				res, err := srv.Client().Do(req)
				require.NoError(t, err)
				res.Body.Close()
			}
			ask("GET", "/forms/contact", browser)
			ask("GET", "/forms/contact", phone)
			ask("POST", "/forms/contact", browser)
			ask("GET", "/forms/contact.json", browser)
			ask("GET", "/forms/missing", browser)
			ask("GET", "/forms/contact", "Googlebot/2.1 (+http://www.google.com/bot.html)")
			b.flush(t)
			top, err := b.analytics.TopContent(context.Background(), reporting.AnalyticsQuery{Days: 1, Limit: 10})
			require.NoError(t, err)
			require.Len(t, top.TopPages, 1, "only the HTML page is a view")
			require.Equal(t, "/forms/contact", top.TopPages[0].Path)
			require.EqualValues(t, 2, top.TopPages[0].Views)
			require.EqualValues(t, 2, top.TopPages[0].Users)
		})
	}
}
