package main

// The URLs of the run namespace's core resources.
const (
	secrets   = "/api/v1/namespaces/{ns}/secrets"
	services  = "/api/v1/namespaces/{ns}/services"
	accounts  = "/api/v1/namespaces/{ns}/serviceaccounts"
	events    = "/api/v1/namespaces/{ns}/events"
	endpoints = "/api/v1/namespaces/{ns}/endpoints"
	nodes     = "/api/v1/nodes"
)

// coreRequests take the other core kinds through their verbs.
var coreRequests = []request{
	{name: "secret-create", method: "POST", path: secrets,
		body:   `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s1","labels":{"diff":"yes"}},"stringData":{"k":"v"},"data":{"b":"aGk="}}`,
		values: []string{"type", "data.k", "data.b"}},
	{name: "secret-get", path: secrets + "/s1", values: []string{"type"}},
	{name: "secret-list", path: secrets + "?labelSelector=" + label, values: []string{"items[].metadata.name"}},
	{name: "secret-patch-strategic", method: "PATCH", path: secrets + "/s1", ctype: "application/strategic-merge-patch+json",
		body: `{"stringData":{"k2":"v2"}}`, values: []string{"data.k2"}},
	{name: "secret-create-bad-base64", method: "POST", path: secrets,
		body: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s2"},"data":{"b":"!!notbase64"}}`},
	{name: "secret-create-tls-missing-keys", method: "POST", path: secrets,
		body: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s3"},"type":"kubernetes.io/tls","data":{}}`},
	{name: "secret-update-immutable", method: "POST", path: secrets,
		body: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"frozen","labels":{"diff":"yes"}},"immutable":true,"data":{"a":"eA=="}}`},
	{name: "secret-patch-immutable", method: "PATCH", path: secrets + "/frozen", ctype: "application/merge-patch+json",
		body: `{"data":{"a":"eQ=="}}`},
	{name: "secret-delete", method: "DELETE", path: secrets + "/s1"},

	{name: "service-create", method: "POST", path: services,
		body:   `{"apiVersion":"v1","kind":"Service","metadata":{"name":"svc1","labels":{"diff":"yes"}},"spec":{"selector":{"app":"x"},"ports":[{"port":80,"targetPort":8080}]}}`,
		values: []string{"spec.type", "spec.ports[].protocol", "spec.sessionAffinity", "spec.ipFamilyPolicy", "spec.internalTrafficPolicy"}},
	{name: "service-get", path: services + "/svc1"},
	{name: "service-list", path: services + "?labelSelector=" + label},
	{name: "service-patch-nodeport", method: "PATCH", path: services + "/svc1", ctype: "application/strategic-merge-patch+json",
		body: `{"spec":{"type":"NodePort"}}`, values: []string{"spec.type", "spec.externalTrafficPolicy"}},
	{name: "service-create-invalid-port", method: "POST", path: services,
		body: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"svc2"},"spec":{"ports":[{"port":0}]}}`},
	{name: "service-create-ip-taken", method: "POST", path: services,
		body: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"svc3"},"spec":{"clusterIP":"10.96.0.1","ports":[{"port":80}]}}`},
	{name: "service-create-ip-out-of-range", method: "POST", path: services,
		body: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"svc4"},"spec":{"clusterIP":"192.0.2.1","ports":[{"port":80}]}}`},
	{name: "service-patch-clusterip-immutable", method: "PATCH", path: services + "/svc1", ctype: "application/merge-patch+json",
		body: `{"spec":{"clusterIP":"10.96.200.200"}}`},
	{name: "service-delete", method: "DELETE", path: services + "/svc1"},

	{name: "serviceaccount-create", method: "POST", path: accounts,
		body: `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"robot","labels":{"diff":"yes"}}}`},
	{name: "serviceaccount-get", path: accounts + "/robot"},
	{name: "serviceaccount-list", path: accounts + "?labelSelector=" + label, values: []string{"items[].metadata.name"}},
	{name: "serviceaccount-token", method: "POST", path: accounts + "/robot/token",
		body: `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":3600}}`,
		save: map[string]string{"robotToken": "status.token"}, values: []string{"kind", "spec.expirationSeconds"}},
	{name: "serviceaccount-token-too-short", method: "POST", path: accounts + "/robot/token",
		body: `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":60}}`},
	{name: "serviceaccount-token-missing-sa", method: "POST", path: accounts + "/nobody/token",
		body: `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}}`},
	{name: "serviceaccount-patch-json", method: "PATCH", path: accounts + "/robot", ctype: "application/json-patch+json",
		body: `[{"op":"add","path":"/metadata/annotations","value":{"note":"x"}}]`},

	{name: "node-create", method: "POST", path: nodes,
		body: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"diff-{id}-node","labels":{"diff":"yes"}}}`},
	{name: "node-get", path: nodes + "/diff-{id}-node",
		ignore: nodeControlled},
	{name: "node-list", path: nodes + "?labelSelector=" + label, values: []string{"items[].metadata.name"},
		ignore: map[string]string{"items[].status": "as node-get", "items[].spec.taints": "as node-get"}},
	{name: "node-create-invalid", method: "POST", path: nodes,
		body: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"diff_{id}_bad"},"spec":{"podCIDR":"nope"}}`},
	{name: "node-patch-labels", method: "PATCH", path: nodes + "/diff-{id}-node", ctype: "application/strategic-merge-patch+json",
		body: `{"metadata":{"labels":{"role":"test"}}}`, values: []string{"metadata.labels.role"},
		ignore: map[string]string{"status": "as node-get", "spec.taints": "as node-get"}},
	{name: "node-get-status", path: nodes + "/diff-{id}-node/status", ignore: nodeControlled},

	{name: "event-create", method: "POST", path: events,
		body: `{"apiVersion":"v1","kind":"Event","metadata":{"name":"ev1","labels":{"diff":"yes"}},"involvedObject":{"kind":"ConfigMap","name":"cm1","namespace":"{ns}"},"reason":"Tested","message":"hello","type":"Normal"}`},
	{name: "event-list", path: events + "?labelSelector=" + label, values: []string{"items[].reason"}},
	{name: "event-create-invalid", method: "POST", path: events,
		body: `{"apiVersion":"v1","kind":"Event","metadata":{"name":"ev2"},"involvedObject":{"kind":"ConfigMap","name":"cm1","namespace":"other"},"type":"Weird"}`},
	{name: "event-delete", method: "DELETE", path: events + "/ev1"},

	{name: "endpoints-create", method: "POST", path: endpoints,
		body: `{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"ep1","labels":{"diff":"yes"}},"subsets":[{"addresses":[{"ip":"10.1.2.3"}],"ports":[{"port":80}]}]}`},
	{name: "endpoints-get", path: endpoints + "/ep1"},
	{name: "endpoints-update-invalid", method: "PATCH", path: endpoints + "/ep1", ctype: "application/merge-patch+json",
		body: `{"subsets":[{"addresses":[{"ip":"not-an-ip"}],"ports":[{"port":80}]}]}`},
	{name: "endpoints-deletecollection", method: "DELETE", path: endpoints + "?labelSelector=" + label},
}

// nodeControlled is what kubesim's controller manager writes on a node
// the run creates, as soon as it sees it; the peer runs none.
var nodeControlled = map[string]string{
	"status":               "kubesim's node lifecycle controller writes the status of a node without a kubelet; the peer has none",
	"spec.taints":          "kubesim's node lifecycle controller taints a node without a kubelet",
	"spec.podCIDR":         "kubesim's controller manager gives a new node its pod CIDR (seen in the answer when it came first)",
	"spec.podCIDRs":        "as spec.podCIDR",
	"metadata.annotations": "kubesim's controllers annotate a new node (seen in the answer when they came first)",
}
