package bookings_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingsgoogle"
	"github.com/groundwork-go/groundwork/bookings/bookingsical"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/bookings/calendars"
	"github.com/groundwork-go/groundwork/bookings/calendars/calendarssql"
	"github.com/groundwork-go/groundwork/bookings/calendars/calendarstest"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// calendarServer serves an ICS address whose events the test sets, or
// fails with the status it sets; gate, when set, holds each answer until
// it is closed, and inFlight counts the answers being made.
type calendarServer struct {
	*httptest.Server
	mu                sync.Mutex
	events            []string
	status            int
	gate              chan struct{}
	inFlight, maxSeen atomic.Int64
	requests          atomic.Int64
}

func newCalendarServer(t *testing.T) *calendarServer {
	t.Helper()
	cs := &calendarServer{}
	cs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cs.requests.Add(1)
		n := cs.inFlight.Add(1)
		defer cs.inFlight.Add(-1)
		for {
			seen := cs.maxSeen.Load()
			if n <= seen || cs.maxSeen.CompareAndSwap(seen, n) {
				break
			}
		}
		cs.mu.Lock()
		gate, status, events := cs.gate, cs.status, strings.Join(cs.events, "")
		cs.mu.Unlock()
		if gate != nil {
			<-gate
		}
		if r.URL.Path != "/calendar/s3cr3t.ics" {
			http.NotFound(w, r)
			return
		}
		if status != 0 {
			w.WriteHeader(status)
			return
		}
		w.Header().Set("Content-Type", "text/calendar")
		fmt.Fprint(w, "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:test\r\nX-WR-CALNAME:Ada's diary\r\n"+events+"END:VCALENDAR\r\n")
	}))
	t.Cleanup(cs.Close)
	return cs
}

func (cs *calendarServer) address() string { return cs.URL + "/calendar/s3cr3t.ics" }

// event adds an opaque event between two UTC times ("2026-06-02T14:00").
func (cs *calendarServer) event(uid, start, end string) {
	f := func(s string) string { return strings.NewReplacer("-", "", ":", "").Replace(s) + "00Z" }
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.events = append(cs.events, "BEGIN:VEVENT\r\nUID:"+uid+"\r\nDTSTART:"+f(start)+"\r\nDTEND:"+f(end)+"\r\nSUMMARY:Private\r\nEND:VEVENT\r\n")
}

func (cs *calendarServer) fail(status int) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.status = status
}

var calendarKey = []byte("a calendar test key of 32 bytes!")

// calendarsService is a bookings service with its providers' calendars
// attached (cal).
type calendarsService struct {
	*bookings.Service
	cal *calendars.Service
}

// calendarService is setupOn's service with the ICS source and a secret
// key, on db.
func calendarService(t *testing.T, db *store.DB, c *clock) calendarsService {
	t.Helper()
	svc, err := bookings.NewService(bookingssql.New(db), &bookings.Options{Now: c.Now, LockWait: 10 * time.Second, SecretKey: calendarKey})
	require.NoError(t, err)
	cal, err := calendars.New(calendarssql.New(db), svc, &calendars.Options{Now: c.Now, SecretKey: calendarKey,
		Sources: map[calendars.Kind]calendars.Source{calendars.ICS: bookingsical.NewICS(&bookingsical.Options{AllowPrivateHosts: true})}})
	require.NoError(t, err)
	return calendarsService{svc, cal}
}

// dayStarts are the slot starts of the service on one date, as "15:04" UTC.
func dayStarts(t *testing.T, svc interface {
	Slots(context.Context, bookings.Offering, bookings.SlotQuery) ([]bookings.Slot, error)
}, b *bundle, date string) []string {
	t.Helper()
	from := mustTime(date + "T00:00:00Z")
	slots, err := svc.Slots(context.Background(), b.service, bookings.SlotQuery{From: from, To: from.Add(24 * time.Hour)})
	require.NoError(t, err)
	out := []string{}
	for _, s := range slots {
		out = append(out, s.Start.UTC().Format("15:04"))
	}
	return out
}

