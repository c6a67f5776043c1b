package forms_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/internal/rawclient"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// files lists the files under the blob directory, as slash paths.
func (b *bundle) files(t *testing.T) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(b.blobDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(b.blobDir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	}))
	return out
}

func TestSubmit(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, func(o *setupOptions) { o.dialect = d })
		form := b.contactForm(t)
		pdf := "%PDF-1.4\n" + strings.Repeat("x", 2000)
		r := b.submit(t, form, valid(part{name: "files[cv]", filename: "My CV.pdf", content: pdf})...)
		require.Equal(t, 201, r.status, r.body)
		out := r.json(t)
		require.Equal(t, true, out["success"])
		require.Equal(t, "Thanks, we got it.", out["message"])
		require.Nil(t, out["redirect_url"])
		id := out["submission_id"]

		sub := b.api(t, "GET", fmt.Sprintf("/contact/submissions/%v", id), nil)
		require.Equal(t, 200, sub.status, sub.body)
		data := sub.data(t)
		require.Equal(t, fmt.Sprintf("FORM-2026-%05d", int(id.(float64))), data["submission_number"])
		require.Equal(t, false, data["is_spam"])
		require.Equal(t, false, data["is_read"])
		require.NotContains(t, data, "ip_address", "hidden unless the handler allows")
		require.Equal(t, b.server.URL+"/api/v1/forms/contact/submit", data["page_url"])
		values := map[string]map[string]any{}
		for _, v := range data["values"].([]any) {
			values[v.(map[string]any)["field_name"].(string)] = v.(map[string]any)
		}
		require.Len(t, values, 5)
		require.Equal(t, "Ann", values["name"]["value"])
		require.Equal(t, "support", values["topic"]["value"])
		require.Equal(t, "Support", values["topic"]["display_value"], "choices show their label")
		require.Equal(t, "My CV.pdf", values["cv"]["display_value"])
		require.NotNil(t, values["cv"]["upload_id"])
		uploads := data["uploads"].([]any)
		require.Len(t, uploads, 1)
		up := uploads[0].(map[string]any)
		require.Equal(t, "My CV.pdf", up["original_name"])
		require.EqualValues(t, len(pdf), up["size"])
		require.Equal(t, "2 KB", up["human_size"])
		require.Equal(t, "application/pdf", up["mime_type"])
		require.Equal(t, false, up["is_image"])
		require.NotContains(t, up, "key")

		files := b.files(t)
		require.Len(t, files, 1)
		require.Regexp(t, `^uploads/\d+/[0-9a-f-]{36}\.pdf$`, files[0], "named from a UUID, never the client's name")

		dl := b.request(t, "GET", fmt.Sprintf("/api/v1/forms/submissions/%v/uploads/%v/download", id, up["id"]), "reader", "", nil)
		require.Equal(t, 200, dl.status)
		require.Equal(t, pdf, dl.body)
		require.Equal(t, `attachment; filename="My CV.pdf"`, dl.header.Get("Content-Disposition"))
		require.Equal(t, "nosniff", dl.header.Get("X-Content-Type-Options"))
		dl = b.request(t, "GET", fmt.Sprintf("/api/v1/forms/submissions/%v/uploads/%v/download", id.(float64)+1, up["id"]), "reader", "", nil)
		require.Equal(t, 404, dl.status, "an upload of another submission")

		f := b.api(t, "GET", "/contact", nil).data(t)
		require.EqualValues(t, 1, f["total_submissions_count"])
		require.EqualValues(t, 1, f["unread_submissions_count"])
	})
}

