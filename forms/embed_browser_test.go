package forms_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/internal/browsertest"
)

// A form in a pop-up on another site: the host's page (on localhost) has
// one link, "Contact us", and the embed script; a keyboard user opens it
// (a dialog, the focus inside), fills the form in its frame (from
// 127.0.0.1, another site), sends it, reads the thanks there (its message
// carried across the redirect without a cookie), and the host page hears
// formSubmitted; Escape closes the dialog and the focus is back on the
// link. Without JavaScript the link is the form's own page. The page
// loads the script twice, as a page with both a form and a booking page
// does: nothing happens twice.
func TestBrowserEmbeddedFormPopup(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 90*time.Second)
	b := setup(t)
	form := b.contactForm(t)
	hostOrigin, pagesURL := embedSites(t, b, `<p><a href="%[1]s/forms/%[2]s" data-groundwork-embed="popup" data-theme="dark">Contact us</a></p><ol id="events"></ol></main>
<script src="%[1]s/forms/embed.js" async></script><script src="%[1]s/forms/embed.js" async></script>
<script>document.addEventListener("groundwork:formSubmitted", (e) => {
  const li = document.createElement("li"); li.textContent = e.detail.form + ": " + e.detail.message; document.getElementById("events").append(li);
});</script>`, form)

	browsertest.Do(t, ctx, chromedp.Navigate(hostOrigin+"/"), chromedp.WaitVisible(chromedp.CSS(`a[aria-haspopup="dialog"]`)))
	browsertest.TabTo(t, ctx, `a[data-groundwork-embed]`)
	browsertest.Press(t, ctx, "\r", false)
	open, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("dialog").open && document.activeElement === document.querySelector("dialog")`))
	require.NoError(t, err)
	require.True(t, open, "Enter opens the dialog, the focus on it")
	frame := browsertest.Frame(t, ctx, pagesURL+"/forms/"+form)
	browsertest.Do(t, frame, chromedp.WaitVisible(chromedp.ID("f-name")))
	theme, err := chromedp.Run(frame, chromedp.Evaluate[string](`document.documentElement.dataset.theme + " " + getComputedStyle(document.documentElement).backgroundColor`))
	require.NoError(t, err)
	require.Equal(t, "dark rgb(11, 17, 32)", theme, "the frame in the theme the host asked for")
	browsertest.NoViolationsIn(t, ctx, frame, "the framed form")
	browsertest.Screenshots(t, ctx, os.Getenv(browsertest.EnvScreenshots), "embed-form-popup")

	browsertest.Do(t, frame, chromedp.SendKeys(chromedp.ID("f-name"), "Ann Example"), chromedp.SendKeys(chromedp.ID("f-email"), "ann@example.test"))
	b.clock.Advance(20 * time.Second) // a person takes a while
	browsertest.Submit(t, frame, "button[type=submit]")
	require.Equal(t, "Thanks, we got it.", browsertest.Text(t, frame, ".notice"))
	browsertest.NoViolationsIn(t, ctx, frame, "the framed thanks")
	require.Equal(t, form+": Thanks, we got it.", browsertest.Text(t, ctx, "#events li"))
	told, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#events li").length + document.querySelectorAll("dialog").length`))
	require.NoError(t, err)
	require.Equal(t, 2, told, "the script loaded twice tells the event once and makes one dialog")

	browsertest.Press(t, ctx, "\x1b", false) // the focus is inside the frame, on its thanks
	browsertest.Eventually(t, ctx, `!document.querySelector("dialog").open && document.activeElement.matches("a[data-groundwork-embed]")`,
		"Escape closes the dialog, the focus back on the link")
	list := b.api(t, "GET", "/"+form+"/submissions", nil)
	require.EqualValues(t, 1, list.json(t)["meta"].(map[string]any)["total"])
}

