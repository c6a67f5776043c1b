package forms_test

import (
	"context"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
)

var (
	actionRE = regexp.MustCompile(`<form method="post" action="([^"]+)" enctype="multipart/form-data"`)
	inputRE  = regexp.MustCompile(`<(input|textarea|select)\b[^>]*\bname="([^"]+)"[^>]*>`)
	valueRE  = regexp.MustCompile(`\bvalue="([^"]*)"`)
	typeRE   = regexp.MustCompile(`\btype="([^"]*)"`)
	cssRE    = regexp.MustCompile(`<link rel="stylesheet" href="([^"]+)">`)
)

// pageForm is what a browser would read off the page: where to post and
// the inputs with their values.
type pageForm struct {
	action string
	inputs map[string]string // name → value (type for file inputs)
}

func readPage(t *testing.T, body string) pageForm {
	t.Helper()
	m := actionRE.FindStringSubmatch(body)
	require.NotNil(t, m, "no form on the page:\n%s", body)
	p := pageForm{action: html.UnescapeString(m[1]), inputs: map[string]string{}}
	for _, in := range inputRE.FindAllStringSubmatch(body, -1) {
		tag, name := in[0], in[2]
		value := ""
		if v := valueRE.FindStringSubmatch(tag); v != nil {
			value = html.UnescapeString(v[1])
		}
		if ty := typeRE.FindStringSubmatch(tag); ty != nil && ty[1] == "file" {
			value = "file"
		}
		if _, seen := p.inputs[name]; !seen {
			p.inputs[name] = value
		}
	}
	return p
}

// visitor is a browser without JavaScript: it keeps cookies and does not
// follow redirects on its own.
type visitor struct {
	b       *bundle
	cookies []*http.Cookie
}

func (v *visitor) do(t *testing.T, method, path, contentType string, body *strings.Reader, parts []part) reply {
	t.Helper()
	var r reply
	headers := []string{"Referer", v.b.server.URL + path}
	for _, c := range v.cookies {
		headers = append(headers, "Cookie", c.Name+"="+c.Value)
	}
	if parts != nil {
		ct, buf := multipartBody(t, parts...)
		r = v.b.request(t, method, path, "", ct, buf, headers...)
	} else if body != nil {
		r = v.b.request(t, method, path, "", contentType, body, headers...)
	} else {
		r = v.b.request(t, method, path, "", "", nil, headers...)
	}
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		v.cookies = slicesDeleteCookie(v.cookies, c.Name)
		if c.MaxAge >= 0 && c.Value != "" {
			v.cookies = append(v.cookies, c)
		}
	}
	return r
}

func slicesDeleteCookie(cs []*http.Cookie, name string) []*http.Cookie {
	out := cs[:0]
	for _, c := range cs {
		if c.Name != name {
			out = append(out, c)
		}
	}
	return out
}