// A provider's own calendar: once read, its busy time is not offered nor
// bookable; a booking on a calendar read longer ago than the freshness
// bound reads that day again first; what the connection answers keeps
// the address secret.
func TestCalendarBusyTimeIsNotOffered(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	svc := calendarService(t, b.db, b.clock)
	cs := newCalendarServer(t)
	cs.event("dentist", "2026-06-02T14:00", "2026-06-02T15:00") // 10:00-11:00 in New York
	ctx := context.Background()

	conn, cals, err := svc.cal.Connect(ctx, calendars.Input{ProviderID: b.provider.ID, Kind: calendars.ICS,
		Name: "Diary", URL: cs.address()})
	require.NoError(t, err)
	require.Equal(t, []calendars.Remote{{ID: "", Name: "Ada's diary"}}, cals)
	answer, err := json.Marshal(conn)
	require.NoError(t, err)
	require.NotContains(t, string(answer), "s3cr3t", "the address is the secret")
	require.Equal(t, cs.URL, conn.Endpoint)

	require.Contains(t, dayStarts(t, svc, b, "2026-06-02"), "14:00", "not read yet")
	ok, err := svc.cal.Sync(ctx, conn.ID)
	require.NoError(t, err)
	require.True(t, ok)
	day := dayStarts(t, svc, b, "2026-06-02")
	require.Contains(t, day, "13:30", "back to back with the busy time")
	require.NotContains(t, day, "14:00")
	require.NotContains(t, day, "14:30")
	require.Contains(t, day, "15:00")
	_, _, err = svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-02T14:30:00Z"),
		CustomerName: "Grace", CustomerEmail: "grace@example.com"})
	require.ErrorIs(t, err, bookings.ErrSlotTaken)

	// Eleven minutes on, the provider adds a lunch; a booking then reads
	// the day again before taking the time.
	cs.event("lunch", "2026-06-02T16:00", "2026-06-02T17:00")
	b.clock.Advance(11 * time.Minute)
	before := cs.requests.Load()
	_, _, err = svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-02T16:00:00Z"),
		CustomerName: "Grace", CustomerEmail: "grace@example.com"})
	require.ErrorIs(t, err, bookings.ErrSlotTaken, "the lunch was read before booking")
	require.Equal(t, before+1, cs.requests.Load())
	// A fresh calendar costs a booking no request.
	booked, _, err := svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-02T18:00:00Z"),
		CustomerName: "Grace", CustomerEmail: "grace@example.com"})
	require.NoError(t, err)
	require.Equal(t, bookings.StatusConfirmed, booked.Status)
	require.Equal(t, before+1, cs.requests.Load())
}

// A failed read is kept on the connection with its reason and a backoff
// that doubles; the stored busy time stands; a booking whose refresh
// fails goes ahead on it; a good read clears the failures.
func TestCalendarFailuresBackOff(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	svc := calendarService(t, b.db, b.clock)
	cs := newCalendarServer(t)
	cs.event("dentist", "2026-06-02T14:00", "2026-06-02T15:00")
	ctx := context.Background()
	conn, _, err := svc.cal.Connect(ctx, calendars.Input{ProviderID: b.provider.ID, Kind: calendars.ICS, Name: "Diary", URL: cs.address()})
	require.NoError(t, err)
	_, err = svc.cal.Sync(ctx, conn.ID)
	require.NoError(t, err)

	cs.fail(http.StatusUnauthorized)
	ok, err := svc.cal.Sync(ctx, conn.ID)
	require.True(t, ok)
	require.ErrorIs(t, err, calendars.ErrUnreadable)
	require.ErrorContains(t, err, "the server answered 401 Unauthorized", "the cause, for the log")
	conn, err = svc.cal.Connection(ctx, conn.ID)
	require.NoError(t, err)
	require.Equal(t, 1, conn.Failures)
	require.Equal(t, "The calendar's server refused access. Check the user name and app password, or that the address is still shared, and try again.",
		conn.LastError, "kept in words")
	require.NotContains(t, conn.LastError, "s3cr3t")
	require.Equal(t, b.clock.Now().Add(calendars.SyncIntervalDefault), conn.NextSyncAt.In(time.UTC))
	_, err = svc.cal.Sync(ctx, conn.ID)
	require.Error(t, err)
	conn, err = svc.cal.Connection(ctx, conn.ID)
	require.NoError(t, err)
	require.Equal(t, 2, conn.Failures)
	require.Equal(t, b.clock.Now().Add(2*calendars.SyncIntervalDefault), conn.NextSyncAt.In(time.UTC), "doubled")
	require.NotContains(t, dayStarts(t, svc, b, "2026-06-02"), "14:00", "the stored busy time stands")

	b.clock.Advance(time.Hour)
	booked, _, err := svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-02T16:00:00Z"),
		CustomerName: "Grace", CustomerEmail: "grace@example.com"})
	require.NoError(t, err, "a failed refresh is no failed booking")
	require.NotZero(t, booked.ID)

	cs.fail(0)
	b.clock.Advance(time.Hour)
	n, err := svc.cal.SyncDue(ctx, 10)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	conn, err = svc.cal.Connection(ctx, conn.ID)
	require.NoError(t, err)
	require.Zero(t, conn.Failures)
	require.Empty(t, conn.LastError)
}

