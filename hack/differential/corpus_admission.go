package main

// apply is the Content-Type of server-side apply.
const apply = "application/apply-patch+yaml"

// admissionRequests are what admission and the field manager decide.
var admissionRequests = []request{
	{name: "delete-namespace-default", method: "DELETE", path: "/api/v1/namespaces/default"},
	{name: "delete-namespace-kube-system", method: "DELETE", path: "/api/v1/namespaces/kube-system"},
	{name: "apply-create", method: "PATCH", path: cm + "/applied?fieldManager=diff-a", ctype: apply,
		body:   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  labels: {diff: \"yes\"}\ndata:\n  a: \"1\"\n",
		values: []string{"data.a", "metadata.managedFields[].manager", "metadata.managedFields[].operation"}},
	{name: "apply-again-same-manager", method: "PATCH", path: cm + "/applied?fieldManager=diff-a", ctype: apply,
		body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: \"1\"\n  b: \"2\"\n", values: []string{"data.b"}},
	{name: "apply-conflict", method: "PATCH", path: cm + "/applied?fieldManager=diff-b", ctype: apply,
		body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: \"other\"\n"},
	{name: "apply-force", method: "PATCH", path: cm + "/applied?fieldManager=diff-b&force=true", ctype: apply,
		body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: \"other\"\n", values: []string{"data.a"}},
	{name: "apply-without-fieldmanager", method: "PATCH", path: cm + "/applied", ctype: apply,
		body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n"},
	{name: "apply-force-on-other-patch", method: "PATCH", path: cm + "/applied?force=true", ctype: "application/merge-patch+json",
		body: `{"data":{"c":"3"}}`},
	{name: "update-with-fieldmanager", method: "PATCH", path: cm + "/cm1?fieldManager=diff-c", ctype: "application/merge-patch+json",
		body: `{"data":{"c":"3"}}`, values: []string{"metadata.managedFields[].manager"}},
}

// namespaceRequests end the run: a namespace held in Terminating by a
// finalizer, what its termination refuses, and the deletion of the
// run's namespace.
var namespaceRequests = []request{
	{name: "namespace-create-terminating", method: "POST", path: "/api/v1/namespaces",
		body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"{ns}-term","labels":{"diff":"yes"},"finalizers":["diff.example.com/hold"]}}`},
	{name: "namespace-get", path: "/api/v1/namespaces/{ns}", values: []string{"status.phase", "spec.finalizers"}},
	{name: "namespace-list", path: "/api/v1/namespaces?labelSelector=" + label, values: []string{"items[].metadata.name"}},
	{name: "namespace-create-invalid", method: "POST", path: "/api/v1/namespaces",
		body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"Diff_Bad"}}`},
	{name: "namespace-patch-labels", method: "PATCH", path: "/api/v1/namespaces/{ns}", ctype: "application/merge-patch+json",
		body: `{"metadata":{"labels":{"extra":"x"}}}`, values: []string{"metadata.labels.extra"}},
	{name: "namespace-delete", method: "DELETE", path: "/api/v1/namespaces/{ns}-term", values: []string{"kind", "status.phase"},
		ignore: map[string]string{"status.conditions": "kubesim's namespace controller reports its progress at once; the peer has none"}},
	{name: "create-in-terminating-namespace", method: "POST", path: "/api/v1/namespaces/{ns}-term/configmaps",
		body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"late"}}`},
	{name: "namespace-delete-again", method: "DELETE", path: "/api/v1/namespaces/{ns}-term", values: []string{"kind", "status.phase"},
		ignore: map[string]string{"status.conditions": "as namespace-delete"}},
	{name: "namespace-finalize-wrong-name", method: "PUT", path: "/api/v1/namespaces/{ns}-term/finalize",
		body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"other"},"spec":{"finalizers":[]}}`},
	{name: "setup-release-terminating", setup: true, method: "PATCH", path: "/api/v1/namespaces/{ns}-term",
		ctype: "application/merge-patch+json", body: `{"metadata":{"finalizers":null}}`},
	{name: "namespace-delete-run", method: "DELETE", path: "/api/v1/namespaces/{ns}", values: []string{"kind", "status.phase"},
		ignore: map[string]string{"status.conditions": "as namespace-delete"}},
}
