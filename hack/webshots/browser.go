package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kubesim/kubesim/internal/headless"
)

// The window (and screenshot) size.
const width, height = 1280, 720

// newBrowser starts a headless Chromium (exe) with a fresh profile in
// profileDir and returns its first tab and the function that stops it.
// The flags are those of the browser test (internal/headless).
func newBrowser(exe, profileDir string) (context.Context, func(), error) {
	if _, err := os.Stat(exe); err != nil {
		return nil, nil, fmt.Errorf("no Chromium: %w (install Debian's chromium, or give -chromium)", err)
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), headless.Options(exe, profileDir, width, height)...)
	quiet := func(string, ...any) {}
	ctx, cancel := chromedp.NewContext(allocCtx, chromedp.WithLogf(quiet), chromedp.WithErrorf(quiet))
	stop := func() { cancel(); cancelAlloc() }
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height)); err != nil {
		stop()
		return nil, nil, fmt.Errorf("starting %s: %w", exe, err)
	}
	return ctx, stop, nil
}

// do runs actions in tab, bounded by two minutes.
func do(tab context.Context, actions ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(tab, 2*time.Minute)
	defer cancel()
	return chromedp.Do(ctx, actions...)
}

// clickJS clicks the element sel of tab's page from JavaScript (an SVG
// group has no box chromedp's Click can aim at).
func clickJS(tab context.Context, sel string) error {
	return do(tab, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const el = document.querySelector(%q);
		if (!el) throw new Error("no element " + %q);
		el.dispatchEvent(new MouseEvent("click", {bubbles: true}));
	})()`, sel, sel)))
}

// waitJS waits (up to 2 minutes) until the JavaScript expression cond is
// true in tab.
func waitJS(tab context.Context, cond string) error {
	ctx, cancel := context.WithTimeout(tab, 2*time.Minute)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(2*time.Minute)))
	return err
}

// screenshot writes tab's viewport to path as a PNG.
func screenshot(tab context.Context, path string) error {
	ctx, cancel := context.WithTimeout(tab, 2*time.Minute)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		return err
	}
	return os.WriteFile(path, png, 0o644)
}

// clickIfPresent clicks sel when tab's page has it.
func clickIfPresent(tab context.Context, sel string) error {
	return do(tab, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q)?.click()`, sel)))
}