func TestSubmitValidation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	form := b.contactForm(t)
	b.addField(t, form, map[string]any{"type": "number", "label": "Age", "validation_rules": map[string]any{"min": 18, "max": 130}})
	b.addField(t, form, map[string]any{"type": "checkbox_group", "label": "Interests", "validation_rules": map[string]any{"max": 2},
		"field_config": map[string]any{"options": []any{"go", "sql", "css"}}})
	b.addField(t, form, map[string]any{"type": "text", "label": "Code", "validation_rules": map[string]any{"pattern": "/^[A-Z]{3}$/"}})
	b.addField(t, form, map[string]any{"type": "date", "label": "Start", "validation_rules": map[string]any{"min_date": "2026-01-01"}})
	b.addField(t, form, map[string]any{"type": "checkbox", "label": "Terms", "is_required": true})
	b.addField(t, form, map[string]any{"type": "url", "label": "Site"})
	b.addField(t, form, map[string]any{"type": "time", "label": "Call at"})

	r := b.submit(t, form, part{name: "name", content: "   "}, part{name: "email", content: "not-an-email"},
		part{name: "topic", content: "gossip"}, part{name: "age", content: "12"}, part{name: "interests", content: "go"},
		part{name: "interests", content: "rust"}, part{name: "code", content: "abc"}, part{name: "start", content: "2025-12-31"},
		part{name: "site", content: "ftp://x"}, part{name: "call_at", content: "25:00"})
	require.Equal(t, 422, r.status, r.body)
	e := r.errors(t)
	require.Equal(t, map[string][]string{
		"name":        {"The Name field is required."},
		"email":       {"The Email field must be a valid email address."},
		"topic":       {"The selected Topic is invalid."},
		"age":         {"The Age field must be at least 18."},
		"interests.1": {"The selected Interests is invalid."},
		"code":        {"The Code field format is invalid."},
		"start":       {"The Start field must be a date after or equal to 2026-01-01."},
		"terms":       {"The Terms field is required."},
		"site":        {"The Site field must be a valid URL."},
		"call_at":     {"The Call at field must match the format H:i."},
	}, e.Errors)
	require.Equal(t, "The Name field is required. (and 9 more errors)", e.Message)

	r = b.submit(t, form, valid(part{name: "interests", content: "go"}, part{name: "interests", content: "sql"},
		part{name: "interests", content: "css"}, part{name: "terms", content: "on"}, part{name: "age", content: "abc"})...)
	require.Equal(t, 422, r.status)
	require.Equal(t, map[string][]string{"interests": {"The Interests field must not have more than 2 items."},
		"age": {"The Age field must be a number."}}, r.errors(t).Errors)

	r = b.submit(t, form, valid(part{name: "data[interests][]", content: "go"}, part{name: "terms", content: "on"},
		part{name: "code", content: "ABC"}, part{name: "age", content: "42"}, part{name: "call_at", content: "09:30"})...)
	require.Equal(t, 201, r.status, r.body)
	sub := b.api(t, "GET", fmt.Sprintf("/contact/submissions/%v", r.json(t)["submission_id"]), nil).data(t)
	for _, v := range sub["values"].([]any) {
		v := v.(map[string]any)
		switch v["field_name"] {
		case "interests":
			require.Equal(t, []any{"go"}, v["value_array"])
			require.Nil(t, v["value"])
		case "terms":
			require.Equal(t, "1", v["value"])
			require.Equal(t, "Yes", v["display_value"])
		}
	}
	require.Empty(t, b.files(t))
}

func TestConditionalLogic(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createForm(t, map[string]any{"name": "Quote"})
	kind := b.addField(t, "quote", map[string]any{"type": "radio", "label": "Kind", "is_required": true,
		"field_config": map[string]any{"options": []any{"person", "business"}}})
	b.addField(t, "quote", map[string]any{"type": "text", "label": "Company", "is_required": true,
		"conditional_logic": map[string]any{"action": "show", "rules": []any{map[string]any{"field": kind["uuid"], "operator": "equals", "value": "business"}}}})
	b.addField(t, "quote", map[string]any{"type": "file", "label": "Proof", "field_config": map[string]any{"allowed_types": []any{"txt"}},
		"conditional_logic": map[string]any{"action": "hide", "logic": "any", "rules": []any{map[string]any{"field": "kind", "operator": "in", "value": "person, nobody"}}}})

	// Hidden: neither validated nor stored, and its file is discarded.
	r := b.submit(t, "quote", part{name: "kind", content: "person"}, part{name: "company", content: "Acme"},
		part{name: "proof", filename: "p.txt", content: "proof"})
	require.Equal(t, 201, r.status, r.body)
	sub := b.api(t, "GET", fmt.Sprintf("/quote/submissions/%v", r.json(t)["submission_id"]), nil).data(t)
	require.Len(t, sub["values"], 1)
	require.Empty(t, sub["uploads"])
	require.Empty(t, b.files(t), "the hidden field's file is gone")

	r = b.submit(t, "quote", part{name: "kind", content: "business"})
	require.Equal(t, 422, r.status)
	require.Equal(t, map[string][]string{"company": {"The Company field is required."}}, r.errors(t).Errors)
	r = b.submit(t, "quote", part{name: "kind", content: "business"}, part{name: "company", content: "Acme"},
		part{name: "proof", filename: "p.txt", content: "proof"})
	require.Equal(t, 201, r.status)
	require.Len(t, b.files(t), 1)
}

