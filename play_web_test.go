package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// webRun is a kubesim command serving the web view, run in-process.
type webRun struct {
	viewer, teacher, key, kubeconfig string
}

var (
	teacherURL    = regexp.MustCompile(`web view for the teacher \(controls\): (http://127\.0\.0\.1:\d+/)\?key=([0-9a-f]+)`)
	kubeconfigURL = regexp.MustCompile(`export KUBECONFIG=(\S+)`)
)

// startWebCommand runs kubesim with args (a command with --web) until the
// test ends (Ctrl-C: its context cancelled), and returns where its pages
// are, once it has said so.
func startWebCommand(t *testing.T, args ...string) webRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr lockedBuffer
	done := make(chan error, 1)
	go func() {
		cmd := newRootCommand(strings.NewReader(""), &lockedBuffer{}, &stderr)
		cmd.SetArgs(args)
		done <- cmd.ExecuteContext(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("kubesim %s: %v", strings.Join(args, " "), err)
		}
	})
	deadline := time.Now().Add(5 * time.Minute)
	for {
		if m := teacherURL.FindStringSubmatch(stderr.String()); m != nil {
			r := webRun{viewer: m[1], teacher: m[1] + "?key=" + m[2], key: m[2]}
			if k := kubeconfigURL.FindStringSubmatch(stderr.String()); k != nil {
				r.kubeconfig = k[1]
			}
			return r
		}
		select {
		case err := <-done:
			t.Fatalf("kubesim %s ended before serving its page: %v\n%s", strings.Join(args, " "), err, stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubesim %s said no address in 5 minutes:\n%s", strings.Join(args, " "), stderr.String())
		}
	}
}

// webMessages follows a page's event stream (with key, the teacher's)
// and returns its messages, decoded, until the test ends.
func webMessages(t *testing.T, base, key string) <-chan map[string]any {
	t.Helper()
	url := base + "api/events"
	if key != "" {
		url += "?key=" + key
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	t.Cleanup(func() { resp.Body.Close() })
	out := make(chan map[string]any, 4096)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				if json.Unmarshal([]byte(data), &m) == nil {
					out <- m
				}
			}
		}
	}()
	return out
}

// nextMessage returns the next message of type typ, failing when the
// stream ends or none comes for long.
func nextMessage(t *testing.T, msgs <-chan map[string]any, typ string) map[string]any {
	t.Helper()
	deadline := time.After(5 * time.Minute)
	for {
		select {
		case m, ok := <-msgs:
			if !ok {
				t.Fatalf("the stream ended before a %q message", typ)
			}
			if m["t"] == typ {
				return m
			}
		case <-deadline:
			t.Fatalf("no %q message in 5 minutes", typ)
		}
	}
}

// stageOrder checks that arrows of the eight stages all came, each
// stage's first after the one before's.
func stageOrder(t *testing.T, arrows []map[string]any) {
	t.Helper()
	first := map[int]int{}
	for i, a := range arrows {
		if s := int(a["stage"].(float64)); s > 0 {
			if _, ok := first[s]; !ok {
				first[s] = i
			}
		}
	}
	for s := 1; s <= 8; s++ {
		if _, ok := first[s]; !ok {
			t.Fatalf("no arrow of stage %d among %d arrows", s, len(arrows))
		}
		if s > 1 && first[s] < first[s-1] {
			t.Errorf("stage %d's first arrow (#%d) came before stage %d's (#%d)", s, first[s], s-1, first[s-1])
		}
	}
}

// collectArrows reads msgs up to the end message and returns the arrows
// and the end's error.
func collectArrows(t *testing.T, msgs <-chan map[string]any) (arrows []map[string]any, endErr string) {
	t.Helper()
	for {
		select {
		case m, ok := <-msgs:
			if !ok {
				t.Fatal("the stream ended before the lesson did")
			}
			switch m["t"] {
			case "arrow":
				arrows = append(arrows, m)
			case "end":
				return arrows, m["error"].(string)
			}
		case <-time.After(5 * time.Minute):
			t.Fatalf("the lesson did not end in 5 minutes (%d arrows)", len(arrows))
		}
	}
}

