package forms_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

var resumeLinkIn = regexp.MustCompile(`href="(http://[^"]+\?resume=[A-Za-z0-9_-]+)"`)

// applicationForm makes a form of three steps that may be saved: About
// you (name, email), Your work (cv file, summary), Finish (agree).
func (b *bundle) applicationForm(t *testing.T) string {
	t.Helper()
	b.createForm(t, map[string]any{"name": "Application", "is_multi_step": true, "save_and_resume": true, "success_message": "Sent."})
	var steps []float64
	for _, title := range []string{"About you", "Your work", "Finish"} {
		r := b.api(t, "POST", "/application/steps", map[string]any{"title": title})
		require.Equal(t, 201, r.status, r.body)
		steps = append(steps, r.data(t)["id"].(float64))
	}
	b.addField(t, "application", map[string]any{"type": "text", "label": "Name", "is_required": true, "step_id": steps[0]})
	b.addField(t, "application", map[string]any{"type": "email", "label": "Email", "is_required": true, "step_id": steps[0]})
	b.addField(t, "application", map[string]any{"type": "file", "label": "CV", "is_required": true, "step_id": steps[1],
		"field_config": map[string]any{"allowed_types": []any{"pdf", "txt"}}})
	b.addField(t, "application", map[string]any{"type": "textarea", "label": "Summary", "step_id": steps[1]})
	b.addField(t, "application", map[string]any{"type": "checkbox", "label": "Agree", "is_required": true, "step_id": steps[2]})
	require.Equal(t, 201, b.api(t, "POST", "/application/notifications", map[string]any{"type": "admin", "recipients": "team@example.test"}).status)
	return "application"
}

