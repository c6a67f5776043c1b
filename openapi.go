package groundwork

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
)

// OpenAPI is an OpenAPI 3.1 document, or a handler's part of one: the
// operations of the routes it mounts, under the prefix it was given, and
// the components they use. Each JSON handler describes itself with an
// OpenAPI method; a host merges the parts of what it mounted into one
// document with [NewOpenAPI] and [OpenAPI.Merge], and serves it:
//
//	doc := groundwork.NewOpenAPI("Shop API", "1.0.0")
//	if err := doc.Merge(colours.OpenAPI(), forms.OpenAPI()); err != nil { ... }
//	mux.Handle("GET /openapi.json", doc)
//
// Operations and components are kept as JSON, as written.
type OpenAPI struct {
	OpenAPI string       `json:"openapi"`
	Info    OpenAPIInfo  `json:"info"`
	Tags    []OpenAPITag `json:"tags,omitempty"`
	// Paths holds each path's operations by lower-case method.
	Paths map[string]map[string]json.RawMessage `json:"paths"`
	// Webhooks holds the requests the API sends (OpenAPI 3.1's top-level
	// webhooks): each event by name, its operation by lower-case method.
	Webhooks   map[string]map[string]json.RawMessage `json:"webhooks,omitempty"`
	Components OpenAPIComponents                     `json:"components"`
}

// OpenAPIInfo is the document's info object.
type OpenAPIInfo struct {
	Title       string `json:"title"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
}

// OpenAPITag names a group of operations (a domain).
type OpenAPITag struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// OpenAPIComponents are the reusable parts operations refer to.
type OpenAPIComponents struct {
	Schemas         map[string]json.RawMessage `json:"schemas,omitempty"`
	Responses       map[string]json.RawMessage `json:"responses,omitempty"`
	Parameters      map[string]json.RawMessage `json:"parameters,omitempty"`
	SecuritySchemes map[string]json.RawMessage `json:"securitySchemes,omitempty"`
}

// OpenAPIVersion is the version of the OpenAPI specification the
// documents follow.
const OpenAPIVersion = "3.1.0"

// NewOpenAPI returns an empty document titled title, at version.
func NewOpenAPI(title, version string) *OpenAPI {
	return &OpenAPI{OpenAPI: OpenAPIVersion, Info: OpenAPIInfo{Title: title, Version: version},
		Paths: map[string]map[string]json.RawMessage{}}
}

// Merge adds parts to d: their operations, tags and components. Two
// parts describing the same method on the same path, or components of
// one name that differ, are an error (two handlers mounted at one
// prefix); components they share as written are kept once.
func (d *OpenAPI) Merge(parts ...*OpenAPI) error {
	if d.Paths == nil {
		d.Paths = map[string]map[string]json.RawMessage{}
	}
	for _, p := range parts {
		if p == nil {
			continue
		}
		for path, ops := range p.Paths {
			if d.Paths[path] == nil {
				d.Paths[path] = map[string]json.RawMessage{}
			}
			for method, op := range ops {
				if _, ok := d.Paths[path][method]; ok {
					return fmt.Errorf("groundwork: openapi: %s %s is described twice", strings.ToUpper(method), path)
				}
				d.Paths[path][method] = op
			}
		}
		for name, ops := range p.Webhooks {
			if d.Webhooks == nil {
				d.Webhooks = map[string]map[string]json.RawMessage{}
			}
			if d.Webhooks[name] == nil {
				d.Webhooks[name] = map[string]json.RawMessage{}
			}
			for method, op := range ops {
				if _, ok := d.Webhooks[name][method]; ok {
					return fmt.Errorf("groundwork: openapi: the webhook %s is described twice", name)
				}
				d.Webhooks[name][method] = op
			}
		}
		for _, t := range p.Tags {
			if !slices.ContainsFunc(d.Tags, func(have OpenAPITag) bool { return have.Name == t.Name }) {
				d.Tags = append(d.Tags, t)
			}
		}
		for _, c := range []struct {
			kind     string
			dst, src *map[string]json.RawMessage
		}{
			{"schema", &d.Components.Schemas, &p.Components.Schemas},
			{"response", &d.Components.Responses, &p.Components.Responses},
			{"parameter", &d.Components.Parameters, &p.Components.Parameters},
			{"security scheme", &d.Components.SecuritySchemes, &p.Components.SecuritySchemes},
		} {
			if err := mergeComponents(c.kind, c.dst, *c.src); err != nil {
				return err
			}
		}
	}
	return nil
}

func mergeComponents(kind string, dst *map[string]json.RawMessage, src map[string]json.RawMessage) error {
	if len(src) == 0 {
		return nil
	}
	if *dst == nil {
		*dst = map[string]json.RawMessage{}
	}
	for _, name := range slices.Sorted(maps.Keys(src)) {
		have, ok := (*dst)[name]
		if ok && !sameJSON(have, src[name]) {
			return fmt.Errorf("groundwork: openapi: the %s %q is described twice, differently", kind, name)
		}
		(*dst)[name] = src[name]
	}
	return nil
}

// sameJSON reports whether a and b are the same JSON, spacing aside.
func sameJSON(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// OpenAPIPath is a route pattern's path as an OpenAPI document writes
// it: "/forms/{$}" is "/forms/", "/files/{path...}" is "/files/{path}".
func OpenAPIPath(pattern string) string {
	p := strings.ReplaceAll(pattern, "{$}", "")
	return strings.ReplaceAll(p, "...}", "}")
}

// ServeHTTP answers the document as JSON.
func (d *OpenAPI) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	body, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(append(body, '\n'))
}
