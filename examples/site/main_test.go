package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
)

// The whole site on SQLite: a token, a submission and a booking through
// the APIs, each delivered as a signed webhook to the site's own receiver,
// which verifies it.
func TestSite(t *testing.T) {
	ctx := context.Background()
	pool, err := sql.Open("sqlite", store.SQLiteDSN(filepath.Join(t.TempDir(), "site.db")))
	require.NoError(t, err)
	t.Cleanup(func() { pool.Close() })
	var s *site
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }))
	s, err = newSite(ctx, pool, []byte("0123456789abcdef0123456789abcdef"), "http://"+srv.Listener.Addr().String())
	require.NoError(t, err)
	t.Cleanup(s.stop)
	srv.Start()
	t.Cleanup(srv.Close)
	token, err := s.token(ctx)
	require.NoError(t, err)

	call := func(method, path, token, body string) (int, map[string]any) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := srv.Client().Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		var out map[string]any
		_ = json.Unmarshal(raw, &out)
		return res.StatusCode, out
	}
	code, _ := call("GET", "/api/v1/forms", "", "")
	require.Equal(t, 401, code, "the admin API wants a token")
	code, list := call("GET", "/api/v1/forms", token, "")
	require.Equal(t, 200, code)
	require.EqualValues(t, 1, list["meta"].(map[string]any)["total"])

	// A submission, with the form-load token the form's render gives.
	_, render := call("GET", "/api/v1/forms/contact/render", "", "")
	formToken := render["data"].(map[string]any)["config"].(map[string]any)["form_token"].(string)
	time.Sleep(3 * time.Second) // a person takes a moment; sooner is spam
	code, sent := call("POST", "/api/v1/forms/contact/submit", "", `{"email":"ann@example.test","_form_token":"`+formToken+`"}`)
	require.Equal(t, 201, code, sent)

	// A booking: the first free time of the next two weeks.
	from := time.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly)
	to := time.Now().UTC().AddDate(0, 0, 14).Format(time.DateOnly)
	_, slots := call("GET", "/api/bookings/services/consultation/slots?from="+from+"&to="+to, "", "")
	start := slots["data"].([]any)[0].(map[string]any)["start"].(string)
	code, booked := call("POST", "/api/bookings", "", `{"service":"consultation","start_time":"`+start+
		`","customer_name":"Grace","customer_email":"grace@example.test"}`)
	require.Equal(t, 201, code, booked)

	require.Eventually(t, func() bool { return s.verified.Load() == 2 }, 30*time.Second, 20*time.Millisecond,
		"form.submitted and booking.created reach the receiver, verified")
	code, deliveries := call("GET", "/api/ecommerce/v1/admin/webhook-subscriptions/1/deliveries", token, "")
	require.Equal(t, 200, code, deliveries)
	require.EqualValues(t, 2, deliveries["meta"].(map[string]any)["total"], "the ledger shows both")
}