// The floating button: the link becomes a button fixed in the window's
// corner, reading as the link did, which opens the form in a dialog.
func TestBrowserEmbeddedFormFloating(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 60*time.Second)
	b := setup(t)
	form := b.contactForm(t)
	hostOrigin, pagesURL := embedSites(t, b, `<p><a href="%[1]s/forms/%[2]s" data-groundwork-embed="floating">Write to us</a></p></main>
<script src="%[1]s/forms/embed.js" async></script>`, form)

	browsertest.Do(t, ctx, chromedp.Navigate(hostOrigin+"/"), chromedp.WaitVisible(chromedp.CSS(`button[aria-haspopup="dialog"]`)))
	placed, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const b = document.querySelector('button[aria-haspopup="dialog"]');
  return b.textContent + " " + getComputedStyle(b).position + " " + document.querySelector("a[data-groundwork-embed]").hidden })()`))
	require.NoError(t, err)
	require.Equal(t, "Write to us fixed true", placed)
	browsertest.TabTo(t, ctx, `button[aria-haspopup="dialog"]`)
	browsertest.Press(t, ctx, " ", false)
	frame := browsertest.Frame(t, ctx, pagesURL+"/forms/"+form)
	require.Equal(t, "Contact", browsertest.Text(t, frame, "h1"))
}

// embedSites serves the form pages of b, framed only by the host's
// origin, and a host page (on localhost, another site than the pages'
// 127.0.0.1) whose body is body with the pages' address and form put in
// (%[1]s, %[2]s); it returns the host's origin and the pages' address.
func embedSites(t *testing.T, b *bundle, body, form string) (hostOrigin, pagesURL string) {
	t.Helper()
	mux := http.NewServeMux()
	pagesSrv := httptest.NewServer(mux)
	t.Cleanup(pagesSrv.Close)
	hostSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Our site</title></head><body><main><h1>Our site</h1>
`+body+`</body></html>`, pagesSrv.URL, form)
	}))
	t.Cleanup(hostSrv.Close)
	hostURL, _ := url.Parse(hostSrv.URL)
	hostOrigin = "http://localhost:" + hostURL.Port()
	pages, err := forms.NewPageHandler(b.svc, &forms.PageOptions{FrameOrigins: []string{hostOrigin}, SubmitLimit: -1})
	require.NoError(t, err)
	mux.Handle("/forms/", pages)
	return hostOrigin, pagesSrv.URL
}

// A form with a redirect_url inside a frame: the thanks shows in the
// frame (the address may refuse frames), and the host page goes to the
// address once it has heard formSubmitted.
func TestBrowserEmbeddedFormRedirects(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 60*time.Second)
	b := setup(t)
	hostOrigin, pagesURL := embedSites(t, b, `<p><a href="%[1]s/forms/%[2]s" data-groundwork-embed="inline">Sign up</a></p></main>
<script src="%[1]s/forms/embed.js" async></script>`, "signup")
	b.createForm(t, map[string]any{"name": "Signup", "redirect_url": hostOrigin + "/welcome"})
	b.addField(t, "signup", map[string]any{"type": "email", "label": "Email", "is_required": true})

	browsertest.Do(t, ctx, chromedp.Navigate(hostOrigin+"/"))
	frame := browsertest.Frame(t, ctx, pagesURL+"/forms/signup")
	browsertest.Do(t, frame, chromedp.WaitVisible(chromedp.ID("f-email")), chromedp.SendKeys(chromedp.ID("f-email"), "ann@example.test"))
	b.clock.Advance(20 * time.Second)
	// Enter in the field sends the form: a key to the focused input, where
	// a click would aim at coordinates the growing frame may move.
	browsertest.Do(t, frame, chromedp.SendKeys(chromedp.ID("f-email"), "\r"))
	require.Eventually(t, func() bool {
		return b.api(t, "GET", "/signup/submissions", nil).json(t)["meta"].(map[string]any)["total"] == float64(1)
	}, 30*time.Second, 50*time.Millisecond, "the answer is stored")
	browsertest.Eventually(t, ctx, `location.pathname === "/welcome"`, "the host page goes to the form's redirect_url")
}
