//go:build !race

package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
)

// Validating reports whether the checks run (not under -race).
const Validating = true

// Checker validates answers against one document.
type Checker struct {
	t  testing.TB
	mu sync.Mutex
	// validate checks one answer: what is wrong with it, or that the
	// document does not describe its request. A function rather than the
	// validator itself, so no type of the validator's shows in Checker:
	// each test package importing this one would otherwise compile the
	// validator's generic types again (some 6 s each).
	validate func(*http.Request, *http.Response) (failures []string, undescribed bool)
	// checked counts the answers validated.
	checked int
}

// New returns a Checker of doc, after checking doc itself against the
// OpenAPI 3.1 schema (a failure fails t).
func New(t testing.TB, doc *groundwork.OpenAPI) *Checker {
	t.Helper()
	body, err := json.Marshal(doc)
	if err != nil {
		t.Fatalf("apitest: the document: %v", err)
	}
	d, err := libopenapi.NewDocument(body)
	if err != nil {
		t.Fatalf("apitest: the document: %v", err)
	}
	v, errs := validator.NewValidator(d)
	if len(errs) > 0 {
		t.Fatalf("apitest: the document: %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		for _, e := range verrs {
			t.Errorf("apitest: the document is not valid OpenAPI 3.1: %s: %s (%s)", e.Message, e.Reason, e.Context)
		}
		t.FailNow()
	}
	return &Checker{t: t, validate: func(req *http.Request, res *http.Response) ([]string, bool) {
		ok, errs := v.ValidateHttpResponse(req, res)
		if ok {
			return nil, false
		}
		if pathUnknown(errs) {
			return nil, true
		}
		var failures []string
		for _, e := range errs {
			var where []string
			for _, f := range e.SchemaValidationErrors {
				where = append(where, f.FieldPath+": "+f.Reason)
			}
			failures = append(failures, e.Message+": "+e.Reason+" "+strings.Join(where, "; "))
		}
		return failures, false
	}}
}

// held are the failures of checkers made for a fuzz target (its F may
// not report once fuzzing), until the target takes them with Held.
var held struct {
	sync.Mutex
	list []string
}

func hold(msg string) {
	held.Lock()
	held.list = append(held.list, msg)
	held.Unlock()
}

// Held returns and forgets the failures of checkers made with a fuzz
// target's F: the target fails its input with them.
func Held() []string {
	held.Lock()
	defer held.Unlock()
	out := held.list
	held.list = nil
	return out
}

// Handler wraps h: every answer h gives with a JSON body, to a request
// whose method and path the document describes, is validated against
// the document's response for its status (an undocumented status fails
// as well). A request the document does not describe is left to the
// test that compares routes and operations.
func (c *Checker) Handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &recorder{StatusWriter: api.StatusWriter{ResponseWriter: w}}
		h.ServeHTTP(rec, r)
		if !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
			return
		}
		status := rec.Status
		if status == 0 {
			status = http.StatusOK
		}
		req := r.Clone(r.Context())
		req.Body = http.NoBody
		res := &http.Response{StatusCode: status, Header: rec.Header().Clone(), Body: io.NopCloser(bytes.NewReader(rec.body.Bytes())),
			Request: req}
		c.mu.Lock()
		defer c.mu.Unlock()
		failures, undescribed := c.validate(req, res)
		if undescribed {
			return
		}
		for _, f := range failures {
			msg := fmt.Sprintf("apitest: %s %s answered %d %s: %s", r.Method, r.URL.Path, status, clip(rec.body.String()), f)
			if _, fuzzing := c.t.(*testing.F); fuzzing {
				hold(msg) // a fuzz target may not fail through its F
				continue
			}
			c.t.Errorf("%s", msg)
		}
		if len(failures) == 0 {
			c.checked++
		}
	})
}

// Checked is how many answers were validated.
func (c *Checker) Checked() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.checked
}

// pathUnknown reports whether the validator found no operation for the
// request (a path or method the document does not describe).
func pathUnknown(errs []*verrors.ValidationError) bool {
	for _, e := range errs {
		if e.ValidationType != helpers.PathValidation ||
			e.ValidationSubType != helpers.ValidationMissing && e.ValidationSubType != helpers.ValidationMissingOperation {
			return false
		}
	}
	return len(errs) > 0
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// recorder passes an answer through, keeping its status and body.
type recorder struct {
	api.StatusWriter
	body bytes.Buffer
}

func (r *recorder) Write(b []byte) (int, error) {
	r.body.Write(b)
	return r.StatusWriter.Write(b)
}
