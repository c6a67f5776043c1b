package web_test

import (
	"flag"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/web"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// demoPage draws every field kind in a form, with the flash and the error
// summary above it.
const demoPage = `{{define "content"}}<h1>Demo</h1>
{{template "flash" .Flash}}{{template "error-summary" .Data.Summary}}<form method="post" action="" novalidate>
{{range .Data.Fields}}{{template "field" .}}{{end}}<button type="submit">Check</button> <button type="submit" name="ok" value="1">Save</button>
</form>
{{end}}`

type demo struct {
	Fields  []web.Field
	Summary []web.SummaryItem
}

func demoFields(withErrors bool) []web.Field {
	fields := []web.Field{
		{Type: "text", Name: "name", Label: "Name", Required: true, Value: `Ann "Annie" <b>`, Autocomplete: "name"},
		{Type: "email", Name: "email", Label: "Email", Help: "We reply here.", Value: "not-an-email", Autocomplete: "email"},
		{Type: "password", Name: "password", Label: "Password", Value: "never drawn", Autocomplete: "current-password"},
		{Type: web.TypeTextarea, Name: "message", Label: "Message", Rows: 6, Placeholder: "Say hello"},
		{Type: web.TypeSelect, Name: "topic", Label: "Topic", Options: []web.Option{{Value: "sales", Label: "Sales", Selected: true}, {Value: "support", Label: "Support"}}},
		{Type: web.TypeSelect, Name: "tags", Label: "Tags", Multiple: true, Options: []web.Option{{Value: "a", Label: "A"}, {Value: "b", Label: "B", Selected: true}}},
		{Type: web.TypeRadio, Name: "size", Label: "Size", Required: true, Help: "Pick one.", Options: []web.Option{{Value: "s", Label: "Small"}, {Value: "l", Label: "Large"}}},
		{Type: web.TypeCheckboxes, Name: "days", Label: "Days", Options: []web.Option{{Value: "mon", Label: "Monday", Selected: true}, {Value: "tue", Label: "Tuesday"}}},
		{Type: web.TypeCheckbox, Name: "terms", Label: "I agree", Required: true},
		{Type: "file", Name: "cv", Label: "CV", Accept: ".pdf,.txt", Value: "ignored"},
		{Type: "hidden", Name: "token", Value: "t<1>"},
	}
	for i := range fields {
		fields[i].ID = web.FieldID(fields[i].Name)
	}
	if withErrors {
		fields[1].Errors = []string{"The Email field must be a valid email address."}
		fields[6].Errors = []string{"The Size field is required."}
		fields[8].Errors = []string{"The I agree field must be accepted.", "Really."}
	}
	return fields
}

func newRenderer(t *testing.T, o web.Options) *web.Renderer {
	t.Helper()
	if o.Pages == nil {
		o.Pages = fstest.MapFS{"demo.html": {Data: []byte(demoPage)}}
	}
	if o.AssetPrefix == "" {
		o.AssetPrefix = "/demo/_assets"
	}
	r, err := web.New(o)
	require.NoError(t, err)
	return r
}

// demoServer serves the demo page: GET shows it (with any flash), POST
// shows it again with errors, or, when "ok" is posted, keeps a flash and
// redirects (Post/Redirect/Get).
func demoServer(t *testing.T, r *web.Renderer) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/demo/_assets/", r.Assets())
	mux.HandleFunc("/demo", func(w http.ResponseWriter, req *http.Request) {
		switch req.Method {
		case http.MethodPost:
			if req.FormValue("ok") != "" {
				r.SetFlash(w, req, "/demo", web.Flash{Kind: "success", Message: "Saved."})
				web.SeeOther(w, req, "/demo")
				return
			}
			fields := demoFields(true)
			r.Render(w, req, http.StatusUnprocessableEntity, "demo.html", &web.Page{Title: "Demo",
				Data: demo{Fields: fields, Summary: web.Summary(fields, "Please check the form.")}})
		default:
			r.Render(w, req, http.StatusOK, "demo.html", &web.Page{Title: "Demo", Flash: r.TakeFlash(w, req, "/demo"),
				Data: demo{Fields: demoFields(false)}})
		}
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, req *http.Request) {
		r.Error(w, req, http.StatusNotFound, web.ErrorPage{Heading: "Page not found", Message: "There is nothing here.", Link: "/demo", LinkText: "Go to the demo"})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to write %s", path)
	require.Equal(t, string(want), got, "%s differs (go test -update rewrites it)", path)
}

func get(t *testing.T, client *http.Client, method, url string, body io.Reader, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, string(b)
}

// The helpers rendered, as golden HTML: every field kind, then the same
// with errors and the summary, and the error page.
func TestGoldenPages(t *testing.T) {
	t.Parallel()
	srv := demoServer(t, newRenderer(t, web.Options{Key: []byte("k")}))
	stylesheet := ""
	for _, c := range []struct{ method, path, golden string }{
		{"GET", "/demo", "fields.html"},
		{"POST", "/demo", "fields-errors.html"},
		{"GET", "/missing", "error.html"},
	} {
		res, body := get(t, srv.Client(), c.method, srv.URL+c.path, nil)
		require.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
		golden(t, c.golden, body)
		stylesheet = body[strings.Index(body, `href="/demo/_assets/`)+6:]
		stylesheet = stylesheet[:strings.IndexByte(stylesheet, '"')]
	}

	// What the golden files pin, said out loud.
	_, body := get(t, srv.Client(), "POST", srv.URL+"/demo", nil)
	require.Contains(t, body, `<input type="email" id="f-email" name="email" value="not-an-email" autocomplete="email" aria-describedby="f-email-help f-email-error" aria-invalid="true">`)
	require.Contains(t, body, `<p class="error" id="f-email-error">`)
	require.Contains(t, body, `<li><a href="#f-email">The Email field must be a valid email address.</a></li>`)
	require.Contains(t, body, `<li>Please check the form.</li>`)
	require.Contains(t, body, `role="alert" aria-labelledby="error-summary-title" tabindex="-1"`)
	require.Contains(t, body, `<fieldset class="choices" aria-describedby="f-size-help f-size-error">`)
	require.Contains(t, body, `value="Ann &#34;Annie&#34; &lt;b&gt;"`, "values are escaped")
	require.NotContains(t, body, "never drawn", "a password is never sent back")
	// One script, optional, from the page's own origin; none inline.
	require.Equal(t, 1, strings.Count(body, "<script"))
	script := regexp.MustCompile(`<script src="(/demo/_assets/groundwork\.[0-9a-f]{12}\.js)" defer></script>`).FindStringSubmatch(body)
	require.NotNil(t, script, "the script tag")
	res, js := get(t, srv.Client(), "GET", srv.URL+script[1], nil)
	require.Equal(t, 200, res.StatusCode)
	require.Equal(t, "text/javascript; charset=utf-8", res.Header.Get("Content-Type"))
	require.Contains(t, js, "data-copy")

	// The stylesheet: a hashed name, cached for a year, revalidated by ETag.
	require.Regexp(t, `^/demo/_assets/groundwork\.[0-9a-f]{12}\.css$`, stylesheet)
	res, css := get(t, srv.Client(), "GET", srv.URL+stylesheet, nil)
	require.Equal(t, 200, res.StatusCode)
	require.Equal(t, "text/css; charset=utf-8", res.Header.Get("Content-Type"))
	require.Equal(t, "public, max-age=31536000, immutable", res.Header.Get("Cache-Control"))
	require.Contains(t, css, ".error-summary")
	res, _ = get(t, srv.Client(), "GET", srv.URL+stylesheet, nil, "If-None-Match", res.Header.Get("ETag"))
	require.Equal(t, 304, res.StatusCode)
	res, _ = get(t, srv.Client(), "GET", srv.URL+"/demo/_assets/groundwork.000000000000.css", nil)
	require.Equal(t, 404, res.StatusCode)
}

func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	srv := demoServer(t, newRenderer(t, web.Options{}))
	for _, path := range []string{"/demo", "/missing"} {
		res, _ := get(t, srv.Client(), "GET", srv.URL+path, nil)
		h := res.Header
		require.Equal(t, "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
			h.Get("Content-Security-Policy"), path)
		require.Equal(t, "nosniff", h.Get("X-Content-Type-Options"))
		require.Equal(t, "same-origin", h.Get("Referrer-Policy"))
		require.Equal(t, "DENY", h.Get("X-Frame-Options"))
		require.Equal(t, "no-store", h.Get("Cache-Control"))
	}
	h := http.Header{}
	web.SetSecurityHeaders(h, "https://example.test")
	require.Contains(t, h.Get("Content-Security-Policy"), "form-action 'self' https://example.test;")
}

// A host's files replace the layout, a page or the stylesheet by name.
func TestOverride(t *testing.T) {
	t.Parallel()
	override := fstest.MapFS{
		web.LayoutTemplate: {Data: []byte(`{{define "layout"}}<!doctype html><html lang="{{.Lang}}"><title>Host: {{.Title}}</title><main>{{template "content" .}}</main></html>{{end}}`)},
		"demo.html":        {Data: []byte(`{{define "content"}}<h1>Host demo</h1>{{end}}`)},
		web.Stylesheet:     {Data: []byte(`main{color:red}`)},
	}
	r := newRenderer(t, web.Options{Override: override, Lang: "de"})
	srv := demoServer(t, r)
	_, body := get(t, srv.Client(), "GET", srv.URL+"/demo", nil)
	require.Equal(t, `<!doctype html><html lang="de"><title>Host: Demo</title><main><h1>Host demo</h1></main></html>`, body)
	_, css := get(t, srv.Client(), "GET", srv.URL+r.Stylesheet(), nil)
	require.Equal(t, `main{color:red}`, css)

	_, err := web.New(web.Options{AssetPrefix: "/a", Override: fstest.MapFS{web.LayoutTemplate: {Data: []byte(`{{define "other"}}{{end}}`)}}})
	require.ErrorContains(t, err, `no "layout"`)
	_, err = web.New(web.Options{AssetPrefix: "/a", Pages: fstest.MapFS{"p.html": {Data: []byte(`<p>no content block</p>`)}}})
	require.ErrorContains(t, err, `p.html defines no "content"`)
	_, err = web.New(web.Options{AssetPrefix: "/a", Pages: fstest.MapFS{"p.html": {Data: []byte(`{{define "content"}}{{.Nope`)}}})
	require.Error(t, err)
	_, err = web.New(web.Options{AssetPrefix: "a"})
	require.Error(t, err)
}

// A successful POST redirects (303) with a flash; the page it leads to
// shows the flash once; a refresh shows it no more and posts nothing.
func TestPostRedirectGetWithFlash(t *testing.T) {
	t.Parallel()
	r := newRenderer(t, web.Options{})
	srv := demoServer(t, r)
	client := srv.Client()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	client.Jar = jar
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	res, _ := get(t, client, "POST", srv.URL+"/demo", strings.NewReader("ok=1"), "Content-Type", "application/x-www-form-urlencoded")
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, "/demo", res.Header.Get("Location"))
	cookie := res.Cookies()[0]
	require.True(t, cookie.HttpOnly)
	require.Equal(t, http.SameSiteLaxMode, cookie.SameSite)
	require.Equal(t, "/demo", cookie.Path)

	_, body := get(t, client, "GET", srv.URL+"/demo", nil)
	require.Contains(t, body, `<div class="notice" role="status"><p>Saved.</p></div>`)
	_, body = get(t, client, "GET", srv.URL+"/demo", nil)
	require.NotContains(t, body, "Saved.", "shown once")

	// Forged, or signed by another key: ignored.
	other := newRenderer(t, web.Options{Key: []byte("another key")})
	rec := httptest.NewRecorder()
	other.SetFlash(rec, httptest.NewRequest("POST", "/demo", nil), "/demo", web.Flash{Kind: "success", Message: "Forged."})
	forged := rec.Result().Cookies()[0]
	for _, value := range []string{forged.Value, "garbage", "a.b", strings.Replace(forged.Value, ".", "x.", 1)} {
		_, body = get(t, srv.Client(), "GET", srv.URL+"/demo", nil, "Cookie", "gw_flash="+value)
		require.NotContains(t, body, "Forged.")
		require.NotContains(t, body, `class="notice"`)
	}
	// For another path: ignored.
	rec = httptest.NewRecorder()
	r.SetFlash(rec, httptest.NewRequest("POST", "/demo", nil), "/elsewhere", web.Flash{Kind: "success", Message: "Elsewhere."})
	_, body = get(t, srv.Client(), "GET", srv.URL+"/demo", nil, "Cookie", "gw_flash="+rec.Result().Cookies()[0].Value)
	require.NotContains(t, body, "Elsewhere.")
}

