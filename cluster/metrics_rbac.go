package cluster

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	"github.com/kubesim/kubesim/apiserver/auth"
)

// metricsReaderRole is metrics-server's manifest's role for reading
// metrics, aggregated into view, edit and admin by its labels: whoever
// may view pods may run kubectl top.
const metricsReaderRole = "system:aggregated-metrics-reader"

// ensureMetricsReader creates metricsReaderRole if missing, then
// aggregates view, edit and admin as kube-controller-manager's
// clusterrole-aggregation controller does, so that the student, bound to
// view, may read metrics.k8s.io as soon as the metrics server answers,
// whether or not the controller manager runs. When it runs, its
// controller writes the same rules to the same roles at about the same
// time: an update that meets its write (409 Conflict) is tried again on
// the roles read again, in which there is then nothing left to change.
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
	return retry.RetryOnConflict(retry.DefaultRetry, func() error { return aggregateClusterRoles(ctx, admin) })
}

// aggregateClusterRoles reads every ClusterRole and updates those whose
// aggregated rules are not what their selectors make.
func aggregateClusterRoles(ctx context.Context, admin kubernetes.Interface) error {
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
