package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	stripewebhook "github.com/stripe/stripe-go/v85/webhook"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
)

// Submissions and bookings answered 201, and inbound Stripe events
// answered 2xx, survive a SIGKILL of the server mid-burst: after a restart
// every acknowledged one is stored, once, and nothing is stored that was
// not sent; and the form.submitted webhook of every stored submission and
// the booking.created of every stored booking (both recorded in the
// change's own transaction) reach their receiver (at least once, as
// documented: one sent just before the kill may come again).
func TestSIGKILLLosesNothingAcknowledged(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildReference(t)
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		dir := t.TempDir()
		environ := append(binaryEnv(t, d), "GROUNDWORK_FORMS_SUBMIT_LIMIT=off", "GROUNDWORK_API_RATE_LIMIT=off",
			"GROUNDWORK_FORM_TOKENS=optional", "GROUNDWORK_BOOKINGS_POST_LIMIT=off",
			// A delivery under way at the kill is sent again after this.
			"GROUNDWORK_WEBHOOKS_CLAIM_TIMEOUT=30s", "GROUNDWORK_STRIPE_WEBHOOK_SECRET="+stripeSecret,
			"GROUNDWORK_INBOUND_IP_LIMIT=off", "GROUNDWORK_INBOUND_PROVIDER_LIMIT=off")
		srv := startBinary(t, bin, dir, environ)
		token := binaryToken(t, bin, dir, environ)
		killSite(t, srv.base, token)
		hooks := killHooks(t, srv.base, token)
		tomorrow := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)

		// Four clients submit n = "c-i" and four book as "c-i" (client c's
		// slots 30 days apart from the others'), as fast as they can; the
		// server is killed once a few hundred of each are acknowledged.
		submissions := burst(t, 4, func(client *http.Client, c, i int) (string, int, error) {
			n := fmt.Sprintf("%d-%d", c, i)
			var buf bytes.Buffer
			w := multipart.NewWriter(&buf)
			_ = w.WriteField("n", n)
			_ = w.Close()
			res, err := client.Post(srv.base+"/api/v1/forms/kill/submit", w.FormDataContentType(), &buf)
			return n, status(res), err
		})
		bookingsMade := burst(t, 4, func(client *http.Client, c, i int) (string, int, error) {
			n := fmt.Sprintf("%d-%d", c, i)
			start := tomorrow.Add(time.Duration(c)*30*24*time.Hour + time.Duration(i)*15*time.Minute)
			res, err := client.Post(srv.base+"/api/bookings", "application/json", strings.NewReader(fmt.Sprintf(
				`{"service":"kill","start_time":%q,"customer_name":%q,"customer_email":"kill@example.test"}`, start.Format(time.RFC3339), n)))
			return n, status(res), err
		})
		events := burst(t, 2, func(client *http.Client, c, i int) (string, int, error) {
			id := fmt.Sprintf("evt_%d_%d", c, i)
			body := []byte(fmt.Sprintf(`{"id":%q,"object":"event","type":"customer.created","data":{"object":{"id":"cus_%d_%d","object":"customer"}}}`, id, c, i))
			req, _ := http.NewRequest("POST", srv.base+webhooks.InboundPrefixDefault+"/stripe", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Stripe-Signature", stripewebhook.GenerateTestSignedPayload(&stripewebhook.UnsignedPayload{
				Payload: body, Secret: stripeSecret, Timestamp: time.Now()}).Header)
			res, err := client.Do(req)
			code := status(res)
			if code == http.StatusOK || code == http.StatusAccepted {
				code = http.StatusCreated // acknowledged
			}
			return id, code, err
		})
		require.Eventually(t, func() bool { return submissions.acked() >= 200 && bookingsMade.acked() >= 100 && events.acked() >= 100 },
			60*time.Second, 5*time.Millisecond)
		require.NoError(t, srv.cmd.Process.Kill())
		<-srv.exited
		submissions.stop()
		bookingsMade.stop()
		events.stop()

		again := startBinary(t, bin, dir, environ)
		submitted := exportedValues(t, again.base, token, "kill", "N")
		submissions.check(t, "submission", submitted)
		stored := map[string]int{}
		for _, n := range submitted {
			stored["form.submitted "+n]++
		}
		booked := bookingCustomers(t, again.base, token)
		bookingsMade.check(t, "booking", booked)
		for _, n := range booked {
			stored["booking.created "+n]++
		}
		received := inboundEventIDs(t, dir, environ)
		events.check(t, "inbound event", received)
		repeated := hooks.await(t, stored)
		t.Logf("%s: submissions %d acknowledged, %d stored, %d sent; bookings %d acknowledged, %d stored, %d sent; %d webhooks, %d of them again; inbound events %d acknowledged, %d stored",
			d, len(submissions.ok), len(submitted), len(submissions.sent), len(bookingsMade.ok), len(booked), len(bookingsMade.sent), len(stored)+repeated, repeated, len(events.ok), len(received))
	})
}

