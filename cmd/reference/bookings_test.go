package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/groundwork-go/groundwork/bookings/calendars"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// The bookings walk-through of docs/bookings.md: seed, list slots, book one, and
// the same slot again is a 409.
func TestBookingsSeedAndBook(t *testing.T) {
	t.Parallel()
	dsn := storetest.DSN(t, store.SQLite)
	e := env{"GROUNDWORK_DB": dsn}
	c, out, stderr := runCmd(t, e, "bookings", "seed", "--timezone", "Europe/London")
	require.Equal(t, 0, c, stderr)
	require.Contains(t, out, `Service "consultation" (30 minutes)`)
	c, out, _ = runCmd(t, e, "bookings", "seed")
	require.Equal(t, 0, c)
	require.Contains(t, out, "there already")
	c, _, stderr = runCmd(t, e, "bookings", "seed", "--timezone", "Mars/Base")
	require.Equal(t, 2, c)
	require.Contains(t, stderr, "is not a time zone")

	cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", dsn, "--log-level", "info", "--uploads", t.TempDir()},
		env{"GROUNDWORK_SECRET_KEY": testSecretKey}.get)
	require.NoError(t, err)
	base := startServeConfig(t, cfg)
	code, body := get(t, base+"/api/bookings/services", "")
	require.Equal(t, 200, code)
	require.Contains(t, body, `"slug":"consultation"`)
	code, body = get(t, base+"/api/bookings/services/consultation/slots?from=2099-01-01&to=2099-01-01", "")
	require.Equal(t, 200, code)
	require.JSONEq(t, `{"data":[]}`, body, "beyond the 90-day horizon")

	booking := `{"service":"consultation","start_time":"` + firstSlot(t, base) + `","customer_name":"Grace","customer_email":"grace@example.com"}`
	code, body = request(t, "POST", base+"/api/bookings", "", booking)
	require.Equal(t, 201, code, body)
	require.True(t, strings.Contains(body, `"status":"confirmed"`), body)
	// Its times as the HTTP conventions (docs/http.md) say bookings give
	// them: whole seconds with an offset, not the other APIs' microseconds.
	require.Regexp(t, `"start_time":"\d{4}-\d\d-\d\dT\d\d:\d\d:00\+00:00"`, body)
	readme, err := os.ReadFile("../../docs/http.md")
	require.NoError(t, err)
	require.Contains(t, strings.Join(strings.Fields(string(readme)), " "), "except in the bookings APIs (public, manage and admin) and a webhook envelope's `created_at`, "+
		"which give whole seconds with a numeric offset (`2026-11-27T09:00:00+00:00`)")
	code, body = request(t, "POST", base+"/api/bookings", "", booking)
	require.Equal(t, 409, code, body)
	require.Contains(t, body, "That appointment time is no longer available. Please choose another.")

	// The confirmation, sent from the queue to the logged outbox, holds
	// the manage link; the link works.
	link := regexp.MustCompile(`/bookings/manage/([0-9a-f]{64})`)
	logs, _ := servedLogs.Load(t.Name())
	require.Eventually(t, func() bool { return link.MatchString(logs.(*syncBuffer).String()) }, 20*time.Second, 50*time.Millisecond)
	mailed := link.FindStringSubmatch(logs.(*syncBuffer).String())[1]
	require.Contains(t, logs.(*syncBuffer).String(), "Your booking is confirmed: Consultation")
	code, body = get(t, base+"/api/bookings/manage/"+mailed, "")
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `"data":{"id":1,`)
	code, body = get(t, base+"/bookings/manage/"+mailed, "")
	require.Equal(t, 200, code, body)
	require.Contains(t, body, "<h1>Your booking</h1>")

	// The admin API with a bookings token.
	c, out, stderr = runCmd(t, e, "token", "create", "--name", "desk", "--ability", "bookings:*")
	require.Equal(t, 0, c, stderr)
	token := strings.TrimSpace(out)
	code, body = get(t, base+"/api/bookings/admin/bookings", token)
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `"customer_email":"grace@example.com"`)
	code, body = request(t, "POST", base+"/api/bookings/admin/bookings/1/cancel", token, `{"reason":"Closed"}`)
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `"status":"cancelled"`)
	code, _ = get(t, base+"/api/bookings/admin/bookings", "")
	require.Equal(t, 401, code)

	// A new manage link from the CLI.
	c, out, stderr = runCmd(t, e, "bookings", "reissue", "1")
	require.Equal(t, 0, c, stderr)
	manage := strings.TrimSpace(out)
	require.Regexp(t, `^[0-9a-f]{64}$`, manage)
	code, body = get(t, base+"/api/bookings/manage/"+manage, "")
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `"can_cancel":false`, "it was cancelled")
	c, _, stderr = runCmd(t, e, "bookings", "reissue", "99")
	require.Equal(t, 1, c)
	require.Contains(t, stderr, "no booking has ID 99")

	// The customer's calendar, and the provider's feed from the CLI.
	code, body = get(t, base+"/bookings/ical/customers/"+manage+".ics", "")
	require.Equal(t, 200, code, body)
	require.Contains(t, body, "STATUS:CANCELLED\r\n")
	c, out, stderr = runCmd(t, e, "bookings", "feed-token", "sam", "--base-url", base)
	require.Equal(t, 0, c, stderr)
	feed := strings.TrimSpace(out)
	require.Regexp(t, `^`+regexp.QuoteMeta(base)+`/bookings/ical/providers/[0-9a-f]{64}\.ics$`, feed)
	code, body = get(t, feed, "")
	require.Equal(t, 200, code, body)
	require.Contains(t, body, "X-WR-CALNAME:Sam\r\n")
	require.NotContains(t, body, "BEGIN:VEVENT", "the cancelled booking is left out")
	// Without a base URL the address is the server's own, as it reads
	// GROUNDWORK_ADDR, not a fixed default; stderr says so.
	withAddr := env{"GROUNDWORK_ADDR": "10.0.0.5:9090"}
	maps.Copy(withAddr, e)
	c, out, stderr = runCmd(t, withAddr, "bookings", "feed-token", "sam")
	require.Equal(t, 0, c, stderr)
	require.Regexp(t, `^http://10\.0\.0\.5:9090/bookings/ical/providers/[0-9a-f]{64}\.ics$`, strings.TrimSpace(out))
	require.Contains(t, stderr, "--base-url")
	c, _, stderr = runCmd(t, e, "bookings", "feed-token", "1", "--revoke")
	require.Equal(t, 0, c, stderr)
	code, _ = get(t, feed, "")
	require.Equal(t, 404, code)
	c, _, stderr = runCmd(t, e, "bookings", "feed-token", "nobody")
	require.Equal(t, 1, c)
	require.Contains(t, stderr, `no provider has the slug "nobody"`)
}