func TestInactiveOrMissingForm(t *testing.T) {
	t.Parallel()
	b := setup(t)
	form := b.contactForm(t)
	r := b.api(t, "PUT", "/contact", map[string]any{"is_active": false})
	require.Equal(t, 200, r.status)
	for _, f := range []string{form, "no-such-form", "424242"} {
		r = b.submit(t, f, valid()...)
		require.Equal(t, 404, r.status)
		require.JSONEq(t, `{"message":"Form not found."}`, r.body)
		r = b.request(t, "GET", "/api/v1/forms/"+f+"/render", "", "", nil)
		require.Equal(t, 404, r.status)
		require.JSONEq(t, `{"message":"Form not found."}`, r.body)
	}
}

func TestRender(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createForm(t, map[string]any{"name": "Wizard", "is_multi_step": true})
	step := b.api(t, "POST", "/wizard/steps", map[string]any{"title": "One"}).data(t)
	b.addField(t, "wizard", map[string]any{"type": "text", "label": "Name", "step_id": step["id"]})
	b.addField(t, "wizard", map[string]any{"type": "heading", "label": "About"})
	r := b.request(t, "GET", "/api/v1/forms/wizard/render", "", "", nil)
	require.Equal(t, 200, r.status)
	d := r.data(t)
	require.Equal(t, "wizard", d["slug"])
	require.Equal(t, true, d["is_multi_step"])
	require.Len(t, d["fields"], 2)
	require.Len(t, d["steps"].([]any)[0].(map[string]any)["fields"], 1)
	cfg := d["config"].(map[string]any)
	require.Equal(t, map[string]any{"enabled": true, "field_name": "website_url"}, cfg["honeypot"])
	require.Equal(t, map[string]any{"label_position": "above", "show_required_indicator": true, "required_indicator": "*", "error_display": "below"}, cfg["display"])
	require.EqualValues(t, b.clock.Now().Unix(), cfg["loaded_at"])
	require.Regexp(t, `^[0-9]+\.[0-9]+\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}$`, cfg["form_token"])
	require.NotContains(t, d, "total_submissions_count", "the public definition leaves out admin data")
}

func TestSubmitRateLimit(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *setupOptions) { o.submitLimit = forms.SubmitLimitDefault })
	form := b.contactForm(t)
	b.createForm(t, map[string]any{"name": "Other"})
	// A person's mistakes are given back: two rounds of corrections do
	// not use up the allowance.
	for range 2 {
		r := b.submit(t, form, noToken, part{name: "name", content: ""})
		require.Equal(t, 422, r.status, r.body)
		require.Equal(t, "4", r.header.Get("X-RateLimit-Remaining"), "the answer counts the try that is then given back")
	}
	for i := range 5 {
		r := b.submit(t, form, valid(noToken)...) // (spam, but counted the same)
		require.Equal(t, 201, r.status, r.body)
		require.Equal(t, fmt.Sprint(4-i), r.header.Get("X-RateLimit-Remaining"))
	}
	r := b.submit(t, form, valid(noToken)...)
	require.Equal(t, 429, r.status)
	require.JSONEq(t, `{"message":"Too many submissions. Please try again in 1 minute."}`, r.body)
	require.Equal(t, "60", r.header.Get("Retry-After"))
	require.Equal(t, "5", r.header.Get("X-RateLimit-Limit"))
	require.NotEmpty(t, r.header.Get("X-RateLimit-Reset"))
	require.Equal(t, 201, b.submit(t, "other").status, "each form has its own budget")
	b.clock.Advance(18 * time.Second)
	r = b.submit(t, form, valid(noToken)...)
	require.Equal(t, 429, r.status)
	wait := r.header.Get("Retry-After")
	secs, err := strconv.Atoi(wait)
	require.NoError(t, err)
	require.InDelta(t, 40, secs, 2, "the clock moved 18 s and a little more")
	require.JSONEq(t, `{"message":"Too many submissions. Please try again in `+wait+` seconds."}`, r.body)
	b.clock.Advance(43 * time.Second)
	require.Equal(t, 201, b.submit(t, form, valid()...).status)

	// A stream of mistakes is not given back for ever: past
	// MistakesPerSubmission for each allowed submission, a mistake counts.
	b.clock.Advance(time.Minute)
	refused := 0
	for range forms.SubmitLimitDefault*forms.MistakesPerSubmission + forms.SubmitLimitDefault + 1 {
		r := b.submit(t, form, part{name: "name", content: ""})
		if r.status == 429 {
			refused++
		}
	}
	require.Equal(t, 1, refused, "the last mistake finds the limit used up")
}

