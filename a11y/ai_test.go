package a11y_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	colorful "github.com/lucasb-eyer/go-colorful"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/a11y"
	"github.com/groundwork-go/groundwork/a11y/a11yai"
	"github.com/groundwork-go/groundwork/internal/apitest"
)

// provider is an httptest server speaking one provider's wire protocol:
// OpenAI chat completions, Anthropic messages or Ollama chat. It answers
// with answer, or misbehaves as told, and records what it was sent.
type provider struct {
	kind   a11y.Provider
	server *httptest.Server

	mu       sync.Mutex
	answer   string
	status   int           // non-zero: answer this status instead
	drop     bool          // close the connection without answering
	delay    time.Duration // wait this long (or until the client gives up)
	requests []providerRequest
}

type providerRequest struct {
	path   string
	header http.Header
	body   map[string]any
}

func newProvider(t *testing.T, kind a11y.Provider) *provider {
	t.Helper()
	p := &provider{kind: kind}
	p.server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.server.Close)
	return p
}

func (p *provider) set(answer string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.answer, p.status, p.drop, p.delay = answer, 0, false, 0
}

func (p *provider) calls() []providerRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]providerRequest(nil), p.requests...)
}

func (p *provider) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	p.mu.Lock()
	p.requests = append(p.requests, providerRequest{path: r.URL.Path, header: r.Header.Clone(), body: body})
	answer, status, drop, delay := p.answer, p.status, p.drop, p.delay
	p.mu.Unlock()

	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	if drop {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if status != 0 {
		w.WriteHeader(status)
		fmt.Fprint(w, `{"error":{"type":"server_error","message":"upstream exploded"}}`)
		return
	}
	var reply any
	switch p.kind {
	case a11y.ProviderOpenAI:
		reply = map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": body["model"],
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": answer}, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}
	case a11y.ProviderAnthropic:
		reply = map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": body["model"],
			"content":     []any{map[string]any{"type": "text", "text": answer}},
			"stop_reason": "end_turn", "stop_sequence": nil, "usage": map[string]any{"input_tokens": 10, "output_tokens": 5}}
	case a11y.ProviderOllama:
		reply = map[string]any{"model": body["model"], "created_at": "2026-11-22T10:00:00Z",
			"message": map[string]any{"role": "assistant", "content": answer}, "done": true}
	}
	_ = json.NewEncoder(w).Encode(reply)
}

// baseURL is what the langchaingo client needs for this provider.
func (p *provider) baseURL() string {
	if p.kind == a11y.ProviderOllama {
		return p.server.URL
	}
	return p.server.URL + "/v1"
}

// prompt is the user message the provider received in call i.
func (p *provider) prompt(t *testing.T, i int) string {
	t.Helper()
	req := p.calls()[i]
	msgs := req.body["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	switch c := last["content"].(type) {
	case string:
		return c
	case []any:
		return c[0].(map[string]any)["text"].(string)
	}
	t.Fatalf("no prompt in %v", req.body)
	return ""
}

// system is the system prompt the provider received in call i.
func (p *provider) system(t *testing.T, i int) string {
	t.Helper()
	body := p.calls()[i].body
	if s, ok := body["system"].(string); ok {
		return s
	}
	for _, m := range body["messages"].([]any) {
		if mm := m.(map[string]any); mm["role"] == "system" {
			if s, ok := mm["content"].(string); ok {
				return s
			}
			return mm["content"].([]any)[0].(map[string]any)["text"].(string)
		}
	}
	return ""
}

const aiToken = "ai-token"

type aiBundle struct {
	provider *provider
	http     *httpBundle
}

