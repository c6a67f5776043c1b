package bookings_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/store"
)

// hostPage is a page of another site that frames the booking page with
// one script tag, and lists the events the frame tells it.
const hostPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Our site</title></head>
<body><main><h1>Our site</h1>
<script src="%s/bookings/embed.js" data-page="/bookings/consultation?tz=America/New_York" data-title="Book a consultation" async></script>
<ul id="events"></ul></main>
<script>document.addEventListener("groundwork:bookingSuccessful", (e) => {
  const li = document.createElement("li"); li.textContent = e.detail.number + " " + e.detail.service + " " + e.detail.confirmed;
  document.getElementById("events").append(li);
});</script></body></html>`

// serveHost serves hostPage, framing pages, at a server of its own; its
// origin is how the browser is to reach it (host names a host name for
// the server's address).
func serveHost(t *testing.T, pages, host string) (origin string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, hostPage, pages)
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	return "http://" + host + ":" + u.Port()
}

// A booking page inside another site: the host's page (on localhost, one
// site) frames it from the pages' server (on 127.0.0.1, another site, so
// no cookie of the frame's comes back) with one script tag; the customer
// books inside the frame, by keyboard where a keyboard user would, the
// frame passes axe, follows its content's height, keeps the host's
// campaign, and the host page hears bookingSuccessful. A third origin,
// not allowed, gets no frame: the browser refuses it.
func TestBrowserEmbeddedBookingPage(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second)
	b := setup(t, store.SQLite)
	// The host's origin is needed before the pages' handler: serve the
	// pages behind a mux filled in after.
	mux := http.NewServeMux()
	pagesSrv := httptest.NewServer(mux)
	t.Cleanup(pagesSrv.Close)
	hostOrigin := serveHost(t, pagesSrv.URL, "localhost")
	pages, err := bookings.NewPageHandler(b.svc, &bookings.PageOptions{FrameOrigins: []string{hostOrigin}})
	require.NoError(t, err)
	mux.Handle("/bookings/", pages)
	third := serveHost(t, pagesSrv.URL, "127.0.0.1")

	browsertest.Do(t, ctx, chromedp.Navigate(hostOrigin+"/?utm_source=newsletter&utm_campaign=june"))
	frameCtx := browsertest.Frame(t, ctx, pagesSrv.URL+"/bookings/consultation")
	src, err := chromedp.Run(frameCtx, chromedp.Evaluate[string](`location.href`))
	require.NoError(t, err)
	require.Contains(t, src, "embed="+url.QueryEscape(hostOrigin))
	require.Contains(t, src, "utm_source=newsletter")
	require.Contains(t, src, "utm_campaign=june")
	browsertest.Do(t, frameCtx, chromedp.WaitVisible(chromedp.CSS("table.month")))
	headerless, err := chromedp.Run(frameCtx, chromedp.Evaluate[bool](`!document.querySelector("header.site, footer.site")`))
	require.NoError(t, err)
	require.True(t, headerless, "a framed page is drawn without the site's header and footer")
	browsertest.NoViolationsIn(t, ctx, frameCtx, "the framed booking page")
	browsertest.Screenshots(t, ctx, os.Getenv(browsertest.EnvScreenshots), "embed-booking")
	height, err := chromedp.Run(frameCtx, chromedp.Evaluate[float64](`Math.ceil(document.documentElement.getBoundingClientRect().height)`))
	require.NoError(t, err)
	browsertest.Eventually(t, ctx, fmt.Sprintf(`document.querySelector("iframe").style.height === "%dpx"`, int(height)), "the frame follows its page's height")

	// By keyboard: from the host page into the frame, to a free day.
	browsertest.Submit(t, frameCtx, `table.month a[aria-label^="Tuesday 2 June"]`)
	stillFramed, err := chromedp.Run(frameCtx, chromedp.Evaluate[string](`document.documentElement.dataset.frame || ""`))
	require.NoError(t, err)
	require.Equal(t, hostOrigin, stillFramed, "a link inside the frame keeps the page framed")
	browsertest.Do(t, frameCtx, chromedp.Click(chromedp.CSS(`label[for="f-start_time-2"]`)),
		chromedp.SendKeys(chromedp.ID("f-customer_name"), "Grace Hopper"), chromedp.SendKeys(chromedp.ID("f-customer_email"), "grace@example.com"))
	browsertest.Do(t, frameCtx, chromedp.Focus(chromedp.ID("f-customer_email")))
	browsertest.TabTo(t, frameCtx, `form#book button[type=submit]`)
	browsertest.Press(t, frameCtx, "\r", true)
	require.Equal(t, "You are booked", browsertest.Text(t, frameCtx, "h1"))
	browsertest.NoViolationsIn(t, ctx, frameCtx, "the framed confirmation")
	told := browsertest.Text(t, ctx, "#events li")
	require.Regexp(t, `^BK-\S+ consultation true$`, told, "the host page hears of the booking")
	list, _, err := b.svc.ListBookings(context.Background(), bookings.BookingFilter{})
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, list[0].Number+" consultation true", told)

	// A site not allowed: the browser shows no page in its frame.
	browsertest.Do(t, ctx, chromedp.Navigate(third+"/"), chromedp.WaitReady(chromedp.CSS("iframe")))
	refused := false
	for range 100 {
		if f := childFrame(t, ctx); f != nil && (f.UnreachableURL != "" || strings.HasPrefix(f.URL, "chrome-error:")) {
			refused = true
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	require.True(t, refused, "a frame from an origin not allowed is refused")
	targets, err := chromedp.Targets(ctx)
	require.NoError(t, err)
	for _, tg := range targets {
		require.False(t, tg.Type == "iframe" && strings.HasPrefix(tg.URL, pagesSrv.URL), "no frame shows the page: %s", tg.URL)
	}
}

// childFrame is the one frame of the tab's page that runs in the page's
// own process (a refused frame's error page does; a frame of another
// site does not), nil while it has none.
func childFrame(t *testing.T, ctx context.Context) *cdp.Frame {
	t.Helper()
	tree, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) (*page.FrameTree, error) {
		r, err := cdp.Call(ctx, tg, page.GetFrameTree, cdp.Empty{})
		return r.FrameTree, err
	})
	require.NoError(t, err)
	if len(tree.ChildFrames) != 1 {
		return nil
	}
	return tree.ChildFrames[0].Frame
}
