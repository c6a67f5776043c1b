package emaillist_test

import (
	"encoding/json"
	"testing"

	"github.com/groundwork-go/groundwork/internal/apitest"
)

// No JSON body sent to the feeds API or the public subscribe route makes
// one panic or answer 5xx, and every answer is JSON as documented.
func FuzzBodies(f *testing.F) {
	routes := []struct {
		admin        bool
		method, path string
	}{
		{true, "POST", "/admin/emailmarketing/feeds"}, {true, "PUT", "/admin/emailmarketing/feeds/1"},
		{true, "PATCH", "/admin/emailmarketing/feeds/1"}, {true, "POST", "/admin/emailmarketing/feeds/1/test"},
		{false, "POST", "/emailmarketing/subscribers"},
	}
	for i, body := range []string{newsletter, `{"field_map":{"email_address":""},"list_tag_ids":[-1,1e99]}`,
		`{"conditional_logic":{"match":"any","conditions":[{"field":"a","operator":"matches","value":"("}]}}`,
		`{"values":{"email":"a@b.co","consent":["yes",1]}}`, `{"email":"ann@example.com","first_name":"Ann","tags":[1,2]}`,
		`{"email":"not an email"}`, `{"form_id":"1","name":""}`} {
		f.Add(uint8(i), body)
	}
	b := setupTB(f)
	if a := call(f, b.admin, "POST", "/admin/emailmarketing/feeds", newsletter); a.code != 201 {
		f.Fatal(a)
	}
	f.Fuzz(func(t *testing.T, route uint8, body string) {
		r := routes[int(route)%len(routes)]
		srv := b.public
		if r.admin {
			srv = b.admin
		}
		a := call(t, srv, r.method, r.path, body)
		if a.code >= 500 || !json.Valid([]byte(a.body)) && a.code != 204 && a.code != 202 {
			t.Fatalf("%s %s %q: %d %s", r.method, r.path, body, a.code, a.body)
		}
		if held := apitest.Held(); len(held) > 0 {
			t.Fatalf("%s %s %q: %v", r.method, r.path, body, held)
		}
	})
}
