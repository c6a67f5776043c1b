package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// The whole site, on SQLite and on Postgres: a submission and a booking
// for tomorrow through the APIs, each delivered as a signed webhook to
// the site's own receiver, which verifies it; then, the clock moved to a
// day before the booking, the periodic reminder job mails the customer
// a reminder with the manage link, as the confirmation was.
func TestSite(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		dsn := storetest.DSN(t, d)
		driver := "pgx"
		if d == store.SQLite {
			driver, dsn = "sqlite", store.SQLiteDSN(strings.TrimPrefix(dsn, "sqlite:"))
		}
		pool, err := sql.Open(driver, dsn) // the host's own pool
		require.NoError(t, err)
		t.Cleanup(func() { pool.Close() })
		var s *site
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }))
		base, err := url.Parse("http://" + srv.Listener.Addr().String())
		require.NoError(t, err)
		clock := testkit.NewClock(time.Now().UTC())
		quiet := slog.New(slog.DiscardHandler)
		outbox := mail.NewOutbox(&mail.OutboxOptions{From: "site@example.test", Logger: quiet})
		s, err = newSite(ctx, pool, &store.EnvOptions{Secret: []byte("0123456789abcdef0123456789abcdef"), BaseURL: base, Now: clock.Now,
			Mailer: outbox, Logger: quiet, Queue: &store.QueueOptions{TestOnly: true, FetchPollInterval: 50 * time.Millisecond}})
		require.NoError(t, err)
		srv.Start()
		t.Cleanup(srv.Close)
		require.NotEmpty(t, s.token)

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
		code, list := call("GET", "/api/v1/forms", s.token, "")
		require.Equal(t, 200, code)
		require.EqualValues(t, 1, list["meta"].(map[string]any)["total"])

		// A submission, with the form-load token the form's render gives,
		// a moment later (sooner is spam).
		_, render := call("GET", "/api/v1/forms/contact/render", "", "")
		formToken := render["data"].(map[string]any)["config"].(map[string]any)["form_token"].(string)
		clock.Advance(5 * time.Second)
		code, sent := call("POST", "/api/v1/forms/contact/submit", "", `{"email":"ann@example.test","_form_token":"`+formToken+`"}`)
		require.Equal(t, 201, code, sent)

		// A booking: the first free time from tomorrow.
		from := clock.Now().AddDate(0, 0, 1).Format(time.DateOnly)
		to := clock.Now().AddDate(0, 0, 14).Format(time.DateOnly)
		_, slots := call("GET", "/api/bookings/services/consultation/slots?from="+from+"&to="+to, "", "")
		start := slots["data"].([]any)[0].(map[string]any)["start"].(string)
		code, booked := call("POST", "/api/bookings", "", `{"service":"consultation","start_time":"`+start+
			`","customer_name":"Grace","customer_email":"grace@example.test"}`)
		require.Equal(t, 201, code, booked)

		// A day before it, the site starts: its queue and periodic jobs,
		// its delivery loop, its analytics writer.
		at, err := time.Parse(time.RFC3339, start)
		require.NoError(t, err)
		clock.Set(at.Add(-24*time.Hour + time.Minute))
		require.NoError(t, s.env.Start(ctx))
		t.Cleanup(func() { require.NoError(t, s.env.Stop(context.Background())) })

		require.Eventually(t, func() bool { return s.verified.Load() == 2 }, 30*time.Second, 20*time.Millisecond,
			"form.submitted and booking.created reach the receiver, verified")
		code, deliveries := call("GET", "/api/ecommerce/v1/admin/webhook-subscriptions/1/deliveries", s.token, "")
		require.Equal(t, 200, code, deliveries)
		require.EqualValues(t, 2, deliveries["meta"].(map[string]any)["total"], "the ledger shows both")

		manage := srv.URL + "/bookings/manage/"
		var confirmation, reminder *mail.Message
		require.Eventually(t, func() bool {
			for _, m := range outbox.Messages() {
				if m.To[0] != "grace@example.test" {
					continue
				}
				switch {
				case strings.Contains(strings.ToLower(m.Subject), "reminder"):
					reminder = &m
				case strings.Contains(strings.ToLower(m.Subject), "confirm"):
					confirmation = &m
				}
			}
			return reminder != nil && confirmation != nil
		}, 30*time.Second, 20*time.Millisecond, "the confirmation and the reminder are mailed")
		require.Contains(t, confirmation.Text, manage, "the confirmation carries its manage link")
		require.Contains(t, reminder.Text, manage, "the reminder carries its manage link")
		link := reminder.Text[strings.Index(reminder.Text, manage):]
		link = strings.Fields(link)[0]
		res, err := srv.Client().Get(link)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, http.StatusOK, res.StatusCode, "the reminder's manage link opens the booking")
	})
}
