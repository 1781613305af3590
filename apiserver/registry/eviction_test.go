package registry_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// evictionFixture is a registry with pods labelled app=web, bound to a
// node (so that their delete is graceful and the eviction's marks can be
// read), and helpers to set the status a kubelet and the disruption
// controller would.
type evictionFixture struct {
	t  *testing.T
	r  *registry.Registry
	ev *registry.Evictor
}

func newEvictionFixture(t *testing.T) *evictionFixture {
	r := newRegistry(t)
	return &evictionFixture{t: t, r: r, ev: registry.NewEvictor(r)}
}

// pod creates a pod app=web on node-1 with phase and readiness.
func (f *evictionFixture) pod(name string, phase corev1.PodPhase, ready bool) {
	f.t.Helper()
	p := newPod(name)
	p.Labels = map[string]string{"app": "web"}
	mustCreatePod(f.t, f.r, p)
	bind(f.t, f.r, name, "node-1")
	cond := corev1.ConditionFalse
	if ready {
		cond = corev1.ConditionTrue
	}
	f.updateStatus(f.r.StatusStore(registry.Pods), name, func(obj runtime.Object) {
		st := &obj.(*corev1.Pod).Status
		st.Phase = phase
		st.Conditions = append(st.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: cond})
	})
}

// pdb creates a budget over app=web whose status allows allowed
// disruptions with current/desired healthy pods, observed up to date.
func (f *evictionFixture) pdb(name string, allowed, current, desired int32, change ...func(*policyv1.PodDisruptionBudget)) {
	f.t.Helper()
	b := newPDB(name, int(desired))
	for _, c := range change {
		c(b)
	}
	if _, err := f.r.Store(registry.PodDisruptionBudgets).Create(context.Background(), "default", b, nil, registry.Options{}); err != nil {
		f.t.Fatal(err)
	}
	f.updateStatus(f.r.StatusStore(registry.PodDisruptionBudgets), name, func(obj runtime.Object) {
		obj.(*policyv1.PodDisruptionBudget).Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1,
			DisruptionsAllowed: allowed, CurrentHealthy: current, DesiredHealthy: desired, ExpectedPods: current}
	})
}

func (f *evictionFixture) updateStatus(st *registry.Store, name string, change func(runtime.Object)) {
	f.t.Helper()
	_, _, err := st.Update(context.Background(), "default", name, func(_ context.Context, cur runtime.Object) (runtime.Object, error) {
		change(cur)
		return cur, nil
	}, nil, nil, registry.Options{})
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *evictionFixture) evict(name string, dryRun ...string) (*metav1.Status, error) {
	ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
	return f.ev.Evict(context.Background(), "default", name, ev, dryRun, nil)
}

