package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
)

// notDescribedYet are the JSON handlers whose routes the document does
// not describe yet. Describing one means taking it off this list: the
// test below fails on a handler that is on it and describes itself, and
// on one that is not and does not.
var notDescribedYet = []string{}

// GET /openapi.json is OpenAPI 3.1 (by the official schema) and
// describes every route of each handler that describes itself, with its
// method; the live answers to each operation's example request, and to
// broken ones, match the document.
func TestOpenAPIDocument(t *testing.T) {
	t.Parallel()
	e := env{"GROUNDWORK_SECRET_KEY": testSecretKey, "GROUNDWORK_AI_PROVIDER": "openai", "GROUNDWORK_AI_API_KEY": "sk-test",
		"GROUNDWORK_AI_BASE_URL": fakeOpenAI(t, `{"issues": []}`).URL, "GROUNDWORK_GOOGLE_CLIENT_ID": "cid", "GROUNDWORK_GOOGLE_CLIENT_SECRET": "secret",
		"GROUNDWORK_GOOGLE_REDIRECT_URL": "http://127.0.0.1:8080/google/auth/callback"}
	cfg, err := parseServeFlags([]string{"--uploads", t.TempDir()}, e.get)
	require.NoError(t, err)
	db := storetest.Open(t, store.SQLite, migrations...)
	a, err := newApp(cfg, db, webhooks.GenerateSecretKey(), slog.New(slog.DiscardHandler))
	require.NoError(t, err)

	w := httptest.NewRecorder()
	a.handler.ServeHTTP(w, httptest.NewRequest("GET", "/openapi.json", nil))
	require.Equal(t, 200, w.Code)
	require.Equal(t, "application/json", w.Header().Get("Content-Type"))
	var doc groundwork.OpenAPI
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &doc))
	require.Equal(t, "3.1.0", doc.OpenAPI)
	// The deliveries the server sends are in its webhooks, each event's
	// body with its data's schema (validated with the rest just below).
	compact := func(raw json.RawMessage) string {
		var b bytes.Buffer
		require.NoError(t, json.Compact(&b, raw))
		return b.String()
	}
	for _, event := range []string{"form.submitted", "booking.created", "order.placed"} {
		op, ok := doc.Webhooks[event]["post"]
		require.True(t, ok, "the webhook %s is described", event)
		require.Contains(t, compact(op), `"const":"`+event+`"`)
	}
	require.Contains(t, compact(doc.Webhooks["form.submitted"]["post"]), `"submission_id":{"type":"integer"}`)
	check := apitest.New(t, &doc)
	// The page names shared parameters by their own names.
	w = httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/docs/api", nil)
	req.Header.Set("Accept", "text/html")
	a.handler.ServeHTTP(w, req)
	require.Equal(t, 200, w.Code)
	require.Contains(t, w.Body.String(), `<dt><code>days</code> (query)</dt><dd>The last N days: 1 to 730`)

	// Every route of a describing handler is described; the others are
	// exactly those on the list.
	require.Contains(t, a.jsonHandlers, "google connection", "every handler is mounted")
	var undescribed []string
	for name, h := range a.jsonHandlers {
		if _, ok := h.(describer); !ok {
			undescribed = append(undescribed, name)
			continue
		}
		for _, r := range h.(interface{ Routes() []string }).Routes() {
			method, path, _ := strings.Cut(r, " ")
			_, ok := doc.Paths[groundwork.OpenAPIPath(path)][strings.ToLower(method)]
			require.True(t, ok, "%s: %s is not described", name, r)
		}
	}
	require.ElementsMatch(t, notDescribedYet, undescribed, "take a handler off notDescribedYet once it describes itself")
	// And every route GET / lists that is not a page, with its method.
	for _, r := range routes {
		if slices.Contains(a.pageRoutes, r) {
			continue
		}
		method, path, _ := strings.Cut(r, " ")
		_, ok := doc.Paths[groundwork.OpenAPIPath(path)][strings.ToLower(method)]
		require.True(t, ok, "GET / lists %s, which the document does not describe", r)
	}

	// Each operation's example, sent as it is, and two broken bodies:
	// every answer matches its documented status and schema.
	token, _, err := a.tokens.CreateToken(context.Background(), auth.NewToken{Name: "all", Abilities: []string{"*"}})
	require.NoError(t, err)
	server := httptest.NewServer(check.Handler(a.handler))
	t.Cleanup(server.Close)
	sent, answered := 0, 0
	for path, ops := range doc.Paths {
		for method, raw := range ops {
			var op struct {
				RequestBody struct {
					Content map[string]struct {
						Example json.RawMessage `json:"example"`
					} `json:"content"`
				} `json:"requestBody"`
			}
			require.NoError(t, json.Unmarshal(raw, &op))
			if strings.Contains(path, "{") {
				continue // examples of routes with parameters come from each package's tests
			}
			example := op.RequestBody.Content["application/json"].Example
			for _, body := range []string{string(example), `{}`, `{"broken": `} {
				req, err := http.NewRequest(strings.ToUpper(method), server.URL+path, strings.NewReader(body))
				require.NoError(t, err)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+token)
				res, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				require.NotEqual(t, 500, res.StatusCode, "%s %s %s", method, path, body)
				sent++
				if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
					answered++
				}
			}
		}
	}
	require.Positive(t, sent)
	require.Positive(t, answered)
	if apitest.Validating { // not under -race: the race build has no validator
		require.Equal(t, answered, check.Checked(), "every JSON answer was checked")
	}
}