// stripeSecret signs the test's inbound Stripe events.
const stripeSecret = "whsec_sigkill"

// status is a response's status, its body read and closed; 0 for none.
func status(res *http.Response) int {
	if res == nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// load is a burst of writes from several clients, each key sent once.
type load struct {
	mu       sync.Mutex
	sent, ok map[string]bool
	done     chan struct{}
	wg       sync.WaitGroup
}

// burst starts clients calling send with their number and a counter
// until stop; send returns the write's key, its status and a transport
// error. A 201 is an acknowledged write; anything else, a retry of
// nothing (the key is not sent again).
func burst(t *testing.T, clients int, send func(client *http.Client, c, i int) (string, int, error)) *load {
	t.Helper()
	l := &load{sent: map[string]bool{}, ok: map[string]bool{}, done: make(chan struct{})}
	client := &http.Client{Timeout: 5 * time.Second}
	for c := range clients {
		l.wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-l.done:
					return
				default:
				}
				key, code, err := send(client, c, i)
				l.mu.Lock()
				l.sent[key] = true
				if err == nil && code == http.StatusCreated {
					l.ok[key] = true
				}
				l.mu.Unlock()
			}
		})
	}
	t.Cleanup(l.stop)
	return l
}

func (l *load) acked() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.ok)
}

// stop ends the burst and waits for its clients.
func (l *load) stop() {
	select {
	case <-l.done:
	default:
		close(l.done)
	}
	l.wg.Wait()
}

// check: every acknowledged key is among stored once, and every stored
// key was sent, once.
func (l *load) check(t *testing.T, what string, stored []string) {
	t.Helper()
	times := map[string]int{}
	for _, k := range stored {
		times[k]++
	}
	for k := range l.ok {
		require.Equal(t, 1, times[k], "acknowledged %s %s stored once", what, k)
	}
	for k, n := range times {
		require.True(t, l.sent[k], "stored %s %s was sent", what, k)
		require.Equal(t, 1, n, "%s %s stored once", what, k)
	}
}

// bookableService makes the service slug with one provider, bookable all
// day every day, in quarter-hour slots.
func bookableService(t *testing.T, base, token, slug string) {
	t.Helper()
	for _, step := range [][2]string{
		{"/api/bookings/admin/services", `{"name":"Kill","slug":"` + slug + `","duration":15,"timezone":"UTC","min_advance_minutes":0,"max_advance_minutes":525600}`},
		{"/api/bookings/admin/providers", `{"name":"Pat","timezone":"UTC"}`},
	} {
		code, body := postJSON(t, base+step[0], token, step[1])
		require.Equal(t, 201, code, body)
	}
	code, body := request(t, "PUT", base+"/api/bookings/admin/services/"+slug+"/providers/1", token, `{}`)
	require.Less(t, code, 300, body)
	for day := range 7 {
		code, body = postJSON(t, base+"/api/bookings/admin/providers/1/hours", token,
			fmt.Sprintf(`{"day_of_week":%d,"start_time":"00:00","end_time":"24:00"}`, day))
		require.Equal(t, 201, code, body)
	}
}

