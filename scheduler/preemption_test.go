package scheduler

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	policylisters "k8s.io/client-go/listers/policy/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesim/kubesim/internal/flow"
)

// preemptionFor runs one attempt of pod against nodes holding bound (and
// the budgets pdbs) and returns the preemption evidence and the message.
func preemptionFor(t *testing.T, nodes []*corev1.Node, bound []*corev1.Pod, pdbs []*policyv1.PodDisruptionBudget, pod *corev1.Pod) (*flow.PreemptionVerdict, string) {
	t.Helper()
	m := newMemScheduler(t, nodes...)
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, b := range pdbs {
		if err := indexer.Add(b); err != nil {
			t.Fatal(err)
		}
	}
	m.pdbLister = policylisters.NewPodDisruptionBudgetLister(indexer)
	for _, p := range bound {
		m.cache.AddPod(p)
	}
	m.queue.Add(pod)
	m.scheduleNext(t)
	if got := m.binder.get(pod.Name); got != "" {
		t.Fatalf("pod bound to %s, want no binding", got)
	}
	ev := m.lastEvent(t)
	return ev.Scheduling.Preemption, ev.Scheduling.Message
}

// startedAt sets status.startTime to t0 plus d.
func startedAt(d time.Duration) podOpt {
	return func(p *corev1.Pod) { p.Status.StartTime = &metav1.Time{Time: t0.Add(d)} }
}

func withLabels(kv ...string) podOpt {
	return func(p *corev1.Pod) {
		p.Labels = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

// labelled gives the pods named app=<app>.
func labelled(pods []*corev1.Pod, app string, names ...string) []*corev1.Pod {
	for _, p := range pods {
		for _, n := range names {
			if p.Name == n {
				withLabels("app", app)(p)
			}
		}
	}
	return pods
}

func budget(name string, allowed int32, app string) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}},
		Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed},
	}
}

// TestSelectVictimsOnNode: the fewest pods, the least important first,
// are evicted; a victim a budget protects is spared when another will do.
func TestSelectVictimsOnNode(t *testing.T) {
	node := []*corev1.Node{makeNode("a", "4", "8Gi", 110)}
	four := func() []*corev1.Pod {
		var out []*corev1.Pod
		for i, prio := range []int32{10, 20, 30, 40} {
			name := []string{"p10", "p20", "p30", "p40"}[i]
			out = append(out, makePod(name, onNode("a"), withRequests("1", ""), withPriority(prio), startedAt(time.Duration(i)*time.Minute)))
		}
		return out
	}
	tests := []struct {
		name           string
		bound          []*corev1.Pod
		pdbs           []*policyv1.PodDisruptionBudget
		pod            *corev1.Pod
		wantVictims    []string
		wantViolations int
	}{
		{"lowest priority first", four(), nil, makePod("p", withRequests("2", ""), withPriority(100)),
			[]string{"default/p20 (priority 20)", "default/p10 (priority 10)"}, 0},
		{"only lower priorities are victims", four(), nil, makePod("p", withRequests("2", ""), withPriority(25)),
			[]string{"default/p20 (priority 20)", "default/p10 (priority 10)"}, 0},
		{"victims under a budget are spared", labelled(four(), "web", "p10", "p20"), []*policyv1.PodDisruptionBudget{budget("web", 0, "web")},
			makePod("p", withRequests("2", ""), withPriority(100)),
			// p20 and p10 may not be disrupted: they are put back first,
			// and fit; then p40 and p30 do not.
			[]string{"default/p40 (priority 40)", "default/p30 (priority 30)"}, 0},
		{"a budget that allows one", labelled(four(), "web", "p10", "p20", "p30", "p40"), []*policyv1.PodDisruptionBudget{budget("web", 1, "web")},
			makePod("p", withRequests("2", ""), withPriority(100)),
			// The budget counts down in importance order: p40 may go,
			// p30, p20 and p10 may not and are put back first; p30 and
			// p20 fit back, p10 does not (one violation), nor p40.
			[]string{"default/p40 (priority 40)", "default/p10 (priority 10)"}, 1},
		{"the same priority: the one started last goes", []*corev1.Pod{
			makePod("old", onNode("a"), withRequests("2", ""), withPriority(10), startedAt(0)),
			makePod("new", onNode("a"), withRequests("2", ""), withPriority(10), startedAt(time.Hour)),
		}, nil, makePod("p", withRequests("2", ""), withPriority(100)), []string{"default/new (priority 10)"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, msg := preemptionFor(t, node, tt.bound, tt.pdbs, tt.pod)
			if v == nil || v.Node != "a" || len(v.Candidates) != 1 {
				t.Fatalf("preemption = %+v (%s), want node a chosen", v, msg)
			}
			if got := v.Candidates[0]; !reflect.DeepEqual(got.Victims, tt.wantVictims) || got.PDBViolations != tt.wantViolations {
				t.Errorf("victims = %q with %d violations, want %q with %d", got.Victims, got.PDBViolations, tt.wantVictims, tt.wantViolations)
			}
		})
	}
}

