package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
)

// limitedApp is the reference app on SQLite, configured by args and e.
func limitedApp(t *testing.T, e env, args ...string) *app {
	t.Helper()
	cfg, err := parseServeFlags(append([]string{"--uploads", t.TempDir()}, args...), e.get)
	require.NoError(t, err)
	db := storetest.Open(t, store.SQLite, migrations...)
	a, err := newApp(cfg, db, webhooks.GenerateSecretKey(), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	return a
}

// hits sends n requests made by req and returns the first status that
// is not 2xx (0 when all passed), the index it came at, and the last
// answer's X-RateLimit-Limit.
func hits(a *app, n int, req func(i int) *http.Request) (status, at int, limit string) {
	for i := range n {
		w := httptest.NewRecorder()
		a.handler.ServeHTTP(w, req(i))
		limit = w.Header().Get("X-RateLimit-Limit")
		if w.Code >= 300 {
			return w.Code, i, limit
		}
	}
	return 0, n, limit
}

func contrastCheck(int) *http.Request {
	r := httptest.NewRequest("POST", "/api/a11y/contrast-check", strings.NewReader(`{"foreground":"#000","background":"#fff"}`))
	r.Header.Set("Content-Type", "application/json")
	return r
}

func TestThrottlesAreConfigurable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("APIDefault", func(t *testing.T) {
		t.Parallel()
		status, at, limit := hits(limitedApp(t, env{}), 61, contrastCheck)
		require.Equal(t, http.StatusTooManyRequests, status)
		require.Equal(t, 60, at)
		require.Equal(t, "60", limit)
	})
	t.Run("APIFlag", func(t *testing.T) {
		t.Parallel()
		status, at, limit := hits(limitedApp(t, env{}, "--api-rate-limit", "3"), 10, contrastCheck)
		require.Equal(t, http.StatusTooManyRequests, status)
		require.Equal(t, 3, at)
		require.Equal(t, "3", limit)
	})
	t.Run("APIOffByVariable", func(t *testing.T) {
		t.Parallel()
		status, at, limit := hits(limitedApp(t, env{"GROUNDWORK_API_RATE_LIMIT": "off"}), 200, contrastCheck)
		require.Zero(t, status, "request %d refused", at)
		require.Empty(t, limit, "no throttle, no rate-limit headers")
	})
	t.Run("FlagWinsOverVariable", func(t *testing.T) {
		t.Parallel()
		status, at, _ := hits(limitedApp(t, env{"GROUNDWORK_API_RATE_LIMIT": "off"}, "--api-rate-limit", "2"), 5, contrastCheck)
		require.Equal(t, http.StatusTooManyRequests, status)
		require.Equal(t, 2, at)
	})

	submits := func(a *app) func(int) *http.Request {
		f := &forms.Form{Name: "Contact", IsActive: true}
		require.NoError(t, a.forms.CreateForm(ctx, f))
		require.NoError(t, a.forms.CreateField(ctx, &forms.Field{FormID: f.ID, Type: "text", Label: "Name"}))
		return func(int) *http.Request {
			r := httptest.NewRequest("POST", "/api/v1/forms/"+f.Slug+"/submit", strings.NewReader(url.Values{"name": {"Ann"}}.Encode()))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			r.Header.Set("Accept", "application/json")
			return r
		}
	}
	t.Run("FormsSubmit", func(t *testing.T) {
		t.Parallel()
		a := limitedApp(t, env{})
		status, at, _ := hits(a, 10, submits(a))
		require.Equal(t, http.StatusTooManyRequests, status)
		require.Equal(t, forms.SubmitLimitDefault, at)

		a = limitedApp(t, env{}, "--forms-submit-limit", "off")
		status, at, _ = hits(a, 50, submits(a))
		require.Zero(t, status, "submission %d refused", at)
	})

	inbound := func(int) *http.Request {
		return httptest.NewRequest("POST", "/ecommerce/webhooks/nope", strings.NewReader(`{}`))
	}
	t.Run("InboundPerIP", func(t *testing.T) {
		t.Parallel()
		// Every request counts against the address, even a 404.
		a := limitedApp(t, env{}, "--inbound-ip-limit", "4")
		for i := range 6 {
			w := httptest.NewRecorder()
			a.handler.ServeHTTP(w, inbound(i))
			want := http.StatusNotFound
			if i >= 4 {
				want = http.StatusTooManyRequests
			}
			require.Equal(t, want, w.Code, "request %d", i)
		}
		a = limitedApp(t, env{"GROUNDWORK_INBOUND_IP_LIMIT": "off"})
		for i := range 200 {
			w := httptest.NewRecorder()
			a.handler.ServeHTTP(w, inbound(i))
			require.Equal(t, http.StatusNotFound, w.Code, "request %d", i)
		}
	})

	// The collection throttle and the calendar feed's, and the sites whose
	// views are collected.
	collect := func(host string) func(int) *http.Request {
		return func(int) *http.Request {
			r := httptest.NewRequest("POST", "/analytics/collect", strings.NewReader(`{"name":"pageview","url":"https://`+host+`/"}`))
			r.Header.Set("Content-Type", "text/plain")
			r.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0")
			return r
		}
	}
	t.Run("AnalyticsCollectAndSites", func(t *testing.T) {
		t.Parallel()
		a := limitedApp(t, env{"GROUNDWORK_ANALYTICS_SITES": "shop.example, blog.example"}, "--analytics-collect-limit", "3")
		status, at, _ := hits(a, 5, collect("blog.example"))
		require.Equal(t, http.StatusTooManyRequests, status, "a view of another configured site is taken, three a minute")
		require.Equal(t, 3, at)
		a = limitedApp(t, env{}, "--analytics-collect-limit", "off", "--analytics-sites", "shop.example")
		status, at, _ = hits(a, 200, collect("shop.example"))
		require.Zero(t, status, "view %d refused", at)
		w := httptest.NewRecorder()
		a.handler.ServeHTTP(w, collect("elsewhere.example")(0))
		require.Equal(t, http.StatusUnprocessableEntity, w.Code, "a site not configured is refused")
	})
	t.Run("BookingsFeed", func(t *testing.T) {
		t.Parallel()
		// A token of its own for each request: the per-token bucket is
		// another throttle.
		feed := func(i int) *http.Request {
			return httptest.NewRequest("GET", fmt.Sprintf("/bookings/ical/providers/%064x.ics", i), nil)
		}
		a := limitedApp(t, env{}, "--bookings-feed-limit", "2")
		for i := range 4 {
			w := httptest.NewRecorder()
			a.handler.ServeHTTP(w, feed(i))
			require.Equal(t, i >= 2, w.Code == http.StatusTooManyRequests, "request %d: %d", i, w.Code)
		}
		a = limitedApp(t, env{"GROUNDWORK_BOOKINGS_FEED_LIMIT": "off"})
		for i := range 60 {
			w := httptest.NewRecorder()
			a.handler.ServeHTTP(w, feed(i))
			require.NotEqual(t, http.StatusTooManyRequests, w.Code, "request %d", i)
		}
	})

	t.Run("BadValues", func(t *testing.T) {
		t.Parallel()
		for _, args := range [][]string{
			{"--api-rate-limit", "0"}, {"--api-rate-limit", "-1"}, {"--forms-submit-limit", "lots"},
			{"--inbound-ip-limit", "1.5"}, {"--inbound-provider-limit", ""}, {"--request-log", "some"}, {"--request-log", "1/0"},
			{"--analytics-collect-limit", "0"}, {"--bookings-feed-limit", "x"}, {"--analytics-sites", "https://shop.example/"},
			{"--frame-origins", "www.example.com"}, {"--frame-origins", "https://www.example.com/book"},
		} {
			code, _, stderr := runCmd(t, env{}, args...)
			require.Equal(t, 2, code, "%v: %s", args, stderr)
			require.Contains(t, stderr, strings.TrimLeft(args[0], "-"), args)
		}
		code, _, stderr := runCmd(t, env{"GROUNDWORK_FORMS_SUBMIT_LIMIT": "none"})
		require.Equal(t, 2, code, stderr)
		require.Contains(t, stderr, "GROUNDWORK_FORMS_SUBMIT_LIMIT")
	})
}