func TestFlashExpires(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		r := newRenderer(t, web.Options{})
		rec := httptest.NewRecorder()
		r.SetFlash(rec, httptest.NewRequest("POST", "/p", nil), "/p", web.Flash{Kind: "error", Message: "Late."})
		cookie := rec.Result().Cookies()[0]
		take := func() *web.Flash {
			req := httptest.NewRequest("GET", "/p", nil)
			req.AddCookie(cookie)
			return r.TakeFlash(httptest.NewRecorder(), req, "/p")
		}
		time.Sleep(web.FlashLifetime - time.Second)
		require.Equal(t, &web.Flash{Kind: "error", Message: "Late."}, take())
		time.Sleep(2 * time.Second)
		require.Nil(t, take())
	})
}

// Protect refuses a state-changing request from another origin with a
// 403 page, and lets the page's own origin and trusted ones through.
func TestProtect(t *testing.T) {
	t.Parallel()
	r := newRenderer(t, web.Options{})
	ok := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { _, _ = io.WriteString(w, "done") })
	h, err := r.Protect(ok, "https://admin.example.test")
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cases := []struct {
		method string
		header []string
		want   int
	}{
		{"POST", []string{"Sec-Fetch-Site", "cross-site"}, 403},
		{"POST", []string{"Sec-Fetch-Site", "same-site"}, 403},
		{"POST", []string{"Origin", "https://evil.example"}, 403},
		{"DELETE", []string{"Sec-Fetch-Site", "cross-site"}, 403},
		{"POST", []string{"Sec-Fetch-Site", "same-origin"}, 200},
		{"POST", []string{"Origin", srv.URL}, 200},
		{"POST", []string{"Origin", "https://admin.example.test"}, 200},
		{"POST", nil, 200}, // not a browser: nothing to go on, as net/http decides
		{"GET", []string{"Sec-Fetch-Site", "cross-site"}, 200},
	}
	for _, c := range cases {
		res, body := get(t, srv.Client(), c.method, srv.URL+"/x", nil, c.header...)
		require.Equal(t, c.want, res.StatusCode, "%s %v", c.method, c.header)
		if c.want == 403 {
			require.Contains(t, body, "<h1>Request refused</h1>")
			require.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
		}
	}
	_, err = r.Protect(ok, "not an origin")
	require.Error(t, err)
}

