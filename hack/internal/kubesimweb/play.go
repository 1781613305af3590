// Package kubesimweb runs `kubesim play NAME --web=ADDR` as a process and
// reads its web view's event stream, for the tools of hack/ that look at
// the web view from outside (webshots, webload).
package kubesimweb

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The lines `kubesim play --web` prints on stderr, before the URL.
const (
	ViewerPrefix  = "kubesim: web view for the class (read-only): "
	TeacherPrefix = "kubesim: web view for the teacher (controls): "
)

// Play is a running kubesim process serving a web view.
type Play struct {
	cmd *exec.Cmd
	// ViewerURL and TeacherURL are the URLs it printed; Key is the
	// teacher's secret (TeacherURL's key).
	ViewerURL, TeacherURL, Key string

	mu      sync.Mutex
	stderr  bytes.Buffer   // everything printed on stderr
	done    chan struct{}  // closed once cmd has been waited for
	waitErr error          // cmd.Wait's result, set before done is closed
	reader  sync.WaitGroup // the goroutine reading stderr
}

// Start runs bin with args (which must include --web=ADDR), its stdout
// discarded, and returns once it has printed both URLs. The caller must
// call Stop or Interrupt and Wait.
func Start(ctx context.Context, bin string, args ...string) (*Play, error) {
	p := &Play{cmd: exec.Command(bin, args...), done: make(chan struct{})}
	pr, pw := io.Pipe()
	p.cmd.Stderr = pw
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	urls := make(chan error, 1)
	p.reader.Add(1)
	go p.readStderr(pr, urls)
	go func() { p.waitErr = p.cmd.Wait(); pw.Close(); close(p.done) }()
	var err error
	select {
	case err = <-urls:
	case <-p.done:
		err = fmt.Errorf("%s exited before it printed its URLs: %v; stderr:\n%s", bin, p.waitErr, p.Stderr())
	case <-ctx.Done():
		err = ctx.Err()
	case <-time.After(2 * time.Minute):
		err = fmt.Errorf("%s printed no web view URLs within 2 minutes; stderr:\n%s", bin, p.Stderr())
	}
	if err != nil {
		p.Stop()
		return nil, err
	}
	return p, nil
}

// readStderr keeps what the process prints on stderr, and reports on
// urls once both URL lines were read (or the error that ended stderr
// before).
func (p *Play) readStderr(r io.Reader, urls chan<- error) {
	defer p.reader.Done()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	reported := false
	for sc.Scan() {
		line := sc.Text()
		p.mu.Lock()
		p.stderr.WriteString(line + "\n")
		// The first line of each is the loopback one.
		if v, ok := strings.CutPrefix(line, ViewerPrefix); ok && p.ViewerURL == "" {
			p.ViewerURL = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, TeacherPrefix); ok && p.TeacherURL == "" {
			p.TeacherURL = strings.TrimSpace(v)
		}
		ready := p.ViewerURL != "" && p.TeacherURL != ""
		p.mu.Unlock()
		if ready && !reported {
			reported = true
			urls <- p.parseKey()
		}
	}
	if !reported {
		urls <- fmt.Errorf("stderr ended before both URLs: %v", sc.Err())
	}
	_, _ = io.Copy(io.Discard, r)
}

// parseKey sets Key from TeacherURL.
func (p *Play) parseKey() error {
	u, err := url.Parse(p.TeacherURL)
	if err != nil {
		return fmt.Errorf("teacher URL %q: %w", p.TeacherURL, err)
	}
	if p.Key = u.Query().Get("key"); p.Key == "" {
		return fmt.Errorf("teacher URL %q has no key", p.TeacherURL)
	}
	return nil
}

// Stderr returns what the process printed on stderr so far.
func (p *Play) Stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// Interrupt sends the process SIGINT, as Ctrl-C does.
func (p *Play) Interrupt() error { return p.cmd.Process.Signal(os.Interrupt) }

// Wait waits up to timeout for the process to exit (then kills it) and
// returns its state: its resource usage (ProcessState.SysUsage, wait4's
// rusage) and exit status.
func (p *Play) Wait(timeout time.Duration) (*os.ProcessState, error) {
	select {
	case <-p.done:
	case <-time.After(timeout):
		_ = p.cmd.Process.Kill()
		<-p.done
		p.reader.Wait()
		return p.cmd.ProcessState, fmt.Errorf("killed: it did not exit within %v", timeout)
	}
	p.reader.Wait()
	var exit *exec.ExitError
	if p.waitErr != nil && !errors.As(p.waitErr, &exit) {
		return p.cmd.ProcessState, p.waitErr
	}
	return p.cmd.ProcessState, nil
}

// Stop interrupts the process and waits for it (30 s, then it is
// killed).
func (p *Play) Stop() {
	_ = p.Interrupt()
	_, _ = p.Wait(30 * time.Second)
}

// Usage is a finished process's CPU time (user + system) and peak
// resident set.
type Usage struct {
	CPU     time.Duration
	MaxRSSK int64 // kilobytes (Linux's ru_maxrss)
}

// UsageOf reads st's rusage.
func UsageOf(st *os.ProcessState) (Usage, error) {
	ru, ok := st.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return Usage{}, errors.New("no rusage for the process")
	}
	return Usage{CPU: st.UserTime() + st.SystemTime(), MaxRSSK: ru.Maxrss}, nil
}

// Binary returns bin, or, when bin is "", a kubesim built from the
// current directory into dir.
func Binary(ctx context.Context, bin, dir string) (string, error) {
	if bin != "" {
		return bin, nil
	}
	bin = filepath.Join(dir, "kubesim")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
}
