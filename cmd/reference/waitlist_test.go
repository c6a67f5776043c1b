package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// The reference server's waitlist: a booked time is full, its page lists
// it and the API joins it; a cancellation offers it to the one waiting,
// which the admin list shows, and the webhooks catalogue names its events.
func TestWaitlistOnTheReferenceServer(t *testing.T) {
	t.Parallel()
	dsn := storetest.DSN(t, store.SQLite)
	e := env{"GROUNDWORK_DB": dsn}
	c, _, stderr := runCmd(t, e, "bookings", "seed")
	require.Equal(t, 0, c, stderr)
	c, out, stderr := runCmd(t, e, "token", "create", "--name", "desk", "--ability", "bookings:*", "--ability", "webhookSubscription.*")
	require.Equal(t, 0, c, stderr)
	token := strings.TrimSpace(out)
	cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", dsn, "--log-level", "warn", "--uploads", t.TempDir()},
		env{"GROUNDWORK_SECRET_KEY": testSecretKey, "GROUNDWORK_WEBHOOKS_ALLOW_PRIVATE_HOSTS": "true", "GROUNDWORK_WEBHOOKS_ALLOW_INSECURE_URLS": "true"}.get)
	require.NoError(t, err)
	base := startServeConfig(t, cfg)
	code, body := request(t, "POST", base+"/api/ecommerce/v1/admin/webhook-subscriptions", token,
		`{"name":"waitlist","url":"http://127.0.0.1:9/hook","events":["booking.waitlist_joined","booking.waitlist_offered"]}`)
	require.Equal(t, 201, code, body)

	start := firstSlot(t, base)
	code, body = request(t, "POST", base+"/api/bookings", "",
		`{"service":"consultation","start_time":"`+start+`","customer_name":"Grace","customer_email":"grace@example.com"}`)
	require.Equal(t, 201, code, body)
	var made struct{ Data struct{ ID int64 } }
	require.NoError(t, json.Unmarshal([]byte(body), &made))
	at, err := time.Parse(time.RFC3339, start)
	require.NoError(t, err)

	// The booking page links the day to its waitlist, whose page lists
	// the time.
	day := at.UTC().Format(time.DateOnly)
	code, body = get(t, base+"/bookings/consultation?tz=UTC&date="+day, "")
	require.Equal(t, 200, code)
	require.Contains(t, body, `href="/waitlist/consultation?date=`+day+`&amp;tz=UTC"`)
	code, body = get(t, base+"/waitlist/consultation?tz=UTC&date="+day, "")
	require.Equal(t, 200, code)
	require.Contains(t, body, `value="`+at.UTC().Format(time.RFC3339)+`"`)

	code, body = request(t, "POST", base+"/api/bookings/services/consultation/waitlist", "",
		`{"start_time":"`+start+`","customer_name":"Ada","customer_email":"ada@example.com"}`)
	require.Equal(t, 201, code, body)
	code, body = request(t, "POST", fmt.Sprintf("%s/api/bookings/admin/bookings/%d/cancel", base, made.Data.ID), token, `{"reason":"Ill"}`)
	require.Equal(t, 200, code, body)
	code, body = get(t, base+"/api/bookings/admin/waitlist", token)
	require.Equal(t, 200, code, body)
	var list struct {
		Data []struct {
			Status         string `json:"status"`
			CustomerEmail  string `json:"customer_email"`
			OfferExpiresAt string `json:"offer_expires_at"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(body), &list))
	require.Len(t, list.Data, 1)
	require.Equal(t, "offered", list.Data[0].Status)
	require.Equal(t, "ada@example.com", list.Data[0].CustomerEmail)
	require.NotEmpty(t, list.Data[0].OfferExpiresAt)

	// Erasing the customer deletes their place, and redacts the webhooks
	// about it.
	c, _, stderr = runCmd(t, env{"GROUNDWORK_DB": dsn, "GROUNDWORK_SECRET_KEY": testSecretKey}, "bookings", "erase", "--email", "ADA@example.com")
	require.Equal(t, 0, c, stderr)
	require.Contains(t, stderr, "1 waitlist places deleted")
	require.Contains(t, stderr, "2 webhook deliveries about them redacted", "joined and offered")
	code, body = get(t, base+"/api/bookings/admin/waitlist", token)
	require.Equal(t, 200, code, body)
	require.JSONEq(t, `{"data": []}`, body)

	code, body = get(t, base+"/api/ecommerce/v1/admin/webhook-event-types", token)
	require.Equal(t, 200, code, body)
	for _, event := range []string{"booking.waitlist_joined", "booking.waitlist_offered", "booking.waitlist_booked", "booking.waitlist_expired"} {
		require.Contains(t, body, `"`+event+`"`)
	}
}

// A routing form on the reference server: made through the admin API, its
// answer is the booking page of its route, which opens filled in.
func TestRoutingFormOnTheReferenceServer(t *testing.T) {
	t.Parallel()
	base, token := formsServer(t, true)

	code, body := request(t, "POST", base+"/api/v1/forms", token, `{"name":"Book a call","min_fill_seconds":0,
		"routing":{"routes":[{"service":"consultation"}]}}`)
	require.Equal(t, 201, code, body)
	for _, f := range []string{`{"type":"text","label":"Name","name":"name"}`, `{"type":"email","label":"Email","name":"email"}`} {
		code, body = request(t, "POST", base+"/api/v1/forms/book-a-call/fields", token, f)
		require.Equal(t, 201, code, body)
	}
	code, body = request(t, "POST", base+"/api/v1/forms/book-a-call/submit", "", `{"name":"Grace Hopper","email":"grace@example.com"}`)
	require.Equal(t, 201, code, body)
	var answer struct {
		BookingURL string `json:"booking_url"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &answer))
	// The address is under the server's public one (here its --addr).
	_, path, ok := strings.Cut(answer.BookingURL, "/bookings/consultation?prefill=")
	require.True(t, ok, answer.BookingURL)
	code, page := get(t, base+"/bookings/consultation?prefill="+path, "")
	require.Equal(t, 200, code)
	require.Contains(t, page, `<dt>Your request</dt><dd>FORM-`)
	// The details are asked once a day is chosen: filled in.
	day := firstSlot(t, base)[:10]
	code, page = get(t, base+"/bookings/consultation?tz=UTC&date="+day+"&prefill="+path, "")
	require.Equal(t, 200, code)
	require.Contains(t, page, `value="Grace Hopper"`)
	require.Contains(t, page, `value="grace@example.com"`)
}