func TestFieldID(t *testing.T) {
	t.Parallel()
	require.Equal(t, "f-email", web.FieldID("email"))
	require.Equal(t, "f-data-topics---", web.FieldID("data[topics][]"))
	require.Equal(t, "f-x--y", web.FieldID(`x"<y`))
	require.Equal(t, "", web.Field{ID: "f"}.DescribedBy())
	require.Equal(t, "f-help f-error", web.Field{ID: "f", Help: "h", Errors: []string{"e"}}.DescribedBy())
}

// Behind the origin check, the double-submit token: a token given must be
// the cookie's; a request with cookies and no word of its origin must give
// one; JSON clients get a JSON refusal.
func TestProtectToken(t *testing.T) {
	t.Parallel()
	r := newRenderer(t, web.Options{})
	var token string
	h, err := r.Protect(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodGet {
			token = web.CSRFToken(w, req)
		}
		_, _ = io.WriteString(w, "done")
	}))
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	res, _ := get(t, srv.Client(), "GET", srv.URL, nil)
	require.Len(t, token, 43)
	cookie := res.Cookies()[0]
	require.Equal(t, web.XSRFCookie, cookie.Name)
	require.False(t, cookie.HttpOnly, "scripts of the site read it")
	jar := web.XSRFCookie + "=" + token
	form := "application/x-www-form-urlencoded"
	cases := []struct {
		name   string
		body   string
		header []string
		want   int
	}{
		{"header matches", "", []string{"Cookie", jar, web.XSRFHeader, token}, 200},
		{"header differs", "", []string{"Cookie", jar, web.XSRFHeader, strings.Repeat("A", 43)}, 403},
		{"header without cookie", "", []string{web.XSRFHeader, token}, 403},
		{"field matches", "_token=" + token, []string{"Cookie", jar, "Content-Type", form}, 200},
		{"field differs", "_token=nope", []string{"Cookie", jar, "Content-Type", form, "Sec-Fetch-Site", "same-origin"}, 403},
		{"cookies, no origin, no token", "", []string{"Cookie", "gw_session=x"}, 403},
		{"cookies, same origin, no token", "", []string{"Cookie", "gw_session=x", "Sec-Fetch-Site", "same-origin"}, 200},
		{"no cookies, no token", "", nil, 200},
	}
	for _, c := range cases {
		res, body := get(t, srv.Client(), "POST", srv.URL, strings.NewReader(c.body), c.header...)
		require.Equal(t, c.want, res.StatusCode, c.name)
		if c.want == 403 {
			require.Contains(t, body, "Request refused", c.name)
		}
	}
	res, body := get(t, srv.Client(), "POST", srv.URL, nil, "Cookie", jar, web.XSRFHeader, "x", "Accept", "application/json")
	require.Equal(t, 403, res.StatusCode)
	require.JSONEq(t, `{"message":"This form was sent from another site, or from a page too old to trust, so it was not accepted. Go back, reload the page and send it again."}`, body)
}

