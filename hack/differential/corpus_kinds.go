package main

// The URLs of the remaining groups' resources.
const (
	leases         = "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases"
	apiservices    = "/apis/apiregistration.k8s.io/v1/apiservices"
	endpointSlices = "/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices"
)

// otherKindRequests are the other groups kubesim serves (and two kubesim
// does not, to show what a client meets there).
var otherKindRequests = []request{
	{name: "lease-create", method: "POST", path: leases,
		body: `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l1","labels":{"diff":"yes"}},"spec":{"holderIdentity":"me","leaseDurationSeconds":10}}`},
	{name: "lease-update-without-rv", method: "PUT", path: leases + "/l1",
		body:   `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l1","labels":{"diff":"yes"}},"spec":{"holderIdentity":"you"}}`,
		values: []string{"spec.holderIdentity"}},
	{name: "lease-list", path: leases + "?labelSelector=" + label},
	{name: "lease-create-invalid", method: "POST", path: leases,
		body: `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l2"},"spec":{"leaseDurationSeconds":-1}}`},
	{name: "lease-delete", method: "DELETE", path: leases + "/l1"},

	{name: "apiservice-get-local", path: apiservices + "/v1.apps", values: []string{"spec.group", "spec.version", "spec.groupPriorityMinimum", "spec.versionPriority"},
		ignore: map[string]string{"status": "availability is judged by each server's aggregator"}},
	{name: "apiservice-create", method: "POST", path: apiservices,
		body:   `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.diff-{id}.example.org","labels":{"diff":"yes"}},"spec":{"group":"diff-{id}.example.org","version":"v1","groupPriorityMinimum":1000,"versionPriority":15}}`,
		ignore: map[string]string{"status": "availability is judged by each server's aggregator"}},
	{name: "apiservice-create-invalid", method: "POST", path: apiservices,
		body: `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"wrong"},"spec":{"group":"x.example.org","version":"v1"}}`},
	{name: "apiservice-delete", method: "DELETE", path: apiservices + "/v1.diff-{id}.example.org"},

	{name: "endpointslice-create", method: "POST", path: endpointSlices,
		body:   `{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"es1","labels":{"diff":"yes"}},"addressType":"IPv4","endpoints":[{"addresses":["10.1.2.3"]}],"ports":[{"port":80}]}`,
		values: []string{"ports[].protocol"}},
	{name: "endpointslice-get", path: endpointSlices + "/es1"},
	{name: "endpointslice-create-invalid", method: "POST", path: endpointSlices,
		body: `{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"es2"},"addressType":"IPv7","endpoints":[]}`},
	{name: "endpointslice-delete", method: "DELETE", path: endpointSlices + "/es1"},

	{name: "priorityclass-list", path: "/apis/scheduling.k8s.io/v1/priorityclasses"},
	{name: "job-list", path: "/apis/batch/v1/namespaces/{ns}/jobs"},
	{name: "metrics-nodes", path: "/apis/metrics.k8s.io/v1beta1/nodes", codeOnly: true},
}
