package forms_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/browsertest"
)

// A person fills the no-JavaScript page in a real browser: a wrong answer
// comes back with its message and the other answers kept, then the
// corrected form, with a file, is stored, and the browser lands on the
// thanks by a redirect, so reloading it sends nothing again. axe-core
// finds no violation on the empty page, the page with errors, the thanks
// and the page of a missing form. Skips without Chromium and axe-core.
func TestBrowserFillsThePage(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 90*time.Second)
	b := setup(t)
	form := b.contactForm(t)
	cv := filepath.Join(t.TempDir(), "cv.txt")
	require.NoError(t, os.WriteFile(cv, []byte("Ten years of forms."), 0o600))

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(b.server.URL+"/forms/"+form),
		chromedp.WaitVisible(chromedp.ID("f-name")),
	))
	browsertest.NoViolations(t, ctx, "the empty form page")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("f-name"), "Ann Example"),
		chromedp.SendKeys(chromedp.ID("f-email"), "not an address"),
		chromedp.SetValue(chromedp.ID("f-topic"), "support"),
		chromedp.SendKeys(chromedp.ID("f-message"), "Hello from a browser."),
		chromedp.SetUploadFiles(chromedp.ID("f-cv"), []string{cv}),
	))
	b.clock.Advance(20 * time.Second) // a person takes a while
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(".error-summary")),
	))
	browsertest.NoViolations(t, ctx, "the form page with errors (and a kept file)")
	help, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("f-cv-help")))
	require.NoError(t, err)
	require.Contains(t, help, "Kept from your last try: cv.txt (19 bytes).", "the valid file is kept, not dropped")
	summary, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".error-summary")))
	require.NoError(t, err)
	require.Contains(t, summary, "Enter an email address in the correct format, like name@example.com")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.error-summary a[href="#f-email"]`))))
	focused, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.id`))
	require.NoError(t, err)
	require.Equal(t, "f-email", focused, "the summary leads to the input")
	for id, want := range map[string]string{"f-name": "Ann Example", "f-email": "not an address", "f-topic": "support", "f-message": "Hello from a browser."} {
		got, err := chromedp.Run(ctx, chromedp.Value(chromedp.ID(id)))
		require.NoError(t, err)
		require.Equal(t, want, got, id)
	}
	list := b.api(t, "GET", "/"+form+"/submissions", nil)
	require.EqualValues(t, 0, list.json(t)["meta"].(map[string]any)["total"], "nothing stored yet")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Clear(chromedp.ID("f-email")),
		chromedp.SendKeys(chromedp.ID("f-email"), "ann@example.test"),
	))
	b.clock.Advance(20 * time.Second)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(".notice")),
	))
	success, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".notice")))
	require.NoError(t, err)
	require.Equal(t, "Thanks, we got it.", success)
	thanked, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.textContent`))
	require.NoError(t, err)
	require.Equal(t, "Thanks, we got it.", thanked, "the focus on the thanks, where a screen reader starts reading")
	landed, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	require.Equal(t, b.server.URL+"/forms/"+form, landed, "the thanks is a GET after a redirect")
	browsertest.NoViolations(t, ctx, "the thanks")

	// Reloading the thanks sends nothing again: it is a plain GET.
	require.NoError(t, chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("f-name"))))

	list = b.api(t, "GET", "/"+form+"/submissions", nil)
	require.Equal(t, 200, list.status, list.body)
	data := list.json(t)["data"].([]any)
	require.Len(t, data, 1)
	sub := data[0].(map[string]any)
	require.Equal(t, false, sub["is_spam"])
	values := map[string]any{}
	for _, v := range sub["values"].([]any) {
		v := v.(map[string]any)
		values[v["field_name"].(string)] = v["value"]
	}
	require.Equal(t, map[string]any{"name": "Ann Example", "email": "ann@example.test", "topic": "support",
		"message": "Hello from a browser.", "cv": "cv.txt"}, values)
	uploads := sub["uploads"].([]any)
	require.Len(t, uploads, 1)
	stored := b.files(t)
	require.Len(t, stored, 1)
	content, err := os.ReadFile(filepath.Join(b.blobDir, stored[0]))
	require.NoError(t, err)
	require.Equal(t, "Ten years of forms.", string(content))

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(b.server.URL+"/forms/nope"), chromedp.WaitVisible(chromedp.CSS("h1"))))
	browsertest.NoViolations(t, ctx, "the page of a missing form")
}