func TestRequestLog(t *testing.T) {
	t.Parallel()
	status := 200
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(status) })
	for _, c := range []struct {
		flag          string
		ok, failed    int // lines for 12 answers of 200, then 2 of 500
		wantTotalLine int
	}{
		{"all", 12, 2, 14}, {"1/4", 3, 2, 5}, {"1/1", 12, 2, 14}, {"none", 0, 2, 2},
	} {
		every, err := parseRequestLog(c.flag)
		require.NoError(t, err)
		var logs bytes.Buffer
		lh := logRequests(h, slog.New(slog.NewJSONHandler(&logs, nil)), every)
		status = 200
		for range 12 {
			lh.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/x", nil))
		}
		status = 500
		for range 2 {
			lh.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/x", nil))
		}
		out := logs.String()
		require.Equal(t, c.wantTotalLine, strings.Count(out, "\n"), "%s: %s", c.flag, out)
		require.Equal(t, c.ok, strings.Count(out, `"status":200`), c.flag)
		require.Equal(t, c.failed, strings.Count(out, `"level":"ERROR","msg":"request"`), c.flag)
	}
	// Off at info level entirely when the logger only takes warnings:
	// the handler is not wrapped.
	var logs bytes.Buffer
	quiet := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	lh := logRequests(h, quiet, 1)
	status = 200
	lh.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/x", nil))
	require.Empty(t, logs.String())
}

