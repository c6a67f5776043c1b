package forms_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/groundwork-go/groundwork/internal/apitest"
)

// fuzzForm makes form "fz" with a field of each kind people answer:
// text (required), email, number (1 to 10), a select with a quota, a
// checkbox list, a date, a file (txt) and a hidden field filled from the
// address.
func fuzzForm(t testing.TB, b *bundle) {
	b.createForm(t, map[string]any{"name": "Fz", "min_fill_seconds": 0})
	for _, field := range []map[string]any{
		{"type": "text", "label": "Name", "is_required": true},
		{"type": "email", "label": "Email"},
		{"type": "number", "label": "Count", "validation_rules": map[string]any{"min": 1, "max": 10}},
		{"type": "select", "label": "Topic", "field_config": map[string]any{"options": []any{map[string]any{"value": "a", "label": "A", "quota": 1000}, "b"}}},
		{"type": "checkbox_group", "label": "Tags", "field_config": map[string]any{"options": []any{"x", "y", "z"}}},
		{"type": "date", "label": "Day"},
		{"type": "file", "label": "Notes", "field_config": map[string]any{"allowed_types": []any{"txt"}, "max_size": 16}},
		{"type": "hidden", "label": "Plan", "field_config": map[string]any{"prefill": true}},
	} {
		b.addField(t, "fz", field)
	}
}

// allowed answers a submission may get: never a 5xx.
var submitAnswers = map[int]bool{201: true, 400: true, 409: true, 413: true, 415: true, 422: true}

// No body of any content type makes the submit route panic or answer 5xx:
// it is taken (201) or refused with the documented status and a JSON
// message.
func FuzzSubmit(f *testing.F) {
	var mp bytes.Buffer
	w := multipart.NewWriter(&mp)
	_ = w.WriteField("name", "Ann")
	_ = w.WriteField("tags[]", "x")
	fw, _ := w.CreateFormFile("notes", "a.txt")
	_, _ = fw.Write([]byte("hello"))
	_ = w.Close()
	f.Add(w.FormDataContentType(), mp.Bytes())
	f.Add("multipart/form-data; boundary=x", []byte("--x\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nAnn\r\n--x--\r\n"))
	f.Add("multipart/form-data; boundary=x", []byte("--x\r\nContent-Disposition: form-data; name=\"notes\"; filename=\"../../a.txt\"\r\n\r\nhi\r\n--x--"))
	f.Add("application/x-www-form-urlencoded", []byte("name=Ann&email=ann%40example.com&count=3&topic=a&tags%5B%5D=x&tags%5B%5D=z&day=2026-11-26&plan=pro"))
	f.Add("application/x-www-form-urlencoded", []byte("name=%ff%fe&count=1e309&day=2026-02-30&topic=a&topic=b"))
	f.Add("application/json", []byte(`{"name":"Ann","tags":["x","x"],"count":"7","unknown":{"a":[1,2]}}`))
	f.Add("application/json", []byte(`{"name":"\u0000"}`))
	f.Add("text/plain", []byte("name=Ann"))
	b := setup(f)
	fuzzForm(f, b)
	client := &http.Client{}
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		req, err := http.NewRequest(http.MethodPost, b.server.URL+"/api/v1/forms/fz/submit", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header["Content-Type"] = []string{contentType}
		res, err := client.Do(req)
		if err != nil && strings.Contains(err.Error(), "invalid header field value") {
			t.Skip("no client sends that header")
		}
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if !submitAnswers[res.StatusCode] || !json.Valid(out) {
			t.Fatalf("%q %q: %d %s", contentType, body, res.StatusCode, out)
		}
		if held := apitest.Held(); len(held) > 0 {
			t.Fatalf("%q %q: %v", contentType, body, held)
		}
	})
}

// No JSON body sent to the admin API's writing routes makes one panic or
// answer 5xx.
func FuzzAdminBodies(f *testing.F) {
	routes := []struct{ method, path string }{
		{"POST", ""}, {"PATCH", "/fz"}, {"POST", "/fz/fields"}, {"POST", "/fz/notifications"}, {"POST", "/fz/steps"},
		{"POST", "/fz/submissions/bulk"}, {"POST", "/fz/invitations"}, {"POST", "/fz/fields/reorder"}, {"PATCH", "/fz/submissions/1"},
	}
	for i, body := range []string{`{"name":"New"}`, `{"max_responses":0,"closes_at":"2026-01-01T00:00:00Z","opens_at":"2027-01-01T00:00:00Z"}`,
		`{"type":"select","label":"S","field_config":{"options":[{"value":"a","quota":-1}]}}`, `{"type":"admin","recipients":"a@b, c"}`,
		`{"title":"Step","fields":[1,2]}`, `{"action":"delete","ids":[1,"2",null]}`, `{"count":100000}`, `{"order":[9,9,9]}`,
		`{"is_spam":"yes","notes":{"a":1}}`, `[]`, `null`, `{"translations":{"fr":{"fields":{"1":{"label":1}}}}}`} {
		f.Add(uint8(i), body)
	}
	b := setup(f)
	fuzzForm(f, b)
	b.api(f, "POST", "/fz/submit", nil) // a submission for the routes that name one
	f.Fuzz(func(t *testing.T, route uint8, body string) {
		r := routes[int(route)%len(routes)]
		res := b.request(t, r.method, "/api/v1/forms"+r.path, "admin", "application/json", strings.NewReader(body))
		if res.status >= 500 || !json.Valid([]byte(res.body)) && res.status != 204 {
			t.Fatalf("%s %s %q: %d %s", r.method, r.path, body, res.status, res.body)
		}
		if held := apitest.Held(); len(held) > 0 {
			t.Fatalf("%s %s %q: %v", r.method, r.path, body, held)
		}
	})
}
