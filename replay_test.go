package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/scenarios"
)

// TestReplayPodCreate records pod-create at speed 0 with --plain, moves
// the recording elsewhere (another machine: the run's data directory
// gone) and replays it: --plain prints what the run printed, byte for
// byte; --lang zh prints the same run in Chinese; the terminal UI
// steps through it at 80×24; a recording cut short is refused.
func TestReplayPodCreate(t *testing.T) {
	dataDir := t.TempDir()
	live := filepath.Join(t.TempDir(), "run.jsonl")
	code, out, errs := runMain(t, "", "play", "pod-create", "--plain", "--speed", "0", "--data-dir", dataDir, "--record-session", live)
	if code != 0 {
		t.Fatalf("play: exit %d, want 0; stderr:\n%s", code, errs)
	}
	data, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	for _, local := range []string{dataDir, "KUBECONFIG", "kubeconfig"} {
		if bytes.Contains(data, []byte(local)) {
			t.Errorf("the recording holds %q: it depends on the machine it was made on", local)
		}
	}
	if err := os.RemoveAll(dataDir); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "elsewhere.jsonl")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	// The run's whole output: where its cluster listened went to stderr
	// (a replay has none: it says so on stderr too).
	if !strings.Contains(errs, "export KUBECONFIG=") {
		t.Fatalf("play's stderr does not say where its cluster listened:\n%s", errs)
	}
	runOutput := out

	t.Run("plain", func(t *testing.T) {
		code, got, errs := runMain(t, "", "replay", file, "--plain")
		if code != 0 {
			t.Fatalf("replay: exit %d; stderr:\n%s", code, errs)
		}
		if got != runOutput {
			t.Errorf("replay --plain differs from the run's output: %s", firstDifference(runOutput, got))
		}
		if !strings.Contains(errs, `kubesim: replaying "pod-create"`) {
			t.Errorf("stderr does not say it replays: %q", errs)
		}
	})
	t.Run("zh", func(t *testing.T) { replayInChinese(t, file, runOutput) })
	t.Run("cut short", func(t *testing.T) {
		cut := filepath.Join(t.TempDir(), "cut.jsonl")
		n := bytes.LastIndex(data[:len(data)-1], []byte("\n")) // the end entry's line
		n = bytes.LastIndex(data[:n], []byte("\n")) + 1 + 20   // 20 bytes into the line before it
		if err := os.WriteFile(cut, data[:n], 0o600); err != nil {
			t.Fatal(err)
		}
		line := bytes.Count(data[:n], []byte("\n")) + 1
		code, out, errs := runMain(t, "", "replay", cut, "--plain")
		want := fmt.Sprintf("kubesim: %s:%d:21: malformed JSON: unexpected end of JSON input\n", cut, line)
		if code != 2 || !strings.HasPrefix(errs, want) || out != "" {
			t.Errorf("replay of a cut recording: exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout, stderr %q", code, out, errs, want)
		}
	})
	t.Run("tui", func(t *testing.T) { replayInTmux(t, file) })
}

// replayInChinese replays the English run in Chinese: every step's
// Chinese narration and no English one, the stage titles, the evidence's
// words and the answers in Chinese, in the run's order.
func replayInChinese(t *testing.T, file, runOutput string) {
	code, zh, errs := runMain(t, "", "replay", file, "--plain", "--lang", "zh")
	if code != 0 {
		t.Fatalf("replay --lang zh: exit %d; stderr:\n%s", code, errs)
	}
	sc, err := scenarios.Find("pod-create")
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range sc.Steps {
		if !strings.Contains(zh, st.Narration.Zh) {
			t.Errorf("step %d's Chinese narration is missing", st.Index)
		}
		if first := strings.Split(st.Narration.En, "\n")[0]; strings.Contains(zh, first) {
			t.Errorf("step %d's English narration is there: %q", st.Index, first)
		}
	}
	for _, s := range flow.Stages {
		if want := fmt.Sprintf("[%d/8] %s — Pod nginx", s.Stage, s.Title.Zh); !strings.Contains(zh, want) {
			t.Errorf("no %q", want)
		}
	}
	for _, want := range []string{"认证", "成功", "答案：2. ", "✓ 通过"} {
		if !strings.Contains(zh, want) {
			t.Errorf("the evidence is not in Chinese: no %q", want)
		}
	}
	for _, en := range []string{"authenticated ok", "answer: ", "✓ ok"} {
		if strings.Contains(zh, en) {
			t.Errorf("English left in the Chinese replay: %q", en)
		}
	}
	if got, want := outline(zh), outline(runOutput); got != want {
		t.Errorf("the Chinese replay is not the run's outline:\n got %s\nwant %s", got, want)
	}
}