// TestTimestampsHaveOnePrecision: every time in an API answer, REST or
// GraphQL, has six fractional digits.
func TestTimestampsHaveOnePrecision(t *testing.T) {
	t.Parallel()
	base, token := serveWithWebhooksToLoopback(t)

	var bodies []string
	add := func(code int, body string) {
		require.Less(t, code, 300, body)
		bodies = append(bodies, body)
	}
	add(get(t, base+"/api/v1/auth/token", token))
	add(request(t, "POST", base+"/api/v1/forms", token, `{"name":"Hello"}`))
	add(request(t, "POST", base+"/api/v1/forms/hello/fields", token, `{"type":"text","label":"Name"}`))
	add(get(t, base+"/api/v1/forms?per_page=5", token))
	add(request(t, "POST", base+"/api/ecommerce/v1/admin/webhook-subscriptions", token,
		`{"name":"s","url":"http://127.0.0.1:9/hook","events":["order.placed"]}`))
	add(request(t, "POST", base+"/api/ecommerce/v1/graphql", token,
		`{"query":"{ webhookSubscriptions { edges { node { created_at updated_at } } } }"}`))
	stamp := regexp.MustCompile(`"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[^"]*)"`)
	exact := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}(Z|[+-]\d\d:\d\d)$`)
	seen := 0
	for _, body := range bodies {
		for _, m := range stamp.FindAllStringSubmatch(body, -1) {
			seen++
			require.Regexp(t, exact, m[1], body)
		}
	}
	require.GreaterOrEqual(t, seen, 8, "the answers carry times")
}

// --frame-origins: the booking, manage and form pages may be framed by
// the origins listed (frame-ancestors naming them, no X-Frame-Options),
// drawn for the frame when asked by one; every other page refuses frames.
func TestFrameOrigins(t *testing.T) {
	t.Parallel()
	a := limitedApp(t, env{"GROUNDWORK_FRAME_ORIGINS": "https://www.example.com, https://shop.example.com/"})
	get := func(path string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("GET", path, nil)
		r.Header.Set("Accept", "text/html")
		a.handler.ServeHTTP(w, r)
		return w
	}
	for _, path := range []string{"/forms/none?embed=https%3A%2F%2Fwww.example.com", "/bookings/none", "/bookings/manage/x", "/waitlist/none"} {
		w := get(path)
		require.Contains(t, w.Header().Get("Content-Security-Policy"), "frame-ancestors https://www.example.com https://shop.example.com;", path)
		require.Empty(t, w.Header().Get("X-Frame-Options"), path)
	}
	for _, path := range []string{"/login", "/no-such-page"} {
		w := get(path)
		require.Equal(t, "DENY", w.Header().Get("X-Frame-Options"), path)
	}
	for _, path := range []string{"/bookings/embed.js", "/forms/embed.js"} {
		w := get(path)
		require.Equal(t, http.StatusOK, w.Code, path)
		require.Contains(t, w.Body.String(), "groundwork:", path)
	}
}