// The limit and its mistakes hold across instances: the SQL limiter
// counts and gives back on the database.
func TestSubmitRateLimitForgivesOnEveryInstance(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, func(o *setupOptions) { o.dialect = d; o.submitLimit = 2; o.sqlLimiter = true })
		form := b.contactForm(t)
		other := secondInstance(t, b, 2)
		for range 3 {
			require.Equal(t, 422, b.submit(t, form, part{name: "name", content: ""}).status)
			require.Equal(t, 422, other.submit(t, form, part{name: "name", content: ""}).status)
		}
		require.Equal(t, 201, b.submit(t, form, valid()...).status)
		require.Equal(t, 201, other.submit(t, form, valid()...).status)
		r := b.submit(t, form, valid()...)
		require.Equal(t, 429, r.status, r.body)
		require.Contains(t, r.body, "Please try again in")
		r = other.submit(t, form, valid()...)
		require.Equal(t, 429, r.status, r.body)
	})
}

func TestMultipartEdgeCases(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *setupOptions) {
		o.handler = func(h *forms.HandlerOptions) { h.MaxParts = 12; h.MaxRequestBytes = 64 << 10 }
	})
	form := b.contactForm(t)
	path := "/api/v1/forms/" + form + "/submit"
	ct, body := multipartBody(t, valid(part{name: "cv", filename: "cv.pdf", content: strings.Repeat("a", 4000)})...)

	r := b.request(t, "POST", path, "", "multipart/form-data", bytes.NewReader(body.Bytes()))
	require.Equal(t, 422, r.status, "no boundary: %s", r.body)
	require.Equal(t, "The request body is not valid multipart/form-data.", r.json(t)["message"])

	cut := body.Bytes()[:body.Len()-len("--\r\n")-30]
	r = b.request(t, "POST", path, "", ct, bytes.NewReader(cut))
	require.Equal(t, 422, r.status, "a truncated body: %s", r.body)

	mid := bytes.Index(body.Bytes(), []byte("aaaa")) + 100
	r = b.request(t, "POST", path, "", ct, bytes.NewReader(body.Bytes()[:mid]))
	require.Equal(t, 422, r.status, "cut inside the file: %s", r.body)

	var many []part
	for i := range 13 {
		many = append(many, part{name: fmt.Sprintf("x%d", i), content: "1"})
	}
	r = b.submit(t, form, many...)
	require.Equal(t, 413, r.status)
	require.Equal(t, "The submission must not have more than 12 parts.", r.json(t)["message"])

	r = b.submit(t, form, valid(part{name: "cv", filename: "cv.pdf", content: strings.Repeat("a", 70<<10)})...)
	require.Equal(t, 413, r.status, "over the request limit")
	require.Equal(t, "The submission must not be larger than 64 KiB.", r.json(t)["message"])

	r = b.submit(t, form, valid(part{name: "cv", filename: "cv.pdf", content: strings.Repeat("a", 9<<10)})...)
	require.Equal(t, 422, r.status, "over the field's 8 KB")
	require.Equal(t, map[string][]string{"cv": {"The CV field must not be greater than 8 kilobytes."}}, r.errors(t).Errors)

	r = b.submit(t, form, valid(part{name: "cv", filename: "cv.exe", content: "MZ"})...)
	require.Equal(t, 422, r.status)
	require.Equal(t, map[string][]string{"cv": {"The CV field must be a file of type: pdf, txt."}}, r.errors(t).Errors)
	r = b.submit(t, form, valid(part{name: "cv", filename: "no-extension", content: "x"})...)
	require.Equal(t, 422, r.status)
	r = b.submit(t, form, valid(part{name: "cv", filename: "empty.txt", content: ""})...)
	require.Equal(t, map[string][]string{"cv": {"The CV field must be a file that is not empty."}}, r.errors(t).Errors)
	r = b.submit(t, form, valid(part{name: "name", filename: "x.txt", content: "x"})...)
	require.Equal(t, map[string][]string{"name": {"The Name field does not take files."}}, r.errors(t).Errors)
	r = b.submit(t, form, valid(part{name: "cv", filename: "a.txt", content: "a"}, part{name: "cv", filename: "b.txt", content: "b"})...)
	require.Equal(t, map[string][]string{"cv": {"The cv field takes one file only."}}, r.errors(t).Errors)
	r = b.submit(t, form, part{name: "name", content: ""}, part{name: "cv", filename: "a.txt", content: "a"})
	require.Equal(t, 422, r.status, "a good file with bad values")
	// A refused file and wrong answers: every mistake in one round.
	r = b.submit(t, form, part{name: "name", content: ""}, part{name: "email", content: "not-an-email"},
		part{name: "cv", filename: "cv.exe", content: "MZ"})
	require.Equal(t, 422, r.status)
	errs := r.errors(t).Errors
	require.Equal(t, []string{"The CV field must be a file of type: pdf, txt."}, errs["cv"])
	require.Contains(t, errs, "name")
	require.Contains(t, errs, "email")
	require.Empty(t, b.files(t), "no failed submission leaves a file behind")

	// Path-like names are cut to their base; files stay in their place.
	for _, name := range []string{"../../../etc/passwd.txt", `C:\evil\..\boot.txt`, "/abs/x.pdf", "..", "a\x00b.txt"} {
		r = b.submit(t, form, valid(part{name: "cv", filename: name, content: "hello"})...)
		if name == ".." {
			require.Equal(t, 422, r.status, "no extension")
			continue
		}
		require.Equal(t, 201, r.status, "%q: %s", name, r.body)
		sub := b.api(t, "GET", fmt.Sprintf("/contact/submissions/%v", r.json(t)["submission_id"]), nil).data(t)
		orig := sub["uploads"].([]any)[0].(map[string]any)["original_name"].(string)
		require.NotContains(t, orig, "/")
		require.NotContains(t, orig, `\`)
		require.NotContains(t, orig, "\x00")
	}
	for _, f := range b.files(t) {
		require.Regexp(t, `^uploads/\d+/[0-9a-f-]{36}\.(txt|pdf)$`, f)
	}
	_, err := os.Stat(filepath.Join(filepath.Dir(b.blobDir), "etc"))
	require.True(t, os.IsNotExist(err))
}

func TestSubmitOtherEncodings(t *testing.T) {
	t.Parallel()
	b := setup(t)
	form := b.contactForm(t)
	q := url.Values{"data[name]": {"Bob"}, "email": {"bob@example.test"}, "topic": {"sales"}}
	r := b.request(t, "POST", "/api/v1/forms/"+form+"/submit", "", "application/x-www-form-urlencoded", strings.NewReader(q.Encode()))
	require.Equal(t, 201, r.status, r.body)
	r = b.request(t, "POST", "/api/v1/forms/"+form+"/submit", "", "application/json",
		strings.NewReader(`{"data":{"name":"Cy","email":"cy@example.test","topic":"sales"},"website_url":""}`))
	require.Equal(t, 201, r.status, r.body)
	r = b.request(t, "POST", "/api/v1/forms/"+form+"/submit", "", "application/json", strings.NewReader(`{"name":{"x":1},"email":"a@b.test"}`))
	require.Equal(t, 422, r.status)
	r = b.request(t, "POST", "/api/v1/forms/"+form+"/submit", "", "text/xml", strings.NewReader(`<x/>`))
	require.Equal(t, 415, r.status)
	r = b.request(t, "POST", "/api/v1/forms/"+form+"/submit", "", "", nil)
	require.Equal(t, 422, r.status, "an empty post fails validation")
	list := b.api(t, "GET", "/contact/submissions", nil).json(t)
	require.EqualValues(t, 2, list["meta"].(map[string]any)["total"])
}

func TestConcurrentSubmissions(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, func(o *setupOptions) { o.dialect = d })
		form := b.contactForm(t)
		const n = 50
		var wg sync.WaitGroup
		statuses := make([]int, n)
		for i := range n {
			wg.Go(func() {
				r := b.submit(t, form, part{name: "name", content: fmt.Sprintf("Person %d", i)}, part{name: "email", content: fmt.Sprintf("p%d@example.test", i)},
					part{name: "cv", filename: "cv.txt", content: fmt.Sprintf("cv %d", i)})
				statuses[i] = r.status
			})
		}
		wg.Wait()
		for i, s := range statuses {
			require.Equal(t, 201, s, "submission %d", i)
		}
		f := b.api(t, "GET", "/contact", nil).data(t)
		require.EqualValues(t, n, f["total_submissions_count"])
		require.EqualValues(t, n, f["unread_submissions_count"])
		list := b.api(t, "GET", "/contact/submissions?per_page=100", nil).json(t)
		seen := map[string]bool{}
		for _, s := range list["data"].([]any) {
			for _, v := range s.(map[string]any)["values"].([]any) {
				if v.(map[string]any)["field_name"] == "name" {
					seen[v.(map[string]any)["value"].(string)] = true
				}
			}
		}
		require.Len(t, seen, n, "every submission kept its own values")
		require.Len(t, b.files(t), n)
	})
}

func TestAdminSubmissions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	form := b.contactForm(t)
	var ids []any
	for i := range 4 {
		b.clock.Advance(time.Second)
		r := b.submit(t, form, valid(part{name: "cv", filename: "cv.txt", content: fmt.Sprintf("cv %d", i)})...)
		require.Equal(t, 201, r.status)
		ids = append(ids, r.json(t)["submission_id"])
	}
	path := fmt.Sprintf("/contact/submissions/%v", ids[0])
	r := b.api(t, "PUT", path, map[string]any{"is_read": true, "is_starred": true, "admin_notes": "Called back", "values": []any{"x"}})
	require.Equal(t, 200, r.status, r.body)
	d := r.data(t)
	require.Equal(t, true, d["is_read"])
	require.Equal(t, "Called back", d["admin_notes"])
	require.Len(t, d["values"], 5, "values never change")
	r = b.api(t, "PUT", path, map[string]any{"admin_notes": strings.Repeat("n", 5001)})
	require.Equal(t, 422, r.status)

	r = b.api(t, "GET", "/contact/submissions?is_read=0", nil)
	require.EqualValues(t, 3, r.json(t)["meta"].(map[string]any)["total"])
	r = b.api(t, "GET", "/contact/submissions?is_starred=true&is_read=1", nil)
	require.EqualValues(t, 1, r.json(t)["meta"].(map[string]any)["total"])

	r = b.api(t, "POST", "/contact/submissions/bulk", map[string]any{"action": "mark_spam", "ids": []any{ids[1], ids[2], 999999}})
	require.Equal(t, 200, r.status)
	require.JSONEq(t, `{"message":"2 submissions updated.","affected":2}`, r.body)
	r = b.api(t, "POST", "/contact/submissions/bulk", map[string]any{"action": "mark_read", "ids": []any{ids[3]}})
	require.JSONEq(t, `{"message":"1 submission updated.","affected":1}`, r.body)
	r = b.api(t, "POST", "/contact/submissions/bulk", map[string]any{"action": "mark_not_spam", "ids": []any{ids[1]}})
	require.EqualValues(t, 1, r.json(t)["affected"])
	r = b.api(t, "POST", "/contact/submissions/bulk", map[string]any{"action": "mark_unread", "ids": []any{ids[3], ids[0]}})
	require.EqualValues(t, 2, r.json(t)["affected"])
	r = b.api(t, "POST", "/contact/submissions/bulk", map[string]any{"ids": []any{}})
	require.Equal(t, 422, r.status)
	require.Equal(t, map[string][]string{"ids": {"The ids field is required."}}, r.errors(t).Errors)

	require.Len(t, b.files(t), 4)
	r = b.api(t, "POST", "/contact/submissions/bulk", map[string]any{"action": "delete", "ids": []any{ids[1], ids[2]}})
	require.EqualValues(t, 2, r.json(t)["affected"])
	require.Len(t, b.files(t), 2, "their files went with them")
	r = b.api(t, "DELETE", fmt.Sprintf("/contact/submissions/%v", ids[3]), nil)
	require.Equal(t, 204, r.status)
	r = b.api(t, "DELETE", fmt.Sprintf("/contact/submissions/%v", ids[3]), nil)
	require.Equal(t, 404, r.status)
	require.JSONEq(t, `{"message":"Submission not found."}`, r.body)
	require.Len(t, b.files(t), 1)

	// Deleting the form removes the rest, files included.
	r = b.api(t, "DELETE", "/contact", nil)
	require.Equal(t, 204, r.status)
	require.Empty(t, b.files(t))
}

func TestPrivacyOptions(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *setupOptions) {
		o.handler = func(h *forms.HandlerOptions) { h.IncludeIPAddress, h.IncludeUserAgent = true, true }
	})
	form := b.contactForm(t)
	r := b.submit(t, form, valid()...)
	d := b.api(t, "GET", fmt.Sprintf("/contact/submissions/%v", r.json(t)["submission_id"]), nil).data(t)
	require.Equal(t, "127.0.0.1", d["ip_address"])
	require.Equal(t, "Go-http-client/1.1", d["user_agent"])
}

// Bytes no database keeps as text: an answer carrying them is refused
// with a message, a header carrying them is kept with U+FFFD.
func TestSubmitHostileBytes(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, func(o *setupOptions) { o.dialect = d })
		form := b.contactForm(t)
		r := b.request(t, "POST", "/api/v1/forms/"+form+"/submit", "", "application/json",
			strings.NewReader(`{"data":{"name":"C\u0000y","email":"cy@example.test","topic":"sales","message":"hi"}}`))
		require.Equal(t, 400, r.status, r.body)
		require.Contains(t, r.body, "NUL characters")

		r = b.submit(t, form, part{name: "name", content: "A\x00n"}, part{name: "email", content: "ann@example.test"},
			part{name: "topic", content: "support"}, part{name: "message", content: "caf\xe9"})
		require.Equal(t, 422, r.status, r.body)
		e := r.errors(t)
		require.Equal(t, []string{"The Name field must be UTF-8 text without NUL characters."}, e.Errors["name"])
		require.Equal(t, []string{"The Message field must be UTF-8 text without NUL characters."}, e.Errors["message"])
		q := url.Values{"name": {"Bob\xff"}, "email": {"bob@example.test"}, "topic": {"sales"}}
		r = b.request(t, "POST", "/api/v1/forms/"+form+"/submit", "", "application/x-www-form-urlencoded", strings.NewReader(q.Encode()))
		require.Equal(t, 422, r.status, r.body)

		ct, body := multipartBody(t, valid()...)
		r = b.request(t, "POST", "/api/v1/forms/"+form+"/submit", "", ct, body, "Referer", "https://example.test/caf\xe9")
		require.Equal(t, 201, r.status, r.body)
		list := b.api(t, "GET", "/contact/submissions", nil).json(t)
		require.EqualValues(t, 1, list["meta"].(map[string]any)["total"], "only the clean submission was stored")
		sub := b.api(t, "GET", fmt.Sprintf("/contact/submissions/%v", r.json(t)["submission_id"]), nil).data(t)
		require.Equal(t, "https://example.test/caf\uFFFD", sub["referrer_url"])
	})
}

// A browser or client that sends a whole oversized submission before
// reading sees the 413, from the API and from the page.
func TestOversizedSubmissionSees413(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *setupOptions) {
		o.handler = func(ho *forms.HandlerOptions) { ho.MaxRequestBytes = 64 << 10 }
		o.page = func(po *forms.PageOptions) { po.MaxRequestBytes = 64 << 10 }
	})
	form := b.contactForm(t)
	addr := strings.TrimPrefix(b.server.URL, "http://")
	header := http.Header{"Content-Type": {"multipart/form-data; boundary=x"}}
	for _, path := range []string{forms.PrefixDefault + "/" + form + "/submit", "/forms/" + form} {
		status, err := rawclient.SendWhole(addr, path, header, 2<<20)
		require.NoError(t, err, path)
		require.Equal(t, http.StatusRequestEntityTooLarge, status, path)
	}
}