// A connection that must stay read: once stale (unread for a day) its
// provider offers nothing until it is read again.
func TestCalendarStaleBlocksWhenAsked(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	svc := calendarService(t, b.db, b.clock)
	cs := newCalendarServer(t)
	ctx := context.Background()
	conn, _, err := svc.cal.Connect(ctx, calendars.Input{ProviderID: b.provider.ID, Kind: calendars.ICS, Name: "Diary",
		URL: cs.address(), BlockWhenStale: true})
	require.NoError(t, err)
	_, err = svc.cal.Sync(ctx, conn.ID)
	require.NoError(t, err)
	cs.fail(http.StatusInternalServerError)
	b.clock.Advance(25 * time.Hour)
	_, err = svc.cal.Sync(ctx, conn.ID)
	require.Error(t, err)
	conn, err = svc.cal.Connection(ctx, conn.ID)
	require.NoError(t, err)
	require.True(t, conn.Stale(b.clock.Now()))
	require.Empty(t, dayStarts(t, svc, b, "2026-06-03"))
	cs.fail(0)
	_, err = svc.cal.Sync(ctx, conn.ID)
	require.NoError(t, err)
	require.NotEmpty(t, dayStarts(t, svc, b, "2026-06-03"))
}

// Making a connection reads it first: an address that fails, a kind no
// source reads and a missing field are refused, and nothing is stored.
func TestConnectCalendarRefusals(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	svc := calendarService(t, b.db, b.clock)
	cs := newCalendarServer(t)
	ctx := context.Background()
	_, _, err := svc.cal.Connect(ctx, calendars.Input{ProviderID: b.provider.ID, Kind: calendars.ICS, Name: "Diary",
		URL: cs.URL + "/wrong.ics"})
	require.ErrorIs(t, err, calendars.ErrUnreadable)
	var refusal *api.Error
	require.ErrorAs(t, err, &refusal)
	require.Equal(t, 422, refusal.Status)
	require.Equal(t, "The calendar could not be read. There is no calendar at that address. Check it and try again.", refusal.Message)
	var ve *bookings.ValidationError
	_, _, err = svc.cal.Connect(ctx, calendars.Input{ProviderID: b.provider.ID, Kind: calendars.CalDAV, Name: "x", URL: cs.address()})
	require.ErrorAs(t, err, &ve)
	require.Equal(t, []string{"The selected kind is invalid: it is one of ics."}, ve.Fields()["kind"])
	_, _, err = svc.cal.Connect(ctx, calendars.Input{ProviderID: b.provider.ID, Kind: calendars.ICS})
	require.ErrorAs(t, err, &ve)
	require.ElementsMatch(t, []string{"name", "url"}, ve.FieldNames())
	_, _, err = svc.cal.Connect(ctx, calendars.Input{ProviderID: 999, Kind: calendars.ICS, Name: "x", URL: cs.address()})
	require.ErrorIs(t, err, bookings.ErrNotFound)
	conns, err := svc.cal.Connections(ctx, 0)
	require.NoError(t, err)
	require.Empty(t, conns)
}

// Two instances on one Postgres database sync the same connection at
// once, many times: each sync runs alone, and every round reads once.
func TestCalendarSyncOnceAcrossInstances(t *testing.T) {
	t.Parallel()
	dsn := storetest.DSN(t, store.Postgres)
	one := setupOn(t, storetest.OpenDSN(t, dsn, bookingssql.Migrations))
	twoDB := storetest.OpenDSN(t, dsn, bookingssql.Migrations)
	c := &clock{}
	c.Set(one.clock.Now())
	svcs := []calendarsService{calendarService(t, one.db, one.clock), calendarService(t, twoDB, c)}
	cs := newCalendarServer(t)
	cs.event("dentist", "2026-06-02T14:00", "2026-06-02T15:00")
	ctx := context.Background()
	_, _, err := svcs[0].cal.Connect(ctx, calendars.Input{ProviderID: one.provider.ID, Kind: calendars.ICS, Name: "Diary", URL: cs.address()})
	require.NoError(t, err)
	for round := range 5 {
		before := cs.requests.Load()
		gate := make(chan struct{})
		cs.mu.Lock()
		cs.gate = gate
		cs.mu.Unlock()
		var wg sync.WaitGroup
		var synced atomic.Int64
		for i := range 8 {
			wg.Go(func() {
				ok, err := svcs[i%2].cal.SyncDue(ctx, 10)
				require.NoError(t, err)
				synced.Add(int64(ok))
			})
		}
		time.Sleep(200 * time.Millisecond) // every sweep has claimed, or found the claim taken
		close(gate)
		wg.Wait()
		require.Equal(t, int64(1), synced.Load(), "round %d", round)
		require.Equal(t, before+1, cs.requests.Load(), "round %d", round)
		one.clock.Advance(calendars.SyncIntervalDefault)
		c.Advance(calendars.SyncIntervalDefault)
	}
	require.Equal(t, int64(1), cs.maxSeen.Load(), "never two reads at once")
}

