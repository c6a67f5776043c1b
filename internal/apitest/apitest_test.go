package apitest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/apitest"
)

// spy is a testing.TB that keeps the errors reported to it.
type spy struct {
	testing.TB
	errors []string
}

func (s *spy) Errorf(format string, args ...any) {
	s.errors = append(s.errors, fmt.Sprintf(format, args...))
}
func (s *spy) Helper() {}

var doc = func() *groundwork.OpenAPI {
	d := groundwork.NewOpenAPI("t", "1")
	d.Paths["/ratio"] = map[string]json.RawMessage{"get": json.RawMessage(`{"responses": {
		"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object", "required": ["ratio"],
			"properties": {"ratio": {"type": "number"}}}}}}}}`)}
	return d
}()

// A body off its schema, and a status the document does not name, are
// reported; a right one is counted; an undescribed path is left alone.
func TestChecker(t *testing.T) {
	t.Parallel()
	if !apitest.Validating {
		t.Skip("the race build has no validator (validate_race.go); the plain test run checks it")
	}
	for _, c := range []struct {
		path, body string
		status     int
		wrong      string
	}{
		{"/ratio", `{"ratio": 4.5}`, 200, ""},
		{"/ratio", `{"ratio": "4.5"}`, 200, "ratio"},
		{"/ratio", `{"message": "Not Found."}`, 404, "404"},
		{"/elsewhere", `{"anything": true}`, 200, ""},
	} {
		s := &spy{TB: t}
		ch := apitest.New(s, doc)
		h := ch.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(c.status)
			_, _ = w.Write([]byte(c.body))
		}))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", c.path, nil))
		require.Equal(t, c.status, w.Code, "passed through")
		require.Equal(t, c.body, w.Body.String())
		if c.wrong == "" {
			require.Empty(t, s.errors, c.body)
			continue
		}
		require.NotEmpty(t, s.errors, c.body)
		require.True(t, strings.Contains(strings.Join(s.errors, "\n"), c.wrong), s.errors)
	}
	// A document that is not OpenAPI 3.1 fails at once.
	bad := groundwork.NewOpenAPI("t", "1")
	bad.Paths["/x"] = map[string]json.RawMessage{"get": json.RawMessage(`{"responses": {"200": {"content": {}}}}`)}
	s := &spy{TB: t}
	func() {
		defer func() { _ = recover() }()
		apitest.New(&fatalSpy{spy: s}, bad)
	}()
	require.NotEmpty(t, s.errors, "the response lacks its description")
}

// fatalSpy stops at FailNow, as a test would.
type fatalSpy struct{ *spy }

func (f *fatalSpy) FailNow()                          { panic("FailNow") }
func (f *fatalSpy) Fatalf(format string, args ...any) { f.Errorf(format, args...); f.FailNow() }
