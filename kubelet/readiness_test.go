package kubelet

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// TestReadinessAnnotationFlips: kubesim.io/readiness=fail on a running,
// ready pod makes its container unready (still running) and the pod's
// Ready and ContainersReady False, at once; pass makes them True again.
func TestReadinessAnnotationFlips(t *testing.T) {
	tests := []struct {
		name, key string
	}{
		{"pod-wide", AnnotationReadiness},
		{"for the container", AnnotationReadiness + ".nginx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, nil, testPod("web"), 1, time.Time{})
			h.rt.adoptImage("nginx:1.27")
			h.run(10 * time.Second)
			wantReady(t, h.last(), true, "before the annotation")
			for _, step := range []struct {
				value string
				ready bool
			}{{ReadinessFail, false}, {ReadinessPass, true}, {ReadinessFail, false}} {
				p := h.m.pod.DeepCopy()
				if p.Annotations == nil {
					p.Annotations = map[string]string{}
				}
				p.Annotations[tt.key] = step.value
				h.setPod(p)
				h.run(h.offset() + time.Second)
				wantReady(t, h.last(), step.ready, tt.key+"="+step.value)
			}
		})
	}
}

// TestReadinessAnnotationOtherContainer: the ".<container>" form leaves
// the pod's other containers ready, and a bad value counts as pass and
// is reported as a problem.
func TestReadinessAnnotationOtherContainer(t *testing.T) {
	pod := testPod("web", annotate(AnnotationReadiness+".sidecar", ReadinessFail, AnnotationReadiness, "maybe"))
	pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: "sidecar", Image: "nginx:1.27"})
	h := newHarness(t, nil, pod, 1, time.Time{})
	h.rt.adoptImage("nginx:1.27")
	h.run(10 * time.Second)
	s := h.last()
	for _, cs := range s.ContainerStatuses {
		if want := cs.Name != "sidecar"; cs.Ready != want || cs.State.Running == nil {
			t.Errorf("container %s: ready %v running %v, want ready %v and running", cs.Name, cs.Ready, cs.State.Running != nil, want)
		}
	}
	wantReady(t, s, false, "one container failing")
	var problems []string
	for _, c := range h.m.app {
		problems = append(problems, c.b.problems...)
	}
	if len(problems) != 1 {
		t.Errorf("problems %q, want one about %s=\"maybe\"", problems, AnnotationReadiness)
	}
}

// wantReady checks the pod's Ready and ContainersReady conditions and
// that it is still Running.
func wantReady(t *testing.T, s corev1.PodStatus, ready bool, when string) {
	t.Helper()
	want := corev1.ConditionFalse
	if ready {
		want = corev1.ConditionTrue
	}
	if s.Phase != corev1.PodRunning {
		t.Errorf("%s: phase %s, want Running", when, s.Phase)
	}
	for _, typ := range []corev1.PodConditionType{corev1.PodReady, corev1.ContainersReady} {
		found := false
		for _, c := range s.Conditions {
			if c.Type == typ {
				found = true
				if c.Status != want {
					t.Errorf("%s: %s %s (%s), want %s", when, typ, c.Status, c.Reason, want)
				}
				if !ready && c.Reason != ReasonContainersNotReady {
					t.Errorf("%s: %s reason %q, want %s", when, typ, c.Reason, ReasonContainersNotReady)
				}
			}
		}
		if !found {
			t.Errorf("%s: no %s condition", when, typ)
		}
	}
}
