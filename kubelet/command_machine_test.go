package kubelet

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

func command(argv ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Containers[0].Command = argv }
}

// logOf is the text of the log of the container status cs (its current
// instance, or with previous its last terminated one) at now.
func logOf(tb testing.TB, rt *fakeRuntime, cs corev1.ContainerStatus, previous bool, now time.Time) []string {
	tb.Helper()
	id := cs.ContainerID
	if t := cs.State.Terminated; t != nil {
		id = t.ContainerID
	}
	if previous {
		id = cs.LastTerminationState.Terminated.ContainerID
	}
	l := rt.logs.get(strings.TrimPrefix(id, runtimeScheme))
	if l == nil {
		tb.Fatalf("no log of %s", id)
	}
	var out []string
	for _, ln := range l.lines(now) {
		out = append(out, ln.text)
	}
	return out
}

// TestCommandEnds runs pods whose container's command line ends, with
// each restart policy: the pod's phase, the container's terminated
// state (exit code, reason Completed or Error, times) and its log.
func TestCommandEnds(t *testing.T) {
	tests := []struct {
		name    string
		policy  corev1.RestartPolicy
		argv    []string
		phase   corev1.PodPhase
		state   string
		restart bool // restarted (CrashLoopBackOff) rather than finished
		log     []string
		ran     time.Duration // from start to finish
	}{
		{"Never, exit 0", corev1.RestartPolicyNever, []string{"echo", "hi"}, corev1.PodSucceeded, "nginx=Terminated(0 Completed)", false, []string{"hi"}, 0},
		{"Never, exit 3 after 5s", corev1.RestartPolicyNever, []string{"sh", "-c", "echo working; sleep 5; echo failed; exit 3"}, corev1.PodFailed, "nginx=Terminated(3 Error)", false, []string{"working", "failed"}, 5 * time.Second},
		{"OnFailure, exit 0", corev1.RestartPolicyOnFailure, []string{"echo", "3.14"}, corev1.PodSucceeded, "nginx=Terminated(0 Completed)", false, []string{"3.14"}, 0},
		{"OnFailure, exit 1 restarts", corev1.RestartPolicyOnFailure, []string{"false"}, corev1.PodRunning, "nginx=Waiting(CrashLoopBackOff)", true, nil, 0},
		{"Always, exit 0 restarts", corev1.RestartPolicyAlways, []string{"echo", "hi"}, corev1.PodRunning, "nginx=Waiting(CrashLoopBackOff)", true, []string{"hi"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := testPod("job", restartPolicy(tt.policy), command(tt.argv...))
			h := newHarness(t, nil, pod, 1, time.Time{})
			h.run(3 * time.Minute)
			s := h.last()
			if s.Phase != tt.phase || states(s) != tt.state {
				t.Fatalf("got phase %s, %s; want %s, %s", s.Phase, states(s), tt.phase, tt.state)
			}
			cs := s.ContainerStatuses[0]
			term := cs.State.Terminated
			if tt.restart {
				if cs.RestartCount < 1 {
					t.Errorf("restart count %d, want at least 1", cs.RestartCount)
				}
				term = cs.LastTerminationState.Terminated
			}
			if d := term.FinishedAt.Sub(term.StartedAt.Time); d != tt.ran {
				t.Errorf("ran from %v to %v (%v), want %v", term.StartedAt, term.FinishedAt, d, tt.ran)
			}
			if term.ContainerID == "" || term.Message != "" {
				t.Errorf("terminated state %+v: want a container ID and no message", term)
			}
			diffLines(t, "log", logOf(t, h.rt, cs, tt.restart, h.clk.Now()), tt.log)
		})
	}
}

// TestCommandAndAnnotations: kubesim.io/exit-after wins over the command
// line's end (and writes kubesim's line), kubesim.io/exit-code over its
// code.
func TestCommandAndAnnotations(t *testing.T) {
	pod := testPod("job", restartPolicy(corev1.RestartPolicyNever), command("sh", "-c", "echo a; sleep 2; echo b"),
		annotate(AnnotationExitAfter, "1s", AnnotationExitCode, "4"))
	h := newHarness(t, nil, pod, 1, time.Time{})
	h.run(time.Minute)
	s := h.last()
	if states(s) != "nginx=Terminated(4 Error)" {
		t.Fatalf("got %s, want nginx=Terminated(4 Error)", states(s))
	}
	diffLines(t, "log", logOf(t, h.rt, s.ContainerStatuses[0], false, h.clk.Now()),
		[]string{"a", "kubesim: container nginx exits with code 4, as kubesim.io/exit-after=1s says"})

	pod = testPod("job2", restartPolicy(corev1.RestartPolicyNever), command("sleep", "3"), annotate(AnnotationExitCode, "9"))
	h = newHarness(t, nil, pod, 1, time.Time{})
	h.run(time.Minute)
	if s := h.last(); states(s) != "nginx=Terminated(9 Error)" {
		t.Fatalf("exit-code alone: got %s, want nginx=Terminated(9 Error)", states(s))
	}
}

