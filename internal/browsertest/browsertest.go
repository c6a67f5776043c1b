// Package browsertest starts a headless Chromium for tests that drive a
// real browser through the Chrome DevTools Protocol (chromedp), and runs
// axe-core in it to find accessibility violations. Such tests skip where
// Chromium or axe-core is missing, unless GROUNDWORK_REQUIRE_BROWSER is
// set, as .ci/run sets it after installing both.
package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// EnvRequire, when set, turns a missing Chromium or axe-core into a
// failure instead of a skip.
const EnvRequire = "GROUNDWORK_REQUIRE_BROWSER"

// EnvAxe names axe-core's axe.min.js; without it the file is looked for
// in .ci/node_modules/axe-core of the module (where .ci/run installs it:
// npm install --no-save --no-package-lock --prefix .ci axe-core) and in
// node_modules/axe-core.
const EnvAxe = "AXE_CORE_JS"

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
// test gets at most timeout. Without Chromium, or in a -short run, the
// test is skipped. flags
// are the browser's beyond the usual (chromedp.UserAgent, say).
func New(t testing.TB, timeout time.Duration, flags ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	if testing.Short() {
		// The pages and their flows are the full run's to check; under
		// -short (the race detector's pass in CI) a browser adds minutes
		// and finds no race the HTTP tests of the same handlers miss.
		t.Skip("browsertest: a browser test: left out of -short runs")
	}
	path := Path()
	if path == "" {
		missing(t, "no Chromium installed (apt-get install -y chromium, or set $CHROMIUM)")
	}
	if _, err := axeSource(); err != nil {
		missing(t, err.Error())
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	opts = append(opts, flags...)
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

// missing skips t, or fails it when the browser tools are required.
func missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv(EnvRequire) != "" {
		t.Fatalf("browsertest: %s (%s is set)", why, EnvRequire)
	}
	t.Skip(why)
}

var axe struct {
	once sync.Once
	src  string
	err  error
}

// axeSource reads axe.min.js once.
func axeSource() (string, error) {
	axe.once.Do(func() {
		candidates := []string{os.Getenv(EnvAxe)}
		if dir, err := os.Getwd(); err == nil {
			for ; ; dir = filepath.Dir(dir) {
				candidates = append(candidates, filepath.Join(dir, ".ci", "node_modules", "axe-core", "axe.min.js"),
					filepath.Join(dir, "node_modules", "axe-core", "axe.min.js"))
				if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil || filepath.Dir(dir) == dir {
					break
				}
			}
		}
		for _, c := range candidates {
			if c == "" {
				continue
			}
			if b, err := os.ReadFile(c); err == nil {
				axe.src = string(b)
				return
			}
		}
		axe.err = fmt.Errorf("axe-core not found (npm install --no-save --no-package-lock --prefix .ci axe-core, or set $%s)", EnvAxe)
	})
	return axe.src, axe.err
}

// Violation is one rule axe-core found broken, with the elements that
// break it.
type Violation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target  []any  `json:"target"`
		HTML    string `json:"html"`
		Summary string `json:"failureSummary"`
	} `json:"nodes"`
}

// String is the violation as a reader of a test failure wants it.
func (v Violation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s", v.ID, v.Impact, v.Help)
	for _, n := range v.Nodes {
		fmt.Fprintf(&b, "\n    %v %s\n      %s", n.Target, n.HTML, strings.ReplaceAll(n.Summary, "\n", " "))
	}
	return b.String()
}

// Axe runs axe-core on the page the tab shows (WCAG 2.x A and AA and
// best practices) and returns its violations.
func Axe(ctx context.Context) ([]Violation, error) {
	src, err := axeSource()
	if err != nil {
		return nil, err
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](src)); err != nil {
		return nil, fmt.Errorf("browsertest: inject axe-core: %w", err)
	}
	const run = `axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(r.violations))`
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](run, chromedp.EvalAwaitPromise))
	if err != nil {
		return nil, fmt.Errorf("browsertest: run axe-core: %w", err)
	}
	var vs []Violation
	if err := json.Unmarshal([]byte(out), &vs); err != nil {
		return nil, fmt.Errorf("browsertest: axe-core's answer: %w", err)
	}
	return vs, nil
}