// Save on step 2 on one instance, resume on another, submit: the partial
// is gone, the export has one row with the file saved on the first. Both
// databases; the files in one folder, as instances share a BlobStore.
func TestSaveAndResumeAcrossInstances(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		dsn, files := storetest.DSN(t, d), t.TempDir()
		shared := func(o *setupOptions) { o.dsn, o.blobDir = dsn, files }
		one := setup(t, shared, withQueue)
		two := setup(t, shared)
		slug := one.applicationForm(t)

		// On the first: the answers of steps one and two, saved.
		page := one.request(t, "GET", "/forms/"+slug, "", "", nil)
		require.Contains(t, page.body, "Save and continue later")
		ct, body := multipartBody(t, part{name: "name", content: "Ann"}, part{name: "email", content: "ann@example.test"},
			part{name: "cv", filename: "cv.pdf", content: "%PDF-1.4 Ann"}, part{name: "summary", content: "Ten years of pottery"},
			part{name: forms.FormTokenField, content: formTokenOf(t, page.body)}, part{name: forms.ActionField, content: forms.ActionSave})
		saved := one.request(t, "POST", "/forms/"+slug, "", ct, body)
		require.Equal(t, 200, saved.status, saved.body)
		require.Contains(t, saved.body, "Your answers are saved.")
		link := resumeLinkIn.FindStringSubmatch(saved.body)
		require.NotNil(t, link, saved.body)
		require.True(t, strings.HasPrefix(link[1], one.server.URL+"/forms/"+slug+"?resume="))
		token := strings.SplitN(link[1], "resume=", 2)[1]

		// Nothing sent, nothing notified, nothing exported.
		r := two.api(t, "GET", "/"+slug+"/partials", nil)
		require.Equal(t, 200, r.status, r.body)
		require.JSONEq(t, `[{"step":2,"count":1}]`, mustJSON(t, r.json(t)["by_step"]))
		require.EqualValues(t, 1, r.json(t)["total"])
		require.NotContains(t, r.body, "Ann", "the list shows no answers")
		require.EqualValues(t, 0, two.api(t, "GET", "/"+slug+"/submissions", nil).json(t)["meta"].(map[string]any)["total"])

		// On the second: the page holds the answers and the file.
		page = two.request(t, "GET", "/forms/"+slug+"?resume="+token, "", "", nil)
		require.Equal(t, 200, page.status)
		require.Contains(t, page.body, `value="Ann"`)
		require.Contains(t, page.body, "Ten years of pottery")
		require.Contains(t, page.body, "Saved with your answers: cv.pdf")
		require.Contains(t, page.body, `name="`+forms.ResumeField+`" value="`+token+`"`)
		two.clock.Advance(forms.MinFillTime)
		ct, body = multipartBody(t, part{name: "name", content: "Ann"}, part{name: "email", content: "ann@example.test"},
			part{name: "summary", content: "Ten years of pottery"}, part{name: "agree", content: "1"},
			part{name: forms.FormTokenField, content: formTokenOf(t, page.body)}, part{name: forms.ResumeField, content: token})
		r = two.request(t, "POST", "/forms/"+slug, "", ct, body)
		require.Equal(t, 303, r.status, r.body)

		require.EqualValues(t, 0, one.api(t, "GET", "/"+slug+"/partials", nil).json(t)["total"], "the partial is gone")
		export := one.request(t, "GET", forms.PrefixDefault+"/"+slug+"/submissions/export", "admin", "", nil)
		require.Equal(t, 200, export.status)
		rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(export.body, "\ufeff"))).ReadAll()
		require.NoError(t, err)
		require.Len(t, rows, 2, "a header and one row")
		require.Contains(t, strings.Join(rows[1], ","), "cv.pdf")
		list := one.api(t, "GET", "/"+slug+"/submissions", nil)
		sub := list.json(t)["data"].([]any)[0].(map[string]any)
		upload := sub["uploads"].([]any)[0].(map[string]any)
		dl := one.request(t, "GET", forms.PrefixDefault+"/submissions/"+num(sub["id"])+"/uploads/"+num(upload["id"])+"/download", "admin", "", nil)
		require.Equal(t, "%PDF-1.4 Ann", dl.body, "the file saved on one instance, sent on the other")

		// The link is used up; the page says so and starts again.
		page = one.request(t, "GET", "/forms/"+slug+"?resume="+token, "", "", nil)
		require.Contains(t, page.body, "Your saved answers are no longer kept")
		require.NotContains(t, page.body, `value="Ann"`)

		// The admin notification went once, for the submission only.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		msgs, err := one.outbox.Wait(ctx, 1)
		require.NoError(t, err)
		require.Equal(t, "New submission: Application", msgs[0].Subject)
	})
}

