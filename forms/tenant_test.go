package forms_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// A token bound to a tenant makes forms that are its tenant's; another
// tenant's token finds none of them (404 on every route, absent from its
// list), a token of no tenant sees all, and the public routes serve
// anyone.
func TestFormsOfATenant(t *testing.T) {
	t.Parallel()
	b := setup(t)
	require.Equal(t, http.StatusCreated, b.api(t, "POST", "", map[string]any{"name": "Quote"}, "acme").status)
	require.Equal(t, http.StatusCreated, b.api(t, "POST", "/quote/fields", map[string]any{"type": "text", "label": "Name"}, "acme").status)
	require.Equal(t, http.StatusCreated, b.api(t, "POST", "/quote/fields", map[string]any{"type": "file", "label": "Plan",
		"field_config": map[string]any{"allowed_types": []any{"txt"}, "max_size": 8}}, "acme").status)
	require.Equal(t, http.StatusCreated, b.api(t, "POST", "", map[string]any{"name": "Careers"}, "globex").status)

	r := b.submit(t, "quote", part{name: "name", content: "Ann"}, part{name: "plan", filename: "plan.txt", content: "hello"})
	require.Equal(t, http.StatusCreated, r.status, r.body)
	sub := b.api(t, "GET", "/quote/submissions", nil, "acme").json(t)["data"].([]any)[0].(map[string]any)
	upload := sub["uploads"].([]any)[0].(map[string]any)
	download := fmt.Sprintf("/submissions/%v/uploads/%v/download", sub["id"], upload["id"])
	require.Equal(t, http.StatusOK, b.api(t, "GET", download, nil, "acme").status)

	names := func(token string) []string {
		var out []string
		for _, f := range b.api(t, "GET", "", nil, token).json(t)["data"].([]any) {
			out = append(out, f.(map[string]any)["slug"].(string))
		}
		return out
	}
	require.Equal(t, []string{"quote"}, names("acme"))
	require.Equal(t, []string{"careers"}, names("globex"))
	require.ElementsMatch(t, []string{"quote", "careers"}, names("admin"), "a token of no tenant sees every tenant's")

	for _, route := range []struct{ method, path string }{{"GET", "/quote"}, {"PUT", "/quote"}, {"DELETE", "/quote"},
		{"GET", "/quote/fields"}, {"POST", "/quote/fields"}, {"GET", "/quote/steps"}, {"GET", "/quote/submissions"},
		{"GET", "/quote/submissions/export"}, {"GET", fmt.Sprintf("/quote/submissions/%v", sub["id"])}, {"GET", "/quote/summary"},
		{"GET", "/quote/partials"}, {"GET", "/quote/notifications"}, {"POST", "/quote/invitations"}, {"GET", download}} {
		r := b.api(t, route.method, route.path, map[string]any{"name": "Taken", "type": "text", "label": "X"}, "globex")
		require.Equal(t, http.StatusNotFound, r.status, "%s %s: %s", route.method, route.path, r.body)
	}
	// Nothing of acme's changed; the public routes serve anyone.
	require.Equal(t, "Quote", b.api(t, "GET", "/quote", nil, "acme").json(t)["data"].(map[string]any)["name"])
	require.Equal(t, http.StatusOK, b.request(t, "GET", "/api/v1/forms/quote/render", "globex", "", nil).status)
}
