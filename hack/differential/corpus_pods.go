package main

import "strings"

// pods is the URL of the run namespace's Pods.
const pods = "/api/v1/namespaces/{ns}/pods"

// podStatus is why a pod's status and node are left out once kubesim's
// scheduler and kubelets may have acted on it: the peer runs neither.
const podStatus = "kubesim schedules and runs the pod; the peer has no scheduler or kubelet"

// onHold is a pod no scheduler binds: on both servers it stays unbound,
// so deleting it removes it at once.
const onHold = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","labels":{"diff":"yes","sched":"none"}},"spec":{"schedulerName":"diff-nobody","containers":[{"name":"c","image":"busybox"}]}}`

// podRequests are pods' verbs, subresources and admission.
var podRequests = []request{
	{name: "pod-create-default-serviceaccount", method: "POST", path: pods,
		body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1","labels":{"diff":"yes"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`,
		values: []string{"spec.serviceAccountName", "spec.restartPolicy", "spec.dnsPolicy", "spec.schedulerName",
			"spec.containers[].imagePullPolicy", "spec.containers[].terminationMessagePath", "status.phase", "status.qosClass",
			"spec.tolerations[].key", "spec.enableServiceLinks", "spec.priority"}},
	{name: "pod-get", path: pods + "/p1", ignore: map[string]string{"status": podStatus, "spec.nodeName": podStatus}},
	{name: "pod-list", path: pods + "?labelSelector=" + label, values: []string{"items[].metadata.name"},
		ignore: map[string]string{"items[].status": podStatus, "items[].spec.nodeName": podStatus}},
	{name: "pod-patch-strategic-labels", method: "PATCH", path: pods + "/p1", ctype: "application/strategic-merge-patch+json",
		body: `{"metadata":{"labels":{"extra":"1"}}}`, ignore: map[string]string{"status": podStatus, "spec.nodeName": podStatus}},
	{name: "pod-patch-forbidden-field", method: "PATCH", path: pods + "/p1", ctype: "application/merge-patch+json",
		body: `{"spec":{"restartPolicy":"Never"}}`},
	{name: "pod-create-invalid", method: "POST", path: pods,
		body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"bad"},"spec":{"containers":[{"name":"Bad Name"}]}}`},
	{name: "pod-create-no-containers", method: "POST", path: pods,
		body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"empty"},"spec":{}}`},
	{name: "pod-create-missing-serviceaccount", method: "POST", path: pods,
		body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"nosa"},"spec":{"serviceAccountName":"ghost","containers":[{"name":"c","image":"busybox"}]}}`},
	{name: "pod-create-unbound", method: "POST", path: pods, body: heldPod("p2"), values: []string{"spec.schedulerName"}},
	{name: "pod-get-status-subresource", path: pods + "/p2/status", values: []string{"status.phase"}},
	{name: "pod-log-unbound", path: pods + "/p2/log"},
	{name: "pod-binding", method: "POST", path: pods + "/p2/binding",
		body: `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p2"},"target":{"kind":"Node","name":"diff-{id}-node"}}`},
	{name: "pod-binding-again", method: "POST", path: pods + "/p2/binding",
		body: `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p2"},"target":{"kind":"Node","name":"diff-{id}-node"}}`},
	{name: "pod-delete-bound-graceful", method: "DELETE", path: pods + "/p2",
		values: []string{"kind", "metadata.deletionGracePeriodSeconds"},
		ignore: map[string]string{"status": "the bound pod's node has no kubelet on either server; kubesim's controllers may still write its status"}},
	{name: "pod-get-terminating", path: pods + "/p2", values: []string{"metadata.deletionGracePeriodSeconds", "spec.nodeName"},
		ignore: map[string]string{"status": "as pod-delete-bound-graceful"}},
	{name: "pod-create-unbound-2", method: "POST", path: pods, body: heldPod("p3")},
	{name: "pod-delete-unbound-at-once", method: "DELETE", path: pods + "/p3", values: []string{"kind"}},
	{name: "pod-get-after-delete", path: pods + "/p3"},
	{name: "pod-create-unbound-3", method: "POST", path: pods, body: heldPod("p4")},
	{name: "pod-delete-grace-0", method: "DELETE", path: pods + "/p1?gracePeriodSeconds=0", values: []string{"kind"},
		ignore: map[string]string{"status": podStatus, "spec.nodeName": podStatus}},
	{name: "pod-eviction", method: "POST", path: pods + "/p4/eviction",
		body: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p4"}}`},
	{name: "pod-create-unbound-4", method: "POST", path: pods, body: heldPod("p5")},
	{name: "pod-deletecollection", method: "DELETE", path: pods + "?labelSelector=sched%3Dnone",
		values: []string{"kind", "items[].metadata.name"}},
}

// heldPod is onHold named name.
func heldPod(name string) string { return strings.Replace(onHold, "%s", name, 1) }
