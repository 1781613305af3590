package scenarios

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/internal/flow"
)

// testPod returns pod default/web with uid, phase and container statuses.
func testPod(uid, phase string, statuses ...corev1.ContainerStatus) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: types.UID(uid)},
		Status:     corev1.PodStatus{Phase: corev1.PodPhase(phase), ContainerStatuses: statuses},
	}
}

func TestParsePodStage(t *testing.T) {
	checkParse(t, parsePodStage, []parseCase[Expectation]{
		{name: "by number", key: "podStage", src: "{pod: web, stage: 4}", want: &PodStageExpectation{Pod: "web", Namespace: "default", Stage: flow.StageScheduled}},
		{name: "by name", key: "podStage", src: "{pod: web, namespace: team, stage: status-persisted}", want: &PodStageExpectation{Pod: "web", Namespace: "team", Stage: 8}},
		{name: "no pod", key: "podStage", src: "{stage: 1}", wantErr: `1:1: podStage: missing field "pod"`},
		{name: "no stage", key: "podStage", src: "{pod: web}", wantErr: `1:1: podStage: missing field "stage"`},
		{name: "stage 0", key: "podStage", src: "{pod: web, stage: 0}",
			wantErr: `1:19: podStage.stage: 0 is not a stage (1 to 8, or one of admitted, persisted, scheduler-notified, scheduled, binding-persisted, kubelet-notified, status-reported, status-persisted)`},
		{name: "stage a list", key: "podStage", src: "{pod: web, stage: [1]}", wantErr: `1:19: podStage.stage: expected a stage number or name, got a list`},
		{name: "bad namespace", key: "podStage", src: "{pod: web, namespace: Team, stage: 1}",
			wantErr: `1:23: podStage.namespace: "Team" is not a valid object name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
	})
}

// TestPodStageProbe: the stage counts only for the pod of that name the
// API has now (by UID), and the furthest stage is what it reports.
func TestPodStageProbe(t *testing.T) {
	ref := func(uid string) flow.ObjectRef {
		return flow.ObjectRef{Kind: "Pod", Namespace: "default", Name: "web", UID: types.UID(uid)}
	}
	for _, tc := range []struct {
		name    string
		pod     *corev1.Pod
		events  []flow.Event
		wantOK  bool
		wantGot string
	}{
		{"reached", testPod("u2", "Running"), []flow.Event{{Stage: 1, Object: ref("u2")}, {Stage: 4, Object: ref("u2")}}, true, ""},
		{"an earlier pod of the name", testPod("u2", "Pending"), []flow.Event{{Stage: 4, Object: ref("u1")}, {Stage: 2, Object: ref("u2")}}, false, "stage 2 (persisted) as the furthest"},
		{"gone from the API", nil, []flow.Event{{Stage: 4, Object: ref("u1")}}, true, ""},
		{"nothing yet", testPod("u2", ""), []flow.Event{{Stage: 0, Object: ref("u2")}, {Stage: 4, Object: flow.ObjectRef{Kind: "Pod", Namespace: "other", Name: "web", UID: "u2"}}}, false, "no stage events for it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var objs []runtime.Object
			if tc.pod != nil {
				objs = append(objs, tc.pod)
			}
			p := probePlayer(t, objs...)
			for _, ev := range tc.events {
				p.record(ev)
			}
			_, changed := p.snapshot()
			e := &PodStageExpectation{Pod: "web", Namespace: "default", Stage: flow.StageScheduled}
			got, ok, ch := e.probe(context.Background(), p)
			if ok != tc.wantOK || got != tc.wantGot {
				t.Errorf("probe = %q, %v; want %q, %v", got, ok, tc.wantGot, tc.wantOK)
			}
			if ch != changed {
				t.Errorf("probe's channel is not the one closed by the next event")
			}
		})
	}
}

func TestParsePodPhase(t *testing.T) {
	checkParse(t, parsePodPhase, []parseCase[Expectation]{
		{name: "running", key: "podPhase", src: "{pod: web, phase: Running}", want: &PodPhaseExpectation{Pod: "web", Namespace: "default", Phase: "Running"}},
		{name: "no phase", key: "podPhase", src: "{pod: web}", wantErr: `1:1: podPhase: missing field "phase"`},
		{name: "lowercase", key: "podPhase", src: "{pod: web, phase: running}", wantErr: `1:19: podPhase.phase: "running" is not one of Pending, Running, Succeeded, Failed, Unknown`},
		{name: "unknown field", key: "podPhase", src: "{pod: web, state: Running}", wantErr: `1:12: podPhase: unknown field "state" (allowed: pod, namespace, phase)`},
	})
}

func TestPodPhaseProbe(t *testing.T) {
	running := &PodPhaseExpectation{Pod: "web", Namespace: "default", Phase: "Running"}
	checkProbes(t, []probeCase{
		{name: "running", e: running, objs: []runtime.Object{testPod("u", "Running")}, wantOK: true},
		{name: "pending", e: running, objs: []runtime.Object{testPod("u", "Pending")}, wantGot: "Pending"},
		{name: "no phase", e: running, objs: []runtime.Object{testPod("u", "")}, wantGot: "no phase"},
		{name: "no pod", e: running, wantGot: `404 NotFound: pods "web" not found`},
	})
}

func TestParseContainerState(t *testing.T) {
	checkParse(t, parseContainerState, []parseCase[Expectation]{
		{name: "reason", key: "containerState", src: "{pod: web, reason: CrashLoopBackOff}",
			want: &ContainerStateExpectation{Pod: "web", Namespace: "default", Reason: "CrashLoopBackOff"}},
		{name: "restarts of one container", key: "containerState", src: "{pod: web, container: app, restartsAtLeast: 2}",
			want: &ContainerStateExpectation{Pod: "web", Namespace: "default", Container: "app", RestartsAtLeast: 2}},
		{name: "neither", key: "containerState", src: "{pod: web, container: app}", wantErr: `1:1: containerState: give a reason, restartsAtLeast, or both`},
		{name: "restarts not a number", key: "containerState", src: "{pod: web, restartsAtLeast: two}",
			wantErr: `1:29: containerState.restartsAtLeast: expected an integer, got a string ("two")`},
	})
}

func TestContainerStateProbe(t *testing.T) {
	waiting := func(name, reason string, restarts int32) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, RestartCount: restarts, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}}}
	}
	running := corev1.ContainerStatus{Name: "side", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
	exited := corev1.ContainerStatus{Name: "app", RestartCount: 1, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Error"}}}
	backOff := &ContainerStateExpectation{Pod: "web", Namespace: "default", Reason: "CrashLoopBackOff", RestartsAtLeast: 2}
	checkProbes(t, []probeCase{
		{name: "back-off after restarts", e: backOff, objs: []runtime.Object{testPod("u", "Running", running, waiting("app", "CrashLoopBackOff", 3))}, wantOK: true},
		{name: "too few restarts", e: backOff, objs: []runtime.Object{testPod("u", "Running", running, waiting("app", "CrashLoopBackOff", 1))},
			wantGot: "side Running, 0 restarts, app Waiting (CrashLoopBackOff), 1 restarts"},
		{name: "state kind", e: &ContainerStateExpectation{Pod: "web", Namespace: "default", Reason: "Terminated"}, objs: []runtime.Object{testPod("u", "Running", exited)}, wantOK: true},
		{name: "named container only", e: &ContainerStateExpectation{Pod: "web", Namespace: "default", Container: "app", Reason: "Running"},
			objs: []runtime.Object{testPod("u", "Running", running, exited)}, wantGot: "app Terminated (Error), 1 restarts"},
		{name: "no statuses", e: backOff, objs: []runtime.Object{testPod("u", "Pending")}, wantGot: "no container status"},
	})
}
