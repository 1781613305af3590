package kubelet

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// texts renders lines as "offset text", offsets from start.
func texts(lines []logLine, start time.Time) []string {
	var out []string
	for _, l := range lines {
		out = append(out, l.at.Sub(start).String()+" "+l.text)
	}
	return out
}

func TestContainerLogLines(t *testing.T) {
	pod := testPod("web", annotate(AnnotationLog, "hello\n+5s migration done\nevery 2s tick {n}\n+bad stays as written"))
	c := &container{spec: pod.Spec.Containers[0]}
	l := newContainerLog("id-1", pod, c, t0, scaler{speed: 1}, commandRun{})
	got := texts(l.lines(t0.Add(6*time.Second)), t0)
	want := []string{
		"0s kubesim: container nginx (image docker.io/library/nginx:1.27) is simulated: no process runs; its log is made up by kubesim's fake runtime",
		"0s /docker-entrypoint.sh: running the start-up scripts of /docker-entrypoint.d/",
		"0s /docker-entrypoint.sh: start-up scripts done; starting nginx",
		"0s 2026/03/01 12:00:00 [notice] 1#1: nginx 1.27 starting, master process 1",
		"0s 2026/03/01 12:00:00 [notice] 1#1: listening on 0.0.0.0:80",
		"0s 2026/03/01 12:00:00 [notice] 1#1: worker processes started",
		"0s hello",
		"0s +bad stays as written",
		"2s tick 1",
		"4s tick 2",
		"5s migration done",
		"6s tick 3",
	}
	diffLines(t, "lines at 6s", got, want)
	if next := l.next(t0.Add(6 * time.Second)); next.Sub(t0) != 8*time.Second {
		t.Errorf("next line at %v, want 8s", next.Sub(t0))
	}
	l.exit(t0.Add(7*time.Second), "bye")
	got = texts(l.lines(t0.Add(time.Hour)), t0)
	if n := len(got); n != len(want)+1 || got[n-1] != "7s bye" {
		t.Errorf("after the exit at 7s, got %d lines ending %q; want %d ending \"7s bye\"", n, got[n-1], len(want)+1)
	}
	if next := l.next(t0.Add(7 * time.Second)); !next.IsZero() {
		t.Errorf("a line is due after the exit, at %v", next.Sub(t0))
	}
}

func TestContainerLogScaled(t *testing.T) {
	pod := testPod("db", withImage("mysql:8.4", corev1.PullIfNotPresent), annotate(AnnotationLog+".nginx", "+10s only mine"))
	c := &container{spec: pod.Spec.Containers[0]}
	l := newContainerLog("id-2", pod, c, t0, scaler{speed: 10}, commandRun{})
	got := texts(l.lines(t0.Add(time.Hour)), t0)
	var ready, mine bool
	for _, g := range got {
		ready = ready || (strings.HasPrefix(g, "200ms ") && strings.Contains(g, "ready for connections on port 3306"))
		mine = mine || g == "1s only mine"
	}
	if !ready || !mine {
		t.Errorf("at speed 10 want mysql ready at 200ms and the container's own line at 1s; got\n  %s", strings.Join(got, "\n  "))
	}
}

// TestContainerLogOfCommandLine: a container whose command line kubesim
// plays has only what it wrote (at its times, scaled), no kubesim note
// and no image start lines (its command replaced the image's program),
// then the kubesim.io/log lines.
func TestContainerLogOfCommandLine(t *testing.T) {
	pod := testPod("db", withImage("mysql:8.4", corev1.PullIfNotPresent), annotate(AnnotationLog, "mine"))
	c := &container{spec: pod.Spec.Containers[0]}
	run := commandRun{simulated: true, lines: []runLine{{0, "hello there"}, {10 * time.Second, "later"}}}
	l := newContainerLog("id-3", pod, c, t0, scaler{speed: 10}, run)
	got := texts(l.lines(t0.Add(time.Hour)), t0)
	diffLines(t, "log", got, []string{"0s hello there", "0s mine", "1s later"})
}

// TestCrashLoopKeepsPreviousLog runs a container that exits after 5s
// twice: the log of the first instance ends with kubesim's exit line and
// stays, as the previous container's, beside the current one's.
func TestCrashLoopKeepsPreviousLog(t *testing.T) {
	pod := testPod("mysql-0", annotate(AnnotationExitAfter, "5s", AnnotationExitCode, "1"))
	h := newHarness(t, nil, pod, 1, time.Time{})
	var cs corev1.ContainerStatus
	for at := time.Second; ; at += time.Second {
		h.run(at)
		if cs = h.last().ContainerStatuses[0]; cs.RestartCount >= 1 && cs.State.Running != nil {
			break
		}
		if at > time.Minute {
			t.Fatalf("not running again after a restart by %v: %+v", at, cs)
		}
	}
	prevID := strings.TrimPrefix(cs.LastTerminationState.Terminated.ContainerID, runtimeScheme)
	prev := h.rt.logs.get(prevID)
	if prev == nil {
		t.Fatalf("no log for the previous container %s", prevID)
	}
	lines := prev.lines(h.clk.Now())
	want := "kubesim: container nginx exits with code 1, as kubesim.io/exit-after=5s says"
	if last := lines[len(lines)-1]; last.text != want || last.at.Sub(prev.start) != 5*time.Second {
		t.Errorf("previous log ends %v %q, want %q 5s after its start", last.at.Sub(prev.start), last.text, want)
	}
	if cur := h.rt.logs.get(strings.TrimPrefix(cs.ContainerID, runtimeScheme)); cur == nil || cur == prev {
		t.Errorf("current container %s has no log of its own", cs.ContainerID)
	}
	h.rt.logs.forget(pod.UID)
	if h.rt.logs.get(prevID) != nil {
		t.Error("logs kept after the pod is gone")
	}
}
