package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/klog/v2"
)

// The kubesim binary, built once for the tests of this package that run
// it as a process (signals, kill -9, two processes on one data dir).
var (
	buildOnce sync.Once
	buildDir  string
	buildPath string
	buildErr  error
)

func TestMain(m *testing.M) {
	// client-go's logs in this process (a request cut short by a kill
	// -9, say) are not the tests' output.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// kubesimBinary returns the path of a kubesim built from this tree. It
// skips the test in -short mode.
func kubesimBinary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "kubesim-bin-"); buildErr != nil {
			return
		}
		buildPath = filepath.Join(buildDir, "kubesim")
		out, err := exec.Command("go", "build", "-o", buildPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildPath
}

// process is a kubesim started by a test; its stdout is scanned line by
// line (waitLine), its stderr kept whole.
type process struct {
	t      testing.TB
	cmd    *exec.Cmd
	lines  chan string
	stderr *lockedBuffer
	done   chan struct{}
	err    error // the Wait error, once done is closed
}

// startKubesim starts the binary with args and environment extra env
// entries; the process is killed when the test ends if it still runs.
func startKubesim(t testing.TB, env []string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(kubesimBinary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	p := &process{t: t, cmd: cmd, lines: make(chan string, 1024), stderr: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case p.lines <- sc.Text():
			default: // nobody reads this far: drop
			}
		}
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	return p
}

// waitLine waits up to timeout for a line of stdout containing s.
func (p *process) waitLine(s string, timeout time.Duration) string {
	p.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case l := <-p.lines:
			if strings.Contains(l, s) {
				return l
			}
		case <-p.done:
			p.t.Fatalf("kubesim exited (%v) before printing %q; stderr: %s", p.err, s, p.stderr.String())
		case <-deadline:
			p.t.Fatalf("kubesim printed no %q within %s; stderr: %s", s, timeout, p.stderr.String())
		}
	}
}

// wait waits up to timeout for the process to exit and returns its exit
// code (-1 if a signal killed it).
func (p *process) wait(timeout time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.t.Fatalf("kubesim still runs %s later; stderr: %s", timeout, p.stderr.String())
	}
	return p.cmd.ProcessState.ExitCode()
}

// describe says whether the process still runs and what it wrote on
// stderr, for failure messages.
func (p *process) describe() string {
	state := "still running"
	select {
	case <-p.done:
		state = "exited: " + p.cmd.ProcessState.String()
	default:
	}
	return fmt.Sprintf("kubesim %s; stderr: %q", state, p.stderr.String())
}

// killedBy reports whether the exited process was killed by sig.
func (p *process) killedBy(sig syscall.Signal) bool {
	ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == sig
}

func (p *process) signal(sig syscall.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatalf("signal %v: %v", sig, err)
	}
}

// lockedBuffer is an io.Writer safe for the process's writes and the
// test's reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

var _ io.Writer = (*lockedBuffer)(nil)

// serveArgs are the arguments of a small, fast `kubesim serve` on dir
// (no nodes unless given, no simulated delays, any free port).
func serveArgs(dir string, extra ...string) []string {
	return append([]string{"serve", "--data-dir", dir, "--port", "0", "--nodes", "0", "--speed", "0"}, extra...)
}

// readyLine is what serve prints once the cluster is up.
const readyLine = "Press Ctrl-C to stop."