// firstSlot is the first slot the seeded consultation offers over the
// next two months.
func firstSlot(t *testing.T, base string) string {
	t.Helper()
	var slots struct{ Data []struct{ Start string } }
	for _, month := range nextMonths() {
		_, body := get(t, base+"/api/bookings/services/consultation/slots?date="+month, "")
		require.NoError(t, json.Unmarshal([]byte(body), &slots))
		if len(slots.Data) > 0 {
			return slots.Data[0].Start
		}
	}
	t.Fatal("no slot offered in two months")
	return ""
}

// nextMonths is this month and the next, as YYYY-MM.
func nextMonths() []string {
	now := time.Now().UTC()
	first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	return []string{first.Format("2006-01"), first.AddDate(0, 1, 0).Format("2006-01")}
}

// A booking made through the API is delivered as one booking.created
// webhook with the status it was made with (confirmed), and erasing its
// customer as booking.erased.
func TestBookingWebhooks(t *testing.T) {
	t.Parallel()
	dsn := storetest.DSN(t, store.SQLite)
	cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", dsn, "--log-level", "warn", "--uploads", t.TempDir()},
		env{"GROUNDWORK_WEBHOOKS_ALLOW_PRIVATE_HOSTS": "true", "GROUNDWORK_WEBHOOKS_ALLOW_INSECURE_URLS": "true"}.get)
	require.NoError(t, err)
	c, _, stderr := runCmd(t, env{"GROUNDWORK_DB": dsn}, "bookings", "seed")
	require.Equal(t, 0, c, stderr)
	base := startServeConfig(t, cfg)
	c, out, stderr := runCmd(t, env{"GROUNDWORK_DB": dsn}, "token", "create", "--name", "all", "--ability", "*")
	require.Equal(t, 0, c, stderr)
	token := strings.TrimSpace(out)

	receiver, events := bookingEventReceiver(t)
	code, body := request(t, "POST", base+"/api/ecommerce/v1/admin/webhook-subscriptions", token,
		`{"name":"bookings","url":"`+receiver.URL+`","events":["booking.created","booking.confirmed","booking.erased"]}`)
	require.Equal(t, 201, code, body)

	var slots struct{ Data []struct{ Start string } }
	for _, month := range nextMonths() {
		_, body = get(t, base+"/api/bookings/services/consultation/slots?date="+month, "")
		require.NoError(t, json.Unmarshal([]byte(body), &slots))
		if len(slots.Data) > 0 {
			break
		}
	}
	require.NotEmpty(t, slots.Data)
	code, body = request(t, "POST", base+"/api/bookings", "", `{"service":"consultation","start_time":"`+slots.Data[0].Start+
		`","customer_name":"Grace","customer_email":"grace@example.com"}`)
	require.Equal(t, 201, code, body)
	next := func() string {
		select {
		case e := <-events:
			return e
		case <-time.After(30 * time.Second):
			t.Fatal("no delivery")
			return ""
		}
	}
	require.Equal(t, "booking.created confirmed", next())

	// Erasing the customer reaches the webhook ledger too.
	db, err := store.Open(context.Background(), dsn)
	require.NoError(t, err)
	defer db.Close()
	var payloads []string
	require.NoError(t, db.Select(&payloads, "SELECT payload FROM webhooks_deliveries"))
	require.Len(t, payloads, 1)
	require.Contains(t, payloads[0], "grace@example.com")
	c, out, stderr = runCmd(t, env{"GROUNDWORK_DB": dsn}, "bookings", "erase", "--email", "Grace@Example.com")
	require.Equal(t, 0, c, stderr)
	require.Regexp(t, `^BK-[A-Z0-9]{12}\n$`, out)
	require.Contains(t, stderr, "1 bookings erased")
	require.Contains(t, stderr, "1 webhook deliveries about them redacted")
	require.Equal(t, "booking.erased confirmed", next(), "the erasure is a webhook too, and no booking.confirmed came before it")
	require.NoError(t, db.Select(&payloads, "SELECT payload FROM webhooks_deliveries"))
	require.Len(t, payloads, 2)
	for _, p := range payloads {
		require.NotContains(t, p, "grace@example.com")
		require.NotContains(t, p, "Grace")
	}
	c, _, stderr = runCmd(t, env{"GROUNDWORK_DB": dsn}, "bookings", "erase")
	require.Equal(t, 2, c)
	require.Contains(t, stderr, "bookings erase needs --email")
}

