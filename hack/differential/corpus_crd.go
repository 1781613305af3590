package main

import "time"

// The URLs of the run's CustomResourceDefinition and its custom resources
// (group diff-{id}.example.com, kind Widget).
const (
	crds    = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	widgets = "/apis/diff-{id}.example.com/v1/namespaces/{ns}/widgets"
)

// crdRequests make a CRD with a structural schema and a status
// subresource, wait until it is served, and take a Widget through its
// verbs.
var crdRequests = []request{
	{name: "crd-create", method: "POST", path: crds, body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"widgets.diff-{id}.example.com","labels":{"diff":"yes"}},
"spec":{"group":"diff-{id}.example.com","scope":"Namespaced","names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},
"versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer","minimum":1},"color":{"type":"string","enum":["red","blue"]}},"required":["size"]},"status":{"type":"object","properties":{"ready":{"type":"boolean"}}}}}}}]}}`,
		values: []string{"spec.conversion.strategy", "spec.versions[].name"},
		ignore: map[string]string{"status": "the CRD controllers fill the conditions a moment after the create"}},
	{name: "setup-wait-crd-served", setup: true, poll: 30 * time.Second, path: widgets},
	{name: "crd-get", path: crds + "/widgets.diff-{id}.example.com", values: []string{"status.acceptedNames.kind", "status.conditions[].type"}},
	{name: "crd-create-invalid", method: "POST", path: crds,
		body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"wrong.diff-{id}.example.com"},"spec":{"group":"diff-{id}.example.com","scope":"Galaxy","names":{"plural":"gadgets","kind":"Gadget"},"versions":[]}}`},
	{name: "cr-create", method: "POST", path: widgets,
		body: `{"apiVersion":"diff-{id}.example.com/v1","kind":"Widget","metadata":{"name":"w1","labels":{"diff":"yes"}},"spec":{"size":1,"color":"red"}}`,
		save: map[string]string{"widgetRV": "metadata.resourceVersion"}},
	{name: "cr-get", path: widgets + "/w1", values: []string{"spec.size"}},
	{name: "cr-list", path: widgets + "?labelSelector=" + label, values: []string{"kind", "items[].metadata.name"}},
	{name: "cr-create-invalid", method: "POST", path: widgets, unorderedCauses: true,
		body: `{"apiVersion":"diff-{id}.example.com/v1","kind":"Widget","metadata":{"name":"w2"},"spec":{"size":0,"color":"green"}}`},
	{name: "cr-create-unknown-field-default", method: "POST", path: widgets,
		body: `{"apiVersion":"diff-{id}.example.com/v1","kind":"Widget","metadata":{"name":"w3","labels":{"diff":"yes"}},"spec":{"size":2,"shape":"round"}}`},
	{name: "cr-create-unknown-field-strict", method: "POST", path: widgets + "?fieldValidation=Strict",
		body: `{"apiVersion":"diff-{id}.example.com/v1","kind":"Widget","metadata":{"name":"w4"},"spec":{"size":2,"shape":"round"}}`},
	{name: "cr-patch-merge", method: "PATCH", path: widgets + "/w1", ctype: "application/merge-patch+json",
		body: `{"spec":{"color":"blue"}}`, values: []string{"spec.color"}},
	{name: "cr-patch-strategic-unsupported", method: "PATCH", path: widgets + "/w1", ctype: "application/strategic-merge-patch+json",
		body: `{"spec":{"color":"blue"}}`},
	{name: "cr-patch-json", method: "PATCH", path: widgets + "/w1", ctype: "application/json-patch+json",
		body: `[{"op":"replace","path":"/spec/size","value":3}]`, values: []string{"spec.size"}},
	{name: "cr-update-status", method: "PATCH", path: widgets + "/w1/status", ctype: "application/merge-patch+json",
		body: `{"status":{"ready":true},"spec":{"size":9}}`, values: []string{"status.ready", "spec.size"}},
	{name: "cr-update-without-rv", method: "PUT", path: widgets + "/w1",
		body: `{"apiVersion":"diff-{id}.example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"size":4}}`},
	{name: "cr-update-stale-rv", method: "PUT", path: widgets + "/w1",
		body: `{"apiVersion":"diff-{id}.example.com/v1","kind":"Widget","metadata":{"name":"w1","resourceVersion":"{widgetRV}"},"spec":{"size":4}}`},
	{name: "cr-watch", path: widgets + "?watch=1&timeoutSeconds=1&resourceVersion={widgetRV}", watch: true},
	{name: "cr-delete", method: "DELETE", path: widgets + "/w1", values: []string{"kind"}},
	{name: "cr-deletecollection", method: "DELETE", path: widgets + "?labelSelector=" + label, values: []string{"kind"}},
	{name: "crd-delete", method: "DELETE", path: crds + "/widgets.diff-{id}.example.com", values: []string{"kind"},
		ignore: map[string]string{"status": "the CRD controllers' conditions race the delete"}},
}