// exportedValues are the answers to the field labelled label of every
// submission of form, from its CSV export.
func exportedValues(t *testing.T, base, token, form, label string) []string {
	t.Helper()
	code, export := get(t, base+"/api/v1/forms/"+form+"/submissions/export", token)
	require.Equal(t, 200, code, export)
	rows, err := csv.NewReader(strings.NewReader(export)).ReadAll()
	require.NoError(t, err)
	col := slices.Index(rows[0], label)
	require.GreaterOrEqual(t, col, 0, rows[0])
	var out []string
	for _, r := range rows[1:] {
		out = append(out, r[col])
	}
	return out
}

// bookingCustomers are the customer names of every booking, page by page.
func bookingCustomers(t *testing.T, base, token string) []string {
	t.Helper()
	var names []string
	for page := 1; ; page++ {
		code, body := get(t, fmt.Sprintf("%s/api/bookings/admin/bookings?per_page=100&page=%d", base, page), token)
		require.Equal(t, 200, code, body)
		var list struct {
			Data []struct {
				CustomerName string `json:"customer_name"`
			} `json:"data"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &list))
		if len(list.Data) == 0 {
			return names
		}
		for _, b := range list.Data {
			names = append(names, b.CustomerName)
		}
	}
}

// inboundEventIDs are the Stripe event IDs stored, read from the database
// the binary ran on (its GROUNDWORK_DB, else groundwork.db in dir).
func inboundEventIDs(t *testing.T, dir string, environ []string) []string {
	t.Helper()
	dsn := "sqlite:" + filepath.Join(dir, "groundwork.db")
	for _, e := range environ {
		if v, ok := strings.CutPrefix(e, "GROUNDWORK_DB="); ok {
			dsn = v
		}
	}
	db, err := store.Open(context.Background(), dsn)
	require.NoError(t, err)
	defer db.Close()
	var ids []string
	require.NoError(t, db.Reader().Select(&ids, "SELECT event_id FROM webhooks_inbound WHERE provider = 'stripe'"))
	return ids
}

// webhookCounter receives form.submitted webhooks and counts them by the
// submission's n.
type webhookCounter struct {
	*httptest.Server
	mu        sync.Mutex
	delivered map[string]int
}

func newWebhookCounter(t *testing.T) *webhookCounter {
	c := &webhookCounter{delivered: map[string]int{}}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var event struct {
			Event string `json:"event"`
			Data  struct {
				Values       map[string]string `json:"values"`
				CustomerName string            `json:"customer_name"`
			} `json:"data"`
		}
		if err := json.NewDecoder(r.Body).Decode(&event); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		key := event.Event + " " + event.Data.Values["n"] // a submission's n
		if event.Event == "booking.created" {
			key = event.Event + " " + event.Data.CustomerName // a booking's customer
		}
		c.mu.Lock()
		c.delivered[key]++
		c.mu.Unlock()
	}))
	t.Cleanup(c.Close)
	return c
}

// await waits until the webhook of every stored submission and booking
// ("form.submitted N", "booking.created N") has arrived (one under way at
// a kill comes after the claim timeout), checks that none came for one not
// stored, and returns how many came again.
func (c *webhookCounter) await(t *testing.T, stored map[string]int) int {
	t.Helper()
	require.Eventually(t, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for n := range stored {
			if c.delivered[n] == 0 {
				return false
			}
		}
		return true
	}, 90*time.Second, 50*time.Millisecond, "every stored submission's and booking's webhook arrives (one under way at the kill after the claim timeout)")
	c.mu.Lock()
	defer c.mu.Unlock()
	repeated := 0
	for n, times := range c.delivered {
		require.Equal(t, 1, stored[n], "a webhook for %s, which is not stored", n)
		repeated += times - 1
	}
	return repeated
}
