// Package openapi turns a handler's embedded OpenAPI 3.1 description
// into the part of a host's document its routes make, under the
// handler's prefix, with the schemas every domain shares.
package openapi

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/groundwork-go/groundwork"
)

// openAPICommon are the components every part may refer to: the error
// envelopes, the answers every route may give (400, 401, 403, 404, 413,
// 415, 422, 429, 503), and the security schemes.
//
//go:embed openapi_common.json
var openAPICommon []byte

// Part is a handler's part of the document: from its domain's
// description (an OpenAPI document whose paths are the handler's route
// patterns without its prefix), the operations of routes (the handler's
// Routes(), "METHOD /prefix/path"), under their full paths, with the
// common components. A route the description lacks is left out, for the
// test that compares the two to find; an operation of no route too (an
// optional route not mounted).
//
// At a prefix other than def, each operationId gets the prefix in front
// ("/api/v1/a11y" and "a11yContrastCheck" make
// "apiV1A11yA11yContrastCheck"), so one handler mounted twice keeps its
// operation ids unique.
func Part(description []byte, prefix, def string, routes []string) (*groundwork.OpenAPI, error) {
	var d groundwork.OpenAPI
	if err := json.Unmarshal(description, &d); err != nil {
		return nil, fmt.Errorf("openapi: the description: %w", err)
	}
	var common groundwork.OpenAPI
	if err := json.Unmarshal(openAPICommon, &common); err != nil {
		return nil, fmt.Errorf("openapi: the common components: %w", err)
	}
	part := &groundwork.OpenAPI{OpenAPI: groundwork.OpenAPIVersion, Info: d.Info, Tags: d.Tags,
		Paths: map[string]map[string]json.RawMessage{}, Components: d.Components}
	for _, r := range routes {
		method, path, ok := strings.Cut(r, " ")
		if !ok || !strings.HasPrefix(path, prefix) {
			continue
		}
		op, ok := d.Paths[strings.TrimPrefix(path, prefix)][strings.ToLower(method)]
		if !ok {
			continue
		}
		var err error
		if prefix != def {
			if op, err = prefixOperationID(op, prefix); err != nil {
				return nil, err
			}
		}
		if op, err = withEveryAnswer(op); err != nil {
			return nil, err
		}
		full := groundwork.OpenAPIPath(path)
		if part.Paths[full] == nil {
			part.Paths[full] = map[string]json.RawMessage{}
		}
		part.Paths[full][strings.ToLower(method)] = op
	}
	common.Paths = nil
	if err := part.Merge(&common); err != nil {
		return nil, err
	}
	return part, nil
}

// everyAnswer are the answers any route may give that a description
// need not list: a query string (or body) that cannot be read is a 400,
// a query value that is not text a 422 naming its parameter (whether or
// not the route reads it), and a database that cannot serve at the
// moment a 503 with Retry-After.
var everyAnswer = map[string]string{"400": "Malformed", "422": "Unprocessable", "503": "Unavailable"}

// withEveryAnswer is op with the everyAnswer responses it does not list
// itself.
func withEveryAnswer(op json.RawMessage) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(op, &m); err != nil {
		return nil, fmt.Errorf("openapi: an operation: %w", err)
	}
	responses := map[string]json.RawMessage{}
	if raw, ok := m["responses"]; ok {
		if err := json.Unmarshal(raw, &responses); err != nil {
			return nil, fmt.Errorf("openapi: an operation's responses: %w", err)
		}
	}
	for status, name := range everyAnswer {
		if _, ok := responses[status]; !ok {
			responses[status] = json.RawMessage(`{"$ref":"#/components/responses/` + name + `"}`)
		}
	}
	var err error
	if m["responses"], err = json.Marshal(responses); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// prefixOperationID is op with its operationId led by prefix in camel
// case.
func prefixOperationID(op json.RawMessage, prefix string) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(op, &m); err != nil {
		return nil, fmt.Errorf("openapi: an operation: %w", err)
	}
	var id string
	if err := json.Unmarshal(m["operationId"], &id); err != nil || id == "" {
		return op, nil
	}
	var lead strings.Builder
	upper := false
	for _, r := range prefix {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
			if upper && lead.Len() > 0 {
				r = unicode.ToUpper(r)
			}
			lead.WriteRune(r)
			upper = false
		default:
			upper = true
		}
	}
	if lead.Len() == 0 {
		return op, nil
	}
	id = lead.String() + strings.ToUpper(id[:1]) + id[1:]
	m["operationId"], _ = json.Marshal(id)
	return json.Marshal(m)
}