// TestCommandForever: a program kubesim does not simulate runs until the
// pod is deleted, and its log says why.
func TestCommandForever(t *testing.T) {
	pod := testPod("app", command("python", "app.py"))
	h := newHarness(t, nil, pod, 1, time.Time{})
	h.run(time.Hour)
	s := h.last()
	if states(s) != "nginx=Running" {
		t.Fatalf("got %s, want nginx=Running", states(s))
	}
	log := logOf(t, h.rt, s.ContainerStatuses[0], false, h.clk.Now())
	if len(log) != 1 || !strings.Contains(log[0], `runs "python app.py", which kubesim does not simulate`) {
		t.Errorf("log %q: want kubesim's line about python", log)
	}
}

// TestInitContainerCommands: an init container's command line decides
// when it ends and whether the pod goes on; one that would not end
// succeeds at once, as before.
func TestInitContainerCommands(t *testing.T) {
	pod := testPod("web", initContainers("wait", "forever"), restartPolicy(corev1.RestartPolicyNever))
	pod.Spec.InitContainers[0].Command = []string{"sh", "-c", "sleep 20; echo ready"}
	pod.Spec.InitContainers[1].Command = []string{"sh", "-c", "until nslookup db; do sleep 2; done"}
	h := newHarness(t, nil, pod, 1, time.Time{})
	h.run(10 * time.Second)
	if s := h.last(); !strings.HasPrefix(states(s), "wait=Running") {
		t.Fatalf("at 10s got %s, want wait=Running", states(s))
	}
	h.run(time.Minute)
	s := h.last()
	if states(s) != "wait=Terminated(0 Completed) forever=Terminated(0 Completed) nginx=Running" {
		t.Fatalf("got %s", states(s))
	}
	log := logOf(t, h.rt, s.InitContainerStatuses[1], false, h.clk.Now())
	if len(log) != 2 || !strings.Contains(log[1], "init container forever is taken to have succeeded at once") {
		t.Errorf("forever's log %q", log)
	}

	pod = testPod("bad", initContainers("check"), restartPolicy(corev1.RestartPolicyNever))
	pod.Spec.InitContainers[0].Command = []string{"sh", "-c", "echo no; exit 2"}
	h = newHarness(t, nil, pod, 1, time.Time{})
	h.run(time.Minute)
	if s := h.last(); s.Phase != corev1.PodFailed || !strings.HasPrefix(states(s), "check=Terminated(2 Error)") {
		t.Fatalf("got %s %s, want Failed with check=Terminated(2 Error)", s.Phase, states(s))
	}
}

// TestCommandAtSpeed: sleep is divided by the speed; at speed 0 it takes
// no time.
func TestCommandAtSpeed(t *testing.T) {
	for _, speed := range []float64{0, 10} {
		pod := testPod("job", restartPolicy(corev1.RestartPolicyNever), command("sh", "-c", "sleep 100; echo done"))
		h := newHarness(t, nil, pod, speed, time.Time{})
		h.run(time.Hour)
		term := h.last().ContainerStatuses[0].State.Terminated
		want := time.Duration(0)
		if speed > 0 {
			want = 10 * time.Second
		}
		if term == nil || term.FinishedAt.Sub(term.StartedAt.Time) != want {
			t.Errorf("speed %v: terminated %+v, want it to run %v", speed, term, want)
		}
	}
}

// TestCommandEnvExpansion: $(VAR) in command and args is the
// container's variable, as the kubelet expands it.
func TestCommandEnvExpansion(t *testing.T) {
	pod := testPod("job", restartPolicy(corev1.RestartPolicyNever), command("echo", "$(MSG)", "$$(MSG)", "$(NOPE)"))
	pod.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "MSG", Value: "hello"}}
	h := newHarness(t, nil, pod, 0, time.Time{})
	h.run(time.Minute)
	diffLines(t, "log", logOf(t, h.rt, h.last().ContainerStatuses[0], false, h.clk.Now()), []string{"hello $(MSG) $(NOPE)"})
}