// NoViolations checks the page the tab shows as every page must be: no
// axe-core violation in the light scheme nor in the dark one
// (prefers-color-scheme: dark), no sideways scroll at 320 CSS px (WCAG
// 1.4.10) and no word of a table cell broken between two letters there,
// and every button, radio, checkbox, select and button-like link
// at least 24 by 24 px there (WCAG 2.5.8). It fails t naming what failed
// on which page (what), and leaves the tab as it found it (light, its own
// width).
func NoViolations(t testing.TB, ctx context.Context, what string) { NoViolationsIn(t, ctx, ctx, what) }

// NoViolationsIn is NoViolations for a page in a frame of another site:
// frame drives the frame (its own target), top the page framing it, whose
// width is set to 320 px for the reflow check (a frame's width is its
// host's to give).
func NoViolationsIn(t testing.TB, top, frame context.Context, what string) {
	t.Helper()
	ctx := frame
	var problems []string
	for _, scheme := range []string{"light", "dark"} {
		if err := SetScheme(ctx, scheme); err != nil {
			t.Fatalf("browsertest: %s: %v", what, err)
		}
		vs, err := Axe(ctx)
		if err != nil {
			t.Fatalf("browsertest: %s: %v", what, err)
		}
		for _, v := range vs {
			problems = append(problems, "("+scheme+") "+v.String())
		}
	}
	if err := SetScheme(ctx, ""); err != nil {
		t.Fatalf("browsertest: %s: %v", what, err)
	}
	narrow, err := AtWidth(top, 320, func(context.Context) ([]string, error) { return Layout(frame) })
	if err != nil {
		t.Fatalf("browsertest: %s at 320 px: %v", what, err)
	}
	problems = append(problems, narrow...)
	if len(problems) > 0 {
		t.Fatalf("%d problem(s) on %s:\n  %s", len(problems), what, strings.Join(problems, "\n  "))
	}
}

// SetScheme makes the tab's pages see prefers-color-scheme as scheme
// ("light" or "dark"; "" for the browser's own).
func SetScheme(ctx context.Context, scheme string) error {
	return chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		return err
	}))
}

// AtWidth runs check with the tab's viewport width CSS px wide (and 800
// high), then restores the tab's own size.
func AtWidth[T any](ctx context.Context, width int64, check func(context.Context) (T, error)) (T, error) {
	var zero T
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 800), settle); err != nil {
		return zero, err
	}
	v, err := check(ctx)
	clear := chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.ClearDeviceMetricsOverride, cdp.Empty{})
		return err
	})
	if cerr := chromedp.Do(ctx, clear, settle); err == nil {
		err = cerr
	}
	return v, err
}