// setupAI serves the AI endpoints on a provider of kind. opts, when
// given, replaces the defaults: kind as the provider, with a key and the
// test server as its address.
func setupAI(t *testing.T, kind a11y.Provider, opts *a11yai.Options) *aiBundle {
	t.Helper()
	p := newProvider(t, kind)
	o := a11yai.Options{AIOptions: a11y.AIOptions{Provider: kind}, APIKey: "sk-test", BaseURL: p.baseURL()}
	if opts != nil {
		o = *opts
		o.BaseURL = p.baseURL()
	}
	svc := newService(t)
	ai, err := a11yai.NewAI(svc, &o)
	require.NoError(t, err)
	h, err := a11y.NewHandler(svc, &a11y.HandlerOptions{Prefix: "/api/v1/a11y", AI: ai,
		Tokens: tokens{aiToken: {"a11y:ai"}, "other": {"forms:*"}}})
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/api/v1/a11y/", apitest.Documented(t, h))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &aiBundle{provider: p, http: &httpBundle{svc: svc, server: srv}}
}

// withKey is o with the test key, for setupAI.
func withKey(o a11y.AIOptions) *a11yai.Options {
	return &a11yai.Options{AIOptions: o, APIKey: "sk-test"}
}

func (b *aiBundle) post(t *testing.T, feature, body string) reply {
	t.Helper()
	return b.http.post(t, "/api/v1/a11y/ai/"+feature, body, "Authorization", "Bearer "+aiToken)
}

const contrastAnswer = `{"explanation":"Grey on grey is hard to read.","suggested_alternatives":[` +
	`{"fg":"#000000","bg":"#ffffff","delta_from_original":0.3},{"fg":"#888888","bg":"#999999","delta_from_original":0.1},{"fg":"not-a-hex","bg":"#ffffff"}]}`

func TestAIProvidersSpeakTheirProtocols(t *testing.T) {
	t.Parallel()
	for _, kind := range []a11y.Provider{a11y.ProviderOpenAI, a11y.ProviderAnthropic, a11y.ProviderOllama} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			b := setupAI(t, kind, nil)
			b.provider.set(contrastAnswer)
			r := b.post(t, "contrast-explanation", `{"foreground":"#888888","background":"#999999"}`)
			require.Equal(t, 200, r.status, r.body)
			var out struct {
				Data a11y.ContrastExplanation `json:"data"`
			}
			require.NoError(t, json.Unmarshal([]byte(r.body), &out))
			require.Equal(t, "Grey on grey is hard to read.", out.Data.Explanation)
			require.Equal(t, 1.24, out.Data.CurrentRatio)
			require.Equal(t, 4.5, out.Data.RequiredRatio)
			require.Equal(t, "#000000", out.Data.SuggestedAlternatives[0].Fg)
			require.Equal(t, 21.0, out.Data.SuggestedAlternatives[0].Ratio)

			calls := b.provider.calls()
			require.Len(t, calls, 1)
			req := calls[0]
			switch kind {
			case a11y.ProviderOpenAI:
				require.Equal(t, "/v1/chat/completions", req.path)
				require.Equal(t, "Bearer sk-test", req.header.Get("Authorization"))
				require.Equal(t, map[string]any{"type": "json_object"}, req.body["response_format"])
			case a11y.ProviderAnthropic:
				require.Equal(t, "/v1/messages", req.path)
				require.Equal(t, "sk-test", req.header.Get("X-Api-Key"))
				require.Equal(t, "2023-06-01", req.header.Get("Anthropic-Version"))
				require.Equal(t, "claude-haiku-4-5", req.body["model"], "the contrast feature's default model")
				require.EqualValues(t, 1024, req.body["max_tokens"])
			case a11y.ProviderOllama:
				require.Equal(t, "/api/chat", req.path)
				require.Equal(t, "json", req.body["format"])
			}
			require.Contains(t, b.provider.system(t, 0), "explain colour contrast failures")
			require.Equal(t, "Foreground: #888888\nBackground: #999999\nContext: body_text\nMeasured contrast ratio: 1.24\nRequired ratio: 4.50", b.provider.prompt(t, 0))
		})
	}
}

