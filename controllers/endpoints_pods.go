package controllers

import (
	corev1 "k8s.io/api/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/util/workqueue"
	endpointsliceutil "k8s.io/endpointslice/util"
)

// This file holds what the endpoints and endpointslice controllers share
// about pods. Which pod changes matter to a Service's endpoints, which
// Services a change must resync and which pods are endpoints at all are
// k8s.io/endpointslice/util's answers, as in kube-controller-manager;
// what is kubesim's is the evidence: each Service queued notes the pod's
// event as why.

// isServiceIPSet: the Service has a cluster IP (it is not headless).
// Upstream's is in k8s.io/kubernetes (pkg/apis/core/v1/helper), and
// k8s.io/endpointslice keeps its copy unexported.
func isServiceIPSet(svc *corev1.Service) bool {
	return svc.Spec.ClusterIP != corev1.ClusterIPNone && svc.Spec.ClusterIP != ""
}

// queueServicesOfPod queues, on queue, the Services whose endpoints a
// pod's change (old to cur, the informer event verb) touches, noting the
// pod's event as why each was queued: the pod handler of the endpoints
// and endpointslice controllers. Upstream's handlers put the change on a
// second queue and find its Services in a worker; kubesim finds them
// here, with the same functions.
func queueServicesOfPod(lister corelisters.ServiceLister, why *eventTriggers, queue workqueue.TypedRateLimitingInterface[string], old, cur any, verb string) {
	keys, err := endpointsliceutil.GetServicesToUpdate(lister, endpointsliceutil.GetPodUpdateProjectionKey(old, cur))
	if err != nil || len(keys) == 0 {
		return
	}
	pod := podOrTombstone(cur)
	if pod == nil {
		pod = podOrTombstone(old)
	}
	for key := range keys {
		why.note(key, triggerOf(verb, pod, "v1", "Pod"))
		queue.Add(key)
	}
}

// podOrTombstone is obj as a pod (nil for nil or anything else).
func podOrTombstone(obj any) *corev1.Pod {
	if obj == nil {
		return nil
	}
	if p, err := podFromDeleted(obj); err == nil {
		return p
	}
	return nil
}
