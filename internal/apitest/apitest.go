// Package apitest holds the handlers' tests to their OpenAPI documents:
// a Checker validates the document against the official OpenAPI 3.1
// schema, and every JSON answer a wrapped handler gives against the
// schema the document names for its status (pb33f/libopenapi-validator).
//
// Under the race detector the checks are off (Validating is false): that
// pass looks for data races, and the validator, compiled with -race,
// would double its build for nothing the plain pass does not check.
package apitest

import (
	"net/http"
	"testing"

	"github.com/groundwork-go/groundwork"
)

// Describer is a handler that describes its routes.
type Describer interface {
	http.Handler
	OpenAPI() (*groundwork.OpenAPI, error)
}

// Documented is h, each JSON answer checked against h's own description
// (itself checked against OpenAPI 3.1); t fails at its end unless an
// answer was checked (a fuzz target's answers are checked in its worker
// processes, so an F is not held to that).
func Documented(t testing.TB, h Describer) http.Handler {
	t.Helper()
	c := Of(t, h)
	_, fuzzing := t.(*testing.F)
	t.Cleanup(func() {
		if Validating && !fuzzing && !t.Failed() && c.Checked() == 0 {
			t.Error("apitest: no answer was checked against the OpenAPI description")
		}
	})
	return c.Handler(h)
}

// Of is the Checker of h's own description, for a handler shared by
// tests of which not all give JSON answers.
func Of(t testing.TB, h Describer) *Checker {
	t.Helper()
	part, err := h.OpenAPI()
	if err != nil {
		t.Fatalf("apitest: the handler's description: %v", err)
	}
	doc := groundwork.NewOpenAPI("test", "1")
	if err := doc.Merge(part); err != nil {
		t.Fatalf("apitest: the handler's description: %v", err)
	}
	return New(t, doc)
}
