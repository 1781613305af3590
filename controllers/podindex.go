package controllers

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// podControllerUIDIndex indexes pods by the UID of their controller, and
// the pods without one by orphanPodsKey of their namespace, as
// kube-controller-manager's PodControllerUIDIndex: a ReplicaSet reads its
// own pods and the orphans it may adopt, not every pod of its namespace
// (with 100,000 pods in one namespace, each sync had matched them all).
const podControllerUIDIndex = "podControllerUID"

// orphanPodsKey is the index key of the pods of namespace that no
// controller owns.
func orphanPodsKey(namespace string) string { return "_ORPHAN_POD/" + namespace }

// addPodControllerUIDIndex adds the index to inf unless it has it.
func addPodControllerUIDIndex(inf cache.SharedIndexInformer) error {
	if _, ok := inf.GetIndexer().GetIndexers()[podControllerUIDIndex]; ok {
		return nil
	}
	return inf.AddIndexers(cache.Indexers{podControllerUIDIndex: func(obj any) ([]string, error) {
		p, ok := obj.(*corev1.Pod)
		if !ok {
			return nil, nil
		}
		if ref := metav1.GetControllerOf(p); ref != nil {
			return []string{string(ref.UID)}, nil
		}
		return []string{orphanPodsKey(p.Namespace)}, nil
	}})
}

// podsOfControllers returns the pods controlled by any of uids and, if
// namespace is not empty, the orphans of namespace, from indexer.
func podsOfControllers(indexer cache.Indexer, namespace string, uids ...types.UID) []*corev1.Pod {
	keys := make([]string, 0, len(uids)+1)
	for _, uid := range uids {
		keys = append(keys, string(uid))
	}
	if namespace != "" {
		keys = append(keys, orphanPodsKey(namespace))
	}
	var out []*corev1.Pod
	for _, k := range keys {
		objs, _ := indexer.ByIndex(podControllerUIDIndex, k)
		for _, o := range objs {
			if p, ok := o.(*corev1.Pod); ok {
				out = append(out, p)
			}
		}
	}
	return out
}
