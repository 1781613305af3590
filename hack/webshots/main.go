// Command webshots takes the web view's screenshots for the docs: it plays
// a lesson with `kubesim play NAME --web=127.0.0.1:0 --step --speed 0`,
// opens the teacher's page in headless Chromium, steps the lesson with the
// page's own #next button up to the moment to show, clicks the arrow whose
// evidence is the point, and saves the 1280×720 viewport as a PNG.
//
//	go run ./hack/webshots -out docs/
//
// It writes web-pod-create-stage4.png (pod-create held after stage 4, the
// scheduler's scoring open) and web-server-chain-crd.png (server-chain
// after its CRD step, the create's request open with the servers of the
// chain it crossed). It builds kubesim from the current directory unless
// -bin names a binary. A tool to run by hand, not part of go test.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kubesim/kubesim/hack/internal/kubesimweb"
)

type options struct {
	out, bin, chromium string
	timeout            time.Duration
}

// shot is one screenshot: the lesson to play and how to reach the
// moment shown (the lesson is held there when pose returns).
type shot struct {
	scenario, file string
	pose           func(ctx context.Context, tab context.Context, l *lesson) error
}

var shots = []shot{
	{"pod-create", "web-pod-create-stage4.png", poseStage4},
	{"server-chain", "web-server-chain-crd.png", poseCRD},
}

func main() {
	var o options
	flag.StringVar(&o.out, "out", "docs", "directory the PNGs are written to")
	flag.StringVar(&o.bin, "bin", "", "kubesim binary (default: go build of the current directory)")
	flag.StringVar(&o.chromium, "chromium", "/usr/bin/chromium", "Chromium binary")
	flag.DurationVar(&o.timeout, "timeout", 10*time.Minute, "give up after this long")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "webshots:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	tmp, err := os.MkdirTemp("", "webshots-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if o.bin, err = kubesimweb.Binary(ctx, o.bin, tmp); err != nil {
		return err
	}
	for i, s := range shots {
		path := filepath.Join(o.out, s.file)
		if err := take(ctx, o, s, filepath.Join(tmp, fmt.Sprint("profile-", i))); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		fmt.Println(path)
	}
	return nil
}

// take plays s's lesson, poses it and writes the screenshot.
func take(ctx context.Context, o options, s shot, profile string) error {
	p, err := kubesimweb.Start(ctx, o.bin, "play", s.scenario, "--web=127.0.0.1:0", "--step", "--speed", "0")
	if err != nil {
		return err
	}
	defer p.Stop()
	l := newLesson()
	fctx, stopFollow := context.WithCancel(ctx)
	followed := make(chan struct{})
	go func() { defer close(followed); l.follow(fctx, p) }()
	defer func() { stopFollow(); <-followed }()

	tab, stop, err := newBrowser(o.chromium, profile)
	if err != nil {
		return err
	}
	defer stop()
	if err := do(tab, chromedp.Navigate(p.TeacherURL)); err != nil {
		return err
	}
	if err := waitJS(tab, `(document.querySelector("#role")?.textContent || "").includes("teacher")`); err != nil {
		return fmt.Errorf("the page never said it is the teacher's: %w", err)
	}
	if err := s.pose(ctx, tab, l); err != nil {
		return fmt.Errorf("%w; kubesim's stderr:\n%s", err, p.Stderr())
	}
	return screenshot(tab, filepath.Join(o.out, s.file))
}

// next presses the teacher page's #next.
func next(tab context.Context) func(context.Context) error {
	return func(context.Context) error { return clickJS(tab, "#next") }
}

// openArrow clicks arrow id on tab's diagram and waits for its evidence.
func openArrow(tab context.Context, id int) error {
	sel := fmt.Sprintf(`#diagram g.arrow[data-id="%d"]`, id)
	if err := waitJS(tab, fmt.Sprintf(`!!document.querySelector(%q)`, sel)); err != nil {
		return fmt.Errorf("arrow %d never drawn: %w", id, err)
	}
	if err := clickJS(tab, sel); err != nil {
		return err
	}
	if err := waitJS(tab, `document.querySelectorAll("#evidence .line").length > 0`); err != nil {
		return fmt.Errorf("no evidence shown for arrow %d: %w", id, err)
	}
	return nil
}
