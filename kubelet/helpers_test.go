package kubelet

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kubesim/kubesim/internal/flow"
)

// t0 is when every machine test starts.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// testPod returns pod "name" in default, bound to node-1 (as the API server
// stores it after binding), with one container nginx (nginx:1.27,
// IfNotPresent), changed by opts.
func testPod(name string, opts ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), Generation: 1, ResourceVersion: "7"},
		Spec: corev1.PodSpec{
			NodeName:      "node-1",
			RestartPolicy: corev1.RestartPolicyAlways,
			Containers:    []corev1.Container{{Name: "nginx", Image: "nginx:1.27", ImagePullPolicy: corev1.PullIfNotPresent}},
		},
		Status: corev1.PodStatus{
			Phase:      corev1.PodPending,
			QOSClass:   corev1.PodQOSBestEffort,
			Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0.Add(-time.Second))}},
		},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func annotate(kv ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Annotations[kv[i]] = kv[i+1]
		}
	}
}

func restartPolicy(r corev1.RestartPolicy) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.RestartPolicy = r }
}

func withImage(img string, policy corev1.PullPolicy) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Containers[0].Image, p.Spec.Containers[0].ImagePullPolicy = img, policy }
}

func initContainers(names ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		for _, n := range names {
			p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{Name: n, Image: "busybox:1.36", ImagePullPolicy: corev1.PullIfNotPresent})
		}
	}
}

// step is one thing a machine did, at an offset from t0.
type step struct {
	at     time.Duration
	event  string // "Reason container: message" ("" container: the pod)
	action *flow.RuntimeAction
}

// harness drives one pod machine with a fake clock, as a pod worker does:
// the status before anything, then step, status, step... moving the clock
// to the machine's next wake-up whenever it is idle.
type harness struct {
	tb       testing.TB
	clk      *clocktesting.FakeClock
	rt       *fakeRuntime
	m        *podMachine
	records  []step
	statuses []timedStatus
}

type timedStatus struct {
	at time.Duration
	s  corev1.PodStatus
}

// newRuntimeT returns node-1's runtime (pod CIDR 10.244.1.0/24).
func newRuntimeT(tb testing.TB) *fakeRuntime {
	tb.Helper()
	rt, err := newRuntime("node-1", "192.168.0.11", "10.244.1.0/24")
	if err != nil {
		tb.Fatal(err)
	}
	return rt
}

// newHarness starts a machine for pod at speed on rt (nil: a new runtime),
// with the default delays, the clock at t0 (or at start, if later).
func newHarness(tb testing.TB, rt *fakeRuntime, pod *corev1.Pod, speed float64, start time.Time) *harness {
	tb.Helper()
	if rt == nil {
		rt = newRuntimeT(tb)
	}
	if start.IsZero() {
		start = t0
	}
	h := &harness{tb: tb, clk: clocktesting.NewFakeClock(start), rt: rt}
	h.m = newPodMachine("node-1", rt, DefaultDelays(), scaler{speed: speed}, pod)
	h.status()
	return h
}

func (h *harness) offset() time.Duration { return h.clk.Now().Sub(t0) }

func (h *harness) status() {
	if s, changed := h.m.nextStatus(h.clk.Now()); changed {
		h.statuses = append(h.statuses, timedStatus{h.offset(), s})
	}
}

func (h *harness) collect(out []output) {
	for _, o := range out {
		r := step{at: h.offset(), action: o.action}
		if o.reason != "" {
			name := ""
			if o.c != nil {
				name = o.c.spec.Name
			}
			r.event = fmt.Sprintf("%s %s: %s", o.reason, name, o.message)
		}
		h.records = append(h.records, r)
	}
}