// The calendar sweep is one of the periodic jobs: run by the queue, it
// reads a connection that is due.
func TestCalendarSweepRunsAsAJob(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite, bookingssql.Migrations)
	b := setupOn(t, db)
	q, err := store.NewQueue(db, &store.QueueOptions{TestOnly: true, FetchPollInterval: 50 * time.Millisecond})
	require.NoError(t, err)
	bs, err := bookings.NewService(bookingssql.New(db), &bookings.Options{Now: b.clock.Now, Enqueuer: q, Mailer: mail.NewOutbox(nil),
		SecretKey: calendarKey})
	require.NoError(t, err)
	cal, err := calendars.New(calendarssql.New(db), bs, &calendars.Options{Now: b.clock.Now, Enqueuer: q, SecretKey: calendarKey,
		Sources: map[calendars.Kind]calendars.Source{calendars.ICS: bookingsical.NewICS(&bookingsical.Options{AllowPrivateHosts: true})}})
	require.NoError(t, err)
	svc := calendarsService{bs, cal}
	cs := newCalendarServer(t)
	cs.event("dentist", "2026-06-02T14:00", "2026-06-02T15:00")
	ctx := context.Background()
	conn, _, err := svc.cal.Connect(ctx, calendars.Input{ProviderID: b.provider.ID, Kind: calendars.ICS, Name: "Diary", URL: cs.address()})
	require.NoError(t, err)
	require.NoError(t, bookings.RegisterWorkers(q.Workers(), bs))
	require.NoError(t, calendars.RegisterWorkers(q.Workers(), cal))
	q.AddPeriodicJobs(calendars.PeriodicJobs()...)
	require.NoError(t, q.Start(ctx))
	t.Cleanup(func() { require.NoError(t, q.Stop(context.Background())) })
	require.Eventually(t, func() bool {
		c, err := svc.cal.Connection(ctx, conn.ID)
		return err == nil && c.SyncedAt != nil
	}, 10*time.Second, 20*time.Millisecond)
	require.NotContains(t, dayStarts(t, svc, b, "2026-06-02"), "14:00")
}

// queuedCalendarService is a service with every calendar kind (ICS and
// CalDAV at private addresses, and extra), mail to an outbox and its
// jobs running on a River queue of db, logging to logger when not nil.
func queuedCalendarService(t *testing.T, db *store.DB, c *clock, logger *slog.Logger, extra map[calendars.Kind]calendars.Source) calendarsService {
	t.Helper()
	q, err := store.NewQueue(db, &store.QueueOptions{TestOnly: true, FetchPollInterval: 50 * time.Millisecond, Logger: logger})
	require.NoError(t, err)
	sources := map[calendars.Kind]calendars.Source{calendars.ICS: bookingsical.NewICS(&bookingsical.Options{AllowPrivateHosts: true}),
		calendars.CalDAV: bookingsical.NewCalDAV(&bookingsical.Options{AllowPrivateHosts: true})}
	maps.Copy(sources, extra)
	svc, err := bookings.NewService(bookingssql.New(db), &bookings.Options{Now: c.Now, Enqueuer: q, Mailer: mail.NewOutbox(nil),
		SecretKey: calendarKey, Logger: logger})
	require.NoError(t, err)
	cal, err := calendars.New(calendarssql.New(db), svc, &calendars.Options{Now: c.Now, Enqueuer: q, SecretKey: calendarKey,
		Logger: logger, Sources: sources})
	require.NoError(t, err)
	require.NoError(t, bookings.RegisterWorkers(q.Workers(), svc))
	require.NoError(t, calendars.RegisterWorkers(q.Workers(), cal))
	require.NoError(t, q.Start(context.Background()))
	t.Cleanup(func() { require.NoError(t, q.Stop(context.Background())) })
	return calendarsService{svc, cal}
}

