package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubesim/kubesim/scenarios"
)

// tmuxSession drives one kubesim in a private tmux server, as a learner at
// an 80×24 terminal would.
type tmuxSession struct {
	t      *testing.T
	socket string
}

func (s *tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (s *tmuxSession) capture() string { return s.tmux("capture-pane", "-p", "-t", "k") }

func (s *tmuxSession) keys(keys ...string) {
	s.tmux(append([]string{"send-keys", "-t", "k"}, keys...)...)
}

// waitFor polls the pane until ok says yes, failing with the last screen
// after the deadline.
func (s *tmuxSession) waitFor(what string, timeout time.Duration, ok func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		screen := s.capture()
		if ok(screen) {
			return screen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("waited %v for %s; the screen:\n%s", timeout, what, screen)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s *tmuxSession) waitText(text string, timeout time.Duration) string {
	s.t.Helper()
	return s.waitFor(fmt.Sprintf("%q", text), timeout, func(screen string) bool { return strings.Contains(screen, text) })
}

var heldRow = regexp.MustCompile(`‖ \d`)

// nextHold waits until the screen shows a hold other than prev (by
// holdSignature), the same in two captures in a row, or, when done is
// not empty, a screen containing done. A capture taken while the UI
// redraws may show half a frame; taken for a new hold it would have the
// caller press space twice for one, letting the next hold go unseen
// (space lets go whatever is held).
func (s *tmuxSession) nextHold(what string, timeout time.Duration, prev, done string) string {
	s.t.Helper()
	last := ""
	return s.waitFor(what, timeout, func(screen string) bool {
		sig := holdSignature(screen)
		stable := sig == last
		last = sig
		return (done != "" && strings.Contains(screen, done)) || (sig != "" && sig != prev && stable)
	})
}

// holdSignature names the hold on screen: the narration's hold line and
// the pipeline row marked held. Consecutive holds of one pod differ in it.
func holdSignature(screen string) string {
	var sig []string
	for _, line := range strings.Split(screen, "\n") {
		if strings.Contains(line, "‖ held at stage") || strings.Contains(line, "‖ next: step") {
			sig = append(sig, strings.TrimSpace(line))
		}
		if m := heldRow.FindString(line); m != "" {
			sig = append(sig, m)
		}
	}
	return strings.Join(sig, " | ")
}

// TestTUIInTmux runs the real binary in tmux: the default scenario to
// stage 8 in auto mode, then step mode, another scenario stepped through
// its eight holds with space, Chinese, and quitting with the terminal
// given back.
func TestTUIInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "kubesim")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	s := &tmuxSession{t: t, socket: fmt.Sprintf("kubesim-test-%d", os.Getpid())}
	script := fmt.Sprintf("%s --speed 4 --data-dir %s; echo KUBESIM-EXIT=$?; exec sleep 600", bin, filepath.Join(dir, "data"))
	s.tmux("new-session", "-d", "-s", "k", "-x", "80", "-y", "24", "sh", "-c", script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.socket, "kill-server").Run() })

	// The default scenario runs to its end in auto mode.
	screen := s.waitText("every expectation held", 90*time.Second)
	for _, want := range []string{"AUTO", "export KUBECONFIG=" + filepath.Join(dir, "data"), "✓ 8 status in etcd"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the summary lacks %q:\n%s", want, screen)
		}
	}

	// Step mode, then graceful-delete from the picker (as many rows below
	// pod-create as the library's order says).
	s.keys("p")
	s.waitText("STEP", waitTimeout)
	s.keys("s")
	s.waitText("graceful-delete", waitTimeout)
	for range slices.Index(scenarios.LibraryOrder, "graceful-delete") {
		s.keys("Down")
	}
	s.keys("Enter")
	s.waitText("Graceful", waitTimeout)

	// Eight holds of the pod, one per gate point, each released by
	// space; the scenario's steps wait for space too (next-step holds).
	prev := ""
	stageHolds, stepHolds := 0, 0
	for stageHolds < 8 {
		screen := s.nextHold(fmt.Sprintf("hold %d", stageHolds+1), waitTimeout, prev, "")
		prev = holdSignature(screen)
		if strings.Contains(prev, "held at stage") {
			stageHolds++
		} else {
			stepHolds++
		}
		t.Logf("hold: %s", prev)
		s.keys("Space")
	}
	if stepHolds == 0 {
		t.Errorf("the scenario's first step did not wait for space")
	}
	screen = s.waitFor("stage 8 done", waitTimeout, func(screen string) bool { return strings.Contains(screen, "✓ 8") })
	if !strings.Contains(screen, "STEP") {
		t.Errorf("no longer in step mode:\n%s", screen)
	}

	// Chinese, then quit: the terminal is given back.
	s.keys("L")
	s.waitText("中文", waitTimeout)
	s.waitText("单步", waitTimeout)
	s.keys("q")
	s.waitText("KUBESIM-EXIT=0", waitTimeout)
	if alt := strings.TrimSpace(s.tmux("display-message", "-p", "-t", "k", "#{alternate_on}")); alt != "0" {
		t.Errorf("the terminal is still on the alternate screen after quitting (alternate_on=%s)", alt)
	}
}
