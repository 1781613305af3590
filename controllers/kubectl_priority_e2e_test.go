package controllers_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

const lowPod = `apiVersion: v1
kind: Pod
metadata: {name: low}
spec:
  priorityClassName: low
  containers: [{name: c, image: nginx, resources: {requests: {cpu: "3"}}}]
`

const highPod = `apiVersion: v1
kind: Pod
metadata: {name: high}
spec:
  priorityClassName: high
  containers: [{name: c, image: nginx, resources: {requests: {cpu: "3"}}}]
`

// TestKubectlPriorityPreemption: `get pc` lists the system classes; on a
// node of 4 cpus running a pod of priority 10 that requests 3, a pod of
// priority 1000 that requests 3 preempts it: the victim gets
// DisruptionTarget (PreemptionByScheduler) and the Preempted event, and
// is deleted; the preemptor, first FailedScheduling with upstream's
// preemption text, then runs on the node. The Priority admission's
// refusals read as kube-apiserver's. Skipped when kubectl is not on PATH.
func TestKubectlPriorityPreemption(t *testing.T) {
	c, admin := startNodes(t, 1)
	k := newKubectl(t, c)
	rows := table(k.must(t, "get", "pc"))[0]
	want := [][]string{
		{"NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"},
		{"system-cluster-critical", "2000000000", "false", "", "PreemptLowerPriority"},
		{"system-node-critical", "2000001000", "false", "", "PreemptLowerPriority"},
	}
	for i := range want {
		if len(rows) != len(want) || len(rows[i]) != 5 || rows[i][0] != want[i][0] || rows[i][1] != want[i][1] || rows[i][2] != want[i][2] || rows[i][4] != want[i][4] {
			t.Fatalf("kubectl get pc printed %q, want rows like %q", rows, want)
		}
	}
	checkPriorityRefusals(t, k)
	k.mustPrint(t, "priorityclass.scheduling.k8s.io/low created\n", "create", "priorityclass", "low", "--value=10")
	k.mustPrint(t, "priorityclass.scheduling.k8s.io/high created\n", "create", "priorityclass", "high", "--value=1000")
	if r := k.run(t, lowPod, "apply", "-f", "-"); r.err != nil {
		t.Fatalf("kubectl apply low: %v\n%s", r.err, r.stderr)
	}
	k.must(t, "wait", "--for=condition=Ready", "pod/low", "--timeout="+waitTimeout.String())

	last := watchUntilDeleted(t, admin, "low")
	if r := k.run(t, highPod, "apply", "-f", "-"); r.err != nil {
		t.Fatalf("kubectl apply high: %v\n%s", r.err, r.stderr)
	}
	victim := <-last
	if victim == nil {
		t.Fatal("the low pod was not deleted")
	}
	checkDisruptionTarget(t, victim)
	k.must(t, "wait", "--for=condition=Ready", "pod/high", "--timeout="+waitTimeout.String())
	if node := k.must(t, "get", "pod", "high", "-o", "jsonpath={.spec.nodeName}"); node != "node-1" {
		t.Errorf("high runs on %q, want node-1", node)
	}
	uid := k.must(t, "get", "pod", "high", "-o", "jsonpath={.metadata.uid}")
	if got, want := k.must(t, "get", "events", "--field-selector", "reason=Preempted", "-o", "jsonpath={.items[*].involvedObject.name}: {.items[*].message}"),
		"low: Preempted by pod "+uid+" on node node-1"; got != want {
		t.Errorf("Preempted events = %q, want %q", got, want)
	}
	failed := k.must(t, "get", "events", "--field-selector", "reason=FailedScheduling,involvedObject.name=high", "-o", "jsonpath={.items[0].message}")
	if want := "0/1 nodes are available: 1 Insufficient cpu. preemption: found a potential placement for pod on node node-1, preempting 1 victims"; failed != want {
		t.Errorf("FailedScheduling of high = %q, want %q", failed, want)
	}

	// One global default only; a pod naming no class gets it.
	k.mustPrint(t, "priorityclass.scheduling.k8s.io/d1 created\n", "create", "priorityclass", "d1", "--value=5", "--global-default")
	const second = `error: failed to create priorityclass: priorityclasses.scheduling.k8s.io "d2" is forbidden: PriorityClass d1 is already marked as default. Only one default can exist`
	if got := strings.TrimSpace(k.mustFail(t, "create", "priorityclass", "d2", "--value=6", "--global-default")); got != second {
		t.Errorf("a second default:\n got %s\nwant %s", got, second)
	}
	k.must(t, "run", "plain", "--image=nginx")
	if got := k.must(t, "get", "pod", "plain", "-o", "jsonpath={.spec.priorityClassName} {.spec.priority}"); got != "d1 5" {
		t.Errorf("a pod naming no class got %q, want the default: d1 5", got)
	}
}

// checkPriorityRefusals: an unknown class, a priority that is not the
// class's, a second global default and the delete of a system class are
// refused with kube-apiserver's words.
func checkPriorityRefusals(t *testing.T, k *kubectl) {
	t.Helper()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "x", "--image=nginx", `--overrides={"spec":{"priorityClassName":"nope"}}`},
			`Error from server (Forbidden): pods "x" is forbidden: no PriorityClass with name nope was found`},
		{[]string{"run", "x", "--image=nginx", `--overrides={"spec":{"priority":5}}`},
			`Error from server (Forbidden): pods "x" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name`},
		{[]string{"delete", "pc", "system-node-critical"},
			`Error from server (Forbidden): priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted`},
		{[]string{"create", "priorityclass", "big", "--value=1000000001"},
			`error: failed to create priorityclass: PriorityClass.scheduling.k8s.io "big" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000`},
	} {
		if got := strings.TrimSpace(k.mustFail(t, tt.args...)); got != tt.want {
			t.Errorf("kubectl %s:\n got %s\nwant %s", strings.Join(tt.args, " "), got, tt.want)
		}
	}
}

// watchUntilDeleted watches the pod name from now on and sends, once it
// is deleted, its last state (nil if the watch ends first).
func watchUntilDeleted(t *testing.T, admin kubernetes.Interface, name string) <-chan *corev1.Pod {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	t.Cleanup(cancel)
	w, err := admin.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan *corev1.Pod, 1)
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			if p, ok := ev.Object.(*corev1.Pod); ok && ev.Type == watch.Deleted {
				out <- p
				return
			}
		}
		out <- nil
	}()
	return out
}

// checkDisruptionTarget: the victim carries the condition the scheduler
// adds before deleting it.
func checkDisruptionTarget(t *testing.T, victim *corev1.Pod) {
	t.Helper()
	for _, c := range victim.Status.Conditions {
		if c.Type != corev1.DisruptionTarget {
			continue
		}
		if c.Status != corev1.ConditionTrue || c.Reason != corev1.PodReasonPreemptionByScheduler || c.Message != "default-scheduler: preempting to accommodate a higher priority pod" {
			t.Errorf("DisruptionTarget = %+v", c)
		}
		return
	}
	t.Errorf("the victim has no DisruptionTarget condition: %+v", victim.Status.Conditions)
}