func TestAIModelChoice(t *testing.T) {
	t.Parallel()
	b := setupAI(t, a11y.ProviderAnthropic, withKey(a11y.AIOptions{Provider: a11y.ProviderAnthropic, Model: "house-model", Models: map[a11y.Feature]string{a11y.FeatureAriaSuggestion: "aria-model"}}))
	b.provider.set(`{"role":null,"attributes":[],"keyboard":[],"notes":[]}`)
	require.Equal(t, 200, b.post(t, "aria-suggestion", `{"markup":"<button>x</button>","behavior":"opens a menu"}`).status)
	b.provider.set(`{"issues":[]}`)
	require.Equal(t, 200, b.post(t, "content-analysis", `{"content":"hello"}`).status)
	calls := b.provider.calls()
	require.Equal(t, "aria-model", calls[0].body["model"])
	require.Equal(t, "house-model", calls[1].body["model"])
}

func TestContrastExplanationVectors(t *testing.T) {
	t.Parallel()
	type alt struct {
		fg, bg string
		ratio  float64
	}
	decode := func(t *testing.T, body string) (a11y.ContrastExplanation, []alt) {
		var out struct {
			Data a11y.ContrastExplanation `json:"data"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &out))
		var alts []alt
		for _, a := range out.Data.SuggestedAlternatives {
			alts = append(alts, alt{a.Fg, a.Bg, a.Ratio})
			require.GreaterOrEqual(t, a.DeltaFromOriginal, 0.0)
			require.LessOrEqual(t, a.DeltaFromOriginal, 1.0)
		}
		return out.Data, alts
	}

	t.Run("NamesAndLenientColours", func(t *testing.T) {
		t.Parallel()
		b := setupAI(t, a11y.ProviderOpenAI, nil)
		b.provider.set(`{"explanation":"x","suggested_alternatives":[{"fg":"gray-600","bg":"white"},{"fg":"#ABC","bg":"#000","delta_from_original":7},` +
			`{"fg":"#767676","bg":"#fff","delta_from_original":-2},{"fg":"#777777","bg":"#ffffff","delta_from_original":"0.25"},` +
			`{"fg":"rgb(0,0,0)","bg":"hsl(0,0%,100%)","delta_from_original":null},"junk"]}`)
		r := b.post(t, "contrast-explanation", `{"foreground":"gray-400","background":"WHITE","context":"large_text","brand_palette":[" #3b82f6 ","","blue-700",5]}`)
		require.Equal(t, 200, r.status, r.body)
		data, alts := decode(t, r.body)
		require.Equal(t, 2.54, data.CurrentRatio)
		require.Equal(t, 3.0, data.RequiredRatio)
		require.Equal(t, []alt{{"#4b5563", "#ffffff", 7.56}, {"#aabbcc", "#000000", 10.69}, {"#767676", "#ffffff", 4.54},
			{"#777777", "#ffffff", 4.48}, {"#000000", "#ffffff", 21}}, alts)
		require.Equal(t, "Foreground: #9ca3af\nBackground: #ffffff\nContext: large_text\nMeasured contrast ratio: 2.54\nRequired ratio: 3.00\n\n"+
			"Brand palette (preferred sources for suggestions): #3b82f6, blue-700", b.provider.prompt(t, 0))
		require.Contains(t, r.body, `"required_ratio":3,`)
	})

	t.Run("FailingAlternativesDroppedAndLocalOnesAdded", func(t *testing.T) {
		t.Parallel()
		b := setupAI(t, a11y.ProviderAnthropic, nil)
		b.provider.set(`{"suggested_alternatives":[{"fg":"#5a5a5a","bg":"#000000"},{"fg":"#595959","bg":"#000000"}]}`)
		r := b.post(t, "contrast-explanation", `{"foreground":"#777","background":"#fff","context":"ui"}`)
		require.Equal(t, 200, r.status, r.body)
		data, alts := decode(t, r.body)
		require.Equal(t, "", data.Explanation, "missing explanation reads as empty")
		require.Equal(t, 4.48, data.CurrentRatio)
		require.Len(t, alts, a11y.MinAlternatives)
		require.Equal(t, alt{"#5a5a5a", "#000000", 3.04}, alts[0], "3.0448 passes 3; 2.998 does not")
		require.GreaterOrEqual(t, alts[1].ratio, 3.0)
	})

	t.Run("LocalAlternativesKeepTheHue", func(t *testing.T) {
		t.Parallel()
		b := setupAI(t, a11y.ProviderOpenAI, nil)
		b.provider.set(`{"explanation":"x","suggested_alternatives":[]}`)
		r := b.post(t, "contrast-explanation", `{"foreground":"#3b82f6","background":"#ffffff"}`)
		require.Equal(t, 200, r.status, r.body)
		data, alts := decode(t, r.body)
		require.Len(t, alts, a11y.MinAlternatives)
		orig := hueOf(t, "#3b82f6")
		for i, a := range alts {
			ratio, err := b.http.svc.ContrastRatio(a.fg, a.bg)
			require.NoError(t, err)
			require.GreaterOrEqual(t, ratio, 4.5, "every alternative passes")
			if a.fg != "#3b82f6" {
				require.InDelta(t, orig, hueOf(t, a.fg), 3, "the foreground keeps its hue")
			}
			require.Positive(t, data.SuggestedAlternatives[i].DeltaFromOriginal)
		}
		require.LessOrEqual(t, data.SuggestedAlternatives[0].DeltaFromOriginal, data.SuggestedAlternatives[1].DeltaFromOriginal, "nearest first")
	})

	t.Run("UnresolvableColourIs422WithoutACall", func(t *testing.T) {
		t.Parallel()
		b := setupAI(t, a11y.ProviderOpenAI, nil)
		r := b.post(t, "contrast-explanation", `{"foreground":"not-a-real-color","background":"#ffffff"}`)
		require.Equal(t, 422, r.status)
		require.JSONEq(t, "{\"error\":\"AI feature \\\"a11y.contrast_explanation\\\" could not run: `foreground` (not-a-real-color) and `background` (#ffffff) must be hex codes or recognised Tailwind color names.\"}", r.body)
		require.Empty(t, b.provider.calls())
	})
}

func TestContentAnalysisVectors(t *testing.T) {
	t.Parallel()
	b := setupAI(t, a11y.ProviderAnthropic, nil)
	b.provider.set("```json\n" + `{"issues":[` +
		`{"location":"link[0]","issue_type":"ambiguous-link-text","severity":"error","suggested_fix":"Say where the link goes."},` +
		`{"location":"","issue_type":"x","severity":"info","suggested_fix":"y"},` +
		`{"location":"content","issue_type":"jargon","severity":"bogus","suggested_fix":"Spell out OKRs."},` +
		`{"location":"content","issue_type":"no-severity"},` +
		`"a bare string",` +
		`{"location":"heading[1]","issue_type":"vague-heading","severity":"ERROR","suggested_fix":5}]}` + "\n```")
	r := b.post(t, "content-analysis", `{"content":"Click here to read more about our OKRs.","structure":{"links":[{"text":"Click here","href":"/okrs"}],"headings":{"a":{"level":2,"text":"Intro"},"b":{"level":4,"text":"More"}},"other":[1]}}`)
	require.Equal(t, 200, r.status, r.body)
	require.JSONEq(t, `{"data":{"issues":[
		{"location":"link[0]","issue_type":"ambiguous-link-text","severity":"error","suggested_fix":"Say where the link goes."},
		{"location":"content","issue_type":"jargon","severity":"warning","suggested_fix":"Spell out OKRs."},
		{"location":"content","issue_type":"no-severity","severity":"warning","suggested_fix":""},
		{"location":"heading[1]","issue_type":"vague-heading","severity":"warning","suggested_fix":"5"}]}}`, r.body)
	require.Equal(t, "Structural summary (JSON):\n{\n"+
		`    "links": [`+"\n"+
		`        {`+"\n"+
		`            "text": "Click here",`+"\n"+
		`            "href": "/okrs"`+"\n"+
		`        }`+"\n"+
		`    ],`+"\n"+
		`    "headings": [`+"\n"+
		`        {`+"\n"+
		`            "level": 2,`+"\n"+
		`            "text": "Intro"`+"\n"+
		`        },`+"\n"+
		`        {`+"\n"+
		`            "level": 4,`+"\n"+
		`            "text": "More"`+"\n"+
		`        }`+"\n"+
		`    ]`+"\n"+
		"}\n\nContent:\nClick here to read more about our OKRs.", b.provider.prompt(t, 0))

	b.provider.set(`{"nothing":true}`)
	r = b.post(t, "content-analysis", `{"content":"Fine text."}`)
	require.JSONEq(t, `{"data":{"issues":[]}}`, r.body)
	require.Equal(t, "Content:\nFine text.", b.provider.prompt(t, 1))
	b.provider.set(`[1, 2]`)
	r = b.post(t, "content-analysis", `{"content":"Fine text."}`)
	require.JSONEq(t, `{"data":{"issues":[]}}`, r.body, "a top-level array reads as nothing found")
}

func TestAriaSuggestionVectors(t *testing.T) {
	t.Parallel()
	b := setupAI(t, a11y.ProviderOpenAI, nil)
	b.provider.set(`{"role":"  switch ","attributes":[{"name":"","value":"x"},"nope",{"name":"aria-label","value":true},{"name":"aria-checked","value":"false","rationale":"Reflects the state."}],` +
		`"keyboard":["Space toggles","","  Enter toggles  ",7],"notes":"not-a-list"}`)
	r := b.post(t, "aria-suggestion", `{"markup":"   <div class=\"toggle\"></div>  ","behavior":"toggles notifications","framework":"livewire",`+
		`"existing_aria":{"aria-label":"Notifications","aria-pressed":false,"tabindex":0,"5":"x","aria-x":["a"]}}`)
	require.Equal(t, 200, r.status, r.body)
	require.JSONEq(t, `{"data":{"role":"switch","attributes":[{"name":"aria-label","value":"1","rationale":""},{"name":"aria-checked","value":"false","rationale":"Reflects the state."}],`+
		`"keyboard":["Space toggles","Enter toggles"],"notes":[]}}`, r.body)
	require.Equal(t, "Behavior:\ntoggles notifications\n\nMarkup:\n<div class=\"toggle\"></div>\n\nFramework: livewire\n\n"+
		`Existing ARIA attributes:`+"\n"+`{"aria-label":"Notifications","aria-pressed":"","tabindex":"0"}`, b.provider.prompt(t, 0))

	b.provider.set(`{"role":"","attributes":[],"keyboard":[],"notes":["Use a native button."]}`)
	r = b.post(t, "aria-suggestion", `{"markup":"<div></div>","behavior":"submits"}`)
	require.JSONEq(t, `{"data":{"role":null,"attributes":[],"keyboard":[],"notes":["Use a native button."]}}`, r.body)
}

func TestAIFailures(t *testing.T) {
	t.Parallel()
	const generic = `{"error":"The AI provider is currently unavailable."}`
	body := `{"foreground":"#888","background":"#999"}`

	t.Run("MalformedJSON", func(t *testing.T) {
		t.Parallel()
		for _, answer := range []string{`{"explanation": "cut off`, `not json at all`, `"a string"`, `42`, "```\n{oops}\n```"} {
			b := setupAI(t, a11y.ProviderOpenAI, nil)
			b.provider.set(answer)
			r := b.post(t, "contrast-explanation", body)
			require.Equal(t, 502, r.status, answer)
			require.JSONEq(t, generic, r.body)
		}
	})
	t.Run("ProviderHTTP500", func(t *testing.T) {
		t.Parallel()
		for _, kind := range []a11y.Provider{a11y.ProviderOpenAI, a11y.ProviderAnthropic} {
			b := setupAI(t, kind, nil)
			b.provider.mu.Lock()
			b.provider.status = 500
			b.provider.mu.Unlock()
			r := b.post(t, "contrast-explanation", body)
			require.Equal(t, 502, r.status, kind)
			require.JSONEq(t, generic, r.body)
			require.NotContains(t, r.body, kind, "never names the provider")
			require.NotContains(t, r.body, "exploded")
		}
	})
	t.Run("ConnectionDropped", func(t *testing.T) {
		t.Parallel()
		for _, kind := range []a11y.Provider{a11y.ProviderOpenAI, a11y.ProviderAnthropic} {
			b := setupAI(t, kind, nil)
			b.provider.mu.Lock()
			b.provider.drop = true
			b.provider.mu.Unlock()
			r := b.post(t, "content-analysis", `{"content":"x"}`)
			require.Equal(t, 502, r.status, kind)
			require.JSONEq(t, generic, r.body)
		}
	})
	t.Run("SlowProviderTimesOut", func(t *testing.T) {
		t.Parallel()
		b := setupAI(t, a11y.ProviderAnthropic, withKey(a11y.AIOptions{Provider: a11y.ProviderAnthropic, Timeout: 150 * time.Millisecond}))
		b.provider.mu.Lock()
		b.provider.delay = 10 * time.Second
		b.provider.mu.Unlock()
		start := time.Now()
		r := b.post(t, "aria-suggestion", `{"markup":"<div></div>","behavior":"x"}`)
		require.Equal(t, 502, r.status)
		require.JSONEq(t, generic, r.body)
		require.Less(t, time.Since(start), 5*time.Second, "the timeout, not the provider, ended the call")
	})
	t.Run("NoKeyIs503", func(t *testing.T) {
		t.Parallel()
		b := setupAI(t, a11y.ProviderAnthropic, &a11yai.Options{AIOptions: a11y.AIOptions{Provider: a11y.ProviderAnthropic}})
		r := b.post(t, "contrast-explanation", body)
		require.Equal(t, 503, r.status)
		require.JSONEq(t, `{"error":"No AI credentials configured for feature \"a11y.contrast_explanation\"."}`, r.body)
		none := setupAI(t, a11y.ProviderOpenAI, &a11yai.Options{APIKey: "sk-test"})
		require.Equal(t, 503, none.post(t, "content-analysis", `{"content":"x"}`).status)
		require.Empty(t, b.provider.calls())
		require.Empty(t, none.provider.calls())
	})
	t.Run("DisabledIs403", func(t *testing.T) {
		t.Parallel()
		b := setupAI(t, a11y.ProviderOpenAI, withKey(a11y.AIOptions{Provider: a11y.ProviderOpenAI, Disabled: []a11y.Feature{a11y.FeatureContrastExplanation}}))
		b.provider.set(`{"issues":[]}`)
		r := b.post(t, "contrast-explanation", body)
		require.Equal(t, 403, r.status)
		require.JSONEq(t, `{"error":"AI feature \"a11y.contrast_explanation\" is disabled."}`, r.body)
		require.Equal(t, 200, b.post(t, "content-analysis", `{"content":"x"}`).status, "the other features stay on")
		require.Len(t, b.provider.calls(), 1)
	})
	t.Run("TokenRequired", func(t *testing.T) {
		t.Parallel()
		b := setupAI(t, a11y.ProviderOpenAI, nil)
		r := b.http.post(t, "/api/v1/a11y/ai/content-analysis", `{"content":"x"}`)
		require.Equal(t, 401, r.status)
		require.JSONEq(t, `{"message":"Unauthenticated."}`, r.body)
		r = b.http.post(t, "/api/v1/a11y/ai/content-analysis", `{"content":"x"}`, "Authorization", "Bearer other")
		require.Equal(t, 403, r.status, "a token without a11y:ai")
		require.Empty(t, b.provider.calls())
	})
	t.Run("BadInputIs422WithoutACall", func(t *testing.T) {
		t.Parallel()
		b := setupAI(t, a11y.ProviderOpenAI, nil)
		cases := []struct{ feature, body, want string }{
			{"content-analysis", `{"content":"   "}`, `{"message":"The content field is required.","errors":{"content":["The content field is required."]}}`},
			{"content-analysis", `{"content":"x","structure":[1]}`, `{"message":"The structure field must be an object.","errors":{"structure":["The structure field must be an object."]}}`},
			{"content-analysis", `{"content":"` + strings.Repeat("a", a11y.MaxContentLength+1) + `"}`, `{"message":"The content field must not be greater than 200000 characters.","errors":{"content":["The content field must not be greater than 200000 characters."]}}`},
			{"aria-suggestion", `{"markup":"<b>"}`, `{"message":"The behavior field is required.","errors":{"behavior":["The behavior field is required."]}}`},
			{"aria-suggestion", `{"markup":1,"behavior":"x","existing_aria":"aria-label"}`, `{"message":"The markup field must be a string. (and 1 more error)","errors":{"markup":["The markup field must be a string."],"existing_aria":["The existing aria field must be an object."]}}`},
			{"contrast-explanation", `{"foreground":"#fff"}`, `{"message":"The background field is required.","errors":{"background":["The background field is required."]}}`},
			{"contrast-explanation", `{"foreground":"#fff","background":"#000","context":"poster"}`, `{"message":"The selected context is invalid.","errors":{"context":["The selected context is invalid."]}}`},
			{"contrast-explanation", `{"foreground":"#fff","background":"#000","brand_palette":"#fff"}`, `{"message":"The brand palette field must be an array.","errors":{"brand_palette":["The brand palette field must be an array."]}}`},
		}
		for _, c := range cases {
			r := b.post(t, c.feature, c.body)
			require.Equal(t, 422, r.status, c.body)
			require.JSONEq(t, c.want, r.body)
		}
		r := b.post(t, "contrast-explanation", `{"foreground":`)
		require.Equal(t, 400, r.status)
		require.Empty(t, b.provider.calls())
	})
}

func TestNewAIOptions(t *testing.T) {
	t.Parallel()
	_, err := a11y.NewAI(nil, &a11y.AIOptions{Provider: "gemini"})
	require.ErrorContains(t, err, "unknown provider")
	_, err = a11yai.NewAI(nil, &a11yai.Options{AIOptions: a11y.AIOptions{Provider: "gemini"}, APIKey: "x"})
	require.ErrorContains(t, err, "unknown provider")
	_, err = a11y.NewAI(nil, &a11y.AIOptions{Disabled: []a11y.Feature{"a11y.nope"}})
	require.ErrorContains(t, err, "unknown feature")
	_, err = a11y.NewAI(nil, &a11y.AIOptions{Timeout: -time.Second})
	require.Error(t, err)
	ai, err := a11y.NewAI(nil, &a11y.AIOptions{Disabled: []a11y.Feature{a11y.FeatureAriaSuggestion}})
	require.NoError(t, err)
	require.False(t, ai.Enabled(a11y.FeatureAriaSuggestion))
	require.True(t, ai.Enabled(a11y.FeatureContentAnalysis))
	_, err = a11y.NewHandler(nil, &a11y.HandlerOptions{AI: ai})
	require.Error(t, err, "AI endpoints need a token verifier")
}

// hueOf is a colour's OkLch hue in degrees.
func hueOf(t *testing.T, hex string) float64 {
	t.Helper()
	c, err := colorful.Hex(hex)
	require.NoError(t, err)
	_, _, h := c.OkLch()
	return h
}
