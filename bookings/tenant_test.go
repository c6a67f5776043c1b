package bookings_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// Tokens bound to a tenant: each makes the tenant's services, providers
// and blackouts, books through the public API as anyone would, and finds
// none of another tenant's (404 on every route, absent from every list);
// a token of no tenant sees all. On both databases.
func TestBookingsOfATenant(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		a := setupAdmin(t, d)
		const acme, globex = "acme:bookings:*,tenant:acme", "globex:bookings:*,tenant:globex"
		must := func(want int, token, method, path, body string) map[string]any {
			t.Helper()
			code, out := a.call(t, token, method, path, body)
			require.Equal(t, want, code, "%s %s: %s", method, path, out)
			var v map[string]any
			if out != "" {
				require.NoError(t, json.Unmarshal([]byte(out), &v))
			}
			return v
		}
		id := func(v map[string]any) string { return fmt.Sprint(v["data"].(map[string]any)["id"]) }
		must(201, acme, "POST", "/services", `{"name":"Acme call","slug":"acme-call","duration":30,"timezone":"America/New_York"}`)
		p := id(must(201, acme, "POST", "/providers", `{"name":"Al","slug":"acme-al","timezone":"America/New_York"}`))
		must(204, acme, "PUT", "/services/acme-call/providers/"+p, `{}`)
		hours := id(must(201, acme, "POST", "/providers/"+p+"/hours", `{"day_of_week":2,"start_time":"09:00","end_time":"17:00"}`))
		override := id(must(201, acme, "POST", "/providers/"+p+"/overrides", `{"date":"2026-06-09","type":"unavailable"}`))
		blackout := id(must(201, acme, "POST", "/blackouts", `{"starts_on":"2026-06-16","ends_on":"2026-06-16"}`))
		code, body := a.do(t, "POST", "/api/bookings", bookBody("acme-call", "2026-06-02T14:00:00Z"))
		require.Equal(t, 201, code, body)
		var booked struct{ Data struct{ ID int64 } }
		require.NoError(t, json.Unmarshal([]byte(body), &booked))
		booking := fmt.Sprint(booked.Data.ID)
		must(201, globex, "POST", "/services", `{"name":"Globex call","slug":"globex-call","duration":30}`)

		// Every route on acme's, as globex: 404, nothing changed.
		for _, c := range []struct{ method, path, body string }{
			{"GET", "/services/acme-call", ""}, {"PATCH", "/services/acme-call", `{"name":"Taken"}`},
			{"PUT", "/services/acme-call/providers/" + p, `{}`}, {"DELETE", "/services/acme-call/providers/" + p, ""},
			{"PUT", "/services/globex-call/providers/" + p, `{}`}, {"GET", "/providers/" + p, ""},
			{"PATCH", "/providers/" + p, `{"name":"Taken"}`}, {"GET", "/providers/" + p + "/hours", ""},
			{"POST", "/providers/" + p + "/hours", `{"day_of_week":3,"start_time":"09:00","end_time":"17:00"}`},
			{"DELETE", "/providers/" + p + "/hours/" + hours, ""}, {"GET", "/providers/" + p + "/overrides", ""},
			{"DELETE", "/providers/" + p + "/overrides/" + override, ""}, {"DELETE", "/blackouts/" + blackout, ""},
			{"POST", "/providers/" + p + "/feed-token", ""}, {"DELETE", "/providers/" + p + "/feed-token", ""}, {"GET", "/bookings/" + booking, ""},
			{"POST", "/bookings/" + booking + "/cancel", `{}`}, {"POST", "/bookings/" + booking + "/confirm", ""},
			{"POST", "/bookings/" + booking + "/reschedule", `{"start_time":"2026-06-02T15:00:00Z"}`},
			{"POST", "/bookings/" + booking + "/manage-token", ""},
		} {
			must(404, globex, c.method, c.path, c.body)
		}
		must(422, globex, "POST", "/blackouts", `{"service_id":1,"starts_on":"2026-06-16","ends_on":"2026-06-16"}`) // the "" tenant's service

		count := func(token, path string) int { return len(must(200, token, "GET", path, "")["data"].([]any)) }
		require.Equal(t, 0, count(globex, "/bookings"))
		require.Equal(t, 1, count(acme, "/bookings"))
		require.Equal(t, 1, count(globex, "/services"))
		require.Equal(t, 1, count(acme, "/services"))
		require.Equal(t, 3, count(all, "/services"), "a token of no tenant sees every tenant's")
		require.Equal(t, 0, count(globex, "/providers"))
		require.Equal(t, 1, count(acme, "/providers"))
		require.Equal(t, 0, count(globex, "/blackouts"))
		require.Equal(t, 1, count(acme, "/blackouts"))
		require.Equal(t, "Al", must(200, acme, "GET", "/providers/"+p, "")["data"].(map[string]any)["name"], "unchanged")
		require.Equal(t, "confirmed", must(200, acme, "GET", "/bookings/"+booking, "")["data"].(map[string]any)["status"], "unchanged")
		// Acme's blackout closes acme's services only.
		slots := func(service, day string) string {
			code, body := a.do(t, "GET", "/api/bookings/services/"+service+"/slots?from="+day+"&to="+day, "")
			require.Equal(t, 200, code, body)
			return body
		}
		require.Contains(t, slots("consultation", "2026-06-16"), `"start":`, "the tenant-less service stays open on acme's holiday")
		require.JSONEq(t, `{"data":[]}`, slots("acme-call", "2026-06-16"), "acme's is closed")
		require.Contains(t, slots("acme-call", "2026-06-23"), `"start":`, "and open the Tuesday after")
	})
}
