package waitlist_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/waitlist"
	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// tokens is a TokenVerifier: the token is "caller:ability,ability".
type tokens struct{}

func (tokens) VerifyToken(_ context.Context, token string) (string, []string, error) {
	caller, abilities, ok := strings.Cut(token, ":")
	if !ok {
		return "", nil, nil
	}
	return caller, strings.Split(abilities, ","), nil
}

// call sends a request to the handler and decodes its JSON answer.
func call(t testing.TB, srv *httptest.Server, method, path, token, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, bytes.NewReader([]byte(body)))
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(raw, &out), string(raw))
	return res.StatusCode, out
}

// The JSON routes, each answer checked against the handler's OpenAPI
// description: the full times, joining (again), the refusals, and the
// admin list behind its ability.
func TestWaitlistAPI(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		c := &clock{at: time.Now().UTC()}
		s := newSite(t, storetest.DSN(t, d), c)
		s.service(t, "yoga", 1)
		at := c.now().Truncate(24 * time.Hour).Add(72*time.Hour + 10*time.Hour)
		s.book(t, "yoga", "Ann", at)
		h, err := waitlist.NewHandler(s.waitlist, &waitlist.HandlerOptions{Tokens: tokens{}})
		require.NoError(t, err)
		srv := httptest.NewServer(apitest.Documented(t, h))
		t.Cleanup(srv.Close)
		day := at.Format(time.DateOnly)

		status, out := call(t, srv, "GET", "/api/bookings/services/yoga/waitlist?from="+day, "", "")
		require.Equal(t, 200, status)
		var starts []string
		for _, f := range out["data"].([]any) {
			starts = append(starts, f.(map[string]any)["start_time"].(string))
		}
		require.Contains(t, starts, at.Format("2006-01-02T15:04:05-07:00"))
		require.NotContains(t, starts, at.Add(2*time.Hour).Format("2006-01-02T15:04:05-07:00"), "free, not full")
		for query, field := range map[string]string{"": "from", "from=" + day + "&to=2000-01-01": "to",
			"from=" + day + "&to=" + at.AddDate(0, 0, 40).Format(time.DateOnly): "to"} {
			status, out = call(t, srv, "GET", "/api/bookings/services/yoga/waitlist?"+query, "", "")
			require.Equal(t, 422, status, query)
			require.Contains(t, out["errors"], field, query)
		}
		status, _ = call(t, srv, "GET", "/api/bookings/services/pilates/waitlist?from="+day, "", "")
		require.Equal(t, 404, status)

		join := func(start, name, email string) (int, map[string]any) {
			body, _ := json.Marshal(map[string]any{"start_time": start, "customer_name": name, "customer_email": email, "customer_timezone": "Europe/Berlin"})
			return call(t, srv, "POST", "/api/bookings/services/yoga/waitlist", "", string(body))
		}
		status, out = join(at.Format(time.RFC3339), "Bob", "bob@example.com")
		require.Equal(t, 201, status)
		require.Equal(t, "waiting", out["data"].(map[string]any)["status"])
		require.NotContains(t, out["data"], "customer_email", "the customer's own entry, and no more")
		status, again := join(at.Format(time.RFC3339), "Bob", "bob@example.com")
		require.Equal(t, 200, status)
		require.Equal(t, out["data"].(map[string]any)["id"], again["data"].(map[string]any)["id"])
		status, out = join("tomorrow", "", "bob")
		require.Equal(t, 422, status)
		require.Len(t, out["errors"], 3)
		status, out = join(at.Add(2*time.Hour).Format(time.RFC3339), "Bob", "bob@example.com")
		require.Equal(t, 422, status)
		require.Equal(t, []any{"That time is free: book it instead."}, out["errors"].(map[string]any)["start_time"])
		status, _ = call(t, srv, "POST", "/api/bookings/services/pilates/waitlist", "",
			`{"start_time": "`+at.Format(time.RFC3339)+`", "customer_name": "Bob", "customer_email": "bob@example.com"}`)
		require.Equal(t, 404, status)
		status, out = call(t, srv, "POST", "/api/bookings/services/yoga/waitlist", "",
			`{"start_time": "`+at.Format(time.RFC3339)+`", "customer_name": "Bob", "customer_email": "bob@example.com", "customer_timezone": "Mars/Base"}`)
		require.Equal(t, 422, status)
		require.Contains(t, out["errors"], "customer_timezone")

		status, _ = call(t, srv, "GET", "/api/bookings/admin/waitlist", "", "")
		require.Equal(t, 401, status)
		status, _ = call(t, srv, "GET", "/api/bookings/admin/waitlist", "ops:forms:manage", "")
		require.Equal(t, 403, status)
		status, out = call(t, srv, "GET", "/api/bookings/admin/waitlist", "ops:"+bookings.AbilityManage, "")
		require.Equal(t, 200, status)
		list := out["data"].([]any)
		require.Len(t, list, 1)
		require.Equal(t, "bob@example.com", list[0].(map[string]any)["customer_email"])
		status, out = call(t, srv, "GET", "/api/bookings/admin/waitlist?service_id=x&from=now", "ops:"+bookings.AbilityManage, "")
		require.Equal(t, 422, status)
		require.Len(t, out["errors"], 2)
	})
}
