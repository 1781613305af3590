package cluster

import (
	"context"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubesim/kubesim/apiserver/auth"
)

// TestEnsureMetricsReaderRetriesConflict: the controller manager's
// clusterrole-aggregation controller updates the aggregated roles while
// the metrics server's setup does. Here the first update of a role
// fails with 409 Conflict, as the controller's write makes it; the
// setup must try again on the roles read again and leave view able to
// read metrics, not fail the cluster's start (it did, in a bench run).
func TestEnsureMetricsReaderRetriesConflict(t *testing.T) {
	roles, _ := auth.BootstrapPolicy()
	var objs []runtime.Object
	for _, r := range roles {
		objs = append(objs, r)
	}
	client := fake.NewClientset(objs...)
	conflicts := 0
	client.PrependReactor("update", "clusterroles", func(k8stesting.Action) (bool, runtime.Object, error) {
		if conflicts > 0 {
			return false, nil, nil
		}
		conflicts++
		return true, nil, apierrors.NewConflict(rbacv1.Resource("clusterroles"), "view", nil)
	})
	ctx := context.Background()
	if err := ensureMetricsReader(ctx, client); err != nil {
		t.Fatalf("ensureMetricsReader after one conflict: %v", err)
	}
	if conflicts != 1 {
		t.Fatalf("conflicts returned: %d, want 1 (no update was tried?)", conflicts)
	}
	view, err := client.RbacV1().ClusterRoles().Get(ctx, "view", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(view.Rules, func(r rbacv1.PolicyRule) bool { return slices.Contains(r.APIGroups, "metrics.k8s.io") }) {
		t.Fatalf("view's rules hold no metrics.k8s.io rule after the retry: %+v", view.Rules)
	}
}