// davRequest sends one request to a CalDAV server as ada and answers its
// status and body.
func davRequest(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	req.SetBasicAuth("ada", "app-password")
	if body != "" {
		req.Header.Set("Content-Type", "text/calendar")
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	text, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(text)
}

// A provider's CalDAV calendar on Radicale: a time made busy there is not
// offered once read; a booking appears in the destination calendar, moves
// with a reschedule and goes with a cancellation, and is never read back
// as busy time.
func TestCalendarWriteBackToRadicale(t *testing.T) {
	t.Parallel()
	base := testkit.Radicale(t)
	db := storetest.Open(t, store.SQLite, bookingssql.Migrations)
	b := setupOn(t, db)
	svc := queuedCalendarService(t, db, b.clock, nil, nil)
	ctx := context.Background()

	code, _ := davRequest(t, "MKCALENDAR", base+"/ada/work/", "")
	require.Equal(t, http.StatusCreated, code)
	code, _ = davRequest(t, http.MethodPut, base+"/ada/work/dentist.ics", strings.Join([]string{"BEGIN:VCALENDAR", "VERSION:2.0",
		"PRODID:-//test//EN", "BEGIN:VEVENT", "UID:dentist", "DTSTAMP:20260601T080000Z", "DTSTART:20260602T140000Z",
		"DTEND:20260602T150000Z", "SUMMARY:Dentist", "END:VEVENT", "END:VCALENDAR", ""}, "\r\n"))
	require.Equal(t, http.StatusCreated, code)

	conn, cals, err := svc.cal.Connect(ctx, calendars.Input{ProviderID: b.provider.ID, Kind: calendars.CalDAV, Name: "Work",
		URL: base + "/", Username: "ada", Password: "app-password", Calendars: []string{"/ada/work/"}, Destination: "/ada/work/"})
	require.NoError(t, err)
	require.Equal(t, []calendars.Remote{{ID: "/ada/work/", Name: "work"}}, cals,
		"Radicale names an unnamed calendar by its path; it is named by the path's end, never the path")
	_, err = svc.cal.Sync(ctx, conn.ID)
	require.NoError(t, err)
	require.NotContains(t, dayStarts(t, svc, b, "2026-06-02"), "14:00")

	booked, token, err := svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-02T16:00:00Z"),
		CustomerName: "Grace Hopper", CustomerEmail: "grace@example.com"})
	require.NoError(t, err)
	event := base + "/ada/work/" + booked.Number + "@" + bookings.FeedHostDefault + ".ics"
	require.Eventually(t, func() bool { code, _ := davRequest(t, http.MethodGet, event, ""); return code == http.StatusOK },
		10*time.Second, 20*time.Millisecond, "the booking is written to the destination")
	_, body := davRequest(t, http.MethodGet, event, "")
	require.Contains(t, body, "DTSTART:20260602T160000Z")
	require.Contains(t, body, "SUMMARY:Consultation consultation: Grace Hopper")

	_, err = svc.cal.Sync(ctx, conn.ID)
	require.NoError(t, err)
	periods, err := svc.cal.Store().BusyPeriods(ctx, conn.ID, mustTime("2026-06-02T00:00:00Z"), mustTime("2026-06-03T00:00:00Z"))
	require.NoError(t, err)
	require.Equal(t, []bookings.Period{{Start: mustTime("2026-06-02T14:00:00Z"), End: mustTime("2026-06-02T15:00:00Z")}}, periods,
		"the booking is not read back as busy time")

	_, _, err = svc.RescheduleManaged(ctx, token, "2026-06-03T17:00:00Z")
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		_, body := davRequest(t, http.MethodGet, event, "")
		return strings.Contains(body, "DTSTART:20260603T170000Z")
	}, 10*time.Second, 20*time.Millisecond, "moved")
	_, _, err = svc.CancelManaged(ctx, token, "")
	require.NoError(t, err)
	require.Eventually(t, func() bool { code, _ := davRequest(t, http.MethodGet, event, ""); return code == http.StatusNotFound },
		10*time.Second, 20*time.Millisecond, "cancelled: removed")
}

