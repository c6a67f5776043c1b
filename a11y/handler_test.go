package a11y_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/a11y"
	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/internal/testkit"
)

type tokens = testkit.Tokens

type httpBundle struct {
	svc    *a11y.Service
	server *httptest.Server
}

func setupHTTP(t *testing.T, opts *a11y.HandlerOptions) *httpBundle {
	t.Helper()
	svc := newService(t)
	h, err := a11y.NewHandler(svc, opts)
	require.NoError(t, err)
	prefix := a11y.PrefixDefault
	if opts != nil && opts.Prefix != "" {
		prefix = opts.Prefix
	}
	mux := http.NewServeMux()
	mux.Handle(prefix+"/", apitest.Documented(t, h))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &httpBundle{svc: svc, server: srv}
}

type reply struct {
	status int
	header http.Header
	body   string
}

func (b *httpBundle) do(t *testing.T, method, path, body string, headers ...string) reply {
	t.Helper()
	req, err := http.NewRequest(method, b.server.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return reply{res.StatusCode, res.Header, strings.TrimSpace(string(out))}
}

func (b *httpBundle) post(t *testing.T, path, body string, headers ...string) reply {
	t.Helper()
	return b.do(t, http.MethodPost, path, body, headers...)
}

func TestContrastCheckEndpoint(t *testing.T) {
	t.Parallel()
	b := setupHTTP(t, nil)
	cases := map[string]string{
		`{"foreground":"#767676","background":"#FFFFFF"}`: `{"ratio":4.542224959605253,"is_accessible":true}`,
		`{"foreground":"#000000","background":"#FFFFFF"}`: `{"ratio":21,"is_accessible":true}`,
		`{"foreground":"#777777","background":"#ffffff"}`: `{"ratio":4.478089453577214,"is_accessible":false}`,
		`{"foreground":" #000 ","background":"#fff"}`:     `{"ratio":21,"is_accessible":true}`,
	}
	for in, want := range cases {
		r := b.post(t, "/api/a11y/contrast-check", in)
		require.Equal(t, 200, r.status, r.body)
		require.Equal(t, want, r.body, "the ratio's JSON text, to the last digit")
		require.Equal(t, "60", r.header.Get("X-RateLimit-Limit"))
	}
}

func TestGenerateTextColorEndpoint(t *testing.T) {
	t.Parallel()
	b := setupHTTP(t, nil)
	for in, want := range map[string]string{
		"#000000": "#FFFFFF", "#3b82f6": "#000000", "rgb(1,2,3)": "#FFFFFF", "RGB( 1 , 2 , 3 )": "#FFFFFF",
		"hsl(210, 50%, 40%)": "#FFFFFF", "blue-500": "#000000", "SLATE-900": "#FFFFFF", "rgb(300,0,0)": "#000000",
	} {
		r := b.post(t, "/api/a11y/generate-text-color", fmt.Sprintf(`{"background_color":%q}`, in))
		require.Equal(t, 200, r.status, "%s: %s", in, r.body)
		require.Equal(t, fmt.Sprintf(`{"text_color":%q}`, want), r.body, in)
	}
	r := b.post(t, "/api/a11y/generate-text-color", `{"background_color":"blue-550"}`)
	require.Equal(t, 422, r.status)
	require.JSONEq(t, `{"message":"The background color field format is invalid.","errors":{"background_color":["The background color field format is invalid."]}}`, r.body)
}

func TestAuditPaletteEndpoint(t *testing.T) {
	t.Parallel()
	b := setupHTTP(t, nil)
	r := b.post(t, "/api/a11y/audit-palette", `{"colors":["#000000","#FFFFFF"]}`)
	require.Equal(t, 200, r.status)
	require.Equal(t, `{"results":[{"foreground":"#000000","background":"#FFFFFF","ratio":21,"is_accessible":true},{"foreground":"#FFFFFF","background":"#000000","ratio":21,"is_accessible":true}]}`, r.body)
	r = b.post(t, "/api/a11y/audit-palette", `{"colors":["#fff"]}`)
	require.Equal(t, `{"results":[]}`, r.body)
	r = b.post(t, "/api/a11y/audit-palette", `{"colors":["#000000","#FFFFFF","#767676","#000000"]}`)
	var out struct {
		Results []a11y.PaletteAuditRow `json:"results"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.body), &out))
	require.Len(t, out.Results, 10)

	many := make([]string, a11y.MaxPaletteColors)
	for i := range many {
		many[i] = fmt.Sprintf("#%06x", i)
	}
	body, _ := json.Marshal(map[string]any{"colors": many})
	r = b.post(t, "/api/a11y/audit-palette", string(body))
	require.Equal(t, 200, r.status)
	require.NoError(t, json.Unmarshal([]byte(r.body), &out))
	require.Len(t, out.Results, 256*255)
	body, _ = json.Marshal(map[string]any{"colors": append(many, "#fff")})
	r = b.post(t, "/api/a11y/audit-palette", string(body))
	require.Equal(t, 422, r.status)
	require.JSONEq(t, `{"message":"The colors field must not have more than 256 items.","errors":{"colors":["The colors field must not have more than 256 items."]}}`, r.body)
}

func TestColourEndpointValidation(t *testing.T) {
	t.Parallel()
	b := setupHTTP(t, nil)
	cases := []struct {
		path, body string
		want       string
	}{
		{"/api/a11y/contrast-check", `{}`,
			`{"message":"The foreground field is required. (and 1 more error)","errors":{"foreground":["The foreground field is required."],"background":["The background field is required."]}}`},
		{"/api/a11y/contrast-check", `{"foreground":"","background":"   "}`,
			`{"message":"The foreground field is required. (and 1 more error)","errors":{"foreground":["The foreground field is required."],"background":["The background field is required."]}}`},
		{"/api/a11y/contrast-check", `{"foreground":123,"background":"#fff"}`,
			`{"message":"The foreground field must be a string. (and 1 more error)","errors":{"foreground":["The foreground field must be a string.","The foreground field format is invalid."]}}`},
		{"/api/a11y/contrast-check", `{"foreground":"blueish","background":"ffffff"}`,
			`{"message":"The foreground field format is invalid. (and 1 more error)","errors":{"foreground":["The foreground field format is invalid."],"background":["The background field format is invalid."]}}`},
		{"/api/a11y/contrast-check", `{"foreground":["#fff"],"background":{"a":1}}`,
			`{"message":"The foreground field must be a string. (and 3 more errors)","errors":{"foreground":["The foreground field must be a string.","The foreground field format is invalid."],"background":["The background field must be a string.","The background field format is invalid."]}}`},
		{"/api/a11y/generate-text-color", `{"background_color":null}`,
			`{"message":"The background color field is required.","errors":{"background_color":["The background color field is required."]}}`},
		{"/api/a11y/generate-text-color", `{"background_color":true}`,
			`{"message":"The background color field must be a string. (and 1 more error)","errors":{"background_color":["The background color field must be a string.","The background color field format is invalid."]}}`},
		{"/api/a11y/audit-palette", `{"colors":[]}`,
			`{"message":"The colors field is required.","errors":{"colors":["The colors field is required."]}}`},
		{"/api/a11y/audit-palette", `{"colors":"#fff"}`,
			`{"message":"The colors field must be an array.","errors":{"colors":["The colors field must be an array."]}}`},
		{"/api/a11y/audit-palette", `{"colors":["#fff",2,"nope",null,""]}`,
			`{"message":"The colors.1 field must be a string. (and 4 more errors)","errors":{"colors.1":["The colors.1 field must be a string.","The colors.1 field format is invalid."],"colors.2":["The colors.2 field format is invalid."],"colors.3":["The colors.3 field is required."],"colors.4":["The colors.4 field is required."]}}`},
	}
	for _, c := range cases {
		r := b.post(t, c.path, c.body)
		require.Equal(t, 422, r.status, c.body)
		require.Equal(t, "application/json", r.header.Get("Content-Type"))
		require.JSONEq(t, c.want, r.body, c.body)
	}
}

// TestContrastCheckFormatsAndLevels: contrast-check takes what
// generate-text-color takes, and a level; hex answers stay as they were.
func TestContrastCheckFormatsAndLevels(t *testing.T) {
	t.Parallel()
	b := setupHTTP(t, nil)
	same := func(fg, bg string) string {
		f, ok := a11y.ResolveColor(fg)
		require.True(t, ok, fg)
		g, ok := a11y.ResolveColor(bg)
		require.True(t, ok, bg)
		ratio, err := a11y.ContrastRatio(f, g)
		require.NoError(t, err)
		return fmt.Sprintf(`{"ratio":%s,"is_accessible":%t}`, strconv.FormatFloat(ratio, 'g', -1, 64), a11y.CheckContrastColor(f, g))
	}
	for _, c := range []struct{ fg, bg, want string }{
		{"#767676", "#FFFFFF", `{"ratio":4.542224959605253,"is_accessible":true}`},
		{"rgb(118, 118, 118)", "white", `{"ratio":4.542224959605253,"is_accessible":true}`},
		{"#000", "hsl(0, 0%, 100%)", `{"ratio":21,"is_accessible":true}`},
		{"blue-500", "gray-50", same("blue-500", "gray-50")},
		{"RGB(59,130,246)", "#fff", same("#3b82f6", "#fff")},
	} {
		r := b.post(t, "/api/a11y/contrast-check", fmt.Sprintf(`{"foreground":%q,"background":%q}`, c.fg, c.bg))
		require.Equal(t, 200, r.status, r.body)
		require.JSONEq(t, c.want, r.body, "%s on %s", c.fg, c.bg)
	}
	for _, c := range []struct{ level, want string }{
		{"aa", `{"ratio":4.542224959605253,"is_accessible":true,"level":"aa"}`},
		{"aaa", `{"ratio":4.542224959605253,"is_accessible":false,"level":"aaa"}`},
		{"AA-Large", `{"ratio":4.542224959605253,"is_accessible":true,"level":"aa-large"}`},
		{"aaa-large", `{"ratio":4.542224959605253,"is_accessible":true,"level":"aaa-large"}`},
		{"non-text", `{"ratio":4.542224959605253,"is_accessible":true,"level":"non-text"}`},
	} {
		r := b.post(t, "/api/a11y/contrast-check", `{"foreground":"#767676","background":"#fff","level":"`+c.level+`"}`)
		require.Equal(t, 200, r.status, r.body)
		require.JSONEq(t, c.want, r.body, c.level)
	}
	r := b.post(t, "/api/a11y/contrast-check", `{"foreground":"#767676","background":"#fff","level":"aaaa"}`)
	require.Equal(t, 422, r.status)
	require.JSONEq(t, `{"message":"The selected level is invalid.","errors":{"level":["The selected level is invalid."]}}`, r.body)
	r = b.post(t, "/api/a11y/contrast-check", `{"foreground":"rgb(1,2)","background":"#fff","level":7}`)
	require.Equal(t, 422, r.status)
	require.JSONEq(t, `{"message":"The foreground field format is invalid. (and 1 more error)","errors":{"foreground":["The foreground field format is invalid."],"level":["The level field must be a string."]}}`, r.body)
	r = b.post(t, "/api/a11y/contrast-check", `{"foreground":"#000","background":"#fff","level":null}`)
	require.Equal(t, 200, r.status, "a null level is no level")
	require.JSONEq(t, `{"ratio":21,"is_accessible":true}`, r.body)
}

func TestColourEndpointErrors(t *testing.T) {
	t.Parallel()
	b := setupHTTP(t, nil)
	r := b.post(t, "/api/a11y/contrast-check", `{"foreground":`)
	require.Equal(t, 400, r.status)
	r = b.post(t, "/api/a11y/contrast-check", `["#fff"]`)
	require.Equal(t, 400, r.status)
	r = b.post(t, "/api/a11y/contrast-check", `{"foreground":"#fff"}`, "Content-Type", "text/plain")
	require.Equal(t, 415, r.status)
	r = b.post(t, "/api/a11y/contrast-check", `{"foreground":"`+strings.Repeat("a", 2<<20)+`"}`)
	require.Equal(t, 413, r.status)
	require.JSONEq(t, `{"message":"The request body must not be larger than 1 MiB."}`, r.body)

	r = b.do(t, http.MethodGet, "/api/a11y/contrast-check", "")
	require.Equal(t, 405, r.status)
	require.Equal(t, "POST", r.header.Get("Allow"))
	require.JSONEq(t, `{"message":"The GET method is not supported for route api/a11y/contrast-check. Supported methods: POST."}`, r.body)
	r = b.post(t, "/api/a11y/nothing", `{}`)
	require.Equal(t, 404, r.status)
	require.JSONEq(t, `{"message":"Not Found."}`, r.body)
	r = b.post(t, "/api/a11y/ai/content-analysis", `{"content":"x"}`)
	require.Equal(t, 404, r.status, "no AI endpoints without AI options")
}

func TestColourEndpointsThrottle(t *testing.T) {
	t.Parallel()
	b := setupHTTP(t, nil)
	for i := range 60 {
		path := []string{"/api/a11y/contrast-check", "/api/a11y/generate-text-color", "/api/a11y/audit-palette"}[i%3]
		r := b.post(t, path, `{"foreground":"#000","background":"#fff","background_color":"#fff","colors":["#fff"]}`)
		require.Equal(t, 200, r.status, "the budget is shared across the routes")
		require.Equal(t, fmt.Sprint(59-i), r.header.Get("X-RateLimit-Remaining"))
	}
	r := b.post(t, "/api/a11y/contrast-check", `{"foreground":"#000","background":"#fff"}`)
	require.Equal(t, 429, r.status)
	require.JSONEq(t, `{"message":"Too Many Attempts."}`, r.body)
	require.NotEmpty(t, r.header.Get("Retry-After"))
	require.NotEmpty(t, r.header.Get("X-RateLimit-Reset"))
	require.Equal(t, "0", r.header.Get("X-RateLimit-Remaining"))
}

func TestColourEndpointsCanRequireToken(t *testing.T) {
	t.Parallel()
	b := setupHTTP(t, &a11y.HandlerOptions{RequireToken: true, Tokens: tokens{"good": {"forms:view"}}, Prefix: "/api/v1/a11y"})
	r := b.post(t, "/api/v1/a11y/contrast-check", `{"foreground":"#000","background":"#fff"}`)
	require.Equal(t, 401, r.status)
	require.JSONEq(t, `{"message":"Unauthenticated."}`, r.body)
	r = b.post(t, "/api/v1/a11y/contrast-check", `{"foreground":"#000","background":"#fff"}`, "Authorization", "Bearer good")
	require.Equal(t, 200, r.status, "any valid token will do")

	_, err := a11y.NewHandler(nil, &a11y.HandlerOptions{RequireToken: true})
	require.Error(t, err)
	_, err = a11y.NewHandler(nil, &a11y.HandlerOptions{Prefix: "nope"})
	require.Error(t, err)
}

func TestEndpointsUseTheServiceHooks(t *testing.T) {
	t.Parallel()
	b := setupHTTP(t, nil)
	b.svc.OnContrastThreshold(func(float64, a11y.Level) float64 { return 4.4 })
	b.svc.OnTextColorGenerated(func(string, string, bool) string { return "#123456" })
	b.svc.OnContrastColorMap(func(m map[string]string) map[string]string {
		m["brand"] = "#7c3aed"
		return m
	})
	r := b.post(t, "/api/a11y/contrast-check", `{"foreground":"#777777","background":"#ffffff"}`)
	require.Equal(t, `{"ratio":4.478089453577214,"is_accessible":true}`, r.body)
	r = b.post(t, "/api/a11y/generate-text-color", `{"background_color":"brand"}`)
	require.Equal(t, 200, r.status, r.body)
	require.Equal(t, `{"text_color":"#123456"}`, r.body)
}

// No input to any colour endpoint panics or answers 5xx.
func FuzzColourEndpoints(f *testing.F) {
	for _, s := range []string{`{"foreground":"#fff","background":"#000"}`, `{"background_color":"hsl(1,2%,3%)"}`,
		`{"colors":["#fff","#000",1,null]}`, `{"colors":{"a":"#fff"}}`, `[]`, `{"foreground":"#ffffff\n","background":"\u0000"}`} {
		f.Add(s)
	}
	h, err := a11y.NewHandler(nil, &a11y.HandlerOptions{HTTPOptions: groundwork.HTTPOptions{RateLimiter: unlimited{}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, path := range []string{"/api/a11y/contrast-check", "/api/a11y/generate-text-color", "/api/a11y/audit-palette"} {
			r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code >= 500 {
				t.Fatalf("%s %q: %d %s", path, body, w.Code, w.Body)
			}
			if !json.Valid(w.Body.Bytes()) {
				t.Fatalf("%s %q: not JSON: %s", path, body, w.Body)
			}
		}
	})
}

// No input to ResolveColor or the text-colour functions panics, and a
// resolved colour is always canonical hex.
func FuzzResolveColor(f *testing.F) {
	for _, s := range []string{"#fff", "rgb(1,2,3)", "hsl(360,100%,50%)", "blue-500", " #ABC ", "rgb(999999999999999999999,0,0)", "hsl(1,2%,3%)x", "#ffffff\n"} {
		f.Add(s)
	}
	s, err := a11y.NewService(&a11y.Options{CacheSize: 64})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in string) {
		hex, ok := s.ResolveColor(in)
		if ok && (len(hex) != 7 || hex[0] != '#' || strings.ToLower(hex) != hex) {
			t.Fatalf("%q resolved to %q", in, hex)
		}
		for _, tint := range []bool{false, true} {
			c := s.GenerateAccessibleTextColor(in, tint)
			if _, err := s.ContrastRatio(c, "#000"); err != nil {
				t.Fatalf("%q gave %q", in, c)
			}
		}
		s.CheckContrastColor(in, in)
		s.CSSVarBlackOrWhite(in)
	})
}

// unlimited is a RateLimiter that never limits, for fuzzing.
type unlimited struct{}

func (unlimited) Hit(context.Context, string, int, time.Duration) (groundwork.RateLimit, error) {
	return groundwork.RateLimit{Allowed: true, Limit: 1 << 30, Remaining: 1 << 30}, nil
}
