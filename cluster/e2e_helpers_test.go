package cluster_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
	"github.com/kubesim/kubesim/internal/waitfor"
)

// The end-to-end tests drive a running control plane with the real kubectl
// and curl binaries. They wait for conditions, never for a fixed time, and
// a slow machine does not fail them: eventually fails only when the state
// it watches has not changed for waitfor.Stall. waitTimeout is the one
// deadline of a wait with nothing to watch but its end (one event, one
// read), generous so that only a hang reaches it; pollInterval is how
// often a polled condition is looked at again.
const (
	waitTimeout  = waitfor.Bound
	pollInterval = 25 * time.Millisecond
	// commandTimeout bounds one kubectl or curl run, so that a hung client
	// fails its test instead of hanging the suite.
	commandTimeout = waitfor.Bound
	// streamTimeout bounds the life of a long-running kubectl or curl
	// (get -w, curl -N), which the test stops when it ends.
	streamTimeout = waitfor.Cap
)

// lookPath returns the path of the named binary, or skips the test when
// it is not on PATH.
func lookPath(tb testing.TB, name string) string {
	tb.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		tb.Skipf("%s not on PATH: this end-to-end test drives the real %s binary", name, name)
	}
	return p
}

// mustStartCluster starts a control plane keeping its state in dataDir
// (a fresh tb.TempDir() when empty) on a free loopback port, and closes
// it when the test ends (closing it earlier is fine).
func mustStartCluster(tb testing.TB, dataDir string) *cluster.Cluster {
	tb.Helper()
	return clustertest.Start(tb, clustertest.APIOnly, func(cfg *cluster.Config) {
		if dataDir != "" {
			cfg.DataDir = dataDir
		}
	})
}

// kubectl runs the real kubectl against one cluster, with its own
// kubeconfig, discovery cache and HOME: the user's ~/.kube is never read
// or written.
type kubectl struct {
	bin        string
	kubeconfig string
	cacheDir   string
	home       string
}

// newKubectl returns a kubectl for c, or skips the test when kubectl is
// not on PATH.
func newKubectl(tb testing.TB, c *cluster.Cluster) *kubectl {
	tb.Helper()
	bin := lookPath(tb, "kubectl")
	home := tb.TempDir()
	return &kubectl{bin: bin, kubeconfig: c.Kubeconfig, cacheDir: filepath.Join(home, "cache"), home: home}
}

// command returns the kubectl command line for args, not yet started.
func (k *kubectl) command(ctx context.Context, args ...string) *exec.Cmd {
	full := append([]string{"--kubeconfig", k.kubeconfig, "--cache-dir", k.cacheDir}, args...)
	cmd := exec.CommandContext(ctx, k.bin, full...)
	// Later entries win: HOME and KUBECONFIG never point at the user's.
	cmd.Env = append(os.Environ(), "HOME="+k.home, "KUBECONFIG="+k.kubeconfig)
	cmd.WaitDelay = time.Second
	return cmd
}

// result is what one finished run of a command printed.
type result struct {
	stdout, stderr string
	// err is nil when the command exited 0.
	err error
}

// run runs kubectl with stdin to completion.
func (k *kubectl) run(tb testing.TB, stdin string, args ...string) result {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := k.command(ctx, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		tb.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	return result{stdout: stdout.String(), stderr: stderr.String(), err: err}
}

// mustWith runs kubectl with stdin and fails the test unless it exits 0
// with nothing on stderr (no warnings either); it returns stdout.
func (k *kubectl) mustWith(tb testing.TB, stdin string, args ...string) string {
	tb.Helper()
	r := k.run(tb, stdin, args...)
	if r.err != nil || r.stderr != "" {
		tb.Fatalf("kubectl %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.err, r.stdout, r.stderr)
	}
	return r.stdout
}

// must is mustWith without stdin.
func (k *kubectl) must(tb testing.TB, args ...string) string {
	tb.Helper()
	return k.mustWith(tb, "", args...)
}

// mustFail runs kubectl and fails the test unless it exits non-zero with
// nothing on stdout; it returns stderr.
func (k *kubectl) mustFail(tb testing.TB, args ...string) string {
	tb.Helper()
	r := k.run(tb, "", args...)
	if r.err == nil || r.stdout != "" {
		tb.Fatalf("kubectl %s: got exit %v, want a failure\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.err, r.stdout, r.stderr)
	}
	return r.stderr
}

// start starts a long-running kubectl (get -w) whose output lines are
// collected as they arrive; it is stopped when the test ends.
func (k *kubectl) start(tb testing.TB, args ...string) *lineStream {
	tb.Helper()
	return startLineStream(tb, "kubectl "+strings.Join(args, " "), func(ctx context.Context) *exec.Cmd {
		return k.command(ctx, args...)
	})
}

// lineStream is a running command whose stdout is read line by line while
// it runs (kubectl get -w, curl -N). Lines are kept without their line
// ending ("\n" or "\r\n").
type lineStream struct {
	name   string
	cmd    *exec.Cmd
	cancel context.CancelFunc
	read   chan struct{} // closed once stdout is at EOF
	notify chan struct{} // a token after every new line

	mu     sync.Mutex
	lines  []string
	stderr bytes.Buffer
}

// startLineStream starts the command made by newCmd and reads its stdout
// until it exits. The command is killed, and waited for, when the test
// ends or stop is called.
func startLineStream(tb testing.TB, name string, newCmd func(context.Context) *exec.Cmd) *lineStream {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), streamTimeout)
	s := &lineStream{name: name, cancel: cancel, read: make(chan struct{}), notify: make(chan struct{}, 1)}
	s.cmd = newCmd(ctx)
	s.cmd.Stderr = lockedWriter{&s.mu, &s.stderr}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		cancel()
		tb.Fatalf("%s: %v", name, err)
	}
	if err := s.cmd.Start(); err != nil {
		cancel()
		tb.Fatalf("%s: %v", name, err)
	}
	go s.readLines(stdout)
	tb.Cleanup(s.stop)
	return s
}

