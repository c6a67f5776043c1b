package forms_test

import (
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var (
	actionRE = regexp.MustCompile(`<form method="post" action="([^"]+)" enctype="multipart/form-data"`)
	inputRE  = regexp.MustCompile(`<(input|textarea|select)\b[^>]*\bname="([^"]+)"[^>]*>`)
	valueRE  = regexp.MustCompile(`\bvalue="([^"]*)"`)
	typeRE   = regexp.MustCompile(`\btype="([^"]*)"`)
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

func TestNoJavaScriptPage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	form := b.contactForm(t)
	b.addField(t, form, map[string]any{"type": "checkbox", "label": "Keep me posted"})

	r := b.request(t, "GET", "/forms/contact", "", "", nil)
	require.Equal(t, 200, r.status)
	require.Equal(t, "text/html; charset=utf-8", r.header.Get("Content-Type"))
	require.Contains(t, r.header.Get("Content-Security-Policy"), "default-src 'none'")
	require.NotContains(t, r.body, "<script", "no JavaScript at all")
	page := readPage(t, r.body)
	require.Equal(t, "/api/v1/forms/contact/submit", page.action)
	require.Equal(t, map[string]string{"name": "", "email": "", "topic": "", "message": "", "cv": "file", "keep_me_posted": "1",
		"website_url": "", "_form_loaded_at": fmt.Sprint(b.clock.Now().Unix())}, page.inputs)
	require.Contains(t, r.body, `<option value="support">Support</option>`)
	require.Contains(t, r.body, `accept=".pdf,.txt"`)
	require.Regexp(t, `class="trap" aria-hidden="true"`, r.body)

	// A person takes longer than three seconds.
	b.clock.Advance(20 * time.Second)
	fill := func(values map[string]string) []part {
		var parts []part
		for name, v := range page.inputs {
			if v == "file" {
				parts = append(parts, part{name: name, filename: "note.txt", content: "hello"})
				continue
			}
			if given, ok := values[name]; ok {
				v = given
			}
			parts = append(parts, part{name: name, content: v})
		}
		return parts
	}
	post := func(parts []part) reply {
		ct, body := multipartBody(t, parts...)
		return b.request(t, "POST", page.action, "", ct, body, "Accept", "text/html,application/xhtml+xml,*/*;q=0.8", "Referer", b.server.URL+"/forms/contact")
	}

	// A mistake: the page comes back with the message and the answers.
	r = post(fill(map[string]string{"name": `Ann "Annie" <b>`, "email": "not-an-email", "topic": "sales"}))
	require.Equal(t, 422, r.status, r.body)
	require.Contains(t, r.header.Get("Content-Type"), "text/html")
	require.Contains(t, r.body, "The Email field must be a valid email address.")
	require.Contains(t, r.body, `value="Ann &#34;Annie&#34; &lt;b&gt;"`, "answers come back, escaped")
	require.Contains(t, r.body, `<option value="sales" selected>Sales</option>`)
	require.Contains(t, r.body, `aria-invalid="true"`)
	again := readPage(t, r.body)
	require.Equal(t, "/api/v1/forms/contact/submit", again.action)

	// Corrected: a thank-you page, and a real submission stored.
	r = post(fill(map[string]string{"name": "Ann", "email": "ann@example.test", "topic": "sales", "keep_me_posted": "1"}))
	require.Equal(t, 200, r.status, r.body)
	require.Contains(t, r.body, "Thanks, we got it.")
	require.Contains(t, r.body, `href="`+b.server.URL+`/forms/contact"`)
	list := b.api(t, "GET", "/contact/submissions", nil).json(t)
	require.EqualValues(t, 1, list["meta"].(map[string]any)["total"])
	sub := list["data"].([]any)[0].(map[string]any)
	require.Equal(t, false, sub["is_spam"])
	require.Len(t, sub["uploads"], 1)

	// With a redirect URL the browser is sent on.
	require.Equal(t, 200, b.api(t, "PUT", "/contact", map[string]any{"redirect_url": "https://example.test/thanks"}).status)
	b.clock.Advance(20 * time.Second)
	r = post(fill(map[string]string{"name": "Bo", "email": "bo@example.test"}))
	require.Equal(t, 303, r.status)
	require.Equal(t, "https://example.test/thanks", r.header.Get("Location"))
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
	for _, path := range []string{"/forms/xss", "/forms/nope", "/forms/"} {
		r = b.request(t, "GET", path, "", "", nil)
		require.Equal(t, 404, r.status, path)
	}
	r = b.request(t, "POST", "/api/v1/forms/xss/submit", "", "application/x-www-form-urlencoded", strings.NewReader("a=b"), "Accept", "text/html")
	require.Equal(t, 404, r.status)
	require.Contains(t, r.body, "<h1>Form not found</h1>")
}