// Two instances on one database: a booking made through one and cancelled
// through the other is delivered as booking.created (confirmed) and
// booking.cancelled, each once, whichever instance's loop sends them.
func TestBookingEventsAcrossInstances(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		dsn := storetest.DSN(t, d)
		c, _, stderr := runCmd(t, env{"GROUNDWORK_DB": dsn}, "bookings", "seed")
		require.Equal(t, 0, c, stderr)
		e := env{"GROUNDWORK_SECRET_KEY": testSecretKey, "GROUNDWORK_WEBHOOKS_ALLOW_PRIVATE_HOSTS": "true",
			"GROUNDWORK_WEBHOOKS_ALLOW_INSECURE_URLS": "true"}
		var bases []string
		for range 2 {
			cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", dsn, "--log-level", "warn", "--uploads", t.TempDir()}, e.get)
			require.NoError(t, err)
			bases = append(bases, startServeConfig(t, cfg))
		}
		c, out, stderr := runCmd(t, env{"GROUNDWORK_DB": dsn, "GROUNDWORK_SECRET_KEY": testSecretKey}, "token", "create", "--name", "all", "--ability", "*")
		require.Equal(t, 0, c, stderr)
		token := strings.TrimSpace(out)
		receiver, events := bookingEventReceiver(t)
		got := map[string]int{}
		code, body := request(t, "POST", bases[0]+"/api/ecommerce/v1/admin/webhook-subscriptions", token,
			`{"name":"bookings","url":"`+receiver.URL+`","events":["booking.created","booking.confirmed","booking.cancelled"]}`)
		require.Equal(t, 201, code, body)

		start := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 35)
		for start.Weekday() == time.Saturday || start.Weekday() == time.Sunday {
			start = start.AddDate(0, 0, 1)
		}
		code, body = request(t, "POST", bases[0]+"/api/bookings", "", `{"service":"consultation","start_time":"`+
			start.Add(10*time.Hour).Format(time.RFC3339)+`","customer_name":"Grace","customer_email":"grace@example.com"}`)
		require.Equal(t, 201, code, body)
		var made struct{ Data struct{ ID int64 } }
		require.NoError(t, json.Unmarshal([]byte(body), &made))
		code, body = request(t, "POST", fmt.Sprintf("%s/api/bookings/admin/bookings/%d/cancel", bases[1], made.Data.ID), token, `{}`)
		require.Equal(t, 200, code, body)
		want := map[string]int{"booking.created confirmed": 1, "booking.cancelled cancelled": 1}
		drain := func() {
			for {
				select {
				case e := <-events:
					got[e]++
				default:
					return
				}
			}
		}
		require.Eventually(t, func() bool { drain(); return maps.Equal(got, want) }, 30*time.Second, 20*time.Millisecond, "each event once")
		time.Sleep(300 * time.Millisecond)
		drain()
		require.Equal(t, want, got, "and nothing more")
	})
}

