package cluster

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/apiserver/auth"
)

// metricsReaderRole is metrics-server's manifest's role for reading
// metrics, aggregated into view, edit and admin by its labels: whoever
// may view pods may run kubectl top.
const metricsReaderRole = "system:aggregated-metrics-reader"

// ensureMetricsReader creates metricsReaderRole if missing, then
// aggregates view, edit and admin as kube-controller-manager's
// clusterrole-aggregation controller would (kubesim runs none yet), so
// that the student, bound to view, may read metrics.k8s.io.
func ensureMetricsReader(ctx context.Context, admin kubernetes.Interface) error {
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: metricsReaderRole, Labels: map[string]string{
			"k8s-app": metricsService,
			"rbac.authorization.k8s.io/aggregate-to-admin": "true",
			"rbac.authorization.k8s.io/aggregate-to-edit":  "true",
			"rbac.authorization.k8s.io/aggregate-to-view":  "true",
		}},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"metrics.k8s.io"}, Resources: []string{"pods", "nodes"}, Verbs: []string{"get", "list", "watch"}}},
	}
	if _, err := admin.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	list, err := admin.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	all := make([]*rbacv1.ClusterRole, len(list.Items))
	for i := range list.Items {
		all[i] = &list.Items[i]
	}
	for _, r := range auth.AggregateClusterRoles(all) {
		if _, err := admin.RbacV1().ClusterRoles().Update(ctx, r, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("aggregate clusterrole %s: %w", r.Name, err)
		}
	}
	return nil
}