func TestNoJavaScriptPage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	form := b.contactForm(t)
	b.addField(t, form, map[string]any{"type": "checkbox", "label": "Keep me posted"})
	v := &visitor{b: b}

	r := v.do(t, "GET", "/forms/contact", "", nil, nil)
	require.Equal(t, 200, r.status)
	require.Equal(t, "text/html; charset=utf-8", r.header.Get("Content-Type"))
	require.Equal(t, "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
		r.header.Get("Content-Security-Policy"))
	require.Equal(t, "no-store", r.header.Get("Cache-Control"))
	require.Equal(t, 1, strings.Count(r.body, "<script"), "only the optional script of the page layer")
	require.Regexp(t, `<script src="/forms/_assets/groundwork\.[0-9a-f]{12}\.js" defer></script>`, r.body)
	require.Contains(t, r.body, "<title>Contact</title>")
	page := readPage(t, r.body)
	require.Equal(t, "/forms/contact", page.action, "the page posts to itself")
	token := page.inputs[forms.FormTokenField]
	require.Regexp(t, `^[0-9]+\.`+fmt.Sprint(b.clock.Now().Unix())+`\.`, token, "a form-load token issued now")
	require.Equal(t, map[string]string{"name": "", "email": "", "topic": "", "message": "", "cv": "file", "keep_me_posted": "1",
		"website_url": "", forms.FormTokenField: token}, page.inputs)
	require.Contains(t, r.body, `<option value="support">Support</option>`)
	require.Contains(t, r.body, `accept=".pdf,.txt"`)
	require.Contains(t, r.body, `autocomplete="email"`)
	require.Regexp(t, `class="trap" aria-hidden="true"`, r.body)

	// The stylesheet is served beside the page, cached for a year.
	css := v.do(t, "GET", cssRE.FindStringSubmatch(r.body)[1], "", nil, nil)
	require.Equal(t, 200, css.status)
	require.Equal(t, "public, max-age=31536000, immutable", css.header.Get("Cache-Control"))

	// A person takes longer than three seconds.
	b.clock.Advance(20 * time.Second)
	fill := func(values map[string]string) []part {
		var parts []part
		for name, val := range page.inputs {
			if val == "file" {
				parts = append(parts, part{name: name, filename: "note.txt", content: "hello"})
				continue
			}
			if given, ok := values[name]; ok {
				val = given
			}
			if name == "keep_me_posted" && values[name] == "" {
				continue // an unticked box sends nothing
			}
			parts = append(parts, part{name: name, content: val})
		}
		return parts
	}

	// A mistake: the page comes back with the answers, each message tied
	// to its input and listed on top with a link to it.
	r = v.do(t, "POST", page.action, "", nil, fill(map[string]string{"name": `Ann "Annie" <b>`, "email": "not-an-email", "topic": "sales"}))
	require.Equal(t, 422, r.status, r.body)
	require.Contains(t, r.header.Get("Content-Type"), "text/html")
	require.Contains(t, r.body, "<title>Error: Contact</title>")
	require.Contains(t, r.body, `<li><a href="#f-email">Enter an email address in the correct format, like name@example.com</a></li>`)
	require.Contains(t, r.body, `<p class="error" id="f-email-error">`)
	require.Regexp(t, `<input type="email" id="f-email" name="email" value="not-an-email"[^>]* aria-describedby="f-email-error" aria-invalid="true">`, r.body)
	require.Contains(t, r.body, `value="Ann &#34;Annie&#34; &lt;b&gt;"`, "answers come back, escaped")
	require.Contains(t, r.body, `<option value="sales" selected>Sales</option>`)
	require.Equal(t, "/forms/contact", readPage(t, r.body).action)
	require.Equal(t, token, readPage(t, r.body).inputs[forms.FormTokenField],
		"the page comes back with its token, so the time to fill it in counts from the first showing")
	require.EqualValues(t, 0, b.api(t, "GET", "/contact/submissions", nil).json(t)["meta"].(map[string]any)["total"])

	// Corrected: stored, then Post/Redirect/Get back to the page, which
	// thanks the visitor once.
	r = v.do(t, "POST", page.action, "", nil, fill(map[string]string{"name": "Ann", "email": "ann@example.test", "topic": "sales", "keep_me_posted": "1"}))
	require.Equal(t, http.StatusSeeOther, r.status, r.body)
	require.Equal(t, "/forms/contact", r.header.Get("Location"))
	r = v.do(t, "GET", "/forms/contact", "", nil, nil)
	require.Equal(t, 200, r.status)
	require.Contains(t, r.body, `<div class="notice" role="status" tabindex="-1" autofocus><p>Thanks, we got it.</p></div>`)
	require.Contains(t, r.body, `<a href="/forms/contact">Send another response</a>`)
	require.NotContains(t, r.body, "<form", "the thanks stands alone")
	// A refresh posts nothing again and thanks no more.
	r = v.do(t, "GET", "/forms/contact", "", nil, nil)
	require.NotContains(t, r.body, "Thanks, we got it.")
	require.Contains(t, r.body, "<form")
	list := b.api(t, "GET", "/contact/submissions", nil).json(t)
	require.EqualValues(t, 1, list["meta"].(map[string]any)["total"])
	sub := list["data"].([]any)[0].(map[string]any)
	require.Equal(t, false, sub["is_spam"])
	require.Len(t, sub["uploads"], 1)

	// With a redirect URL the browser is sent on, and the page lets its
	// form be redirected there.
	require.Equal(t, 200, b.api(t, "PUT", "/contact", map[string]any{"redirect_url": "https://example.test/thanks?x=1"}).status)
	r = v.do(t, "GET", "/forms/contact", "", nil, nil)
	require.Contains(t, r.header.Get("Content-Security-Policy"), "form-action 'self' https://example.test;")
	page = readPage(t, r.body)
	require.NotEqual(t, token, page.inputs[forms.FormTokenField], "a new showing, a new token")
	b.clock.Advance(20 * time.Second)
	r = v.do(t, "POST", page.action, "", nil, fill(map[string]string{"name": "Bo", "email": "bo@example.test"}))
	require.Equal(t, http.StatusSeeOther, r.status)
	require.Equal(t, "https://example.test/thanks?x=1", r.header.Get("Location"))
}

