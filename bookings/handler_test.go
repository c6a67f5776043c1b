package bookings_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

func TestPublicReads(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, d)
		code, body := b.do(t, "GET", "/api/bookings/services", "")
		require.Equal(t, 200, code)
		require.JSONEq(t, `{"data":[{"id":1,"slug":"consultation","name":"Consultation consultation","description":"","duration":30,
			"buffer_before":0,"buffer_after":0,"price":"25.00","is_free":false,"timezone":"America/New_York","assignment_strategy":"any",
			"intake_schema":null,"intake_schema_version":1}]}`, body)
		code, body = b.do(t, "GET", "/api/bookings/services/consultation/providers", "")
		require.Equal(t, 200, code)
		require.JSONEq(t, `{"data":[{"id":1,"slug":"ada","name":"Ada","bio":"","timezone":"America/New_York"}]}`, body)
		code, body = b.do(t, "GET", "/api/bookings/services/nope/slots?date=2026-06", "")
		require.Equal(t, 404, code)
		require.JSONEq(t, `{"message":"No bookable service was found for that address."}`, body)
		code, body = b.do(t, "GET", "/api/bookings/services/consultation/slots?date=2026-13", "")
		require.Equal(t, 422, code)
		require.Contains(t, body, "The date must be a month in YYYY-MM form.")
		code, body = b.do(t, "GET", "/api/bookings/services/consultation/slots?date=2026-06&provider_id=9", "")
		require.Equal(t, 422, code)
		require.Contains(t, body, "That provider does not offer this service.")

		// June 2026 from Monday 1st 08:00 UTC (04:00 New York): the
		// notice clips nothing of the first day's 09:00 start.
		code, body = b.do(t, "GET", "/api/bookings/services/consultation/slots?date=2026-06", "")
		require.Equal(t, 200, code)
		var got struct {
			Data []struct {
				Start, End string
				ProviderID *int64 `json:"provider_id"`
			}
		}
		require.NoError(t, json.Unmarshal([]byte(body), &got))
		require.Len(t, got.Data, 22*31, "22 weekdays of 31 slots (09:00 to 16:30)")
		require.Equal(t, "2026-06-01T13:00:00+00:00", got.Data[0].Start)
		require.Equal(t, "2026-06-01T13:30:00+00:00", got.Data[0].End)
		require.Nil(t, got.Data[0].ProviderID)

		code, body = b.do(t, "GET", "/api/bookings/services/consultation/slots?from=2026-06-02&to=2026-06-02&provider_id=1&timezone=Europe/Paris", "")
		require.Equal(t, 200, code)
		require.NoError(t, json.Unmarshal([]byte(body), &got))
		require.Len(t, got.Data, 31)
		require.Equal(t, int64(1), *got.Data[0].ProviderID)
		require.Contains(t, body, `"local_start":"2026-06-02T15:00:00+02:00"`)
	})
}

func TestCreate(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, d)
		code, body := b.do(t, "POST", "/api/bookings", bookBody("consultation", "2026-06-02T10:00:00-04:00", "customer_timezone", "Europe/Paris"))
		require.Equal(t, 201, code, body)
		require.JSONEq(t, `{"data":{"id":1,"status":"confirmed","start_time":"2026-06-02T14:00:00+00:00","end_time":"2026-06-02T14:30:00+00:00",
			"customer_name":"Grace Hopper","customer_email":"grace@example.com","customer_timezone":"Europe/Paris",
			"service":{"id":1,"slug":"consultation","name":"Consultation consultation"},"provider":{"id":1,"slug":"ada","name":"Ada"}}}`, body)

		for _, c := range []struct {
			body   string
			status int
			text   string
		}{
			{bookBody("consultation", "2026-06-02T14:00:00Z"), 409, bookings.MsgTaken},
			{bookBody("consultation", "2026-06-02T14:15:00Z"), 409, bookings.MsgTaken}, // overlaps the first
			{bookBody("consultation", "2026-06-02T14:05:00Z"), 409, bookings.MsgTaken}, // off the grid
			{bookBody("consultation", "2026-06-06T14:00:00Z"), 409, bookings.MsgTaken}, // a Saturday
			{bookBody("nope", "2026-06-02T15:00:00Z"), 404, bookings.MsgNoService},
			{bookBody("consultation", "2026-06-01T08:30:00Z"), 422, bookings.MsgTooSoon},
			{bookBody("consultation", "2026-12-01T15:00:00Z"), 422, bookings.MsgTooFar},
			{bookBody("consultation", "2026-06-02 15:00"), 422, "RFC 3339"},
			{bookBody("consultation", "2026-06-02T15:00:00Z", "customer_email", "nope"), 422, "The customer email field must be a valid email address."},
			{bookBody("consultation", "2026-06-02T15:00:00Z", "customer_timezone", "Mars/Base"), 422, "valid timezone"},
			{`{"service_slug":"consultation","start_time":"2026-06-02T15:00:00Z","customer_name":"G","customer_email":"g@example.com","provider_id":7}`, 422, bookings.MsgProviderNotHere},
			{`{}`, 422, "The service slug field is required."},
			{`{"service":1}`, 422, "must be a string"},
		} {
			code, body := b.do(t, "POST", "/api/bookings", c.body)
			require.Equal(t, c.status, code, "%s: %s", c.body, body)
			require.Contains(t, body, c.text, c.body)
		}
		// The booked slot leaves the list, with its neighbours that would
		// overlap it.
		_, body = b.do(t, "GET", "/api/bookings/services/consultation/slots?from=2026-06-02&to=2026-06-02", "")
		require.NotContains(t, body, `"start":"2026-06-02T14:00:00+00:00"`)
		require.NotContains(t, body, `"start":"2026-06-02T13:45:00+00:00"`)
		require.NotContains(t, body, `"start":"2026-06-02T14:15:00+00:00"`)
		require.Contains(t, body, `"start":"2026-06-02T14:30:00+00:00"`)
	})
}

