package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kubesim/kubesim/internal/headless"
	"github.com/kubesim/kubesim/internal/waitfor"
)

// The real-browser tests drive Debian's chromium through chromedp. CI
// installs chromium and sets requireBrowserEnv; elsewhere a machine
// without it skips them.
const (
	// chromiumEnv names a Chromium binary to use instead of
	// defaultChromium.
	chromiumEnv     = "KUBESIM_CHROMIUM"
	defaultChromium = "/usr/bin/chromium"
	// requireBrowserEnv, when "1", makes a missing Chromium fail the
	// test instead of skipping it.
	requireBrowserEnv = "KUBESIM_REQUIRE_BROWSER"
	// browserWidth and browserHeight are the window's size, which is
	// also the size of a screenshot.
	browserWidth, browserHeight = 1280, 720
	// domPollInterval is how often waitDOM looks at the page.
	domPollInterval = 100 * time.Millisecond
	// browserCallTimeout bounds one call into the browser (an evaluate,
	// a click, a navigation) on a starved machine.
	browserCallTimeout = 2 * time.Minute
)

// chromiumPath returns the Chromium binary the browser tests use:
// $KUBESIM_CHROMIUM, else /usr/bin/chromium. When there is none it skips
// the test, or fails it when KUBESIM_REQUIRE_BROWSER=1 (CI).
func chromiumPath(t testing.TB) string {
	t.Helper()
	path, from := defaultChromium, "the default path"
	if p := os.Getenv(chromiumEnv); p != "" {
		path, from = p, "$"+chromiumEnv
	}
	resolved, err := exec.LookPath(path)
	if err == nil {
		return resolved
	}
	msg := fmt.Sprintf("no Chromium at %s (%s): %v; install Debian's chromium (apt-get install chromium) or set %s to a Chromium binary",
		path, from, err, chromiumEnv)
	if os.Getenv(requireBrowserEnv) == "1" {
		t.Fatalf("%s (%s=1 requires the browser)", msg, requireBrowserEnv)
	}
	t.Skip(msg)
	return ""
}

// newBrowser starts a headless Chromium of its own (a fresh profile in
// t.TempDir(), a 1280×720 window) and returns the context of its first
// tab. The browser is stopped when the test ends. chromedp's own errors
// go to the test's log while the test runs, and nowhere after.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	exe := chromiumPath(t)
	profile := filepath.Join(t.TempDir(), "chromium-profile")
	opts := append(headless.Options(exe, profile, browserWidth, browserHeight),
		// Tabs in the background run their timers and event streams as
		// the one in front does: the test watches three at once.
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	var ended atomic.Bool
	logf := func(format string, args ...any) {
		if !ended.Load() {
			t.Logf("chromedp: "+format, args...)
		}
	}
	ctx, cancel := chromedp.NewContext(allocCtx, chromedp.WithErrorf(logf), chromedp.WithLogf(logf))
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
		ended.Store(true)
	})
	// The first Run starts the browser; it must not carry a timeout.
	// Headless Chromium's window includes room for its (absent) frame:
	// the viewport is set to the window's size.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(browserWidth, browserHeight)); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	return ctx
}

// newTab opens another tab of browser's Chromium; isolated puts it in a
// browser context of its own (its own cookies and storage, as another
// person's browser). The tab is closed when the test ends.
func newTab(t *testing.T, browser context.Context, isolated bool) context.Context {
	t.Helper()
	var opts []chromedp.ContextOption
	if isolated {
		opts = append(opts, chromedp.WithNewBrowserContext())
	}
	ctx, cancel := chromedp.NewContext(browser, opts...)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(browserWidth, browserHeight)); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	return ctx
}

// browserDo runs actions in tab, each call bounded by browserCallTimeout,
// and fails the test with what it was doing when one fails.
func browserDo(t *testing.T, tab context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, browserCallTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// evalJS evaluates expr in tab and decodes its value into T (a promise
// is awaited).
func evalJS[T any](ctx context.Context, tab context.Context, expr string) (T, error) {
	cctx, cancel := context.WithTimeout(tab, browserCallTimeout)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	return chromedp.Run(cctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
}

// mustEval is evalJS that fails the test on an error.
func mustEval[T any](t *testing.T, tab context.Context, expr string) T {
	t.Helper()
	v, err := evalJS[T](context.Background(), tab, expr)
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// domState is what a waitDOM expression returns: whether the condition
// holds, and what it saw (the wait's progress, and its failure message).
type domState struct {
	OK    bool   `json:"ok"`
	State string `json:"state"`
}

// waitDOM waits until expr, a JavaScript expression evaluated in tab
// that yields {ok, state}, says ok. It polls every domPollInterval and
// fails the test as waitfor.Progress does: when state stands still for
// waitfor.Stall. A failed evaluation (a page still loading) is retried.
func waitDOM(t *testing.T, tab context.Context, what, expr string) domState {
	t.Helper()
	var last domState
	waitfor.Progress(t, what, func(ctx context.Context) (bool, string, error) {
		st, err := evalJS[domState](ctx, tab, expr)
		if err != nil {
			return false, "", err
		}
		last = st
		return st.OK, st.State, nil
	}, waitfor.PollEvery(domPollInterval))
	return last
}

// waitSelector waits until one element of tab matches the CSS selector
// sel and is displayed (it has a layout box).
func waitSelector(t *testing.T, tab context.Context, sel string) {
	t.Helper()
	waitDOM(t, tab, "an element "+sel+" shown", fmt.Sprintf(`(() => {
		const el = document.querySelector(%q);
		if (!el) return {ok: false, state: "absent"};
		const shown = el.getClientRects().length > 0;
		return {ok: shown, state: shown ? "shown" : "hidden"};
	})()`, sel))
}

// screenshotPNG captures tab's viewport (browserWidth×browserHeight) as a
// PNG.
func screenshotPNG(t *testing.T, tab context.Context) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, browserCallTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if len(png) < 8 || string(png[1:4]) != "PNG" {
		t.Fatalf("screenshot: %d bytes, not a PNG", len(png))
	}
	return png
}

// TestBrowserHelpers checks the helpers on a page of its own: a button
// that shows an element a moment after it is clicked, and a screenshot
// of the window's size.
func TestBrowserHelpers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>t</title><body>
<button id="go" onclick="setTimeout(() => { document.getElementById('late').hidden = false }, 200)">go</button>
<p id="late" hidden>here</p></body>`)
	}))
	t.Cleanup(srv.Close)
	tab := newBrowser(t)
	browserDo(t, tab, "opening the page", chromedp.Navigate(srv.URL))
	if got := mustEval[bool](t, tab, `document.getElementById("late").getClientRects().length > 0`); got {
		t.Fatalf("#late is shown before the click")
	}
	browserDo(t, tab, "clicking #go", chromedp.Click(chromedp.CSS("#go")))
	waitSelector(t, tab, "#late")
	shot := screenshotPNG(t, tab)
	cfg, err := pngSize(shot)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Width != browserWidth || cfg.Height != browserHeight {
		t.Errorf("screenshot is %dx%d; want %dx%d", cfg.Width, cfg.Height, browserWidth, browserHeight)
	}
}

// pngSize decodes the dimensions of a PNG.
func pngSize(b []byte) (image.Config, error) {
	return png.DecodeConfig(bytes.NewReader(b))
}
