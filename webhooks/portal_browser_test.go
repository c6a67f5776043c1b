package webhooks_test

import (
	"context"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/internal/browsertest"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
	"github.com/groundwork-go/groundwork/webhooks"
	"github.com/groundwork-go/groundwork/webhooks/webhookssql"
)

// The portal in Chromium as an owner walks it, by keyboard: an endpoint
// added on a local receiver (a mistake first, said), a test event sent
// and seen delivered and verified with the secret the page showed, the
// secret rotated and a delivery in the grace verified with both, one
// delivery sent again. axe-core finds nothing, light and dark, at 320 px
// and on a desktop, error state included; no sideways scrolling.
func TestBrowserPortalWalk(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 120*time.Second)
	db := storetest.Open(t, store.SQLite, webhookssql.Migrations)
	svc, err := webhooks.NewService(webhookssql.New(db), &webhooks.Options{SecretKey: testKey, AllowPrivateHosts: true, AllowInsecureURLs: true,
		PollInterval: 20 * time.Millisecond, DisableAfterFailures: 2})
	require.NoError(t, err)
	type submitted struct {
		Form   string `json:"form"`
		Number string `json:"number"`
	}
	require.NoError(t, svc.DescribeEvent("form.submitted", "A form submission was accepted.", submitted{Form: "contact", Number: "F-1"}))
	require.NoError(t, svc.DescribeEvent("booking.created", "A booking was made.", submitted{Form: "intake", Number: "B-1"}))
	loop, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	go func() {
		if err := svc.RunDeliveries(loop); err != nil && loop.Err() == nil {
			t.Errorf("the delivery loop stopped: %v", err)
		}
	}()
	h, err := webhooks.NewPortalHandler(svc, nil)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	rv := newReceiver(t)
	token, err := svc.PortalLink("acct_walk", time.Hour)
	require.NoError(t, err)
	run := func(actions ...chromedp.Action[chromedp.Void]) { t.Helper(); browsertest.Do(t, ctx, actions...) }
	text := func(sel string) string { t.Helper(); return browsertest.Text(t, ctx, sel) }
	shots := os.Getenv(browsertest.EnvScreenshots)
	clean := func(what string) {
		t.Helper()
		for _, width := range []int64{320, 1280} {
			run(chromedp.EmulateViewport(width, 900))
			for _, scheme := range []string{"light", "dark"} {
				require.NoError(t, browsertest.SetScheme(ctx, scheme))
				browsertest.NoViolations(t, ctx, what+", "+scheme)
			}
			if width == 320 {
				fits, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth`))
				require.NoError(t, err)
				require.True(t, fits, "no sideways scrolling at 320 px: %s", what)
			}
		}
		require.NoError(t, browsertest.SetScheme(ctx, "light"))
	}

	run(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(srv.URL+webhooks.PortalPrefixDefault+"/"+token),
		chromedp.WaitVisible(chromedp.ID("f-name")))
	require.Contains(t, text("main"), "No endpoint yet")
	require.Equal(t, "Booking events\nForm events", strings.TrimSpace(browsertest.Text(t, ctx, "fieldset.events h3:first-of-type")+"\n"+
		browsertest.Text(t, ctx, "fieldset.events h3:last-of-type")), "the events this site sends, by group")
	browsertest.TabTo(t, ctx, "fieldset.events details summary")
	browsertest.Press(t, ctx, "\r", false)
	require.Contains(t, text("fieldset.events details pre"), `"form": "intake"`, "an example of its data, opened by keyboard")
	clean("the portal, empty")
	browsertest.Screenshots(t, ctx, shots, "webhooks-portal")

	// A mistake, then the endpoint, typed and sent by keyboard.
	run(chromedp.SendKeys(chromedp.ID("f-name"), "Warehouse"), chromedp.SendKeys(chromedp.ID("f-url"), "not an address"))
	run(chromedp.Focus(chromedp.ID("f-url")))
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, text(".error-summary"), "There is a problem")
	clean("the portal, a mistake")
	run(chromedp.SetValue(chromedp.ID("f-url"), rv.URL+"/hooks"), chromedp.Focus(chromedp.ID("f-url")))
	browsertest.Press(t, ctx, "\r", true)
	secret := text("code.secret")
	require.True(t, strings.HasPrefix(secret, "whsec_"), secret)
	require.Contains(t, text("main"), "shown this once")
	copyShown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!document.querySelector("button[data-copy=portal-secret]").hidden`))
	require.NoError(t, err)
	require.True(t, copyShown, "a Copy button beside the secret")

	// A test event, by keyboard: delivered, verified, listed.
	browsertest.TabTo(t, ctx, `form[action$="/test"] button`)
	browsertest.Press(t, ctx, "\r", true)
	got := rv.wait(t, 10*time.Second)
	require.NoError(t, webhooks.Verify(secret, got.header.Get(webhooks.HeaderSignature), got.body, time.Now(), 0), "the secret the page showed")
	require.Contains(t, string(got.body), `"event":"webhook.test"`)
	require.Eventually(t, func() bool {
		run(chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("deliveries")))
		return strings.Contains(text("main"), "Delivered")
	}, 10*time.Second, 200*time.Millisecond, "the log shows it delivered")
	clean("an endpoint with its deliveries")
	browsertest.Screenshots(t, ctx, shots, "webhooks-portal-endpoint")

	// Rotate: the new secret shown; a delivery in the grace verifies with
	// both.
	browsertest.TabTo(t, ctx, `form[action$="/rotate"] button`)
	browsertest.Press(t, ctx, "\r", true)
	rotated := text("code.secret")
	require.NotEqual(t, secret, rotated)
	require.Contains(t, text("main"), "The old secret signs deliveries too until")
	browsertest.TabTo(t, ctx, `form[action$="/test"] button`)
	browsertest.Press(t, ctx, "\r", true)
	got = rv.wait(t, 10*time.Second)
	sig := got.header.Get(webhooks.HeaderSignature)
	for _, s := range []string{secret, rotated} {
		require.NoError(t, webhooks.Verify(s, sig, got.body, time.Now(), 0))
	}

	// One delivery sent again, from its row.
	browsertest.TabTo(t, ctx, `form[action$="/replay"] button`)
	browsertest.Press(t, ctx, "\r", true)
	require.Contains(t, text("main"), "The delivery is sent again")
	again := rv.wait(t, 10*time.Second)
	require.Contains(t, string(again.body), `"event":"webhook.test"`)
	clean("the endpoint after a replay")

	// The receiver breaks: the endpoint fails, then is switched off, and
	// the list warns of it.
	rv.answer(func(int) int { return 500 })
	for range 2 {
		browsertest.TabTo(t, ctx, `form[action$="/test"] button`)
		browsertest.Press(t, ctx, "\r", true)
		rv.wait(t, 10*time.Second) // (the second after the endpoint's rest)
	}
	require.Eventually(t, func() bool {
		run(chromedp.Navigate(srv.URL+webhooks.PortalPrefixDefault+"/"+token), chromedp.WaitVisible(chromedp.ID("f-name")))
		return strings.Contains(text("main"), "Switched off for failing")
	}, 10*time.Second, 200*time.Millisecond, "the list warns of the endpoint switched off")
	require.Contains(t, text("ul.plain"), "Switched off by us after 2 failed delivery attempts in a row")
	clean("the list with an endpoint switched off")
	browsertest.Screenshots(t, ctx, shots, "webhooks-portal-switched-off")
}
