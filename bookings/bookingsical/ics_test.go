package bookingsical_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings/bookingsical"
	"github.com/groundwork-go/groundwork/bookings/calendars"
)

// icsServer serves testdata/name at /secret/<token>.ics with an ETag and
// Last-Modified, 304 to a request that gives either back, and counts the
// full answers.
func icsServer(t *testing.T, name string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	body, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	var full atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path != "/secret/c2VjcmV0.ics":
			http.NotFound(w, r)
		case r.Header.Get("If-None-Match") == `"v1"` || r.Header.Get("If-Modified-Since") == "Mon, 01 Jun 2026 08:00:00 GMT":
			w.WriteHeader(http.StatusNotModified)
		default:
			full.Add(1)
			w.Header().Set("ETag", `"v1"`)
			w.Header().Set("Last-Modified", "Mon, 01 Jun 2026 08:00:00 GMT")
			w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
			_, _ = w.Write(body)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &full
}

func access(secret string) calendars.Access {
	return calendars.Access{Connection: calendars.Connection{Kind: calendars.ICS, Name: "Mine"}, Secret: secret}
}

// An ICS address: listed as its one calendar, read into busy periods,
// then read again conditionally (a 304 changes nothing).
func TestICSReadsConditionally(t *testing.T) {
	t.Parallel()
	srv, full := icsServer(t, "google.ics")
	ctx := context.Background()
	ics := bookingsical.NewICS(&bookingsical.Options{AllowPrivateHosts: true})
	a := access(srv.URL + "/secret/c2VjcmV0.ics")
	cals, err := ics.Calendars(ctx, a)
	require.NoError(t, err)
	require.Equal(t, []calendars.Remote{{ID: "", Name: "Ada Lovelace"}}, cals)

	london, _ := time.LoadLocation("Europe/London")
	from, to := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	read, err := ics.Busy(ctx, a, from, to, london, nil)
	require.NoError(t, err)
	require.False(t, read.NotModified)
	require.Equal(t, `"v1"`, read.ETag)
	require.Equal(t, "Mon, 01 Jun 2026 08:00:00 GMT", read.LastModified)
	require.Len(t, read.Periods, 3, "5 January's meeting, 7 January's lunch, our own booking on the 9th")

	a.Connection.ETag, a.Connection.LastModified = read.ETag, read.LastModified
	again, err := ics.Busy(ctx, a, from, to, london, nil)
	require.NoError(t, err)
	require.True(t, again.NotModified)
	require.Empty(t, again.Periods)
	require.Equal(t, `"v1"`, again.ETag)
	require.Equal(t, int64(2), full.Load(), "the listing and the first read; the third was a 304")

	// webcal:// is read as https://, which this plain server does not
	// speak: the TLS handshake fails.
	_, err = ics.Calendars(ctx, access(strings.Replace(a.Secret, "http://", "webcal://", 1)))
	require.Equal(t, "We could not reach that address. Check it and try again.", calendars.Reason(err))
	require.ErrorContains(t, err, "http: server gave HTTP response to HTTPS client", "the cause, for the log")
}

// Failures say why without the secret address; a private address is
// refused unless allowed; something that is not a calendar is refused.
func TestICSFailures(t *testing.T) {
	t.Parallel()
	srv, _ := icsServer(t, "google.ics")
	ctx := context.Background()
	ics := bookingsical.NewICS(&bookingsical.Options{AllowPrivateHosts: true})
	_, err := ics.Calendars(ctx, access(srv.URL+"/secret/wrong.ics"))
	require.Equal(t, "There is no calendar at that address. Check it and try again.", calendars.Reason(err))
	require.ErrorContains(t, err, "404 Not Found", "the cause, for the log")
	notICS := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("<html>hello</html>")) }))
	t.Cleanup(notICS.Close)
	_, err = ics.Calendars(ctx, access(notICS.URL+"/c2VjcmV0"))
	require.Equal(t, "The address answered something that is not a calendar. Check that it is the calendar's iCal address.", calendars.Reason(err))
	require.NotContains(t, err.Error(), "c2VjcmV0")

	_, err = bookingsical.NewICS(nil).Calendars(ctx, access(srv.URL+"/secret/c2VjcmV0.ics"))
	require.Equal(t, "That address is on a private network, which this site does not read calendars from. Use the calendar's public address.",
		calendars.Reason(err))
	require.ErrorContains(t, err, "not a public address", "the cause, for the log")
	require.NotContains(t, err.Error(), "c2VjcmV0", "the secret address is never in a reason")
}