// The page counts submissions per form and client IP like the API (a
// mistake corrected is not counted), and a visitor over the limit gets the
// page back with the message and when to try again.
func TestPageThrottle(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *setupOptions) { o.submitLimit = 2 })
	form := b.contactForm(t)
	v := &visitor{b: b}
	b.clock.Advance(time.Minute)
	for range 3 {
		r := v.do(t, "POST", "/forms/"+form, "", nil, valid(part{name: "email", content: "not an address"}))
		require.Equal(t, http.StatusUnprocessableEntity, r.status, r.body)
	}
	for range 2 {
		r := v.do(t, "POST", "/forms/"+form, "", nil, valid())
		require.Equal(t, http.StatusSeeOther, r.status, r.body)
	}
	r := v.do(t, "POST", "/forms/"+form, "", nil, valid())
	require.Equal(t, http.StatusTooManyRequests, r.status)
	require.NotEmpty(t, r.header.Get("Retry-After"))
	require.Equal(t, "60", r.header.Get("Retry-After"))
	require.Contains(t, r.body, "<li>Too many submissions. Please try again in 1 minute.</li>")
	require.Contains(t, r.body, `<form method="post" action="/forms/contact"`, "the form, to try again later")
	require.EqualValues(t, 2, b.api(t, "GET", "/contact/submissions", nil).json(t)["meta"].(map[string]any)["total"])
}

func TestPageEscapesAndHidesInactiveForms(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createForm(t, map[string]any{"name": "<script>alert(1)</script>", "slug": "xss", "description": "<img src=x onerror=alert(1)>"})
	b.addField(t, "xss", map[string]any{"type": "html", "field_config": map[string]any{"content": "<script>alert(2)</script>"}})
	b.addField(t, "xss", map[string]any{"type": "text", "label": `"><svg onload=alert(3)>`})
	r := b.request(t, "GET", "/forms/xss", "", "", nil)
	require.Equal(t, 200, r.status)
	require.NotContains(t, r.body, "<script>alert")
	require.NotContains(t, r.body, "<img src=x")
	require.NotContains(t, r.body, "<svg onload")
	require.Contains(t, r.body, "&lt;script&gt;alert(2)&lt;/script&gt;")

	require.Equal(t, 200, b.api(t, "PUT", "/xss", map[string]any{"is_active": false}).status)
	for _, path := range []string{"/forms/xss", "/forms/nope", "/forms/", "/forms/xss/extra"} {
		r = b.request(t, "GET", path, "", "", nil)
		require.Equal(t, 404, r.status, path)
		require.Contains(t, r.body, "<h1>Form not found</h1>", path)
		require.Contains(t, r.header.Get("Content-Security-Policy"), "default-src 'none'")
	}
	r = b.request(t, "POST", "/forms/xss", "", "application/x-www-form-urlencoded", strings.NewReader("a=b"))
	require.Equal(t, 404, r.status)
	require.Contains(t, r.body, "<h1>Form not found</h1>")
	r = b.request(t, "DELETE", "/forms/xss", "", "", nil)
	require.Equal(t, 405, r.status)
	require.Equal(t, "GET, HEAD, POST", r.header.Get("Allow"))

	// The API's submit route answers JSON whatever the client accepts.
	r = b.request(t, "POST", "/api/v1/forms/xss/submit", "", "application/x-www-form-urlencoded", strings.NewReader("a=b"), "Accept", "text/html")
	require.Equal(t, 404, r.status)
	require.JSONEq(t, `{"message":"Form not found."}`, r.body)
}