// A partial ("_name.html") is shared by every page, and is no page itself.
func TestPartials(t *testing.T) {
	t.Parallel()
	pages := fstest.MapFS{
		"d/_shared.html": {Data: []byte(`{{define "greeting"}}<p>Hello, {{.}}</p>{{end}}`)},
		"d/a.html":       {Data: []byte(`{{define "content"}}<h1>A</h1>{{template "greeting" "a"}}{{end}}`)},
		"d/b.html":       {Data: []byte(`{{define "content"}}<h1>B</h1>{{template "greeting" "b"}}{{end}}`)},
	}
	r := newRenderer(t, web.Options{Pages: pages})
	for _, name := range []string{"a", "b"} {
		w := httptest.NewRecorder()
		r.Render(w, httptest.NewRequest("GET", "/", nil), http.StatusOK, "d/"+name+".html", &web.Page{Title: name})
		require.Contains(t, w.Body.String(), "<p>Hello, "+name+"</p>")
	}
	w := httptest.NewRecorder()
	r.Render(w, httptest.NewRequest("GET", "/", nil), http.StatusOK, "d/_shared.html", &web.Page{})
	require.Equal(t, http.StatusInternalServerError, w.Code, "a partial is not a page")
}

// Spans of time in words: days past two, hours, minutes, else Go's.
func TestSpan(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{5 * 24 * time.Hour: "5 days", 48 * time.Hour: "48 hours", time.Hour: "1 hour",
		72*time.Hour + time.Hour: "73 hours", 30 * time.Minute: "30 minutes", 90 * time.Second: "1m30s"} {
		require.Equal(t, want, web.Span(d), d.String())
	}
}
