package api

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/groundwork-go/groundwork"
)

// openAPICommon are the components every part may refer to: the error
// envelopes, the answers every route may give (400, 401, 403, 404, 413,
// 415, 422, 429), and the security schemes.
//
//go:embed openapi_common.json
var openAPICommon []byte

// OpenAPIPart is a handler's part of the document: from its domain's
// description (an OpenAPI document whose paths are the handler's route
// patterns without its prefix), the operations of routes (the handler's
// Routes(), "METHOD /prefix/path"), under their full paths, with the
// common components. A route the description lacks is left out, for the
// test that compares the two to find; an operation of no route too (an
// optional route not mounted).
func OpenAPIPart(description []byte, prefix string, routes []string) (*groundwork.OpenAPI, error) {
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