// A provider's own booking feed connected as a calendar (a common
// mistake: subscribing a calendar app to the feed, then that calendar
// here): its bookings are ours, by UID, so they are never stored as busy
// time on top of the bookings themselves, while the provider's other
// events in the same address still are.
func TestOwnFeedReadBackIsNotBusy(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite, bookingssql.Migrations)
	b := setupOn(t, db)
	svc := calendarService(t, db, b.clock)
	ctx := context.Background()
	_, _, err := svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-02T15:00:00Z"),
		CustomerName: "Grace Hopper", CustomerEmail: "grace@example.com"})
	require.NoError(t, err)
	feeds, err := bookings.NewFeedHandler(svc.Service, nil)
	require.NoError(t, err)
	token, err := svc.MintFeedToken(ctx, b.provider.ID)
	require.NoError(t, err)
	// The feed as a calendar app re-publishes it: our events, and one of
	// the provider's own.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		feeds.ServeHTTP(rec, httptest.NewRequest("GET", "/bookings/ical/providers/"+token+".ics", nil))
		require.Equal(t, 200, rec.Code)
		body := strings.Replace(rec.Body.String(), "END:VCALENDAR", "BEGIN:VEVENT\r\nUID:gym@example.com\r\nDTSTAMP:20260601T000000Z\r\n"+
			"DTSTART:20260602T170000Z\r\nDTEND:20260602T180000Z\r\nEND:VEVENT\r\nEND:VCALENDAR", 1)
		require.Contains(t, body, "UID:BK-")
		w.Header().Set("Content-Type", "text/calendar")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	c, _, err := svc.cal.Connect(ctx, calendars.Input{ProviderID: b.provider.ID, Kind: calendars.ICS, Name: "Phone", URL: srv.URL + "/feed.ics"})
	require.NoError(t, err)
	_, err = svc.cal.Sync(ctx, c.ID)
	require.NoError(t, err)
	periods, err := svc.cal.Store().BusyPeriods(ctx, c.ID, mustTime("2026-06-01T00:00:00Z"), mustTime("2026-06-08T00:00:00Z"))
	require.NoError(t, err)
	require.Equal(t, []bookings.Period{{Start: mustTime("2026-06-02T17:00:00Z"), End: mustTime("2026-06-02T18:00:00Z")}}, periods,
		"the booking is not read back; the gym is")
}

// Busy time from a calendar is kept clear of a service's buffers, as a
// booking is, and a seat-shared class never shares its seats with it.
func TestCalendarBusyTimeWithBuffersAndSeats(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite, bookingssql.Migrations)
	b := setupOn(t, db)
	svc := calendarService(t, db, b.clock)
	ctx := context.Background()
	st := svc.Store()
	price := "10.00"
	class, err := st.CreateService(ctx, bookings.Offering{Slug: "class", Name: "Class", Duration: 30, BufferBefore: 15, BufferAfter: 15,
		Price: &price, TimeZone: "America/New_York", AssignmentStrategy: bookings.AssignAny, MaxBookingsPerSlot: 3,
		IntakeSchemaVersion: 1, IsActive: true, CreatedAt: now, UpdatedAt: now})
	require.NoError(t, err)
	require.NoError(t, st.LinkProvider(ctx, class.ID, b.provider.ID, nil, nil))
	cs := newCalendarServer(t)
	cs.event("meeting", "2026-06-02T16:00", "2026-06-02T17:00")
	c, _, err := svc.cal.Connect(ctx, calendars.Input{ProviderID: b.provider.ID, Kind: calendars.ICS, Name: "Diary", URL: cs.address()})
	require.NoError(t, err)
	_, err = svc.cal.Sync(ctx, c.ID)
	require.NoError(t, err)
	from := mustTime("2026-06-02T00:00:00Z")
	slots, err := svc.Slots(ctx, class, bookings.SlotQuery{From: from, To: from.Add(24 * time.Hour)})
	require.NoError(t, err)
	starts := []string{}
	for _, s := range slots {
		starts = append(starts, s.Start.UTC().Format("15:04"))
	}
	require.Contains(t, starts, "15:00", "ends 15:30, its buffer to 15:45")
	for _, taken := range []string{"15:30", "15:45", "16:00", "16:30", "17:00"} {
		require.NotContains(t, starts, taken, "the class's buffers keep clear of the meeting")
	}
	require.Contains(t, starts, "17:15", "starts after its buffer from 17:00")
	_, _, err = svc.Create(ctx, bookings.NewBooking{ServiceSlug: "class", Start: mustTime("2026-06-02T16:00:00Z"),
		CustomerName: "Grace Hopper", CustomerEmail: "grace@example.com"})
	require.ErrorIs(t, err, bookings.ErrSlotTaken, "no seat is free at a busy time")
}

