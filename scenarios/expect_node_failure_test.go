package scenarios

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestParseNodeTaints(t *testing.T) {
	checkParse(t, parseNodeTaints, []parseCase[Expectation]{
		{name: "two, sorted", key: "nodeTaints", src: "{node: node-2, taints: [b:NoSchedule, a:NoExecute]}",
			want: &NodeTaintsExpectation{Node: "node-2", Taints: []string{"a:NoExecute", "b:NoSchedule"}}},
		{name: "none", key: "nodeTaints", src: "{node: node-2, taints: []}", want: &NodeTaintsExpectation{Node: "node-2", Taints: []string{}}},
		{name: "no node", key: "nodeTaints", src: "{taints: []}", wantErr: `1:1: nodeTaints: missing field "node"`},
		{name: "no taints", key: "nodeTaints", src: "{node: node-2}", wantErr: `1:1: nodeTaints: missing field "taints" (a list of key:Effect, [] for none)`},
		{name: "taints a string", key: "nodeTaints", src: "{node: node-2, taints: a:NoExecute}", wantErr: `1:24: nodeTaints.taints: expected a list, got a string ("a:NoExecute")`},
		{name: "bad effect", key: "nodeTaints", src: "{node: node-2, taints: [a:NoRun]}",
			wantErr: `1:25: nodeTaints.taints[0]: "a:NoRun" is not key:Effect (Effect NoSchedule, PreferNoSchedule or NoExecute)`},
		{name: "no key", key: "nodeTaints", src: "{node: node-2, taints: [':NoExecute']}",
			wantErr: `1:25: nodeTaints.taints[0]: ":NoExecute" is not key:Effect (Effect NoSchedule, PreferNoSchedule or NoExecute)`},
	})
}

func taintedNode(taints ...corev1.Taint) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-2"}, Spec: corev1.NodeSpec{Taints: taints}}
}

func TestNodeTaintsProbe(t *testing.T) {
	unreachable := corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{}}
	noSchedule := corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoSchedule}
	both := &NodeTaintsExpectation{Node: "node-2", Taints: []string{"node.kubernetes.io/unreachable:NoExecute", "node.kubernetes.io/unreachable:NoSchedule"}}
	none := &NodeTaintsExpectation{Node: "node-2", Taints: []string{}}
	checkProbes(t, []probeCase{
		{name: "exactly", e: both, objs: []runtime.Object{taintedNode(noSchedule, unreachable)}, wantOK: true},
		{name: "one missing", e: both, objs: []runtime.Object{taintedNode(noSchedule)}, wantGot: "taints node.kubernetes.io/unreachable:NoSchedule"},
		{name: "none wanted, one there", e: none, objs: []runtime.Object{taintedNode(noSchedule)}, wantGot: "taints node.kubernetes.io/unreachable:NoSchedule"},
		{name: "none", e: none, objs: []runtime.Object{taintedNode()}, wantOK: true},
		{name: "no node", e: none, wantGot: `404 NotFound: nodes "node-2" not found`},
	})
}

func TestParsePods(t *testing.T) {
	yes := true
	checkParse(t, parsePods, []parseCase[Expectation]{
		{name: "all fields", key: "pods",
			src: "{selector: app=web, namespace: team, node: node-2, count: 1, ready: \"False\", terminating: true, condition: DisruptionTarget, reason: DeletionByTaintManager}",
			want: &PodsExpectation{Selector: "app=web", Namespace: "team", Node: "node-2", Count: 1, Ready: "False", Terminating: &yes,
				Condition: "DisruptionTarget", Reason: "DeletionByTaintManager"}},
		{name: "not on", key: "pods", src: "{selector: app=web, notOn: node-2, count: 3}",
			want: &PodsExpectation{Selector: "app=web", Namespace: "default", NotOn: "node-2", Count: 3}},
		{name: "no selector", key: "pods", src: "{count: 1}", wantErr: `1:1: pods: missing field "selector" (a label selector such as app=web)`},
		{name: "bad selector", key: "pods", src: "{selector: 'app in (', count: 1}", wantErr: `1:12: pods.selector: "app in (" is not a label selector such as app=web`},
		{name: "no count", key: "pods", src: "{selector: app=web}", wantErr: `1:1: pods: missing field "count"`},
		{name: "negative count", key: "pods", src: "{selector: app=web, count: -1}", wantErr: `1:28: pods.count: -1 is negative`},
		{name: "ready unknown", key: "pods", src: "{selector: app=web, count: 1, ready: Unknown}", wantErr: `1:38: pods.ready: "Unknown" is not one of True, False`},
		{name: "reason alone", key: "pods", src: "{selector: app=web, count: 1, reason: X}", wantErr: `1:31: pods.reason: needs condition`},
	})
}

// webPodOn is pod name of app=web on node, Ready or not, being deleted or
// not.
func webPodOn(name, node string, ready, deleting bool) *corev1.Pod {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec:   corev1.PodSpec{NodeName: node},
		Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}}}
	if deleting {
		p.DeletionTimestamp = &metav1.Time{}
	}
	return p
}

func TestPodsProbe(t *testing.T) {
	yes, no := true, false
	evicted := webPodOn("a", "node-2", false, true)
	evicted.Status.Conditions = append(evicted.Status.Conditions, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "DeletionByTaintManager"})
	pods := []runtime.Object{evicted, webPodOn("b", "node-1", true, false), webPodOn("c", "node-3", true, false)}
	checkProbes(t, []probeCase{
		{name: "evicted on node-2", e: &PodsExpectation{Selector: "app=web", Namespace: "default", Node: "node-2", Count: 1, Terminating: &yes,
			Condition: "DisruptionTarget", Reason: "DeletionByTaintManager"}, objs: pods, wantOK: true},
		{name: "ready elsewhere", e: &PodsExpectation{Selector: "app=web", Namespace: "default", NotOn: "node-2", Count: 2, Ready: "True", Terminating: &no},
			objs: pods, wantOK: true},
		{name: "one too few", e: &PodsExpectation{Selector: "app=web", Namespace: "default", NotOn: "node-2", Count: 3, Ready: "True"},
			objs: pods, wantGot: "2 as asked; pods b on node-1 Ready=True, c on node-3 Ready=True"},
		{name: "wrong reason", e: &PodsExpectation{Selector: "app=web", Namespace: "default", Node: "node-2", Count: 1, Condition: "DisruptionTarget", Reason: "Other"},
			objs: pods, wantGot: "0 as asked; pods a on node-2 Ready=False terminating"},
		{name: "none on the node", e: &PodsExpectation{Selector: "app=web", Namespace: "default", Node: "node-4", Count: 0}, objs: pods, wantOK: true},
		{name: "other labels", e: &PodsExpectation{Selector: "app=db", Namespace: "default", Count: 1}, objs: pods, wantGot: "no such pods"},
	})
}