// settle waits until the page has laid itself out again (two animation
// frames), so that clicks after a change of size land where they aim.
var settle = chromedp.Evaluate[chromedp.Void](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))`, chromedp.EvalAwaitPromise)

// layoutScript reports, for the width the page has now, a page wider than
// its viewport, words of table cells broken between two letters, a select
// that cuts the text it shows, and targets under 24 px (hidden ones and links inside text are not targets
// of their own).
const layoutScript = `(() => {
  const out = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > window.innerWidth + 1) {
    let widest = "";
    for (const el of document.body.querySelectorAll("*")) {
      const r = el.getBoundingClientRect();
      if (r.right > window.innerWidth + 1 && !widest && !el.parentElement.closest(".scroll")) widest = el.outerHTML.slice(0, 120);
    }
    out.push("sideways scroll at " + window.innerWidth + " px: the page is " + doc.scrollWidth + " px wide; first too wide: " + widest);
  }
  // A word of a table cell broken between two letters ("confirme|d"):
  // a break at its own hyphen, slash or dot is a break people read.
  const letter = /[\p{L}\p{N}]/u;
  const range = document.createRange();
  for (const cell of document.querySelectorAll("td, th")) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    words: for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.parentElement.closest(".visually-hidden")) continue;
      const re = /\S+/g;
      for (let m = re.exec(n.textContent); m; m = re.exec(n.textContent)) {
        const w = m[0];
        if (w.length > 30) continue; // a long address may have to break
        let top = null;
        for (let i = 0; i < w.length; i++) {
          range.setStart(n, m.index + i);
          range.setEnd(n, m.index + i + 1);
          const r = range.getBoundingClientRect();
          if (r.width === 0 && r.height === 0) continue;
          if (top !== null && Math.abs(r.top - top) > 2 && letter.test(w[i]) && letter.test(w[i - 1])) {
            out.push("a word broken mid-letter in a table cell at " + window.innerWidth + " px: " + w);
            continue words;
          }
          top = r.top;
        }
      }
    }
  }
  // A select too narrow for the option it shows cuts its text.
  const measure = document.createElement("canvas").getContext("2d");
  for (const sel of document.querySelectorAll("select")) {
    const chosen = sel.selectedOptions[0];
    const style = getComputedStyle(sel);
    if (!chosen || sel.multiple || sel.size > 1 || sel.offsetParent === null) continue;
    measure.font = style.font;
    const room = sel.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20; // the arrow
    if (measure.measureText(chosen.text).width > room + 1) out.push("a select cuts its text at " + window.innerWidth + " px: " + chosen.text);
  }
  const targets = document.querySelectorAll("button, input[type=radio], input[type=checkbox], input[type=submit], select, summary, a.button");
  for (const el of targets) {
    const r = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    if (r.width === 0 || r.height === 0 || style.visibility === "hidden" || el.closest(".trap, .visually-hidden")) continue;
    if (r.width < 23.5 || r.height < 23.5) out.push("target under 24 px (" + Math.round(r.width) + "x" + Math.round(r.height) + "): " + el.outerHTML.slice(0, 120));
  }
  return out;
})()`

// Layout returns what the page breaks of reflow and target size at the
// width the tab has now.
func Layout(ctx context.Context) ([]string, error) {
	return chromedp.Run(ctx, chromedp.Evaluate[[]string](layoutScript))
}

// Do runs actions in the browser, failing t on an error.
func Do(t testing.TB, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("browsertest: %v", err)
	}
}

// Text is the text of the first element sel matches, failing t on an
// error.
func Text(t testing.TB, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("browsertest: text of %s: %v", sel, err)
	}
	return s
}

// Submit clicks sel (a button that sends a form, or a link) and waits
// until the next page has loaded, failing t when none comes before the
// test's time runs out.
func Submit(t testing.TB, ctx context.Context, sel string) {
	t.Helper()
	Do(t, ctx, chromedp.Evaluate[chromedp.Void](`window.gwOld = true`), chromedp.Click(chromedp.CSS(sel)))
	waitNewPage(t, ctx, "clicking "+sel)
}

// waitNewPage waits until the page marked before an action is replaced by
// a loaded one, for as long as the test's time lasts (New's timeout): a
// page that takes long to come (a password hashed under the race
// detector on a busy machine) is no failure, one that never comes is.
func waitNewPage(t testing.TB, ctx context.Context, after string) {
	t.Helper()
	for {
		gone, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.gwOld === undefined && document.readyState === "complete"`))
		if err == nil && gone {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("browsertest: no new page after %s before the test's time ran out", after)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// TabTo presses Tab until the focused element matches sel, as a keyboard
// user moves through a page, failing t when 200 presses never reach it.
func TabTo(t testing.TB, ctx context.Context, sel string) {
	t.Helper()
	for range 200 {
		Do(t, ctx, chromedp.KeyEvent("\t"))
		on, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`!!document.activeElement && document.activeElement.matches(%q)`, sel)))
		if err == nil && on {
			return
		}
	}
	t.Fatalf("browsertest: Tab never reaches %s", sel)
}

// Press presses keys on the focused element ("\r" is Enter, " " Space)
// and, when it sends a form or follows a link, waits for the next page
// like Submit.
func Press(t testing.TB, ctx context.Context, keys string, navigates bool) {
	t.Helper()
	if !navigates {
		Do(t, ctx, chromedp.KeyEvent(keys))
		return
	}
	Do(t, ctx, chromedp.Evaluate[chromedp.Void](`window.gwOld = true`), chromedp.KeyEvent(keys))
	waitNewPage(t, ctx, "pressing "+fmt.Sprintf("%q", keys))
}