// Bookings written to a Google calendar by the jobs: put by the id made
// from the UID, moved, cancelled; and no secret (a refresh token, an app
// password, an ICS address) in any log line or stored error when reads
// fail, Google's refusal included.
func TestCalendarGoogleWriteBackAndNoSecretsLogged(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite, bookingssql.Migrations)
	b := setupOn(t, db)
	g := calendarstest.NewGoogle(t)
	google, err := bookingsgoogle.New(bookingsgoogle.Options{ClientID: "client", ClientSecret: "GOCSPX-client-secret", RedirectURL: "https://x/cb",
		Endpoint: g.Endpoint(), BaseURL: g.APIBase()})
	require.NoError(t, err)
	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusUnauthorized) }))
	t.Cleanup(refuse.Close)
	var logs strings.Builder
	var mu sync.Mutex
	logger := slog.New(slog.NewJSONHandler(lockedWriter{&mu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	svc := queuedCalendarService(t, db, b.clock, logger, map[calendars.Kind]calendars.Source{calendars.Google: google})
	ctx := context.Background()

	c, _, err := svc.cal.Connect(ctx, calendars.Input{ProviderID: b.provider.ID, Kind: calendars.Google, Name: "Google",
		Password: g.RefreshToken, Destination: "primary@example.com"})
	require.NoError(t, err)
	booked, token, err := svc.Create(ctx, bookings.NewBooking{ServiceSlug: "consultation", Start: mustTime("2026-06-02T16:00:00Z"),
		CustomerName: "Grace Hopper", CustomerEmail: "grace@example.com"})
	require.NoError(t, err)
	id := bookingsgoogle.EventID(booked.Number + "@" + bookings.FeedHostDefault)
	require.Eventually(t, func() bool { _, ok := g.Event("primary@example.com", id); return ok }, 10*time.Second, 20*time.Millisecond)
	ev, _ := g.Event("primary@example.com", id)
	require.Equal(t, "2026-06-02T16:00:00Z", ev.Start["dateTime"])
	_, err = svc.cal.Sync(ctx, c.ID)
	require.NoError(t, err)
	periods, err := svc.cal.Store().BusyPeriods(ctx, c.ID, mustTime("2026-06-02T00:00:00Z"), mustTime("2026-06-03T00:00:00Z"))
	require.NoError(t, err)
	require.Empty(t, periods, "the booking in Google is not read back as busy time")
	_, _, err = svc.RescheduleManaged(ctx, token, "2026-06-03T17:00:00Z")
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		ev, _ := g.Event("primary@example.com", id)
		return ev.Start["dateTime"] == "2026-06-03T17:00:00Z"
	},
		10*time.Second, 20*time.Millisecond, "moved")
	_, _, err = svc.CancelManaged(ctx, token, "")
	require.NoError(t, err)
	require.Eventually(t, func() bool { ev, _ := g.Event("primary@example.com", id); return ev.Status == "cancelled" },
		10*time.Second, 20*time.Millisecond, "cancelled: taken out")

	// Reads that fail, each kind.
	cs := newCalendarServer(t)
	ics, _, err := svc.cal.Connect(ctx, calendars.Input{ProviderID: b.provider.ID, Kind: calendars.ICS, Name: "Diary", URL: cs.address()})
	require.NoError(t, err)
	cs.fail(http.StatusForbidden)
	_, err = svc.cal.Sync(ctx, ics.ID)
	require.ErrorIs(t, err, calendars.ErrUnreadable)
	g.Revoke()
	_, err = svc.cal.Sync(ctx, c.ID)
	require.ErrorIs(t, err, calendars.ErrUnreadable)
	require.Contains(t, err.Error(), "Google refused the access; connect the calendar again")
	_, _, err = svc.cal.Connect(ctx, calendars.Input{ProviderID: b.provider.ID, Kind: calendars.CalDAV, Name: "iCloud",
		URL: refuse.URL + "/", Username: "ada@example.com", Password: "abcd-efgh-ijkl-mnop"})
	require.ErrorIs(t, err, calendars.ErrUnreadable)
	require.NotContains(t, err.Error(), "abcd-efgh")
	b.clock.Set(b.clock.Now().Add(2 * time.Hour)) // past the backoff: the sweep reads them again, and logs
	n, err := svc.cal.SyncDue(ctx, 10)
	require.NoError(t, err)
	require.Equal(t, 2, n)

	list, err := svc.cal.Connections(ctx, b.provider.ID)
	require.NoError(t, err)
	stored, _ := json.Marshal(list)
	mu.Lock()
	logged := logs.String()
	mu.Unlock()
	require.Contains(t, logged, "calendar", "the failures are logged")
	for _, secret := range []string{g.RefreshToken, "s3cr3t", "abcd-efgh-ijkl-mnop", "GOCSPX-client-secret", "ya29."} {
		require.NotContains(t, logged, secret)
		require.NotContains(t, string(stored), secret)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// What went wrong is said in words, with nothing of the server that
// read it: an address that cannot be found or reached, and one on a
// private network, are refused without resolver addresses, error chains
// or the address it resolved to; the cause goes to the log.
func TestCalendarReasonsSayNothingOfTheServer(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	var logs bytes.Buffer
	bs, err := bookings.NewService(bookingssql.New(b.db), &bookings.Options{Now: b.clock.Now, SecretKey: calendarKey})
	require.NoError(t, err)
	// The refusal is the answer only when the read ends within the wait:
	// a resolver that takes its time (no network, a loaded machine) must
	// not turn it into a connection saved for the background.
	cal, err := calendars.New(calendarssql.New(b.db), bs, &calendars.Options{Now: b.clock.Now, SecretKey: calendarKey, ConnectWait: time.Minute,
		ReadTimeout: time.Minute, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Sources: map[calendars.Kind]calendars.Source{calendars.ICS: bookingsical.NewICS(nil)}})
	require.NoError(t, err)
	svc := calendarsService{bs, cal}
	cs := newCalendarServer(t)
	for _, tc := range []struct {
		address string
		reasons []string
	}{
		{cs.address(), []string{"The calendar could not be read. That address is on a private network, which this site does not read calendars from. " +
			"Use the calendar's public address."}},
		// A name that cannot exist is not found, or, where the resolver
		// cannot be reached (a machine without network), not answered in
		// time: either is said in words.
		{"https://calendar.invalid/basic.ics", []string{"The calendar could not be read. We could not ",
			"The calendar could not be read. The calendar's server took too long to answer."}},
	} {
		_, _, err := svc.cal.Connect(context.Background(), calendars.Input{ProviderID: b.provider.ID, Kind: calendars.ICS,
			Name: "Diary", URL: tc.address})
		var refusal *api.Error
		require.ErrorAs(t, err, &refusal, tc.address)
		require.Equal(t, 422, refusal.Status)
		require.True(t, slices.ContainsFunc(tc.reasons, func(r string) bool { return strings.HasPrefix(refusal.Message, r) }), refusal.Message)
		for _, inside := range []string{"egress", "::ffff", "127.0.0.1", "lookup", ":53", "bookings:", "dial", "s3cr3t"} {
			require.NotContains(t, refusal.Message, inside, tc.address)
		}
	}
	require.Contains(t, logs.String(), "not a public address", "the cause is logged")
}

// A calendar's server that is slow to answer does not hold the request
// that connects it: past Options.ConnectWait the connection is saved
// unread (no calendars answered), and the calendar sweep reads it once
// the server answers.
func TestSlowCalendarIsSavedAndReadInTheBackground(t *testing.T) {
	t.Parallel()
	b := setup(t, store.SQLite)
	bs, err := bookings.NewService(bookingssql.New(b.db), &bookings.Options{Now: b.clock.Now, SecretKey: calendarKey})
	require.NoError(t, err)
	cal, err := calendars.New(calendarssql.New(b.db), bs, &calendars.Options{Now: b.clock.Now, SecretKey: calendarKey,
		ConnectWait: 200 * time.Millisecond,
		Sources:     map[calendars.Kind]calendars.Source{calendars.ICS: bookingsical.NewICS(&bookingsical.Options{AllowPrivateHosts: true})}})
	require.NoError(t, err)
	svc := calendarsService{bs, cal}
	cs := newCalendarServer(t)
	cs.event("dentist", "2026-06-02T14:00", "2026-06-02T15:00")
	gate := make(chan struct{})
	cs.mu.Lock()
	cs.gate = gate
	cs.mu.Unlock()
	ctx := context.Background()
	c, cals, err := svc.cal.Connect(ctx, calendars.Input{ProviderID: b.provider.ID, Kind: calendars.ICS, Name: "Diary",
		URL: cs.address()})
	require.NoError(t, err, "saved, not refused")
	require.Nil(t, cals, "not listed yet")
	require.Nil(t, c.SyncedAt)
	require.NotZero(t, c.ID)
	cs.mu.Lock()
	cs.gate = nil
	cs.mu.Unlock()
	close(gate)
	n, err := svc.cal.SyncDue(ctx, 10)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	c, err = svc.cal.Connection(ctx, c.ID)
	require.NoError(t, err)
	require.NotNil(t, c.SyncedAt, "read by the sweep")
	require.Empty(t, c.LastError)
	require.NotContains(t, dayStarts(t, svc, b, "2026-06-02"), "14:00")
}
