package kubelet

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

func TestPodStatusPatch(t *testing.T) {
	h := newHarness(t, nil, testPod("web"), 1, time.Time{})
	h.run(time.Hour)
	first, running := h.statuses[0].s, h.last()
	stored := testPod("web").Status

	tests := []struct {
		name          string
		from, to      corev1.PodStatus
		wantUnchanged bool
		wantKeys      []string // JSON fragments the patch must have
	}{
		{
			name: "first status", from: stored, to: mergePodStatus(stored, first),
			wantKeys: []string{`"metadata":{"uid":"uid-web"}`, `"$setElementOrder/conditions":[{"type":"PodReadyToStartContainers"},{"type":"Initialized"},{"type":"Ready"},{"type":"ContainersReady"},{"type":"PodScheduled"}]`,
				`"hostIP":"192.168.0.11"`, `"reason":"ContainerCreating"`, `"startTime":"2026-03-01T12:00:00Z"`},
		},
		{
			name: "running", from: mergePodStatus(stored, first), to: mergePodStatus(stored, running),
			wantKeys: []string{`"metadata":{"uid":"uid-web"}`, `"phase":"Running"`, `"podIP":"10.244.1.2"`, `"containerID":"kubesim://`, `"imageID":"docker.io/library/nginx@sha256:`},
		},
		{name: "nothing changed", from: mergePodStatus(stored, running), to: mergePodStatus(stored, running), wantUnchanged: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			patch, unchanged, err := podStatusPatch("uid-web", tt.from, tt.to)
			if err != nil {
				t.Fatal(err)
			}
			if unchanged != tt.wantUnchanged {
				t.Errorf("unchanged %v, want %v: %s", unchanged, tt.wantUnchanged, patch)
			}
			for _, k := range tt.wantKeys {
				if !strings.Contains(string(patch), k) {
					t.Errorf("patch lacks %s:\n%s", k, patch)
				}
			}
			// Applied to the stored pod, the patch gives the new status.
			from := corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "uid-web"}, Status: tt.from}
			data, _ := json.Marshal(from)
			out, err := strategicpatch.StrategicMergePatch(data, patch, corev1.Pod{})
			if err != nil {
				t.Fatal(err)
			}
			var got corev1.Pod
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			if conditions(got.Status) != conditions(tt.to) || states(got.Status) != states(tt.to) || got.Status.Phase != tt.to.Phase {
				t.Errorf("patched status\n%s %s\nwant\n%s %s", conditions(got.Status), states(got.Status), conditions(tt.to), states(tt.to))
			}
		})
	}
}