// Every failure of the page is an error page from the one error path:
// an address that is not text, and a store that fails (503, logged).
func TestPageErrorPaths(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createForm(t, map[string]any{"name": "Contact", "slug": "contact"})
	r := b.request(t, "GET", "/forms/con%00tact", "", "", nil)
	require.Equal(t, 404, r.status)
	require.Contains(t, r.body, "<h1>Form not found</h1>")
	r = b.request(t, "GET", "/forms/contact?x=%ff", "", "", nil)
	require.Equal(t, 422, r.status)
	require.Contains(t, r.body, "<h1>Address not understood</h1>")
	require.Contains(t, r.header.Get("Content-Security-Policy"), "default-src 'none'")

	require.NoError(t, b.db.Close())
	r = b.request(t, "GET", "/forms/contact", "", "", nil)
	require.Equal(t, 503, r.status)
	require.Contains(t, r.body, "<h1>Form unavailable</h1>")
	require.Contains(t, r.body, "Please try again in a few minutes.")
}

// A host's templates replace the page's, by name.
func TestPageTemplatesReplaceable(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *setupOptions) {
		o.page = func(po *forms.PageOptions) {
			po.Templates = mapFS{forms.PageTemplate: `{{define "content"}}<h1>Our own: {{.Data.Form.Name}}</h1>{{end}}`}
		}
	})
	b.contactForm(t)
	r := b.request(t, "GET", "/forms/contact", "", "", nil)
	require.Equal(t, 200, r.status)
	require.Contains(t, r.body, "<h1>Our own: Contact</h1>")
	require.Contains(t, r.body, `<html lang="en">`, "in the built-in layout")
}

// mapFS is an fs.FS of a few text files.
type mapFS map[string]string