// TestPreemptionPicksNode: pickOneNodeForPreemption's rules in order.
func TestPreemptionPicksNode(t *testing.T) {
	nodes := []*corev1.Node{makeNode("a", "4", "8Gi", 110), makeNode("b", "4", "8Gi", 110)}
	p := makePod("p", withRequests("3", ""), withPriority(100))
	tests := []struct {
		name     string
		bound    []*corev1.Pod
		pdbs     []*policyv1.PodDisruptionBudget
		wantNode string
		wantRule string
	}{
		{"fewest budget violations", []*corev1.Pod{
			makePod("x", onNode("a"), withRequests("3", ""), withPriority(1), withLabels("app", "db")),
			makePod("y", onNode("b"), withRequests("3", ""), withPriority(50)),
		}, []*policyv1.PodDisruptionBudget{budget("db", 0, "db")}, "b", pickFewestViolations},
		{"lowest highest-priority victim", []*corev1.Pod{
			makePod("x", onNode("a"), withRequests("3", ""), withPriority(50)),
			makePod("y", onNode("b"), withRequests("3", ""), withPriority(10)),
		}, nil, "b", pickLowestTopPriority},
		{"smallest sum of priorities (two victims against one)", []*corev1.Pod{
			makePod("x1", onNode("a"), withRequests("2", ""), withPriority(10)),
			makePod("x2", onNode("a"), withRequests("2", ""), withPriority(10)),
			makePod("y", onNode("b"), withRequests("4", ""), withPriority(10)),
		}, nil, "b", pickSmallestSum},
		{"latest start", []*corev1.Pod{
			makePod("x", onNode("a"), withRequests("3", ""), withPriority(10), startedAt(time.Hour)),
			makePod("y", onNode("b"), withRequests("3", ""), withPriority(10), startedAt(0)),
		}, nil, "a", pickLatestStart},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, msg := preemptionFor(t, nodes, tt.bound, tt.pdbs, p)
			if v == nil || v.Node != tt.wantNode || v.Rule != tt.wantRule || len(v.Candidates) != 2 {
				t.Fatalf("preemption = %+v (%s), want %s by %q among 2", v, msg, tt.wantNode, tt.wantRule)
			}
		})
	}
}

// TestPreemptionNotEligible: preemptionPolicy Never, and a pod whose
// nominated node still has a victim terminating, preempt nothing.
func TestPreemptionNotEligible(t *testing.T) {
	nodes := []*corev1.Node{makeNode("a", "4", "8Gi", 110)}
	never := corev1.PreemptNever
	low := makePod("low", onNode("a"), withRequests("3", ""), withPriority(10))
	terminating := makePod("low", onNode("a"), withRequests("3", ""), withPriority(10), func(p *corev1.Pod) {
		p.DeletionTimestamp = &metav1.Time{Time: t0}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: corev1.PodReasonPreemptionByScheduler}}
	})
	tests := []struct {
		name  string
		bound *corev1.Pod
		pod   *corev1.Pod
		want  string
	}{
		{"preemptionPolicy Never", low, makePod("p", withRequests("2", ""), withPriority(100), func(p *corev1.Pod) { p.Spec.PreemptionPolicy = &never }),
			"0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never."},
		{"a victim still terminating", terminating, makePod("p", withRequests("2", ""), withPriority(100), func(p *corev1.Pod) { p.Status.NominatedNodeName = "a" }),
			"0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to a terminating pod on the nominated node."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, msg := preemptionFor(t, nodes, []*corev1.Pod{tt.bound}, nil, tt.pod)
			if v != nil || msg != tt.want {
				t.Errorf("preemption = %+v, message %q\nwant none, %q", v, msg, tt.want)
			}
		})
	}
}
