package registry_test

import (
	"context"
	"testing"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/apiserver/registry"
)

func newPDB(name string, minAvailable int) *policyv1.PodDisruptionBudget {
	min := intstr.FromInt32(int32(minAvailable))
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: &min,
			Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		},
	}
}

// TestPodDisruptionBudgets: upstream's strategies: generation 1 and no
// status at creation; the main resource keeps the status and refuses an
// update without a resourceVersion; poddisruptionbudgets/status keeps the
// spec and validates the status; upstream's messages.
func TestPodDisruptionBudgets(t *testing.T) {
	r := newRegistry(t)
	ctx := context.Background()
	st, status := r.Store(registry.PodDisruptionBudgets), r.StatusStore(registry.PodDisruptionBudgets)
	in := newPDB("p", 2)
	in.Status.DisruptionsAllowed = 4
	out, err := st.Create(ctx, "default", in, nil, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pdb := out.(*policyv1.PodDisruptionBudget)
	if pdb.Generation != 1 || pdb.Status.DisruptionsAllowed != 0 {
		t.Errorf("generation=%d disruptionsAllowed=%d, want 1 and 0", pdb.Generation, pdb.Status.DisruptionsAllowed)
	}
	noRV := pdb.DeepCopy()
	noRV.ResourceVersion = ""
	_, _, err = st.Update(ctx, "default", "p", replaceWith(noRV), nil, nil, registry.Options{})
	wantStatus(t, err, 422, "metadata.resourceVersion: Invalid value: 0: must be specified for an update")

	s := pdb.DeepCopy()
	s.Status.DisruptionsAllowed, s.Status.ExpectedPods, s.Status.CurrentHealthy, s.Status.DesiredHealthy = 1, 3, 3, 2
	s.Spec.MinAvailable = nil
	got, _, err := status.Update(ctx, "default", "p", replaceWith(s), nil, nil, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g := got.(*policyv1.PodDisruptionBudget); g.Status.DisruptionsAllowed != 1 || g.Spec.MinAvailable == nil {
		t.Errorf("status update: disruptionsAllowed=%d minAvailable=%v, want 1 and the old spec", g.Status.DisruptionsAllowed, g.Spec.MinAvailable)
	}
	neg := got.DeepCopyObject().(*policyv1.PodDisruptionBudget)
	neg.Status.DisruptionsAllowed = -1
	_, _, err = status.Update(ctx, "default", "p", replaceWith(neg), nil, nil, registry.Options{})
	wantStatus(t, err, 422, "status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0")

	bad := newPDB("bad", 1)
	bad.Spec.MaxUnavailable = bad.Spec.MinAvailable
	_, err = st.Create(ctx, "default", bad, nil, registry.Options{})
	wantStatus(t, err, 422, "minAvailable and maxUnavailable cannot be both set")
}
