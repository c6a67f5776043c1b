package web_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/internal/web"
)

// Every field kind, with and without errors, the flash after a redirect
// and the error page, in a real browser: axe-core finds nothing, and the
// summary's links move focus to their inputs.
func TestBrowserPagesAreAccessible(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 90*time.Second)
	srv := demoServer(t, newRenderer(t, web.Options{}))

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/demo"), chromedp.WaitVisible(chromedp.ID("f-name"))))
	browsertest.NoViolations(t, ctx, "the empty demo page")

	// Posting without "ok" draws the errors.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("button:not([name])")),
		chromedp.WaitVisible(chromedp.CSS(".error-summary")),
	))
	browsertest.NoViolations(t, ctx, "the demo page with errors")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.error-summary a[href="#f-email"]`))))
	focused, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.id`))
	require.NoError(t, err)
	require.Equal(t, "f-email", focused, "the summary's link leads to the input")
	described, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("f-email").ariaDescribedByElements.map(e => e.textContent).join(" | ")`))
	require.NoError(t, err)
	require.Equal(t, "We reply here. | Error: The Email field must be a valid email address.", described)

	// A flash after Post/Redirect/Get.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/demo"),
		chromedp.Click(chromedp.CSS(`button[name="ok"]`)),
		chromedp.WaitVisible(chromedp.CSS(".notice")),
	))
	browsertest.NoViolations(t, ctx, "the demo page with a flash")

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/missing"), chromedp.WaitVisible(chromedp.CSS("h1"))))
	browsertest.NoViolations(t, ctx, "the error page")
}

// The harness finds what it should: a page with an unlabelled input and an
// image without a text alternative fails.
func TestBrowserAxeFindsViolations(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 60*time.Second)
	broken := fstest.MapFS{"broken.html": {Data: []byte(`{{define "content"}}<h1>Broken</h1><img src="x.png"><input name="q">{{end}}`)}}
	r := newRenderer(t, web.Options{Pages: broken})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.Render(w, req, http.StatusOK, "broken.html", &web.Page{Title: "Broken"})
	}))
	t.Cleanup(srv.Close)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL), chromedp.WaitVisible(chromedp.CSS("h1"))))
	vs, err := browsertest.Axe(ctx)
	require.NoError(t, err)
	var ids []string
	for _, v := range vs {
		ids = append(ids, v.ID)
	}
	require.Subset(t, ids, []string{"image-alt", "label"})
}

// The layout check finds what it should: without the stylesheet, a page
// with a 600 px drawing scrolls sideways at 320 px and a bare checkbox is
// a target under 24 px.
func TestBrowserLayoutFindsReflowAndTargets(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 60*time.Second)
	page := fstest.MapFS{"wide.html": {Data: []byte(`{{define "content"}}<h1>Wide</h1><svg width="600" height="10" aria-hidden="true"></svg>` +
		`<label><input type="checkbox"> Tick</label>{{end}}`)}}
	r := newRenderer(t, web.Options{Pages: page, Override: fstest.MapFS{web.Stylesheet: {Data: []byte("")}}})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if strings.HasPrefix(req.URL.Path, "/demo/_assets/") {
			r.Assets().ServeHTTP(w, req)
			return
		}
		r.Render(w, req, http.StatusOK, "wide.html", &web.Page{Title: "Wide"})
	}))
	t.Cleanup(srv.Close)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL), chromedp.WaitVisible(chromedp.CSS("h1"))))
	problems, err := browsertest.AtWidth(ctx, 320, browsertest.Layout)
	require.NoError(t, err)
	require.Len(t, problems, 2, "%q", problems)
	require.Contains(t, problems[0], "sideways scroll at 320 px")
	require.Contains(t, problems[1], `target under 24 px (13x13): <input type="checkbox">`)
	// With the stylesheet, the same page is fine but for the drawing.
	r = newRenderer(t, web.Options{Pages: page})
	require.NoError(t, chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("h1"))))
	problems, err = browsertest.AtWidth(ctx, 320, browsertest.Layout)
	require.NoError(t, err)
	require.Len(t, problems, 1, "%q", problems)
}