func (f *evictionFixture) budget(name string) *policyv1.PodDisruptionBudget {
	f.t.Helper()
	out, err := f.r.Store(registry.PodDisruptionBudgets).Get(context.Background(), "default", name, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return out.(*policyv1.PodDisruptionBudget)
}

// TestEvictionRefusedByBudget: a budget that allows no disruption answers
// upstream's 429 with its DisruptionBudget cause; the pod stays.
func TestEvictionRefusedByBudget(t *testing.T) {
	f := newEvictionFixture(t)
	f.pod("web", corev1.PodRunning, true)
	f.pdb("p", 0, 2, 2)
	_, err := f.evict("web")
	wantStatus(t, err, 429, "Cannot evict pod as it would violate the pod's disruption budget.")
	causes := err.(apierrors.APIStatus).Status().Details.Causes
	if len(causes) != 1 || causes[0].Type != policyv1.DisruptionBudgetCause || causes[0].Message != "The disruption budget p needs 2 healthy pods and has 2 currently" {
		t.Errorf("causes = %+v, want upstream's DisruptionBudget cause", causes)
	}
	if p := getPod(t, f.r, "web"); p.DeletionTimestamp != nil {
		t.Error("the pod is being deleted after a refused eviction")
	}
}

// TestEvictionTakesDisruption: an allowed eviction takes a disruption
// (disruptionsAllowed-1, the pod among disruptedPods, DisruptionAllowed
// false at zero), marks the pod DisruptionTarget and deletes it
// gracefully; a dry run changes nothing.
func TestEvictionTakesDisruption(t *testing.T) {
	f := newEvictionFixture(t)
	f.pod("web", corev1.PodRunning, true)
	f.pdb("p", 1, 3, 2)
	if st, err := f.evict("web", metav1.DryRunAll); err != nil || st.Status != metav1.StatusSuccess {
		t.Fatalf("dry run: %v %v", st, err)
	}
	if b := f.budget("p"); b.Status.DisruptionsAllowed != 1 || len(b.Status.DisruptedPods) != 0 || getPod(t, f.r, "web").DeletionTimestamp != nil {
		t.Fatalf("a dry run changed the budget (%+v) or the pod", b.Status)
	}
	if st, err := f.evict("web"); err != nil || st.Status != metav1.StatusSuccess {
		t.Fatalf("evict: %v %v", st, err)
	}
	b := f.budget("p")
	if _, ok := b.Status.DisruptedPods["web"]; b.Status.DisruptionsAllowed != 0 || !ok {
		t.Errorf("budget status %+v, want 0 disruptions allowed and web disrupted", b.Status)
	}
	if c := findCondition(b.Status.Conditions, policyv1.DisruptionAllowedCondition); c == nil || c.Status != metav1.ConditionFalse || c.Reason != policyv1.InsufficientPodsReason {
		t.Errorf("DisruptionAllowed = %+v, want False/InsufficientPods", c)
	}
	p := getPod(t, f.r, "web")
	if p.DeletionTimestamp == nil {
		t.Error("the evicted pod is not being deleted")
	}
	if c := podCondition(p, corev1.DisruptionTarget); c == nil || c.Status != corev1.ConditionTrue || c.Reason != "EvictionByEvictionAPI" || c.Message != "Eviction API: evicting" {
		t.Errorf("DisruptionTarget = %+v, want True EvictionByEvictionAPI", c)
	}
}

// TestEvictionBudgetRules: the cases upstream decides before or instead
// of the budget's count.
func TestEvictionBudgetRules(t *testing.T) {
	t.Run("pending pod ignores the budget", func(t *testing.T) {
		f := newEvictionFixture(t)
		f.pod("web", corev1.PodPending, false)
		f.pdb("p", 0, 0, 2)
		if _, err := f.evict("web"); err != nil {
			t.Fatal(err)
		}
		if f.budget("p").Status.DisruptedPods != nil {
			t.Error("a pending pod's eviction took a disruption")
		}
	})
	t.Run("more than one budget", func(t *testing.T) {
		f := newEvictionFixture(t)
		f.pod("web", corev1.PodRunning, true)
		f.pdb("p", 1, 3, 2)
		f.pdb("q", 1, 3, 2)
		st, err := f.evict("web")
		if err != nil || st.Code != 500 || st.Status != metav1.StatusFailure ||
			st.Message != "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support." {
			t.Errorf("evict = %+v, %v; want upstream's 500 Failure", st, err)
		}
	})
	t.Run("unready pod with AlwaysAllow", func(t *testing.T) {
		f := newEvictionFixture(t)
		f.pod("web", corev1.PodRunning, false)
		always := policyv1.AlwaysAllow
		f.pdb("p", 0, 1, 2, func(b *policyv1.PodDisruptionBudget) { b.Spec.UnhealthyPodEvictionPolicy = &always })
		if _, err := f.evict("web"); err != nil {
			t.Fatal(err)
		}
		if getPod(t, f.r, "web").DeletionTimestamp == nil || f.budget("p").Status.DisruptedPods != nil {
			t.Error("want the unready pod deleted without taking a disruption")
		}
	})
	t.Run("budget not observed yet", func(t *testing.T) {
		f := newEvictionFixture(t)
		f.pod("web", corev1.PodRunning, true)
		f.pdb("p", 1, 3, 2)
		f.updateStatus(f.r.StatusStore(registry.PodDisruptionBudgets), "p", func(obj runtime.Object) {
			obj.(*policyv1.PodDisruptionBudget).Status.ObservedGeneration = 0
		})
		_, err := f.evict("web")
		wantStatus(t, err, 429, "Cannot evict pod")
		if c := err.(apierrors.APIStatus).Status().Details; c.RetryAfterSeconds != 10 || c.Causes[0].Message != "The disruption budget p is still being processed by the server." {
			t.Errorf("details = %+v, want retry after 10s and upstream's cause", c)
		}
	})
	t.Run("name mismatch", func(t *testing.T) {
		f := newEvictionFixture(t)
		ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "other"}}
		_, err := f.ev.Evict(context.Background(), "default", "web", ev, nil, nil)
		wantStatus(t, err, 400, "name in URL does not match name in Eviction object")
	})
}

func findCondition(cs []metav1.Condition, t string) *metav1.Condition {
	for i := range cs {
		if cs[i].Type == t {
			return &cs[i]
		}
	}
	return nil
}

func podCondition(p *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}
