// Package kubesimserve starts and stops a `kubesim serve` for the tools of
// hack/ that drive a whole kubesim from outside (golden, conformance,
// differential).
package kubesimserve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// ReadyLine is the last line kubesim serve prints once its cluster is up.
const ReadyLine = "Press Ctrl-C to stop."

// Server is a running `kubesim serve`.
type Server struct {
	cmd *exec.Cmd
	// Banner is what serve printed up to and including ReadyLine.
	Banner string
	// dataDir holds the kubeconfig serve wrote (dataDir/kubeconfig).
	dataDir string
	done    chan struct{}  // closed once cmd has been waited for
	waitErr error          // cmd.Wait's result, set before done is closed
	reader  sync.WaitGroup // the goroutine reading serve's stdout
}

// Start starts `bin serve` on a free loopback port at speed 0 with its
// data in dataDir (which must not exist yet: serve creates it 0700) and
// more flags (e.g. --nodes 3), and returns once it has printed ReadyLine.
// Its stderr goes to stderrFile. The caller must call Stop.
func Start(ctx context.Context, bin, dataDir string, more []string, env []string, stderrFile io.Writer) (*Server, error) {
	cmd := exec.Command(bin, append(Args(dataDir), more...)...)
	cmd.Env = env
	cmd.Stderr = stderrFile
	// An io.Pipe rather than StdoutPipe: Wait then waits for everything
	// serve wrote to be read, instead of closing the pipe under the reader.
	pr, pw := io.Pipe()
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{cmd: cmd, dataDir: dataDir, done: make(chan struct{})}
	banner := make(chan error, 1)
	s.reader.Add(1)
	go func() {
		defer s.reader.Done()
		r := bufio.NewReader(pr)
		banner <- s.readBanner(r)
		// What serve prints after its banner (only its stop lines) is
		// read so that it never blocks on a full pipe.
		_, _ = io.Copy(io.Discard, r)
	}()
	go func() { s.waitErr = cmd.Wait(); pw.Close(); close(s.done) }()
	var err error
	select {
	case err = <-banner:
	case <-s.done:
		err = fmt.Errorf("kubesim serve exited before it was ready: %v", s.waitErr)
	case <-ctx.Done():
		err = ctx.Err()
	case <-time.After(2 * time.Minute):
		err = errors.New("kubesim serve did not print its ready line within 2 minutes")
	}
	if err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// readBanner reads serve's stdout up to and including ReadyLine into
// s.Banner.
func (s *Server) readBanner(r *bufio.Reader) error {
	var b strings.Builder
	for {
		line, err := r.ReadString('\n')
		b.WriteString(line)
		if strings.TrimSpace(line) == ReadyLine {
			s.Banner = b.String()
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading kubesim serve's output: %w (so far: %q)", err, b.String())
		}
	}
}

// Args are the arguments of the serve command: a free loopback port,
// speed 0 (no simulated delays), state in dataDir.
func Args(dataDir string) []string {
	return []string{"serve", "--data-dir", dataDir, "--address", "127.0.0.1", "--port", "0", "--speed", "0"}
}

// Kubeconfig is the admin kubeconfig serve writes into its data dir.
func (s *Server) Kubeconfig() string { return filepath.Join(s.dataDir, "kubeconfig") }

// Stop interrupts serve as Ctrl-C does and waits for it to exit; after
// 30 s it is killed.
func (s *Server) Stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	s.reader.Wait()
}
