package groundwork_test

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
)

// Merge keeps shared components once and refuses two descriptions of one
// operation, or one name for two different components.
func TestOpenAPIMerge(t *testing.T) {
	t.Parallel()
	part := func(path, schema string) *groundwork.OpenAPI {
		p := groundwork.NewOpenAPI("p", "1")
		p.Tags = []groundwork.OpenAPITag{{Name: "t"}}
		p.Paths[path] = map[string]json.RawMessage{"get": json.RawMessage(`{"responses": {}}`)}
		p.Components.Schemas = map[string]json.RawMessage{"Message": json.RawMessage(schema)}
		return p
	}
	doc := groundwork.NewOpenAPI("all", "1")
	require.NoError(t, doc.Merge(part("/a", `{"type": "object"}`), part("/b", `{ "type" :"object" }`), nil))
	require.Len(t, doc.Paths, 2)
	require.Len(t, doc.Tags, 1)
	_, ok := doc.Paths["/a"]["get"]
	require.True(t, ok)
	require.ErrorContains(t, doc.Merge(part("/a", `{"type": "object"}`)), "GET /a is described twice")
	require.ErrorContains(t, doc.Merge(part("/c", `{"type": "string"}`)), `the schema "Message" is described twice, differently`)

	w := httptest.NewRecorder()
	doc.ServeHTTP(w, httptest.NewRequest("GET", "/openapi.json", nil))
	require.Equal(t, "application/json", w.Header().Get("Content-Type"))
	var back groundwork.OpenAPI
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &back))
	require.Equal(t, "3.1.0", back.OpenAPI)

	require.Equal(t, "/api/v1/forms/", groundwork.OpenAPIPath("/api/v1/forms/{$}"))
	require.Equal(t, "/files/{path}", groundwork.OpenAPIPath("/files/{path...}"))
}