var outlineLine = regexp.MustCompile(`(?m)^(\[\d/8\]|=== \S+ \d+/\d+|✓|✗|\$ .*|→ .*)`)

// outline is the order of what a plain output shows, in words of no
// language: stage headers, step headers (without the word "Step"),
// results.
func outline(out string) string {
	var o []string
	for _, m := range outlineLine.FindAllString(out, -1) {
		if strings.HasPrefix(m, "=== ") {
			m = "=== " + strings.Fields(m)[2]
		}
		o = append(o, m)
	}
	return strings.Join(o, " | ")
}

// firstDifference says where got first differs from want.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) && i < len(g); i++ {
		if w[i] != g[i] {
			return fmt.Sprintf("line %d:\nwant %q\n got %q", i+1, w[i], g[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}

// replayInTmux replays the recording in the terminal UI at 80×24 in step
// mode: each of the pod's eight boundaries holds until space, the
// scenario's steps too, the summary says every expectation held, L turns
// it to Chinese and q quits with the run's status.
func replayInTmux(t *testing.T, file string) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := kubesimBinary(t)
	s := &tmuxSession{t: t, socket: fmt.Sprintf("kubesim-replay-%d", os.Getpid())}
	script := fmt.Sprintf("%s replay %s --step; echo KUBESIM-EXIT=$?; exec sleep 600", bin, file)
	s.tmux("new-session", "-d", "-s", "k", "-x", "80", "-y", "24", "sh", "-c", script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.socket, "kill-server").Run() })

	s.waitText("replay of a recorded session: no cluster runs", waitTimeout)
	const done = "every expectation held"
	prev, stages, steps := "", map[string]bool{}, map[string]bool{}
	for range 60 {
		screen := s.nextHold("the next hold or the end", waitTimeout, prev, done)
		if strings.Contains(screen, done) {
			break
		}
		prev = holdSignature(screen)
		if m := regexp.MustCompile(`held at stage (\d)`).FindStringSubmatch(prev); m != nil {
			if len(stages) == 0 {
				t.Logf("the first stage held, at 80×24:\n%s", screen)
			}
			stages[m[1]] = true
		}
		if m := regexp.MustCompile(`next: step (\d+)/6`).FindStringSubmatch(prev); m != nil {
			steps[m[1]] = true
		}
		s.keys("Space")
	}
	screen := s.waitText(done, waitTimeout)
	t.Logf("the end, at 80×24:\n%s", screen)
	if len(stages) != 7 || len(steps) != 6 {
		// The hold line names the stage about to come, 2 to 8; two
		// points lie before stage 6 (the kubelet's watch event, its
		// containers).
		t.Errorf("held at stages %v and before steps %v; want at 2 to 8 and before 1 to 6", stages, steps)
	}
	for _, want := range []string{"✓ 8 status in etcd", "STEP"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the summary lacks %q", want)
		}
	}
	s.keys("L")
	s.waitText("所有预期均满足", waitTimeout)
	s.keys("q")
	s.waitText("KUBESIM-EXIT=0", waitTimeout)
}

// TestReplayJSON: replay --json of a run played with --json prints what
// the run printed on stdout, byte for byte (its times too).
func TestReplayJSON(t *testing.T) {
	file := filepath.Join(t.TempDir(), "run.jsonl")
	code, out, errs := runMain(t, "", "play", "pod-create", "--json", "--speed", "0", "--data-dir", t.TempDir(), "--record-session", file)
	if code != 0 {
		t.Fatalf("play: exit %d; stderr:\n%s", code, errs)
	}
	code, got, errs := runMain(t, "", "replay", file, "--json")
	if code != 0 {
		t.Fatalf("replay: exit %d; stderr:\n%s", code, errs)
	}
	if got != out {
		t.Errorf("replay --json differs from the run's output: %s", firstDifference(out, got))
	}
}