// bookingEventReceiver takes webhooks and sends each as "event status"
// (booking.created confirmed) on the channel.
func bookingEventReceiver(t *testing.T) (*httptest.Server, <-chan string) {
	t.Helper()
	events := make(chan string, 64)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var env struct {
			Event string         `json:"event"`
			Data  map[string]any `json:"data"`
		}
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &env)
		events <- env.Event + " " + fmt.Sprint(env.Data["status"])
	}))
	t.Cleanup(receiver.Close)
	return receiver, events
}

// "reference bookings calendar": an ICS address connected for a
// provider, listed, read, linked to the calendar page the server
// serves, and removed; Google is not connected from the command line.
func TestBookingsCalendarCommands(t *testing.T) {
	t.Parallel()
	ics := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/calendar")
		fmt.Fprint(w, "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:test\r\nX-WR-CALNAME:Sam's diary\r\nBEGIN:VEVENT\r\nUID:lunch\r\n"+
			"DTSTART:20300102T120000Z\r\nDTEND:20300102T130000Z\r\nSUMMARY:Lunch\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
	}))
	t.Cleanup(ics.Close)
	dsn := storetest.DSN(t, store.SQLite)
	e := env{"GROUNDWORK_DB": dsn, "GROUNDWORK_CALENDAR_ALLOW_PRIVATE_HOSTS": "true"}
	c, _, stderr := runCmd(t, e, "bookings", "seed")
	require.Equal(t, 0, c, stderr)
	c, out, stderr := runCmd(t, e, "bookings", "calendar", "add", "sam", "--kind", "ics", "--name", "Diary", "--url", ics.URL+"/secret.ics")
	require.Equal(t, 0, c, stderr)
	id := strings.TrimSpace(out)
	require.Equal(t, "1", id)
	require.Contains(t, stderr, `Connected "Diary" for Sam; it lists: Sam's diary.`)
	c, out, stderr = runCmd(t, e, "bookings", "calendar", "list", "sam")
	require.Equal(t, 0, c, stderr)
	require.Regexp(t, `(?m)^1\s+ics\s+Diary\s+\d{4}-\d\d-\d\dT`, out, "read once it was added")
	require.NotContains(t, out, "secret.ics")
	c, out, stderr = runCmd(t, e, "bookings", "calendar", "sync", id)
	require.Equal(t, 0, c, stderr)
	require.Equal(t, "Diary was read.\n", out)

	cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", dsn, "--log-level", "warn", "--uploads", t.TempDir()}, e.get)
	require.NoError(t, err)
	base := startServeConfig(t, cfg)
	c, out, stderr = runCmd(t, e, "bookings", "calendar", "link", "sam", "--base-url", base, "--ttl", "1h")
	require.Equal(t, 0, c, stderr)
	link := strings.TrimSpace(out)
	require.True(t, strings.HasPrefix(link, base+"/provider-calendars/"), link)
	code, body := get(t, link, "")
	require.Equal(t, 200, code, body)
	require.Contains(t, body, "<h3>Diary</h3>")
	require.Contains(t, body, "Another CalDAV server", "the server reads CalDAV accounts too")

	c, _, stderr = runCmd(t, e, "bookings", "calendar", "add", "sam", "--kind", "google", "--name", "G", "--url", "https://x")
	require.Equal(t, 2, c)
	require.Contains(t, stderr, "Google is connected on the calendar page")
	c, _, stderr = runCmd(t, e, "bookings", "calendar", "add", "sam", "--kind", "ics", "--name", "", "--url", "")
	require.Equal(t, 2, c)
	require.Contains(t, stderr, "The name field is required.")
	c, out, stderr = runCmd(t, e, "bookings", "calendar", "remove", id)
	require.Equal(t, 0, c, stderr)
	require.Contains(t, out, "Diary is disconnected")
	c, _, stderr = runCmd(t, e, "bookings", "calendar", "sync", id)
	require.Equal(t, 1, c)
	require.Contains(t, stderr, "no calendar connection has ID 1")
	c, _, stderr = runCmd(t, e, "bookings", "calendar")
	require.Equal(t, 2, c)
	require.Contains(t, stderr, "link, list, add, sync or remove")
}

// The calendar variables: Google's three go together, and the page offers
// Google once they are set.
func TestCalendarConfig(t *testing.T) {
	t.Parallel()
	_, err := readCalendarConfig(env{"GROUNDWORK_GOOGLE_CALENDAR_CLIENT_ID": "x"}.get)
	require.ErrorContains(t, err, "go together")
	_, err = readCalendarConfig(env{"GROUNDWORK_CALENDAR_ALLOW_PRIVATE_HOSTS": "maybe"}.get)
	require.ErrorContains(t, err, "true or false")
	c, err := readCalendarConfig(env{"GROUNDWORK_GOOGLE_CALENDAR_CLIENT_ID": "id", "GROUNDWORK_GOOGLE_CALENDAR_CLIENT_SECRET": "s",
		"GROUNDWORK_GOOGLE_CALENDAR_REDIRECT_URL": "https://example.com/provider-calendars/google/callback"}.get)
	require.NoError(t, err)
	sources, err := c.sources()
	require.NoError(t, err)
	require.Len(t, sources, 3)
	require.Contains(t, sources, calendars.Google)
}