func (m mapFS) Open(name string) (fs.File, error) {
	files := fstest.MapFS{}
	for k, v := range m {
		files[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return files.Open(name)
}

// A valid file sent with a mistake elsewhere is kept: the page names it
// and sends back its id, and the next try needs no file; the id serves
// once, another form cannot use it, and kept files never taken are swept
// with their files after UploadKeepTime.
func TestPageKeepsValidUploads(t *testing.T) {
	t.Parallel()
	b := setup(t)
	form := b.contactForm(t)
	v := &visitor{b: b}
	page := readPage(t, v.do(t, "GET", "/forms/"+form, "", nil, nil).body)
	token := page.inputs[forms.FormTokenField]
	b.clock.Advance(forms.MinFillTime)
	r := v.do(t, "POST", "/forms/"+form, "", nil, []part{{name: forms.FormTokenField, content: token}, {name: "name", content: ""},
		{name: "email", content: "ann@example.test"}, {name: "cv", filename: "cv.pdf", content: "%PDF-1.4 cv"}})
	require.Equal(t, 422, r.status, r.body)
	require.Contains(t, r.body, "Kept from your last try: cv.pdf (11 bytes). Choose a file only to replace it.")
	id := regexp.MustCompile(`name="_upload\[cv\]" value="([0-9a-f]{32})"`).FindStringSubmatch(r.body)
	require.NotNil(t, id, r.body)
	require.Len(t, b.files(t), 1, "the kept file stays")

	// The next try sends the id, not the file.
	again := []part{{name: forms.FormTokenField, content: token}, {name: "name", content: "Ann"}, {name: "email", content: "ann@example.test"},
		{name: "_upload[cv]", content: id[1]}}
	r = v.do(t, "POST", "/forms/"+form, "", nil, again)
	require.Equal(t, http.StatusSeeOther, r.status, r.body)
	f, err := b.svc.Form(context.Background(), form)
	require.NoError(t, err)
	subs, _, err := b.svc.ListSubmissions(context.Background(), forms.SubmissionQuery{FormID: f.ID, Limit: 10})
	require.NoError(t, err)
	require.Len(t, subs, 1)
	full, err := b.svc.Submission(context.Background(), subs[0].FormID, subs[0].ID)
	require.NoError(t, err)
	require.Len(t, full.Uploads, 1)
	require.Equal(t, "cv.pdf", full.Uploads[0].OriginalName)
	require.Len(t, b.files(t), 1, "the same file, now the submission's")

	// Once only: sent again, the id is gone, and the page says so.
	r = v.do(t, "POST", "/forms/"+form, "", nil, again)
	require.Equal(t, 422, r.status)
	require.Contains(t, r.body, html.EscapeString(forms.MsgKeptUploadGone))

	// A kept file never taken goes after an hour, with its file.
	r = v.do(t, "POST", "/forms/"+form, "", nil, []part{{name: forms.FormTokenField, content: token}, {name: "name", content: ""},
		{name: "email", content: "ann@example.test"}, {name: "cv", filename: "cv.txt", content: "cv"}})
	require.Equal(t, 422, r.status)
	require.Len(t, b.files(t), 2)
	n, err := b.svc.SweepKeptUploads(context.Background())
	require.NoError(t, err)
	require.Zero(t, n, "not yet")
	b.clock.Advance(forms.UploadKeepTime + time.Second)
	n, err = b.svc.SweepKeptUploads(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Len(t, b.files(t), 1, "only the submission's file is left")
}

// A framed form works before (or without) the page's script: the page
// posts to an address that keeps the frame, so the thanks, drawn for the
// frame, tells the host the form was sent, and a redirect_url is left to
// the host page.
func TestFramedFormWithoutScript(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const host = "https://www.example.com"
	b.createForm(t, map[string]any{"name": "Signup", "redirect_url": host + "/welcome"})
	b.addField(t, "signup", map[string]any{"type": "email", "label": "Email", "is_required": true})
	pages, err := forms.NewPageHandler(b.svc, &forms.PageOptions{FrameOrigins: []string{host}, SubmitLimit: -1})
	require.NoError(t, err)
	srv := httptest.NewServer(pages)
	t.Cleanup(srv.Close)
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	read := func(res *http.Response, err error) (*http.Response, string) {
		t.Helper()
		require.NoError(t, err)
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res, string(body)
	}

	framed := "embed=" + url.QueryEscape(host) + "&theme=dark"
	_, body := read(client.Get(srv.URL + "/forms/signup?" + framed + "&utm_source=news"))
	page := readPage(t, body)
	require.Equal(t, "/forms/signup?"+framed, page.action)
	b.clock.Advance(20 * time.Second)
	ct, buf := multipartBody(t, part{name: "email", content: "ann@example.test"}, part{name: forms.FormTokenField, content: page.inputs[forms.FormTokenField]},
		part{name: forms.HoneypotField})
	res, body := read(client.Post(srv.URL+page.action, ct, buf))
	for res.StatusCode == http.StatusSeeOther {
		res, body = read(client.Get(srv.URL + res.Header.Get("Location")))
	}
	require.Equal(t, http.StatusOK, res.StatusCode, body)
	require.Contains(t, body, `data-frame="https://www.example.com" data-theme="dark"`)
	require.Contains(t, body, `data-frame-event="formSubmitted"`)
	require.Contains(t, body, `&#34;redirect_url&#34;:&#34;https://www.example.com/welcome&#34;`)
	require.EqualValues(t, 1, b.api(t, "GET", "/signup/submissions", nil).json(t)["meta"].(map[string]any)["total"])
}
