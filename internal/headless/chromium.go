package headless

import "github.com/chromedp/chromedp"

// Options are the allocator options of a headless Chromium exe with its
// profile in profileDir and a window of width×height: no sandbox (root),
// no GPU, and none of the background connections (updates, sync, QUIC,
// first-run checks) this machine's closed network refuses.
func Options(exe, profileDir string, width, height int) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(profileDir),
		chromedp.WindowSize(width, height),
	}
}
