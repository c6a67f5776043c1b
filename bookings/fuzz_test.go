package bookings_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/store"
)

// No body or query sent to the public booking routes makes one panic or
// answer 5xx, and every answer is JSON.
func FuzzPublicRoutes(f *testing.F) {
	routes := []struct{ method, path string }{
		{"POST", ""}, {"POST", "/services/consultation/holds"}, {"GET", "/services/consultation/slots?"},
		{"GET", "/services/consultation/providers?"}, {"POST", "/manage/x/cancel"}, {"POST", "/manage/x/reschedule"},
	}
	for i, body := range []string{
		bookBody("consultation", "2026-06-02T14:00:00Z"),
		`{"provider_id":1,"start_time":"2026-06-02T14:00:00+05:00","length":30}`,
		`month=2026-06&timezone=Europe/Paris&length=30&provider=ada`,
		`timezone=Mars/Olympus&from=2026-11-01&to=2027-12-31`,
		`{"reason":"` + strings.Repeat("x", 2000) + `"}`,
		`{"start_time":"9999-12-31T23:59:59Z","timezone":"\u0000"}`,
		`{"service":"consultation","start_time":"2026-06-02T14:00:00Z","customer_name":"G","customer_email":"g@example.com","intake":{"a":[1,{"b":null}]},"repeat":{"weeks":100000}}`,
		`start=2026-11-23&end=2026-11-22&per_page=-1`,
	} {
		f.Add(uint8(i), body)
	}
	b := setup(f, store.SQLite)
	f.Fuzz(func(t *testing.T, route uint8, input string) {
		r := routes[int(route)%len(routes)]
		path, body := "/api/bookings"+r.path, input
		if r.method == "GET" {
			path, body = path+input, ""
		}
		if strings.ContainsFunc(path, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '#' }) {
			t.Skip("not a request line a client sends")
		}
		code, out := b.do(t, r.method, path, body)
		if held := apitest.Held(); len(held) > 0 {
			t.Fatalf("%s %s %q: %v", r.method, path, body, held)
		}
		if code >= 500 || !json.Valid([]byte(out)) {
			t.Fatalf("%s %s %q: %d %s", r.method, path, body, code, out)
		}
	})
}

// No JSON body sent to the admin API's writing routes makes one panic or
// answer 5xx, and every answer is JSON as documented.
func FuzzAdminBodies(f *testing.F) {
	routes := []struct{ method, path string }{
		{"POST", "/services"}, {"PATCH", "/services/consultation"}, {"POST", "/providers"}, {"PATCH", "/providers/1"},
		{"POST", "/providers/1/hours"}, {"POST", "/providers/1/overrides"}, {"POST", "/blackouts"},
		{"PUT", "/services/consultation/providers/1"}, {"POST", "/bookings/1/reschedule"}, {"POST", "/bookings/1/cancel"},
		{"POST", "/bookings/1/reassign"}, {"POST", "/providers/1/calendars"},
	}
	for i, body := range []string{`{"name":"Cut","slug":"cut","duration":30,"timezone":"Europe/London"}`, `{"duration":-5,"buffer_after":1e10}`,
		`{"name":"Bo","timezone":"Asia/Tokyo","email":"bo@example.com"}`, `{"timezone":"Nowhere/Else"}`,
		`{"day_of_week":7,"start_time":"25:00","end_time":"09:00"}`, `{"date":"2026-02-30","is_available":false}`,
		`{"starts_at":"2026-12-24T00:00:00Z","ends_at":"2026-12-23T00:00:00Z"}`, `{"price":"abc","limits":[{"per":"day","max":-1}]}`,
		`{"start_time":"2026-06-02T15:00:00Z"}`, `{"reason":null}`, `{"provider_id":"1"}`, `{"kind":"ics","url":"webcal://[::1]/x"}`} {
		f.Add(uint8(i), body)
	}
	a := setupAdmin(f, store.SQLite)
	code, out := a.do(f, "POST", "/api/bookings", bookBody("consultation", "2026-06-02T14:00:00Z"))
	if code != 201 {
		f.Fatal(code, out)
	}
	f.Fuzz(func(t *testing.T, route uint8, body string) {
		r := routes[int(route)%len(routes)]
		code, out := a.call(t, "fuzz:bookings:*", r.method, r.path, body)
		if code >= 500 || !json.Valid([]byte(out)) && code != 204 {
			t.Fatalf("%s %s %q: %d %s", r.method, r.path, body, code, out)
		}
		if held := apitest.Held(); len(held) > 0 {
			t.Fatalf("%s %s %q: %v", r.method, r.path, body, held)
		}
	})
}