// On the reference server every route reads where its visit came from:
// a visitor who landed from the newsletter sends a form through the
// public API (as a page's script would), and the answer keeps the visit,
// read back through the admin API.
func TestWhereEachCameFromOnTheReferenceServer(t *testing.T) {
	t.Parallel()
	base, token := formsServer(t, false)
	code, body := request(t, "POST", base+"/api/v1/forms", token, `{"name":"Contact","min_fill_seconds":0}`)
	require.Equal(t, 201, code, body)
	code, body = request(t, "POST", base+"/api/v1/forms/contact/fields", token, `{"type":"text","label":"Name","name":"name"}`)
	require.Equal(t, 201, code, body)

	const ua = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	send := func(path, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest("POST", base+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("User-Agent", ua)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res.StatusCode, string(b)
	}
	code, body = send("/analytics/collect", `{"url":"`+base+`/pricing?utm_source=newsletter&utm_medium=email&utm_campaign=november"}`)
	require.Equal(t, http.StatusAccepted, code, body)
	code, body = send("/api/v1/forms/contact/submit", `{"name":"Grace Hopper"}`)
	require.Equal(t, 201, code, body)
	code, body = get(t, base+"/api/v1/forms/contact/submissions", token)
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `"visit":{"source":"newsletter","medium":"email","campaign":"november","landing":"/pricing"}`)
}

// formsServer is a reference server on a fresh SQLite database, the
// forms' load tokens optional, and a token with forms:*; with seed, the
// sample service booked ("bookings seed") first.
func formsServer(t *testing.T, seed bool) (base, token string) {
	t.Helper()
	dsn := storetest.DSN(t, store.SQLite)
	e := env{"GROUNDWORK_DB": dsn}
	if seed {
		c, _, stderr := runCmd(t, e, "bookings", "seed")
		require.Equal(t, 0, c, stderr)
	}
	c, out, stderr := runCmd(t, e, "token", "create", "--name", "desk", "--ability", "forms:*")
	require.Equal(t, 0, c, stderr)
	cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", dsn, "--log-level", "warn", "--uploads", t.TempDir(),
		"--form-tokens", "optional"}, env{"GROUNDWORK_SECRET_KEY": testSecretKey}.get)
	require.NoError(t, err)
	return startServeConfig(t, cfg), strings.TrimSpace(out)
}
