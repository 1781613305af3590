package main

// cm is the URL of the run namespace's ConfigMaps.
const cm = "/api/v1/namespaces/{ns}/configmaps"

// configMapRequests take one ConfigMap through every verb; nothing but
// the corpus writes ConfigMaps labelled diff=yes, so their answers do not
// depend on controllers.
var configMapRequests = []request{
	{name: "configmap-create", method: "POST", path: cm,
		body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","labels":{"diff":"yes"}},"data":{"a":"1"}}`,
		save: map[string]string{"cmRV": "metadata.resourceVersion", "cmUID": "metadata.uid"}},
	{name: "configmap-get", path: cm + "/cm1", values: []string{"data.a", "metadata.name"}},
	{name: "configmap-list", path: cm + "?labelSelector=" + label, values: []string{"items[].metadata.name"}},
	{name: "configmap-update", method: "PUT", path: cm + "/cm1",
		body:   `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","labels":{"diff":"yes"},"resourceVersion":"{cmRV}"},"data":{"a":"2"}}`,
		values: []string{"data.a"}},
	{name: "configmap-patch-merge", method: "PATCH", path: cm + "/cm1", ctype: "application/merge-patch+json",
		body: `{"data":{"b":"merge"}}`, values: []string{"data.b"}},
	{name: "configmap-patch-strategic", method: "PATCH", path: cm + "/cm1", ctype: "application/strategic-merge-patch+json",
		body: `{"data":{"c":"strategic"}}`, values: []string{"data.c"}},
	{name: "configmap-patch-json", method: "PATCH", path: cm + "/cm1", ctype: "application/json-patch+json",
		body: `[{"op":"add","path":"/data/d","value":"json"},{"op":"remove","path":"/data/b"}]`, values: []string{"data.d"}},
	{name: "configmap-patch-json-test-fails", method: "PATCH", path: cm + "/cm1", ctype: "application/json-patch+json",
		body: `[{"op":"test","path":"/data/a","value":"nope"}]`},
	{name: "configmap-patch-json-bad-path", method: "PATCH", path: cm + "/cm1", ctype: "application/json-patch+json",
		body: `[{"op":"replace","path":"/data/missing/x","value":"1"}]`},
	{name: "configmap-watch-from-create", path: cm + "?watch=1&timeoutSeconds=1&resourceVersion={cmRV}&labelSelector=" + label, watch: true},
	{name: "configmap-create-2", method: "POST", path: cm,
		body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm2","labels":{"diff":"yes","set":"two"}},"data":{"x":"y"}}`},
	{name: "configmap-create-generatename", method: "POST", path: cm,
		body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"gen-","labels":{"diff":"yes","set":"two"}}}`},
	{name: "configmap-create-dryrun", method: "POST", path: cm + "?dryRun=All",
		body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dry","labels":{"diff":"yes"}}}`},
	{name: "configmap-get-after-dryrun", path: cm + "/dry"},
	{name: "configmap-delete-dryrun", method: "DELETE", path: cm + "/cm2?dryRun=All"},
	{name: "configmap-delete-precondition-uid", method: "DELETE", path: cm + "/cm2",
		body: `{"apiVersion":"v1","kind":"DeleteOptions","preconditions":{"uid":"00000000-0000-0000-0000-000000000000"}}`},
	{name: "configmap-delete-precondition-rv", method: "DELETE", path: cm + "/cm2",
		body: `{"apiVersion":"v1","kind":"DeleteOptions","preconditions":{"resourceVersion":"1"}}`},
	{name: "configmap-delete", method: "DELETE", path: cm + "/cm2"},
	{name: "configmap-delete-missing", method: "DELETE", path: cm + "/cm2"},
	{name: "configmap-deletecollection", method: "DELETE", path: cm + "?labelSelector=set%3Dtwo",
		values: []string{"kind"}},
}
