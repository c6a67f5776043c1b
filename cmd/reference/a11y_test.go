package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

func TestA11yCommands(t *testing.T) {
	t.Parallel()
	code, out, _ := runCmd(t, env{}, "a11y", "check", "#767676", "white")
	require.Equal(t, 0, code)
	require.Contains(t, out, "#767676 on #ffffff: 4.54:1 (4.542224959605253)")
	require.Regexp(t, `AA\s+pass`, out)
	require.Regexp(t, `AAA\s+fail`, out)

	code, out, _ = runCmd(t, env{}, "a11y", "text-color", "blue-500")
	require.Equal(t, 0, code)
	require.Equal(t, "#000000\n", out)
	code, out, _ = runCmd(t, env{}, "a11y", "text-color", "--tint", "blue-500")
	require.Equal(t, 0, code)
	require.Equal(t, "#000074\n", out)

	code, out, _ = runCmd(t, env{}, "a11y", "audit", "#000", "#fff")
	require.Equal(t, 0, code)
	require.Contains(t, out, "2 of 2 pairs pass AA.")
	code, out, _ = runCmd(t, env{}, "a11y", "audit", "#000", "#fff", "#777")
	require.Equal(t, 0, code, "failures alone do not fail without --fail")
	require.Regexp(t, `#ffffff\s+#777777\s+4.48\s+fail`, out)
	code, _, _ = runCmd(t, env{}, "a11y", "audit", "--fail", "#000", "#fff", "#777")
	require.Equal(t, 1, code)
	code, _, _ = runCmd(t, env{}, "a11y", "audit", "#000", "#fff", "--fail")
	require.Equal(t, 0, code)

	for _, args := range [][]string{{"a11y"}, {"a11y", "paint"}, {"a11y", "check", "#000"}, {"a11y", "check", "#000", "nope"},
		{"a11y", "text-color"}, {"a11y", "audit", "#000"}, {"a11y", "audit", "--loud", "#000", "#fff"}} {
		code, _, stderr := runCmd(t, env{}, args...)
		require.Equal(t, 2, code, "%v: %s", args, stderr)
	}
}

// fakeOpenAI answers chat completions with a fixed JSON answer.
func fakeOpenAI(t *testing.T, answer string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "1", "object": "chat.completion", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": answer}, "finish_reason": "stop"}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func postJSON(t *testing.T, url, token, body string) (int, string) {
	t.Helper()
	return request(t, http.MethodPost, url, token, body)
}

func TestServeA11y(t *testing.T) {
	t.Parallel()
	provider := fakeOpenAI(t, `{"issues":[{"location":"content","issue_type":"jargon","severity":"info","suggested_fix":"Explain it."}]}`)
	dsn := storetest.DSN(t, store.SQLite)
	e := env{"GROUNDWORK_AI_PROVIDER": "openai", "GROUNDWORK_AI_API_KEY": "sk-test", "GROUNDWORK_AI_BASE_URL": provider.URL + "/v1",
		"GROUNDWORK_AI_DISABLED": "a11y.contrast_explanation"}
	cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", dsn, "--log-level", "error"}, e.get)
	require.NoError(t, err)
	base := startServeConfig(t, cfg)

	for _, prefix := range []string{"/api/a11y", "/api/v1/a11y"} {
		code, body := postJSON(t, base+prefix+"/contrast-check", "", `{"foreground":"#767676","background":"#FFFFFF"}`)
		require.Equal(t, 200, code)
		require.Equal(t, `{"ratio":4.542224959605253,"is_accessible":true}`, body)
	}
	code, _ := postJSON(t, base+"/api/a11y/ai/content-analysis", "", `{"content":"x"}`)
	require.Equal(t, 404, code, "the AI endpoints live under /api/v1 only")

	c, out, stderr := runCmd(t, env{"GROUNDWORK_DB": dsn}, "token", "create", "--name", "ai", "--ability", "a11y:ai")
	require.Equal(t, 0, c, stderr)
	token := strings.TrimSpace(out)
	code, body := postJSON(t, base+"/api/v1/a11y/ai/content-analysis", token, `{"content":"Our OKRs."}`)
	require.Equal(t, 200, code, body)
	require.JSONEq(t, `{"data":{"issues":[{"location":"content","issue_type":"jargon","severity":"info","suggested_fix":"Explain it."}]}}`, body)
	code, body = postJSON(t, base+"/api/v1/a11y/ai/contrast-explanation", token, `{"foreground":"#888","background":"#999"}`)
	require.Equal(t, 403, code)
	require.JSONEq(t, `{"error":"AI feature \"a11y.contrast_explanation\" is disabled."}`, body)
	code, _ = postJSON(t, base+"/api/v1/a11y/ai/content-analysis", "", `{"content":"x"}`)
	require.Equal(t, 401, code)
}

func TestServeWithoutAIAnswers503(t *testing.T) {
	t.Parallel()
	dsn := storetest.DSN(t, store.SQLite)
	cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", dsn, "--log-level", "error"}, env{}.get)
	require.NoError(t, err)
	base := startServeConfig(t, cfg)
	c, out, _ := runCmd(t, env{"GROUNDWORK_DB": dsn}, "token", "create", "--name", "ai", "--ability", "*")
	require.Equal(t, 0, c)
	code, body := postJSON(t, base+"/api/v1/a11y/ai/aria-suggestion", strings.TrimSpace(out), `{"markup":"<div></div>","behavior":"x"}`)
	require.Equal(t, 503, code)
	require.JSONEq(t, `{"error":"No AI credentials configured for feature \"a11y.aria_suggestion\"."}`, body)
}

func TestAIConfigErrors(t *testing.T) {
	t.Parallel()
	for _, e := range []env{{"GROUNDWORK_AI_PROVIDER": "gemini"}, {"GROUNDWORK_AI_DISABLED": "a11y.everything"}} {
		code, _, stderr := runCmd(t, e, "--addr", "127.0.0.1:0")
		require.Equal(t, 2, code, stderr)
		require.Contains(t, stderr, "GROUNDWORK_AI_")
	}
}