func (s *lineStream) readLines(r io.Reader) {
	defer close(s.read)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		s.mu.Lock()
		s.lines = append(s.lines, strings.TrimSuffix(sc.Text(), "\r"))
		s.mu.Unlock()
		select {
		case s.notify <- struct{}{}:
		default:
		}
	}
}

// stop kills the command and waits for it and for the reader. It may be
// called more than once.
func (s *lineStream) stop() {
	s.cancel()
	<-s.read
	_ = s.cmd.Wait()
}

// snapshot returns the lines read so far and what was written to stderr.
func (s *lineStream) snapshot() ([]string, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.lines...), s.stderr.String()
}

// waitFor waits until done holds for the lines read so far and returns
// them. It fails the test, showing the lines, when no new line has come
// for waitfor.Stall or the command exits first.
func (s *lineStream) waitFor(tb testing.TB, what string, done func(lines []string) bool) []string {
	tb.Helper()
	stall := time.NewTimer(waitfor.Stall)
	defer stall.Stop()
	read := -1
	for {
		lines, _ := s.snapshot()
		if done(lines) {
			return lines
		}
		if len(lines) != read {
			read = len(lines)
			stall.Reset(waitfor.Stall)
		}
		select {
		case <-s.notify:
		case <-s.read:
			lines, stderr := s.snapshot()
			if done(lines) {
				return lines
			}
			tb.Fatalf("%s exited before %s\nstdout:\n%s\nstderr:\n%s", s.name, what, strings.Join(lines, "\n"), stderr)
		case <-stall.C:
			lines, stderr := s.snapshot()
			tb.Fatalf("%s: no %s, and no new line for %v\nstdout:\n%s\nstderr:\n%s", s.name, what, waitfor.Stall, strings.Join(lines, "\n"), stderr)
		}
	}
}

// lockedWriter serialises writes to w with mu.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// eventually polls cond until it reports true. The state cond describes
// is its progress: the test fails, with the state cond last described,
// only when no new state has been seen for waitfor.Stall (or the wait
// has taken waitfor.Cap).
func eventually(tb testing.TB, what string, cond func() (ok bool, state string)) {
	tb.Helper()
	waitfor.Progress(tb, what, waitfor.Cond(cond), waitfor.PollEvery(pollInterval))
}

// table splits kubectl's column output into rows of fields. Columns are
// compared by their words, never by their padding, which kubectl computes.
func table(out string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			rows = append(rows, f)
		}
	}
	return rows
}

// joined is a row as one space-separated string, for messages and
// comparisons.
func joined(row []string) string { return strings.Join(row, " ") }

// firstFields is the first n fields of row (fewer if it is shorter),
// joined as by joined.
func firstFields(row []string, n int) string { return joined(row[:min(n, len(row))]) }

// mustWriteFile writes content to name in a fresh temporary directory and
// returns its path.
func mustWriteFile(tb testing.TB, name, content string) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}

// mustWriteFileAt overwrites the file at path.
func mustWriteFileAt(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		tb.Fatal(err)
	}
}

// podManifest is a minimal pod as a user writes it.
func podManifest(name, image string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: %s
spec:
  containers:
  - name: app
    image: %s
`, name, image)
}

func mustQuantity(s string) resource.Quantity { return resource.MustParse(s) }

// createPod creates a one-container pod named name in default.
func createPod(tb testing.TB, c kubernetes.Interface, name string) *corev1.Pod {
	tb.Helper()
	p, err := c.CoreV1().Pods("default").Create(context.Background(), &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		tb.Fatalf("create pod %s: %v", name, err)
	}
	return p
}

// waitPhase waits until the pod default/name is in phase.
func waitPhase(tb testing.TB, c kubernetes.Interface, name string, phase corev1.PodPhase) {
	tb.Helper()
	eventually(tb, fmt.Sprintf("pod %s %s", name, phase), func() (bool, string) {
		p, err := c.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return p.Status.Phase == phase, string(p.Status.Phase)
	})
}
