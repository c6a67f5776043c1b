// Package browsertest starts a headless Chromium for tests that drive a
// real browser through the Chrome DevTools Protocol (chromedp). Such tests
// skip where no Chromium is installed; CI installs it (.ci/run).
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// candidates are the names Chromium goes by, tried in order after
// $CHROMIUM.
var candidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Path returns the Chromium to run: $CHROMIUM if set, else the first of
// the usual names on $PATH; "" when there is none.
func Path() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range candidates {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// New starts a headless Chromium for t and returns a chromedp context for
// one tab, cancelled (and the browser stopped) when t ends. The whole
// test gets at most timeout. Without Chromium the test is skipped.
func New(t testing.TB, timeout time.Duration) context.Context {
	t.Helper()
	path := Path()
	if path == "" {
		t.Skip("no Chromium installed (apt-get install -y chromium, or set $CHROMIUM)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	ctx, cancelTimeout := context.WithTimeout(context.Background(), timeout)
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	ctx, cancelTab := chromedp.NewContext(ctx)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		cancelTimeout()
	})
	// Start the browser now, so a failure to launch is reported here.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("browsertest: start %s: %v", path, err)
	}
	return ctx
}