// TestPlayWebFollowsPodCreate plays pod-create with the web view, not
// stepping: a page sees the eight stages' arrows in order and the end,
// and the scheduling arrow's evidence is the scheduler's table naming
// the node the pod went to.
func TestPlayWebFollowsPodCreate(t *testing.T) {
	run := startWebCommand(t, "play", "pod-create", "--web", "--speed", "0", "--data-dir", t.TempDir())
	msgs := webMessages(t, run.viewer, "")
	if h := nextMessage(t, msgs, "hello"); h["role"] != "viewer" {
		t.Errorf("hello = %v, want a viewer's", h)
	}
	arrows, endErr := collectArrows(t, msgs)
	if endErr != "" {
		t.Fatalf("the lesson failed: %s", endErr)
	}
	stageOrder(t, arrows)
	for _, a := range arrows {
		if a["kind"] != "schedule" {
			continue
		}
		node := strings.TrimPrefix(a["label"].(string), "filter+score → ")
		resp, err := http.Get(fmt.Sprintf("%sapi/evidence/%v", run.viewer, a["id"]))
		if err != nil {
			t.Fatal(err)
		}
		var ev struct{ Lines []struct{ Text string } }
		err = json.NewDecoder(resp.Body).Decode(&ev)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		var text strings.Builder
		for _, l := range ev.Lines {
			text.WriteString(l.Text + "\n")
		}
		if !strings.Contains(text.String(), node) || !strings.Contains(text.String(), "node-1") || !strings.Contains(text.String(), "node-3") {
			t.Errorf("the scheduling arrow's evidence does not show every node and the chosen %s:\n%s", node, text.String())
		}
		return
	}
	t.Error("no scheduling arrow")
}

// TestWebStepHoldsTheCluster plays pod-create in step mode from the
// teacher's page: while the page says the gate holds the pod after
// stage 4, the API server says the pod is bound to no node; the
// teacher's next lets each hold go until the lesson ends.
func TestWebStepHoldsTheCluster(t *testing.T) {
	run := startWebCommand(t, "play", "pod-create", "--web", "--step", "--speed", "0", "--data-dir", t.TempDir())
	cfg, err := clientcmd.BuildConfigFromFlags("", run.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(cfg)
	msgs := webMessages(t, run.viewer, run.key)
	checked := false
	for !checked {
		hold := nextMessage(t, msgs, "hold")
		held, _ := hold["held"].([]any)
		for _, h := range held {
			h := h.(map[string]any)
			if h["after"] == float64(4) && h["object"] == "default/nginx" {
				pod, err := cs.CoreV1().Pods("default").Get(context.Background(), "nginx", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if pod.Spec.NodeName != "" {
					t.Fatalf("the page says the pod is held before its binding, but it is bound to %s", pod.Spec.NodeName)
				}
				checked = true
			}
		}
		if len(held) > 0 && !checked {
			teacherNextShown(t, run, held) // a stale message's press lets nothing else go
		}
	}
	// Let everything else go; the lesson ends.
	if code := teacherPost(t, run, `{"action":"mode","mode":"auto"}`); code != http.StatusNoContent {
		t.Fatalf("mode auto: %d", code)
	}
	teacherNext(t, run)
	for {
		m := <-msgs
		if m == nil {
			t.Fatal("the stream ended before the lesson")
		}
		if m["t"] == "end" {
			if m["error"] != "" {
				t.Fatalf("the lesson failed: %v", m["error"])
			}
			break
		}
		if held, _ := m["held"].([]any); m["t"] == "hold" && len(held) > 0 {
			teacherNextShown(t, run, held)
		}
	}
	pod, err := cs.CoreV1().Pods("default").Get(context.Background(), "nginx", metav1.GetOptions{})
	if err != nil || pod.Spec.NodeName == "" {
		t.Fatalf("after the lesson the pod is %v (%v), want it bound", pod, err)
	}
}

func teacherNext(t *testing.T, run webRun) {
	t.Helper()
	if code := teacherPost(t, run, `{"action":"next"}`); code != http.StatusNoContent {
		t.Fatalf("next: %d, want 204", code)
	}
}

// teacherNextShown presses next as the page does, saying what the hold
// message it read shows held.
func teacherNextShown(t *testing.T, run webRun, held []any) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"action": "next", "held": held})
	if err != nil {
		t.Fatal(err)
	}
	if code := teacherPost(t, run, string(body)); code != http.StatusNoContent {
		t.Fatalf("next: %d, want 204", code)
	}
}

func teacherPost(t *testing.T, run webRun, body string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", run.viewer+"api/control", strings.NewReader(body))
	req.Header.Set("X-Kubesim-Key", run.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestReplayWeb replays a recording of pod-create in the web view: the
// same eight stages, in order, with no cluster.
func TestReplayWeb(t *testing.T) {
	file := filepath.Join(t.TempDir(), "run.jsonl")
	if code, _, errs := runMain(t, "", "play", "pod-create", "--plain", "--speed", "0", "--data-dir", t.TempDir(), "--record-session", file); code != 0 {
		t.Fatalf("play: exit %d; stderr:\n%s", code, errs)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
	run := startWebCommand(t, "replay", file, "--web", "--speed", "0")
	if run.kubeconfig != "" {
		t.Errorf("a replay said KUBECONFIG=%s: it has no cluster", run.kubeconfig)
	}
	msgs := webMessages(t, run.viewer, "")
	if h := nextMessage(t, msgs, "hello"); h["replay"] != true {
		t.Errorf("hello = %v, want replay true", h)
	}
	arrows, endErr := collectArrows(t, msgs)
	if endErr != "" {
		t.Fatalf("the replayed lesson failed: %s", endErr)
	}
	stageOrder(t, arrows)
}