// run steps the machine until it has nothing more to do or its next
// wake-up is past limit (an offset from t0); the clock is then at limit.
func (h *harness) run(limit time.Duration) {
	h.tb.Helper()
	for i := 0; ; i++ {
		if i > 100000 {
			h.tb.Fatalf("machine never settles (at %v)", h.offset())
		}
		out, wake := h.m.step(h.clk.Now())
		h.collect(out)
		h.status()
		switch {
		case !wake.IsZero() && !wake.After(h.clk.Now()):
			continue
		case wake.IsZero() || wake.Sub(t0) > limit:
			if end := t0.Add(limit); end.After(h.clk.Now()) {
				h.clk.SetTime(end)
				h.status()
			}
			return
		}
		h.clk.SetTime(wake)
	}
}

// setPod hands the machine a new version of its pod, as the informer does.
func (h *harness) setPod(p *corev1.Pod) { h.m.setPod(p, h.clk.Now()) }

// delete marks the pod deleted with a grace period, as the API server does.
func (h *harness) delete(grace int64) {
	p := h.m.pod.DeepCopy()
	ts := metav1.NewTime(h.clk.Now().Add(time.Duration(grace) * time.Second))
	p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &ts, &grace
	h.setPod(p)
}

// events returns the Kubernetes events recorded, "at reason container: message".
func (h *harness) events() []string {
	var out []string
	for _, r := range h.records {
		if r.event != "" {
			out = append(out, fmt.Sprintf("%v %s", r.at, r.event))
		}
	}
	return out
}

// eventTimes returns the offsets of the events with this reason and
// message prefix.
func (h *harness) eventTimes(reason, prefix string) []time.Duration {
	var out []time.Duration
	for _, r := range h.records {
		if strings.HasPrefix(r.event, reason+" ") && strings.Contains(r.event, ": "+prefix) {
			out = append(out, r.at)
		}
	}
	return out
}

func (h *harness) actions() []string {
	var out []string
	for _, r := range h.records {
		if a := r.action; a != nil {
			out = append(out, fmt.Sprintf("%v %s %s %v %s", r.at, a.Action, a.Container, a.Duration, a.Result))
		}
	}
	return out
}

// last is the status computed last.
func (h *harness) last() corev1.PodStatus {
	h.tb.Helper()
	if len(h.statuses) == 0 {
		h.tb.Fatal("no status")
	}
	return h.statuses[len(h.statuses)-1].s
}

// podWithStatus is the machine's pod with its last status, as the API
// stores it (through JSON).
func (h *harness) podWithStatus() *corev1.Pod {
	h.tb.Helper()
	p := h.m.pod.DeepCopy()
	p.Status = h.last()
	data, err := json.Marshal(p)
	if err != nil {
		h.tb.Fatal(err)
	}
	var out corev1.Pod
	if err := json.Unmarshal(data, &out); err != nil {
		h.tb.Fatal(err)
	}
	return &out
}

// conditions renders a status's conditions compactly:
// "PodReadyToStartContainers=True Initialized=True Ready=False(ContainersNotReady: ...)".
func conditions(s corev1.PodStatus) string {
	var parts []string
	for _, c := range s.Conditions {
		p := fmt.Sprintf("%s=%s", c.Type, c.Status)
		if c.Reason != "" || c.Message != "" {
			p += "(" + c.Reason
			if c.Message != "" {
				p += ": " + c.Message
			}
			p += ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " ")
}

// states renders the containers' states: "init-a=Terminated(0 Completed) nginx=Running".
func states(s corev1.PodStatus) string {
	var parts []string
	for _, cs := range append(append([]corev1.ContainerStatus(nil), s.InitContainerStatuses...), s.ContainerStatuses...) {
		parts = append(parts, cs.Name+"="+state(cs.State))
	}
	return strings.Join(parts, " ")
}

func state(st corev1.ContainerState) string {
	switch {
	case st.Running != nil:
		return "Running"
	case st.Terminated != nil:
		return fmt.Sprintf("Terminated(%d %s)", st.Terminated.ExitCode, st.Terminated.Reason)
	case st.Waiting != nil:
		return fmt.Sprintf("Waiting(%s)", st.Waiting.Reason)
	}
	return "none"
}

func diffLines(tb testing.TB, what string, got, want []string) {
	tb.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		tb.Errorf("%s:\ngot\n  %s\nwant\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