// The save API for a host's own front end: save, read back, save over,
// mail the link; the sweep drops an expired partial with its file; a
// form that cannot be saved says so.
func TestSaveAPI(t *testing.T) {
	t.Parallel()
	b := setup(t, withQueue)
	slug := b.applicationForm(t)
	save := func(parts ...part) reply {
		ct, body := multipartBody(t, parts...)
		return b.request(t, "POST", forms.PrefixDefault+"/"+slug+"/save", "", ct, body)
	}
	r := save(part{name: "name", content: "Bo"}, part{name: "cv", filename: "cv.txt", content: "Bo's CV"}, part{name: "unknown", content: "x"})
	require.Equal(t, 201, r.status, r.body)
	saved := r.data(t)
	token := saved["resume_token"].(string)
	require.EqualValues(t, 2, saved["last_step"])
	require.Equal(t, b.server.URL+"/forms/"+slug+"?resume="+token, saved["resume_url"])
	require.Equal(t, "2026-11-29T10:00:00.000000Z", saved["expires_at"], "a week")

	got := b.request(t, "GET", forms.PrefixDefault+"/"+slug+"/resume/"+token, "", "", nil)
	require.Equal(t, 200, got.status, got.body)
	require.JSONEq(t, `{"values":{"name":["Bo"]},"files":[{"field":"cv","original_name":"cv.txt","size":7}],"last_step":2,
		"expires_at":"2026-11-29T10:00:00.000000Z"}`, mustJSON(t, got.data(t)))

	// Saved over: the answers replaced, the file kept, the link mailed.
	b.clock.Advance(time.Hour)
	r = save(part{name: "name", content: "Bo B."}, part{name: forms.ResumeField, content: token},
		part{name: forms.ResumeEmailField, content: "bo@example.test"})
	require.Equal(t, 201, r.status, r.body)
	require.Equal(t, token, r.data(t)["resume_token"], "the same link")
	got = b.request(t, "GET", forms.PrefixDefault+"/"+slug+"/resume/"+token, "", "", nil)
	require.Contains(t, got.body, `"Bo B."`)
	require.Contains(t, got.body, "cv.txt")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	msgs, err := b.outbox.Wait(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, []string{"bo@example.test"}, msgs[0].To)
	require.Equal(t, "Your saved answers to Application", msgs[0].Subject)
	require.Contains(t, msgs[0].Text, b.server.URL+"/forms/"+slug+"?resume="+token)
	require.Len(t, b.outbox.Messages(), 1, "no notification for a save")

	for _, bad := range []string{"nope", strings.Repeat("a", 100)} {
		require.Equal(t, 404, b.request(t, "GET", forms.PrefixDefault+"/"+slug+"/resume/"+bad, "", "", nil).status)
	}
	r = save(part{name: forms.ResumeEmailField, content: "not an address"})
	require.Equal(t, 422, r.status)
	require.Contains(t, r.errors(t).Errors, forms.ResumeEmailField)

	// Expired: unread, then swept with its file.
	filesBefore := countFiles(t, b.blobDir)
	require.Positive(t, filesBefore)
	b.clock.Advance(forms.ResumeHoursDefault * time.Hour)
	require.Equal(t, 404, b.request(t, "GET", forms.PrefixDefault+"/"+slug+"/resume/"+token, "", "", nil).status)
	require.EqualValues(t, 0, b.api(t, "GET", "/"+slug+"/partials", nil).json(t)["total"])
	n, err := b.svc.SweepKeptUploads(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, filesBefore-1, countFiles(t, b.blobDir))
	var left int
	require.NoError(t, b.db.Get(&left, `SELECT COUNT(*) FROM forms_partials`))
	require.Zero(t, left)

	// A form that cannot be saved, and bad settings.
	require.Equal(t, 422, b.api(t, "PATCH", "/"+slug, map[string]any{"resume_hours": forms.ResumeHoursMax + 1}).status)
	r = b.api(t, "PATCH", "/"+slug, map[string]any{"save_and_resume": false, "resume_hours": 48})
	require.Equal(t, 200, r.status, r.body)
	require.EqualValues(t, 48, r.data(t)["resume_hours"])
	r = save(part{name: "name", content: "Cy"})
	require.Equal(t, 409, r.status)
	require.JSONEq(t, `{"message":"This form cannot be saved to finish later."}`, r.body)
	page := b.request(t, "GET", "/forms/"+slug, "", "", nil)
	require.NotContains(t, page.body, "Save and continue later")
	require.Equal(t, http.StatusOK, page.status)
}

func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	require.NoError(t, filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	}))
	return n
}

// mustJSON writes v as JSON.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// num writes a JSON number as an integer's text.
func num(v any) string { return strconv.FormatInt(int64(v.(float64)), 10) }

