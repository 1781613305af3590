package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kubesim/kubesim/scenarios"
)

// TestPresentInTmux plays server-chain and pod-create with --present in
// tmux at 80×24 and 120×40, as a teacher at a projector would, pressing
// space (next) twice: server-chain shows no pipeline, pod-create does;
// the current step's whole narration is on the screen (paged with page
// down where it does not fit); the request tab has no Lease renewal.
func TestPresentInTmux(t *testing.T) {
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
	for _, tc := range []struct {
		lesson string
		pods   bool
	}{{"server-chain", false}, {"pod-create", true}} {
		for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
			t.Run(fmt.Sprintf("%s/%dx%d", tc.lesson, sz.w, sz.h), func(t *testing.T) {
				s := startPresenting(t, bin, tc.lesson, sz.w, sz.h)
				screen := s.presentTwoSteps()
				t.Logf("after two steps:\n%s", screen)
				checkPresentScreen(t, screen, sz.w, sz.h)
				hasPipeline := strings.Contains(screen, "1 admitted") && strings.Contains(screen, "8 status in etcd")
				if hasPipeline != tc.pods {
					t.Errorf("the pod pane shown: %v, want %v:\n%s", hasPipeline, tc.pods, screen)
				}
				s.checkWholeNarration(tc.lesson)
				s.checkRequestTab(tc.pods)
			})
		}
	}
}

// startPresenting runs `kubesim play lesson --present` in a private tmux
// server of w×h cells and waits for the first step's hold.
func startPresenting(t *testing.T, bin, lesson string, w, h int) *tmuxSession {
	s := &tmuxSession{t: t, socket: fmt.Sprintf("kubesim-present-%d-%s-%d", os.Getpid(), lesson, w)}
	data := filepath.Join(t.TempDir(), "data")
	script := fmt.Sprintf("%s play %s --present --speed 0 --data-dir %s; echo KUBESIM-EXIT=$?; exec sleep 600", bin, lesson, data)
	s.tmux("new-session", "-d", "-s", "k", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), "sh", "-c", script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	s.waitText("‖ next: step 1/", 3*waitTimeout)
	return s
}

// presentTwoSteps presses space twice, each time once the screen shows
// a new hold, and returns the screen at the hold that follows; a
// question the gate asks is hidden (esc) to show the panes.
func (s *tmuxSession) presentTwoSteps() string {
	prev := holdSignature(s.capture())
	for i := range 2 {
		s.keys("Space")
		screen := s.nextHold(fmt.Sprintf("the hold after press %d", i+1), 2*waitTimeout, prev, "")
		prev = holdSignature(screen)
	}
	screen := s.capture()
	if strings.Contains(screen, "Question · step") {
		s.keys("Escape")
		screen = s.waitFor("the question hidden", waitTimeout, func(screen string) bool {
			return !strings.Contains(screen, "Question · step")
		})
	}
	return screen
}

// checkPresentScreen checks that nothing overflows: the header is on the
// first row and the help on the last, no row is wider than the terminal.
func checkPresentScreen(t *testing.T, screen string, w, h int) {
	t.Helper()
	rows := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	if len(rows) != h || !strings.HasPrefix(rows[0], "kubesim ") || !strings.Contains(rows[h-1], "next stage") {
		t.Errorf("the screen is not the header, the body and the help in %d rows (%d):\n%s", h, len(rows), screen)
	}
	for i, r := range rows {
		if n := len([]rune(r)); n > w {
			t.Errorf("row %d has %d cells, more than %d: %q", i, n, w, r)
		}
	}
}

var stepOnScreen = regexp.MustCompile(`^Step (\d+)/(\d+) · `)

// checkWholeNarration pages through the narration (page down while the
// status line says more is below) and checks that its rows, in order,
// are the current step's whole narration.
func (s *tmuxSession) checkWholeNarration(lesson string) {
	s.t.Helper()
	sc, err := scenarios.Find(lesson)
	if err != nil {
		s.t.Fatal(err)
	}
	var got []string
	screen := s.capture()
	for page := 0; ; page++ {
		rows := narrationRows(screen)
		got = appendPage(got, rows)
		if !strings.Contains(screen, "more: pgdn") || page > 20 {
			break
		}
		before := strings.Join(rows, "\n")
		s.keys("PageDown")
		screen = s.waitFor("the next page of the narration", waitTimeout, func(screen string) bool {
			return strings.Join(narrationRows(screen), "\n") != before
		})
	}
	m := stepOnScreen.FindStringSubmatch(strings.Join(got, " "))
	if m == nil {
		s.t.Fatalf("no step's narration under the header:\n%s", screen)
	}
	i, _ := strconv.Atoi(m[1])
	want := strings.Fields(m[0] + sc.Steps[i-1].Narration.In("en"))
	if g := strings.Fields(strings.Join(got, " ")); strings.Join(g, " ") != strings.Join(want, " ") {
		s.t.Errorf("the narration on screen:\n%s\nwant step %d's whole narration:\n%s", strings.Join(g, " "), i, strings.Join(want, " "))
	}
	if strings.Contains(strings.Join(got, " "), "d: read all") {
		s.t.Errorf("the narration is cut:\n%s", screen)
	}
}

// narrationRows are the rows between the header and the status line.
func narrationRows(screen string) []string {
	rows := strings.Split(screen, "\n")
	var out []string
	for _, r := range rows[min(2, len(rows)):] {
		if strings.HasPrefix(r, "‖") {
			break
		}
		out = append(out, strings.TrimRight(r, " "))
	}
	return out
}

// appendPage adds a page of rows to got, without the rows the page
// shares with the end of got (a page overlaps the one before).
func appendPage(got, page []string) []string {
	for k := min(len(got), len(page)); k > 0; k-- {
		if strings.Join(got[len(got)-k:], "\n") == strings.Join(page[:k], "\n") {
			return append(got, page[k:]...)
		}
	}
	return append(got, page...)
}

// checkRequestTab selects the request tab (]) and checks it: the step's
// own requests (server-chain) or the pod's create (pod-create), and no
// Lease renewal.
func (s *tmuxSession) checkRequestTab(pods bool) {
	s.t.Helper()
	screen := s.capture()
	for i := 0; i < 6 && !strings.Contains(screen, "[request]"); i++ {
		before := screen
		s.keys("]")
		screen = s.waitFor("the next evidence tab", waitTimeout, func(screen string) bool { return screen != before })
	}
	want := "its requests"
	if pods {
		want = "POST /api/v1/namespaces/default/pods"
	}
	screen = s.waitText(want, waitTimeout)
	s.t.Logf("the request tab:\n%s", screen)
	// a trace's URI and user (the event log may say lease/kube-controller-manager)
	if strings.Contains(screen, "/leases/") || strings.Contains(screen, "user system:kube-controller-manager") {
		s.t.Errorf("the request tab shows a Lease renewal:\n%s", screen)
	}
}