// race sends n creates at once and counts the answers by status.
func race(t *testing.T, targets []*bundle, n int, body func(i int) string) map[int]int {
	t.Helper()
	var mu sync.Mutex
	counts := map[int]int{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			code, _ := targets[i%len(targets)].do(t, "POST", "/api/bookings", body(i))
			mu.Lock()
			counts[code]++
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	return counts
}

// 100 simultaneous creates of one slot: one 201, 99 409s, no 500, on each
// database and across two instances on one Postgres database.
func TestNoDoubleBooking(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		dsn := storetest.DSN(t, d)
		one := setupOn(t, storetest.OpenDSN(t, dsn, bookingssql.Migrations))
		targets := []*bundle{one}
		if d == store.Postgres {
			two := setupOnShared(t, storetest.OpenDSN(t, dsn, bookingssql.Migrations))
			targets = append(targets, two)
		}
		counts := race(t, targets, 100, func(int) string { return bookBody("consultation", "2026-06-03T15:00:00Z") })
		require.Equal(t, map[int]int{201: 1, 409: 99}, counts)

		// Slots of different lengths that overlap never both win.
		st := bookingssql.New(one.db)
		long := newOffering(t, st, "long", 60)
		require.NoError(t, st.LinkProvider(t.Context(), long.ID, one.provider.ID, nil, nil))
		for round := range 5 {
			day := fmt.Sprintf("2026-06-%02d", 8+round)
			counts = race(t, targets, 40, func(i int) string {
				if i%2 == 0 {
					return bookBody("long", day+"T15:00:00Z")
				}
				return bookBody("consultation", day+"T15:30:00Z")
			})
			require.Equal(t, 1, counts[201], "round %d: %v", round, counts)
			require.Equal(t, 39, counts[409], "round %d: %v", round, counts)
		}
	})
}

// setupOnShared serves a second instance on a database setupOn has filled.
func setupOnShared(t *testing.T, db *store.DB) *bundle {
	t.Helper()
	st := bookingssql.New(db)
	c := &clock{}
	c.Set(now)
	svc, err := bookings.NewService(st, &bookings.Options{Now: c.Now, LockWait: 10 * time.Second})
	require.NoError(t, err)
	return serveBundle(t, db, svc, c)
}

// A provider's day locked for longer than the wait: 503 with
// MsgBusy; with an OnEventTx hook too, whose transaction the service
// begins.
func TestLockWaitIs503(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		for _, hooked := range []bool{false, true} {
			t.Run(fmt.Sprint("hooked=", hooked), func(t *testing.T) { lockWaitIs503(t, d, hooked) })
		}
	})
}

func lockWaitIs503(t *testing.T, d store.Dialect, hooked bool) {
	b := setup(t, d)
	svc, err := bookings.NewService(bookingssql.New(b.db), &bookings.Options{Now: b.clock.Now, LockWait: 200 * time.Millisecond})
	require.NoError(t, err)
	var created atomic.Int64
	if hooked {
		svc.OnEventTx(func(ctx context.Context, tx *sql.Tx, e bookings.Event) error {
			created.Add(1)
			return nil
		})
	}
	short := serveBundle(t, b.db, svc, b.clock)
	held := make(chan struct{})
	release := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- b.db.InTx(t.Context(), func(tx *sqlx.Tx) error {
			if d == store.Postgres {
				if _, err := tx.Exec(`SELECT pg_advisory_xact_lock(hashtextextended('bookings:1|2026-06-03', 0))`); err != nil {
					return err
				}
			}
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	code, body := short.do(t, "POST", "/api/bookings", bookBody("consultation", "2026-06-03T15:00:00Z"))
	close(release)
	require.NoError(t, <-done)
	require.Equal(t, 503, code, body)
	require.JSONEq(t, `{"message":"That appointment time is busy right now. Please try again."}`, body)
	code, body = short.do(t, "POST", "/api/bookings", bookBody("consultation", "2026-06-03T15:00:00Z"))
	require.Equal(t, 201, code, body)
	if hooked {
		require.Equal(t, int64(1), created.Load(), "the hook ran once, for the booking made")
	}
}

// The "post" and "read" buckets, per client IP: 429 with MsgTooMany
// and the rate-limit headers.
func TestBuckets(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	h, err := bookings.NewHandler(b.svc, &bookings.HandlerOptions{PostLimit: 2, ReadLimit: 3})
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle(bookings.PrefixDefault, h)
	mux.Handle(bookings.PrefixDefault+"/", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	limited := &bundle{srv: srv}
	for i := range 3 {
		res, err := srv.Client().Get(srv.URL + "/api/bookings/services")
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, 200, res.StatusCode)
		require.Equal(t, "3", res.Header.Get("X-RateLimit-Limit"))
		require.Equal(t, strconv.Itoa(2-i), res.Header.Get("X-RateLimit-Remaining"))
	}
	code, body := limited.do(t, "GET", "/api/bookings/services/consultation/slots?date=2026-06", "")
	require.Equal(t, 429, code)
	require.JSONEq(t, `{"message":"Too many requests. Please wait a moment and try again."}`, body)
	for range 2 {
		code, _ = limited.do(t, "POST", "/api/bookings", bookBody("consultation", "2026-06-03T15:00:00Z"))
		require.NotEqual(t, 429, code)
	}
	code, _ = limited.do(t, "POST", "/api/bookings", bookBody("consultation", "2026-06-03T15:00:00Z"))
	require.Equal(t, 429, code)
}