// Save and resume in Chromium, by keyboard: the first step answered,
// saved, the link shown and emailed, opened, the rest answered, sent.
// axe-core finds nothing on the saved page (with a wrong address too) or
// the resumed form, light and dark, at 320 px and on a desktop.
func TestBrowserSaveAndResume(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 90*time.Second)
	b := setup(t, withQueue)
	slug := b.applicationForm(t)
	browsertest.Do(t, ctx, chromedp.Navigate(b.server.URL+"/forms/"+slug), chromedp.WaitVisible(chromedp.CSS("input[name=name]")))
	typeInto(t, ctx, "input[name=name]", "Ann")
	typeInto(t, ctx, "input[name=email]", "ann@example.test")
	browsertest.TabTo(t, ctx, "button[value=save]")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, "main"), "Your answers are saved.")
	axeEverywhere(t, ctx, "the saved page")
	browsertest.Screenshots(t, ctx, os.Getenv(browsertest.EnvScreenshots), "form-saved")
	typeInto(t, ctx, "input[name=email]", "ann at example")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, ".error-summary"), "valid email address")
	axeEverywhere(t, ctx, "the saved page with a wrong address")
	browsertest.Do(t, ctx, chromedp.Clear(chromedp.CSS("input[name=email]")))
	typeInto(t, ctx, "input[name=email]", "ann@example.test")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, "main"), "We have emailed the link to ann@example.test.")

	wait, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	msgs, err := b.outbox.Wait(wait, 1)
	require.NoError(t, err)
	link := regexp.MustCompile(`http://\S+\?resume=\S+`).FindString(msgs[0].Text)
	require.NotEmpty(t, link)
	browsertest.Do(t, ctx, chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS("input[name=name]")))
	value, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("input[name=name]")))
	require.NoError(t, err)
	require.Equal(t, "Ann", value)
	axeEverywhere(t, ctx, "the resumed form")
	browsertest.Screenshots(t, ctx, os.Getenv(browsertest.EnvScreenshots), "form-resumed")
	b.clock.Advance(forms.MinFillTime)
	require.NoError(t, chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.CSS("input[name=cv]"), writeFile(t, "cv.txt", "Ann's CV"))))
	browsertest.TabTo(t, ctx, "input[name=agree]")
	browsertest.Press(t, ctx, " ", false)
	browsertest.TabTo(t, ctx, "button:not([value])")
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, browsertest.Text(t, ctx, "main"), "Sent.")
	require.EqualValues(t, 0, b.api(t, "GET", "/"+slug+"/partials", nil).json(t)["total"])
}

// writeFile writes a file for an upload and returns its path.
func writeFile(t *testing.T, name, content string) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return []string{path}
}

// A saved response's mail cannot send mail to anyone at will: one
// address gets at most ResumeMailsPerAddress resume links an hour,
// whatever the form and whatever its case; more are refused at the field.
func TestResumeLinksPerAddressAreCapped(t *testing.T) {
	t.Parallel()
	b := setup(t, withQueue)
	slug := b.applicationForm(t)
	save := func(address string) reply {
		ct, body := multipartBody(t, part{name: "name", content: "Bo"}, part{name: forms.ResumeEmailField, content: address})
		return b.request(t, "POST", forms.PrefixDefault+"/"+slug+"/save", "", ct, body)
	}
	for i := range forms.ResumeMailsPerAddress {
		address := "victim@example.test"
		if i%2 == 1 {
			address = "Victim@Example.test"
		}
		r := save(address)
		require.Equal(t, 201, r.status, r.body)
	}
	var before int
	require.NoError(t, b.db.Get(&before, `SELECT COUNT(*) FROM forms_partials`))
	r := save("victim@example.test")
	require.Equal(t, 422, r.status, r.body)
	require.Contains(t, r.errors(t).Errors[forms.ResumeEmailField][0], "Too many links have been mailed to this address in the last hour.")
	var after int
	require.NoError(t, b.db.Get(&after, `SELECT COUNT(*) FROM forms_partials`))
	require.Equal(t, before, after, "nothing saved that the person was not given the link of")
	require.Equal(t, 201, save("someone-else@example.test").status, "another address is counted apart")
	b.clock.Advance(forms.AccessMailWindow + time.Minute)
	require.Equal(t, 201, save("victim@example.test").status, "an hour on, one more")
}