func TestMergePodStatusKeepsOtherConditions(t *testing.T) {
	stored := corev1.PodStatus{Conditions: []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
		{Type: "example.com/gate", Status: corev1.ConditionTrue},
		{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue},
	}}
	mine := corev1.PodStatus{Conditions: []corev1.PodCondition{
		{Type: corev1.PodReadyToStartContainers, Status: corev1.ConditionTrue},
		{Type: corev1.PodReady, Status: corev1.ConditionFalse},
		{Type: "example.com/gate", Status: corev1.ConditionFalse}, // not the kubelet's to set
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
	}}
	got := conditions(mergePodStatus(stored, mine))
	want := "example.com/gate=True DisruptionTarget=True PodReadyToStartContainers=True Ready=False PodScheduled=True"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestReadinessGates(t *testing.T) {
	gate := func(status corev1.ConditionStatus) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "example.com/lb"}}
			if status != "" {
				p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: "example.com/lb", Status: status})
			}
		}
	}
	tests := []struct {
		name string
		pod  *corev1.Pod
		want string
	}{
		{"no condition yet", testPod("web", gate("")), `Ready=False(ReadinessGatesNotReady: corresponding condition of pod readiness gate "example.com/lb" does not exist.)`},
		{"condition False", testPod("web", gate(corev1.ConditionFalse)), `Ready=False(ReadinessGatesNotReady: the status of pod readiness gate "example.com/lb" is not "True", but False)`},
		{"condition True", testPod("web", gate(corev1.ConditionTrue)), `Ready=True`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, nil, tt.pod, 0, time.Time{})
			h.run(time.Second)
			var got string
			for _, c := range h.last().Conditions {
				if c.Type == corev1.PodReady {
					got = conditions(corev1.PodStatus{Conditions: []corev1.PodCondition{c}})
				}
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestParseImage(t *testing.T) {
	tests := []struct{ in, name, repo string }{
		{"nginx", "docker.io/library/nginx:latest", "docker.io/library/nginx"},
		{"nginx:1.27", "docker.io/library/nginx:1.27", "docker.io/library/nginx"},
		{"bitnami/redis:7", "docker.io/bitnami/redis:7", "docker.io/bitnami/redis"},
		{"registry.k8s.io/pause:3.10", "registry.k8s.io/pause:3.10", "registry.k8s.io/pause"},
		{"localhost:5000/app:v1", "localhost:5000/app:v1", "localhost:5000/app"},
		{"nginx@sha256:abcd", "docker.io/library/nginx@sha256:abcd", "docker.io/library/nginx"},
	}
	for _, tt := range tests {
		n := parseImage(tt.in)
		if n.String() != tt.name || n.repo != tt.repo {
			t.Errorf("parseImage(%q) = %s (repo %s), want %s (repo %s)", tt.in, n, n.repo, tt.name, tt.repo)
		}
		if !strings.HasPrefix(n.id(), tt.repo+"@sha256:") {
			t.Errorf("id of %q = %s, want %s@sha256:...", tt.in, n.id(), tt.repo)
		}
		if n.id() != parseImage(tt.in).id() {
			t.Errorf("id of %q is not deterministic", tt.in)
		}
	}
	if parseImage("nginx@sha256:abcd").id() != "docker.io/library/nginx@sha256:abcd" {
		t.Errorf("a digested reference keeps its digest: %s", parseImage("nginx@sha256:abcd").id())
	}
	for img, want := range map[string]corev1.PullPolicy{"nginx": corev1.PullAlways, "nginx:latest": corev1.PullAlways, "nginx:1.27": corev1.PullIfNotPresent, "nginx@sha256:abcd": corev1.PullIfNotPresent} {
		if got := pullPolicy(&corev1.Container{Image: img}); got != want {
			t.Errorf("default pull policy of %s: %s, want %s", img, got, want)
		}
	}
}

func TestIPAM(t *testing.T) {
	a, err := newIPAM("10.244.1.0/29") // .2 to .6
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, uid := range []string{"a", "b", "c", "d", "e"} {
		ip, err := a.allocate(typesUID(uid))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ip)
	}
	if want := "10.244.1.2 10.244.1.3 10.244.1.4 10.244.1.5 10.244.1.6"; strings.Join(got, " ") != want {
		t.Errorf("addresses %s, want %s", strings.Join(got, " "), want)
	}
	if _, err := a.allocate("f"); err == nil {
		t.Error("allocated past the end of the range")
	}
	a.release("10.244.1.3", "b")
	a.release("10.244.1.4", "someone-else") // not theirs: kept
	if ip, err := a.allocate("g"); err != nil || ip != "10.244.1.3" {
		t.Errorf("after a release got %s %v, want 10.244.1.3", ip, err)
	}
	if a.reserve("10.244.1.5", "h") {
		t.Error("reserved an address in use")
	}
	if a.reserve("10.245.0.1", "h") {
		t.Error("reserved an address outside the range")
	}
}

func TestBehaviour(t *testing.T) {
	pod := testPod("web", initContainers("init-a"), annotate(
		AnnotationExitAfter, "5s", AnnotationExitCode, "2", AnnotationStopAfter, "1m",
		AnnotationExitAfter+".init-a", "3", AnnotationExitCode+".init-a", "1",
		AnnotationReadyAfter, "-1s"))
	app := containerBehaviour(pod, &pod.Spec.Containers[0], false, 0)
	init := containerBehaviour(pod, &pod.Spec.InitContainers[0], true, 0)
	if !app.exitSet || !app.codeSet || app.exitAfter != 5*time.Second || app.exitCode != 2 || app.stopAfter != time.Minute || app.readyAfter != 0 {
		t.Errorf("app container: %+v", app)
	}
	if len(app.problems) != 1 || !strings.Contains(app.problems[0], AnnotationReadyAfter) {
		t.Errorf("problems %q, want one about %s", app.problems, AnnotationReadyAfter)
	}
	if !init.exitSet || !init.codeSet || init.exitAfter != 3*time.Second || init.exitCode != 1 || init.stopAfter != 0 {
		t.Errorf("init container: %+v (pod-wide annotations are for app containers)", init)
	}
	if b := containerBehaviour(testPod("x"), &testPod("x").Spec.Containers[0], false, 0); b.exitSet || b.codeSet {
		t.Errorf("without annotations nothing is set: %+v", b)
	}
}

func typesUID(s string) types.UID { return types.UID(s) }
