package main

import (
	"bytes"
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/openapi"
	"github.com/groundwork-go/groundwork/internal/web"
)

// openAPIServer describes the server's own JSON routes.
//
//go:embed openapi_server.json
var openAPIServer []byte

// serverRoutes are the server's own JSON routes.
var serverRoutes = []string{"GET /healthz", "GET /readyz", "GET /openapi.json", "GET /{$}"}

// describer is a handler that describes its JSON routes.
type describer interface {
	OpenAPI() (*groundwork.OpenAPI, error)
}

// apiDocument merges the parts of the handlers that describe
// themselves into the server's document.
func apiDocument(handlers ...describer) (*groundwork.OpenAPI, error) {
	doc := groundwork.NewOpenAPI("groundwork reference server", "1")
	doc.Info.Description = "Every JSON route the reference server mounts. Errors answer {\"message\"}, and input that breaks a rule " +
		"422 {\"message\", \"errors\"}; a spent allowance 429 with Retry-After."
	own, err := openapi.Part(openAPIServer, "", "", serverRoutes)
	if err != nil {
		return nil, err
	}
	if err := doc.Merge(own); err != nil {
		return nil, err
	}
	for _, h := range handlers {
		part, err := h.OpenAPI()
		if err != nil {
			return nil, err
		}
		if err := doc.Merge(part); err != nil {
			return nil, err
		}
	}
	return doc, nil
}

// apiDocsPage is the reference page of the document: its operations by
// tag, in path order.
type apiDocsPage struct {
	Tags []apiTag
}

type apiTag struct {
	Name, About string
	Ops         []apiOp
}

// Anchor is the tag's name as an HTML id.
func (t apiTag) Anchor() string {
	return "tag-" + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, strings.ToLower(t.Name))
}

type apiOp struct {
	Method, Path, ID, Summary, About, Auth string
	Params                                 []apiParam
	Request                                string
	Responses                              []apiResponse
}

type apiParam struct{ Name, In, About string }

type apiResponse struct{ Status, About, Example string }

// operation is what the page reads of an operation.
type operation struct {
	Tags        []string              `json:"tags"`
	OperationID string                `json:"operationId"`
	Summary     string                `json:"summary"`
	Description string                `json:"description"`
	Security    []map[string][]string `json:"security"`
	Parameters  []struct {
		Ref         string `json:"$ref"`
		Name        string `json:"name"`
		In          string `json:"in"`
		Description string `json:"description"`
		Required    bool   `json:"required"`
	} `json:"parameters"`
	RequestBody struct {
		Content map[string]struct {
			Example json.RawMessage `json:"example"`
		} `json:"content"`
	} `json:"requestBody"`
	Responses map[string]struct {
		Ref         string `json:"$ref"`
		Description string `json:"description"`
		Content     map[string]struct {
			Example json.RawMessage `json:"example"`
		} `json:"content"`
	} `json:"responses"`
}

// newAPIDocsPage lays doc out for the page.
func newAPIDocsPage(doc *groundwork.OpenAPI) (*apiDocsPage, error) {
	ops := map[string][]apiOp{} // by tag
	for _, path := range slices.Sorted(maps.Keys(doc.Paths)) {
		for _, method := range []string{"get", "post", "put", "patch", "delete"} {
			raw, ok := doc.Paths[path][method]
			if !ok {
				continue
			}
			var op operation
			if err := json.Unmarshal(raw, &op); err != nil {
				return nil, fmt.Errorf("%s %s: %w", method, path, err)
			}
			view := apiOp{Method: strings.ToUpper(method), Path: path, ID: op.OperationID, Summary: op.Summary, About: op.Description,
				Auth: authWords(op.Security)}
			for _, p := range op.Parameters {
				if p.Ref != "" { // a shared parameter: read it whole
					if err := json.Unmarshal(doc.Components.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")], &p); err != nil {
						return nil, fmt.Errorf("%s %s: parameter %s: %w", method, path, p.Ref, err)
					}
				}
				name, in, about := p.Name, p.In, p.Description
				if p.Required {
					about = strings.TrimSpace("Required. " + about)
				}
				view.Params = append(view.Params, apiParam{Name: name, In: in, About: about})
			}
			if c, ok := op.RequestBody.Content["application/json"]; ok && len(c.Example) > 0 {
				view.Request = pretty(c.Example)
			}
			for _, status := range slices.Sorted(maps.Keys(op.Responses)) {
				r := op.Responses[status]
				about := r.Description
				if r.Ref != "" {
					about = responseWords(doc, r.Ref)
				}
				res := apiResponse{Status: status, About: about}
				if c, ok := r.Content["application/json"]; ok && len(c.Example) > 0 {
					res.Example = pretty(c.Example)
				}
				view.Responses = append(view.Responses, res)
			}
			tag := "other"
			if len(op.Tags) > 0 {
				tag = op.Tags[0]
			}
			ops[tag] = append(ops[tag], view)
		}
	}
	// The document's areas in its order, each with what is mounted of it
	// (a part may name an area the host did not mount).
	page := &apiDocsPage{}
	for _, t := range doc.Tags {
		if len(ops[t.Name]) > 0 {
			page.Tags = append(page.Tags, apiTag{Name: t.Name, About: t.Description, Ops: ops[t.Name]})
			delete(ops, t.Name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(ops)) { // areas the document does not name
		page.Tags = append(page.Tags, apiTag{Name: name, Ops: ops[name]})
	}
	// The server's own routes (health, readiness, this document) last:
	// a reader comes for the domains.
	slices.SortStableFunc(page.Tags, func(a, b apiTag) int {
		return cmp.Compare(boolInt(a.Name == "server"), boolInt(b.Name == "server"))
	})
	return page, nil
}

// authWords says who may call an operation.
func authWords(security []map[string][]string) string {
	if security == nil {
		return "Public."
	}
	public, bearer, session := false, false, false
	for _, s := range security {
		if len(s) == 0 {
			public = true
		}
		_, b := s["bearerAuth"]
		_, c := s["sessionCookie"]
		bearer, session = bearer || b, session || c
	}
	switch {
	case public && bearer:
		return "Public, unless the host asks for a bearer token."
	case bearer && session:
		return "A bearer token, or a signed-in session."
	case bearer:
		return "A bearer token."
	case session:
		return "A signed-in session."
	}
	return "Public."
}

// responseWords is a shared response's description.
func responseWords(doc *groundwork.OpenAPI, ref string) string {
	var r struct {
		Description string `json:"description"`
	}
	_ = json.Unmarshal(doc.Components.Responses[strings.TrimPrefix(ref, "#/components/responses/")], &r)
	return r.Description
}

func pretty(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// apiDocsView is the API reference with the address its examples use.
type apiDocsView struct {
	*apiDocsPage
	// Origin is the site's address in the curl example: the public
	// base URL when configured, else the address the page was asked at.
	Origin string
}

// apiDocs is GET /docs/api: the document as a page, how to authenticate
// and a first request before the areas.
func (s *site) apiDocs(w http.ResponseWriter, req *http.Request) {
	origin := s.publicOrigin
	if origin == "" {
		scheme := "http"
		if req.TLS != nil {
			scheme = "https"
		}
		origin = scheme + "://" + req.Host
	}
	s.render.Render(w, req, http.StatusOK, "pages/api.html", &web.Page{Title: "API reference", Data: &apiDocsView{s.api, origin}, Wide: true})
}