// EnvScreenshots names a folder: when set, the browser tests save their
// pages' pictures there (see Screenshots), for a person to look at and
// for the docs.
const EnvScreenshots = "GROUNDWORK_SCREENSHOTS"

// Screenshots saves the page the tab shows at 390 and 1280 px, light and
// dark, as <name>-<width>-<scheme>.png in dir; a long page by its first
// MaxShotHeight pixels. It does nothing when dir is "".
func Screenshots(t testing.TB, ctx context.Context, dir, name string) {
	t.Helper()
	if dir == "" {
		return
	}
	for _, width := range []int64{390, 1280} {
		for _, scheme := range []string{"light", "dark"} {
			if err := SetScheme(ctx, scheme); err != nil {
				t.Fatalf("browsertest: %v", err)
			}
			png, err := AtWidth(ctx, width, func(ctx context.Context) ([]byte, error) {
				// A frame of another site lays itself out in its own
				// process and tells its page its new height by a
				// message: give it a moment; and it is drawn only where
				// the viewport reaches, so the viewport takes the page's
				// height.
				if framed, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!document.querySelector("iframe")`)); framed {
					time.Sleep(300 * time.Millisecond)
					h, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.documentElement.scrollHeight`))
					if err == nil {
						err = chromedp.Do(ctx, chromedp.EmulateViewport(width, int64(min(h, MaxShotHeight))), settle)
					}
					if err != nil {
						return nil, err
					}
					time.Sleep(300 * time.Millisecond)
				}
				height, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.documentElement.scrollHeight`))
				if err != nil || height <= MaxShotHeight {
					return chromedp.Run(ctx, chromedp.FullScreenshot(100))
				}
				return chromedp.Run(ctx, topShot(float64(width)))
			})
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d-%s.png", name, width, scheme)), png, 0o644)
			}
			if err != nil {
				t.Fatalf("browsertest: screenshot %s: %v", name, err)
			}
		}
	}
	if err := SetScheme(ctx, "light"); err != nil {
		t.Fatalf("browsertest: %v", err)
	}
}

// MaxShotHeight is how much of a long page a screenshot shows.
const MaxShotHeight = 2400

// topShot captures the first MaxShotHeight pixels of a page width wide.
func topShot(width float64) chromedp.Action[[]byte] {
	return func(ctx context.Context, t *chromedp.Target) ([]byte, error) {
		beyond := true
		r, err := cdp.Call(ctx, t, page.CaptureScreenshot, page.CaptureScreenshotParams{CaptureBeyondViewport: &beyond,
			FromSurface: &beyond, Format: page.CaptureScreenshotFormatPng, Clip: &page.Viewport{Width: width, Height: MaxShotHeight, Scale: 1}})
		if err != nil {
			return nil, err
		}
		return r.Data, nil
	}
}

// Frame waits for a frame of the tab's page showing an address that
// starts with prefix and returns a context that drives it: a frame of
// another site runs in a target of its own, whose page its actions see
// (keys and the viewport stay the tab's). It fails t when none comes in
// ten seconds.
func Frame(t testing.TB, ctx context.Context, prefix string) context.Context {
	t.Helper()
	for range 200 {
		targets, err := chromedp.Targets(ctx)
		if err != nil {
			t.Fatalf("browsertest: targets: %v", err)
		}
		for _, tg := range targets {
			if tg.Type == "iframe" && strings.HasPrefix(tg.URL, prefix) {
				fctx, cancel := chromedp.NewContext(ctx, chromedp.WithTargetID(tg.TargetID))
				t.Cleanup(cancel)
				return fctx
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("browsertest: no frame showing %s", prefix)
	return nil
}

// Eventually waits until the script js is true on the tab's page (what
// another frame tells it comes by a message, a moment later), failing t
// (with why) when it is not within thirty seconds (a post, its page and
// a navigation, on a loaded machine under the race detector).
func Eventually(t testing.TB, ctx context.Context, js, why string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
		if err == nil && ok {
			return
		}
	}
	t.Fatalf("browsertest: %s: never true: %s", why, js)
}
