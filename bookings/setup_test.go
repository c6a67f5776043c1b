package bookings_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/bookingssql"
	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/internal/testkit"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

type clock = testkit.Clock

// now is a Monday morning: 2026-06-01 08:00 UTC.
var now = time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)

type bundle struct {
	db       *store.DB
	svc      *bookings.Service
	srv      *httptest.Server
	clock    *clock
	service  bookings.Offering
	provider bookings.Provider
}

// weekdays adds Monday to Friday hours to a provider.
func weekdays(t testing.TB, st bookings.Store, providerID int64, start, end int) {
	t.Helper()
	for d := time.Monday; d <= time.Friday; d++ {
		_, err := st.AddWeeklyHours(context.Background(), bookings.WeeklyHours{ProviderID: providerID, Weekday: d, Start: start, End: end, IsAvailable: true})
		require.NoError(t, err)
	}
}

func newProvider(t testing.TB, st bookings.Store, slug, zone string) bookings.Provider {
	t.Helper()
	p, err := st.CreateProvider(context.Background(), bookings.Provider{Slug: slug, Name: strings.ToUpper(slug[:1]) + slug[1:], TimeZone: zone,
		RoundRobinWeight: 1, IsActive: true, CreatedAt: now, UpdatedAt: now})
	require.NoError(t, err)
	return p
}

func newOffering(t testing.TB, st bookings.Store, slug string, minutes int) bookings.Offering {
	t.Helper()
	price := "25.00"
	s, err := st.CreateService(context.Background(), bookings.Offering{Slug: slug, Name: "Consultation " + slug, Duration: minutes,
		Price: &price, TimeZone: "America/New_York", AssignmentStrategy: bookings.AssignAny, MaxBookingsPerSlot: 1,
		IntakeSchemaVersion: 1, IsActive: true, CreatedAt: now, UpdatedAt: now})
	require.NoError(t, err)
	return s
}

// setupOn is a service "consultation" (30 minutes, New York) with one
// provider "ada" working 09:00-17:00 New York time on weekdays, served
// over HTTP.
func setupOn(t testing.TB, db *store.DB) *bundle {
	t.Helper()
	st := bookingssql.New(db)
	c := &clock{}
	c.Set(now)
	svc, err := bookings.NewService(st, &bookings.Options{Now: c.Now, LockWait: 10 * time.Second})
	require.NoError(t, err)
	b := serveBundle(t, db, svc, c)
	b.service = newOffering(t, st, "consultation", 30)
	b.provider = newProvider(t, st, "ada", "America/New_York")
	require.NoError(t, st.LinkProvider(context.Background(), b.service.ID, b.provider.ID, nil, nil))
	weekdays(t, st, b.provider.ID, 9*60, 17*60)
	return b
}

// serveBundle serves svc's public API.
func serveBundle(t testing.TB, db *store.DB, svc *bookings.Service, c *clock) *bundle {
	t.Helper()
	h, err := bookings.NewHandler(svc, &bookings.HandlerOptions{PostLimit: -1, ReadLimit: -1})
	require.NoError(t, err)
	checked := apitest.Of(t, h).Handler(h) // every JSON answer against the description
	mux := http.NewServeMux()
	mux.Handle(bookings.PrefixDefault, checked)
	mux.Handle(bookings.PrefixDefault+"/", checked)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	b := &bundle{db: db, svc: svc, srv: srv, clock: c}
	if p, err := bookingssql.New(db).Provider(context.Background(), 1); err == nil {
		b.provider = p
	}
	return b
}

func setup(t testing.TB, d store.Dialect) *bundle {
	return setupOn(t, storetest.Open(t, d, bookingssql.Migrations))
}

func (b *bundle) do(t testing.TB, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, b.srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := b.srv.Client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(out)
}

func bookBody(service, start string, extra ...string) string {
	m := map[string]any{"service": service, "start_time": start, "customer_name": "Grace Hopper", "customer_email": "grace@example.com"}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i]] = extra[i+1]
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// serveHandler serves a public handler built with other options.
func serveHandler(t testing.TB, h http.Handler) *bundle {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle(bookings.PrefixDefault, h)
	mux.Handle(bookings.PrefixDefault+"/", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &bundle{srv: srv}
}
