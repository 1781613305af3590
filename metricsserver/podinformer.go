package metricsserver

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// runningPods is the field selector of the server's pod informer: as
// metrics-server's, it holds only the Running pods (a pod that leaves
// Running leaves the informer), the only ones with metrics.
const runningPods = "status.phase=Running"

// newPodInformer is the server's pod informer: the Running pods of every
// namespace, indexed by node, each kept as slimPod makes it.
func newPodInformer(c kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
	inf := coreinformers.NewFilteredPodInformer(c, metav1.NamespaceAll, resync,
		cache.Indexers{podsOnNode: indexByNode, cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
		func(o *metav1.ListOptions) { o.FieldSelector = runningPods })
	if err := inf.SetTransform(slimPod); err != nil {
		panic(err) // only an informer already started refuses
	}
	return inf
}

// slimPod keeps of a pod what the usage model reads: its name,
// namespace, labels and node, its containers' names, ports and resources, its
// phase and which containers run. metrics-server keeps even less (a
// metadata-only informer: it reads usage from the kubelets), so kubesim
// holds a pod in it at about the cost metrics-server does, not a whole
// copy.
func slimPod(obj any) (any, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	out := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, UID: p.UID,
			ResourceVersion: p.ResourceVersion, Labels: p.Labels},
		Spec:   corev1.PodSpec{NodeName: p.Spec.NodeName},
		Status: corev1.PodStatus{Phase: p.Status.Phase},
	}
	for _, c := range p.Spec.Containers {
		out.Spec.Containers = append(out.Spec.Containers, corev1.Container{Name: c.Name, Ports: c.Ports, Resources: c.Resources})
	}
	for _, s := range p.Status.ContainerStatuses {
		out.Status.ContainerStatuses = append(out.Status.ContainerStatuses,
			corev1.ContainerStatus{Name: s.Name, State: corev1.ContainerState{Running: s.State.Running}})
	}
	return out, nil
}
