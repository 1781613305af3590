package registry

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// deploymentScale is deployments/scale: spec.replicas, status.replicas
// and spec.selector of a Deployment.
var deploymentScale = &Scale{
	Replicas: func(obj runtime.Object) (int32, int32, *metav1.LabelSelector) {
		d := obj.(*appsv1.Deployment)
		return replicasOf(d.Spec.Replicas), d.Status.Replicas, d.Spec.Selector
	},
	SetReplicas: func(obj runtime.Object, n int32) { obj.(*appsv1.Deployment).Spec.Replicas = &n },
}

// replicaSetScale is replicasets/scale, read and written as a
// Deployment's.
var replicaSetScale = &Scale{
	Replicas: func(obj runtime.Object) (int32, int32, *metav1.LabelSelector) {
		rs := obj.(*appsv1.ReplicaSet)
		return replicasOf(rs.Spec.Replicas), rs.Status.Replicas, rs.Spec.Selector
	},
	SetReplicas: func(obj runtime.Object, n int32) { obj.(*appsv1.ReplicaSet).Spec.Replicas = &n },
}

// replicasOf is spec.replicas, 0 when unset (as upstream's scale
// storage reads a defaulted object, where it is never unset).
func replicasOf(r *int32) int32 {
	if r == nil {
		return 0
	}
	return *r
}