// TestReplayRefuses: a file that is no recording this kubesim reads, or
// a bad command line, is a usage error (exit 2) that says what and
// where, and nothing is replayed.
func TestReplayRefuses(t *testing.T) {
	dir := t.TempDir()
	future := filepath.Join(dir, "future.jsonl")
	header := `{"kubesim":"session-recording","version":7,"started":"2026-12-04T21:00:00Z","scenario":{"name":"x"},"lang":"en","output":"plain","speed":0}`
	if err := os.WriteFile(future, []byte(header+"\n"+`{"kind":"end","at":1}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cast := filepath.Join(dir, "session.cast")
	if err := os.WriteFile(cast, []byte(`{"version": 2, "width": 80, "height": 24}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", future, "--plain"}, future + ":1:32: recording format version 7 is not one this kubesim reads (it reads version 1)"},
		{[]string{"replay", cast, "--plain"}, cast + `:1:1: not a kubesim session recording: its first line has no "kubesim": "session-recording"`},
		{[]string{"replay", filepath.Join(dir, "missing.jsonl")}, "no such file or directory"},
		{[]string{"replay", future, "--plain", "--json"}, "--plain and --json cannot be used together"},
		{[]string{"replay", future, "--lang", "fr"}, `--lang must be en or zh, got "fr"`},
		{[]string{"replay"}, "accepts 1 arg(s), received 0"},
	} {
		code, out, errs := runMain(t, "", tc.args...)
		if code != 2 || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, no output, stderr with %q", tc.args, code, out, errs, tc.want)
		}
	}
}

// TestReplayExitStatus: a replay ends as the recorded run did: a run
// whose step failed replays with exit 1 and the run's message, after
// printing the step.
func TestReplayExitStatus(t *testing.T) {
	file := filepath.Join(t.TempDir(), "failed.jsonl")
	lines := []string{
		`{"kubesim":"session-recording","version":1,"started":"2026-12-04T21:00:00Z","scenario":{"name":"x","title":{"en":"X","zh":"X"},"summary":{"en":"","zh":""},"steps":1},"lang":"en","output":"plain","speed":1}`,
		`{"kind":"step","at":10,"step":{"index":1,"total":1,"id":"wait","narration":{"en":"We wait.","zh":"我们等待。"}}}`,
		`{"kind":"result","at":20,"step":{"index":1,"total":1,"id":"wait","narration":{"en":"We wait.","zh":"我们等待。"}},"result":{"answer":-1,"error":"step 1 (wait): expected pod default/web phase Running, saw Pending"}}`,
		`{"kind":"end","at":30,"error":"step 1 (wait): expected pod default/web phase Running, saw Pending"}`,
	}
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runMain(t, "", "replay", file, "--plain", "--lang", "zh")
	want := "\n=== 步骤 1/1 · wait ===\n我们等待。\n✗ 失败: step 1 (wait): expected pod default/web phase Running, saw Pending\n"
	if code != 1 || out != want || !strings.HasSuffix(errs, "kubesim: step 1 (wait): expected pod default/web phase Running, saw Pending\n") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1, stdout %q and the run's message", code, out, errs, want)
	}
}

// TestRecordSessionFromTheTUI: play in the terminal UI (tmux, 80×24)
// with --record-session records the scenario played, which replays with
// its eight stages.
func TestRecordSessionFromTheTUI(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := kubesimBinary(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "tui.jsonl")
	s := &tmuxSession{t: t, socket: fmt.Sprintf("kubesim-record-%d", os.Getpid())}
	script := fmt.Sprintf("%s play pod-create --speed 0 --data-dir %s --record-session %s; echo KUBESIM-EXIT=$?; exec sleep 600",
		bin, filepath.Join(dir, "data"), file)
	s.tmux("new-session", "-d", "-s", "k", "-x", "80", "-y", "24", "sh", "-c", script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	s.waitText("every expectation held", 3*waitTimeout)
	s.keys("q")
	s.waitText("KUBESIM-EXIT=0", waitTimeout)

	code, out, errs := runMain(t, "", "replay", file, "--plain")
	if code != 0 {
		t.Fatalf("replay: exit %d; stderr:\n%s", code, errs)
	}
	for _, st := range flow.Stages {
		if want := fmt.Sprintf("[%d/8] %s — pod nginx", st.Stage, st.Title.En); !strings.Contains(out, want) {
			t.Errorf("the replay lacks %q", want)
		}
	}
	if !strings.HasSuffix(out, "✓ ok\n") {
		t.Errorf("the replay does not end with the last step passed:\n%s", out)
	}
}
