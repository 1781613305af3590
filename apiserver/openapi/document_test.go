package openapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// The three checks below restate what kubectl v1.32 does with a document
// (cli-runtime's queryParamVerifierV3 and kubectl's apply Patcher); the
// code is ours, the criteria are theirs.

// opGVK reads the single-map x-kubernetes-group-version-kind of an operation.
func opGVK(ext spec.Extensions) (schema.GroupVersionKind, bool) {
	var m map[string]string
	if err := ext.GetObject(extGVK, &m); err != nil || m == nil {
		return schema.GroupVersionKind{}, false
	}
	return schema.GroupVersionKind{Group: m["group"], Version: m["version"], Kind: m["kind"]}, true
}

// patchOps returns the PATCH operations of gvk, keyed by path.
func patchOps(doc *spec3.OpenAPI, gvk schema.GroupVersionKind) map[string]*spec3.Operation {
	out := map[string]*spec3.Operation{}
	for path, item := range doc.Paths.Paths {
		if item == nil || item.Patch == nil {
			continue
		}
		if got, ok := opGVK(item.Patch.Extensions); ok && got == gvk {
			out[path] = item.Patch
		}
	}
	return out
}

// hasQueryParam is the field-validation test: the parameter must be listed
// on the operation itself, with in: query.
func hasQueryParam(op *spec3.Operation, name string) bool {
	for _, p := range op.Parameters {
		if p.Name == name && p.In == "query" {
			return true
		}
	}
	return false
}

// kindSchema finds the component schema whose x-kubernetes-group-version-kind
// list contains gvk, as the apply Patcher does.
func kindSchema(doc *spec3.OpenAPI, gvk schema.GroupVersionKind) (*spec.Schema, bool) {
	for _, s := range doc.Components.Schemas {
		var list []map[string]string
		if err := s.Extensions.GetObject(extGVK, &list); err != nil {
			continue
		}
		for _, m := range list {
			if m["group"] == gvk.Group && m["version"] == gvk.Version && m["kind"] == gvk.Kind {
				return s, true
			}
		}
	}
	return nil, false
}

func TestKubectlCriteria(t *testing.T) {
	h := MustNew(t, testResources())
	tests := []struct {
		gvk      schema.GroupVersionKind
		patchOps int // the resource plus its patchable subresources of the same kind
	}{
		{schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, 2},
		{schema.GroupVersionKind{Version: "v1", Kind: "Node"}, 2},
		{schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, 1},
		{schema.GroupVersionKind{Version: "v1", Kind: "Event"}, 1},
		{schema.GroupVersionKind{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"}, 1},
		{schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}, 1},
		{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.gvk.Kind, func(t *testing.T) {
			doc := MustDocument(t, h, tt.gvk.GroupVersion())
			ops := patchOps(doc, tt.gvk)
			if len(ops) != tt.patchOps {
				t.Fatalf("PATCH operations for %v: got %d, want %d", tt.gvk, len(ops), tt.patchOps)
			}
			// kubectl stops at whichever matching PATCH it meets first in
			// map order, so every one of them must pass.
			for path, op := range ops {
				if !hasQueryParam(op, "fieldValidation") {
					t.Errorf("%s: PATCH has no fieldValidation query parameter, kubectl would validate client-side", path)
				}
				if op.RequestBody == nil || op.RequestBody.Content["application/strategic-merge-patch+json"] == nil {
					t.Errorf("%s: PATCH does not accept application/strategic-merge-patch+json", path)
				}
				if op.RequestBody != nil && op.RequestBody.Content["application/apply-patch+yaml"] != nil {
					t.Errorf("%s: PATCH offers server-side apply, which this server lacks", path)
				}
			}
			if _, ok := kindSchema(doc, tt.gvk); !ok {
				t.Errorf("no component schema lists %v in x-kubernetes-group-version-kind", tt.gvk)
			}
		})
	}

	t.Run("kind not served", func(t *testing.T) {
		doc := MustDocument(t, h, schema.GroupVersion{Version: "v1"})
		cm := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
		if ops := patchOps(doc, cm); len(ops) != 0 {
			t.Errorf("found PATCH operations for %v: %v", cm, ops)
		}
		if _, ok := kindSchema(doc, cm); ok {
			t.Errorf("found a schema for %v", cm)
		}
	})
}

// effectiveParams is every parameter an operation takes: the path's and its own.
func effectiveParams(item *spec3.Path, op *spec3.Operation) map[string]string {
	out := map[string]string{}
	for _, p := range append(append([]*spec3.Parameter{}, item.Parameters...), op.Parameters...) {
		out[p.Name] = p.In
	}
	return out
}

func operation(item *spec3.Path, method string) *spec3.Operation {
	switch method {
	case "GET":
		return item.Get
	case "POST":
		return item.Post
	case "PUT":
		return item.Put
	case "PATCH":
		return item.Patch
	case "DELETE":
		return item.Delete
	}
	return nil
}

func TestOperations(t *testing.T) {
	h := MustNew(t, testResources())
	core := schema.GroupVersion{Version: "v1"}
	pod := core.WithKind("Pod")
	list := []string{"labelSelector", "fieldSelector", "limit", "continue", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds", "watch", "allowWatchBookmarks"}
	write := []string{"dryRun", "fieldManager", "fieldValidation"}
	del := []string{"dryRun", "gracePeriodSeconds", "propagationPolicy", "orphanDependents"}

	tests := []struct {
		gv          schema.GroupVersion
		method      string
		path        string
		wantID      string
		wantAction  string // "" means no extension
		wantGVK     *schema.GroupVersionKind
		wantParams  []string // must be present (path or operation level)
		wantAbsent  []string
		wantRespRef string // schema name of the 200 response
	}{
		{core, "GET", "/api/v1/namespaces/{namespace}/pods", "listCoreV1NamespacedPod", "list", &pod, append([]string{"namespace", "pretty"}, list...), write, "io.k8s.api.core.v1.PodList"},
		{core, "GET", "/api/v1/pods", "listCoreV1PodForAllNamespaces", "list", &pod, list, []string{"namespace"}, "io.k8s.api.core.v1.PodList"},
		{core, "POST", "/api/v1/namespaces/{namespace}/pods", "createCoreV1NamespacedPod", "post", &pod, append([]string{"namespace", "pretty"}, write...), []string{"watch", "force"}, "io.k8s.api.core.v1.Pod"},
		{core, "DELETE", "/api/v1/namespaces/{namespace}/pods", "deletecollectionCoreV1NamespacedPod", "deletecollection", &pod, append([]string{"labelSelector", "fieldSelector", "limit"}, del...), []string{"watch", "allowWatchBookmarks"}, "io.k8s.apimachinery.pkg.apis.meta.v1.Status"},
		{core, "GET", "/api/v1/namespaces/{namespace}/pods/{name}", "readCoreV1NamespacedPod", "get", &pod, []string{"name", "namespace", "pretty"}, write, "io.k8s.api.core.v1.Pod"},
		{core, "PUT", "/api/v1/namespaces/{namespace}/pods/{name}", "replaceCoreV1NamespacedPod", "put", &pod, write, nil, "io.k8s.api.core.v1.Pod"},
		{core, "PATCH", "/api/v1/namespaces/{namespace}/pods/{name}", "patchCoreV1NamespacedPod", "patch", &pod, write, []string{"force"}, "io.k8s.api.core.v1.Pod"},
		{core, "DELETE", "/api/v1/namespaces/{namespace}/pods/{name}", "deleteCoreV1NamespacedPod", "delete", &pod, del, []string{"ignoreStoreReadErrorWithClusterBreakingPotential"}, "io.k8s.api.core.v1.Pod"},
		{core, "GET", "/api/v1/watch/namespaces/{namespace}/pods", "watchCoreV1NamespacedPodList", "watchlist", &pod, list, nil, "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"},
		{core, "GET", "/api/v1/watch/pods", "watchCoreV1PodListForAllNamespaces", "watchlist", &pod, list, []string{"namespace"}, "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"},
		{core, "GET", "/api/v1/watch/namespaces/{namespace}/pods/{name}", "watchCoreV1NamespacedPod", "watch", &pod, append([]string{"name"}, list...), nil, "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"},
		{core, "GET", "/api/v1/namespaces/{namespace}/pods/{name}/status", "readCoreV1NamespacedPodStatus", "get", &pod, []string{"name", "namespace"}, nil, "io.k8s.api.core.v1.Pod"},
		{core, "PATCH", "/api/v1/namespaces/{namespace}/pods/{name}/status", "patchCoreV1NamespacedPodStatus", "patch", &pod, write, nil, "io.k8s.api.core.v1.Pod"},
		{core, "POST", "/api/v1/namespaces/{namespace}/pods/{name}/binding", "createCoreV1NamespacedPodBinding", "post", ptr(core.WithKind("Binding")), append([]string{"name", "namespace"}, write...), nil, "io.k8s.api.core.v1.Binding"},
		{core, "GET", "/api/v1/nodes", "listCoreV1Node", "list", ptr(core.WithKind("Node")), list, []string{"namespace"}, "io.k8s.api.core.v1.NodeList"},
		{core, "PUT", "/api/v1/nodes/{name}/status", "replaceCoreV1NodeStatus", "put", ptr(core.WithKind("Node")), append([]string{"name"}, write...), []string{"namespace"}, "io.k8s.api.core.v1.Node"},
		{core, "DELETE", "/api/v1/namespaces/{name}", "deleteCoreV1Namespace", "delete", ptr(core.WithKind("Namespace")), del, nil, "io.k8s.apimachinery.pkg.apis.meta.v1.Status"},
		{core, "GET", "/api/v1/", "getCoreV1APIResources", "", nil, nil, nil, "io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList"},
		{schema.GroupVersion{Group: "coordination.k8s.io", Version: "v1"}, "GET", "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}",
			"readCoordinationV1NamespacedLease", "get", &schema.GroupVersionKind{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"}, nil, nil, "io.k8s.api.coordination.v1.Lease"},
		{schema.GroupVersion{Group: "rbac.authorization.k8s.io", Version: "v1"}, "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles",
			"listRbacAuthorizationV1ClusterRole", "list", &schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}, list, nil, "io.k8s.api.rbac.v1.ClusterRoleList"},
		{schema.GroupVersion{Group: "apps", Version: "v1"}, "PATCH", "/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale",
			"patchAppsV1NamespacedDeploymentScale", "patch", &schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}, write, nil, "io.k8s.api.autoscaling.v1.Scale"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			doc := MustDocument(t, h, tt.gv)
			item := doc.Paths.Paths[tt.path]
			if item == nil {
				t.Fatalf("path %s missing", tt.path)
			}
			op := operation(item, tt.method)
			if op == nil {
				t.Fatalf("%s %s missing", tt.method, tt.path)
			}
			if op.OperationId != tt.wantID {
				t.Errorf("operationId = %q, want %q", op.OperationId, tt.wantID)
			}
			action, _ := op.Extensions.GetString(extAction)
			if action != tt.wantAction {
				t.Errorf("x-kubernetes-action = %q, want %q", action, tt.wantAction)
			}
			gvk, ok := opGVK(op.Extensions)
			switch {
			case tt.wantGVK == nil && ok:
				t.Errorf("x-kubernetes-group-version-kind = %v, want none", gvk)
			case tt.wantGVK != nil && gvk != *tt.wantGVK:
				t.Errorf("x-kubernetes-group-version-kind = %v, want %v", gvk, *tt.wantGVK)
			}
			params := effectiveParams(item, op)
			for _, p := range tt.wantParams {
				wantIn := "query"
				if p == "name" || p == "namespace" {
					wantIn = "path"
				}
				if params[p] != wantIn {
					t.Errorf("parameter %s: in = %q, want %q", p, params[p], wantIn)
				}
			}
			for _, p := range tt.wantAbsent {
				if _, ok := params[p]; ok {
					t.Errorf("parameter %s present, want absent", p)
				}
			}
			resp := op.Responses.StatusCodeResponses[200]
			if resp == nil || resp.Content["application/json"] == nil {
				t.Fatalf("no 200 application/json response")
			}
			if got := resp.Content["application/json"].Schema.Ref.String(); got != schemaRefPrefix+tt.wantRespRef {
				t.Errorf("200 response schema = %q, want %q", got, schemaRefPrefix+tt.wantRespRef)
			}
		})
	}

	t.Run("verbs not served leave no operation", func(t *testing.T) {
		doc := MustDocument(t, h, core)
		if item := doc.Paths.Paths["/api/v1/namespaces"]; item == nil || item.Delete != nil {
			t.Errorf("namespaces has no deletecollection verb, want no DELETE on the collection; got %+v", item)
		}
		if _, ok := doc.Paths.Paths["/api/v1/namespaces/{namespace}/pods/{name}/binding"]; !ok {
			t.Errorf("binding path missing")
		}
		if item := doc.Paths.Paths["/api/v1/namespaces/{namespace}/pods/{name}/binding"]; item.Get != nil || item.Patch != nil {
			t.Errorf("binding only creates, got other operations")
		}
	})
}

func ptr[T any](v T) *T { return &v }

// TestDocumentIntegrity walks every served document: operation ids are
// unique, every operation of a resource names its action and kind, path
// parameters appear in their paths, and every $ref resolves.
func TestDocumentIntegrity(t *testing.T) {
	h := MustNew(t, testResources())
	for key := range h.docs {
		t.Run(key, func(t *testing.T) {
			raw := MustRawDocument(t, h, key)
			schemas := raw["components"].(map[string]any)["schemas"].(map[string]any)
			// Every document declares kube-apiserver's security scheme
			// (as the real one's: asked of kube-apiserver v1.37.2).
			sec, _ := json.Marshal(raw["components"].(map[string]any)["securitySchemes"])
			if want := `{"BearerToken":{"description":"Bearer Token authentication","in":"header","name":"authorization","type":"apiKey"}}`; string(sec) != want {
				t.Errorf("securitySchemes %s, want %s", sec, want)
			}
			var refs []string
			walkRefs(raw, &refs)
			if len(refs) == 0 {
				t.Fatal("no $ref found")
			}
			for _, ref := range refs {
				name, ok := strings.CutPrefix(ref, schemaRefPrefix)
				if !ok || schemas[name] == nil {
					t.Errorf("$ref %q does not resolve", ref)
				}
			}

			ids := map[string]string{}
			for path, item := range raw["paths"].(map[string]any) {
				itemMap := item.(map[string]any)
				for method, op := range itemMap {
					if method == "parameters" {
						continue
					}
					opMap := op.(map[string]any)
					id := opMap["operationId"].(string)
					if prev, dup := ids[id]; dup {
						t.Errorf("operationId %s used by %s and %s %s", id, prev, method, path)
					}
					ids[id] = method + " " + path
					if strings.HasSuffix(path, "/") {
						continue // discovery
					}
					if _, ok := opMap[extAction]; !ok {
						t.Errorf("%s %s: no %s", method, path, extAction)
					}
					if _, ok := opMap[extGVK].(map[string]any); !ok {
						t.Errorf("%s %s: %s is not a single map", method, path, extGVK)
					}
				}
				for _, p := range []string{"namespace", "name"} {
					if strings.Contains(path, "{"+p+"}") != hasParam(itemMap, p) {
						t.Errorf("%s: path parameter %s and path disagree", path, p)
					}
				}
			}
		})
	}
}

func hasParam(item map[string]any, name string) bool {
	ps, _ := item["parameters"].([]any)
	for _, p := range ps {
		if m := p.(map[string]any); m["name"] == name && m["in"] == "path" && m["required"] == true {
			return true
		}
	}
	return false
}

func walkRefs(v any, refs *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "$ref" {
				*refs = append(*refs, e.(string))
			} else {
				walkRefs(e, refs)
			}
		}
	case []any:
		for _, e := range x {
			walkRefs(e, refs)
		}
	}
}

// prop returns the schema at a dotted property path below a component
// schema, following allOf/$ref, items and additionalProperties like
// kubectl explain does. The last element is returned unresolved.
func prop(t *testing.T, doc map[string]any, model, path string) map[string]any {
	t.Helper()
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	cur, ok := schemas[model].(map[string]any)
	if !ok {
		t.Fatalf("schema %s missing", model)
	}
	if path == "" {
		return cur
	}
	resolve := func(s map[string]any) map[string]any {
		for {
			if all, ok := s["allOf"].([]any); ok && len(all) > 0 {
				s = all[0].(map[string]any)
				continue
			}
			if ref, ok := s["$ref"].(string); ok {
				s = schemas[strings.TrimPrefix(ref, schemaRefPrefix)].(map[string]any)
				continue
			}
			if items, ok := s["items"].(map[string]any); ok {
				s = items
				continue
			}
			return s
		}
	}
	for i, name := range strings.Split(path, ".") {
		if i > 0 {
			cur = resolve(cur)
		}
		props, _ := cur["properties"].(map[string]any)
		next, ok := props[name].(map[string]any)
		if !ok {
			t.Fatalf("%s: no property %q on the way to %s", model, name, path)
		}
		cur = next
	}
	return cur
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestSchemas(t *testing.T) {
	h := MustNew(t, testResources())
	coreDoc := MustRawDocument(t, h, "api/v1")
	leaseDoc := MustRawDocument(t, h, "apis/coordination.k8s.io/v1")
	appsDoc := MustRawDocument(t, h, "apis/apps/v1")
	const (
		pod      = "io.k8s.api.core.v1.Pod"
		meta     = "io.k8s.apimachinery.pkg.apis.meta.v1."
		quantity = "io.k8s.apimachinery.pkg.api.resource.Quantity"
		intstr   = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
	)
	tests := []struct {
		name  string
		doc   map[string]any
		model string
		path  string
		key   string // one key of the schema found, compared as JSON
		want  string
	}{
		{"Quantity is a string or a number", coreDoc, quantity, "", "oneOf", `[{"type":"string"},{"type":"number"}]`},
		{"IntOrString has oneOf", coreDoc, intstr, "", "oneOf", `[{"type":"integer"},{"type":"string"}]`},
		{"IntOrString format", coreDoc, intstr, "", "format", `"int-or-string"`},
		{"IntOrString marker", coreDoc, intstr, "", extIntOrString, `true`},
		{"Time is a date-time string", coreDoc, meta + "Time", "", "type", `"string"`},
		{"Time format", coreDoc, meta + "Time", "", "format", `"date-time"`},
		{"MicroTime format", coreDoc, meta + "MicroTime", "", "format", `"date-time"`},
		{"MicroTime in a lease", leaseDoc, "io.k8s.api.coordination.v1.LeaseSpec", "acquireTime", "allOf", `[{"$ref":"#/components/schemas/` + meta + `MicroTime"}]`},
		{"RawExtension is an object", coreDoc, "io.k8s.apimachinery.pkg.runtime.RawExtension", "", "type", `"object"`},
		{"probe port is IntOrString", coreDoc, "io.k8s.api.core.v1.HTTPGetAction", "port", "allOf", `[{"$ref":"#/components/schemas/` + intstr + `"}]`},
		{"limits are Quantities", coreDoc, "io.k8s.api.core.v1.ResourceRequirements", "limits", "additionalProperties", `{"$ref":"#/components/schemas/` + quantity + `"}`},
		{"labels are a string map", coreDoc, meta + "ObjectMeta", "labels", "additionalProperties", `{"type":"string"}`},
		{"creationTimestamp has no default", coreDoc, meta + "ObjectMeta", "creationTimestamp", "default", `null`},
		{"generation is int64", coreDoc, meta + "ObjectMeta", "generation", "format", `"int64"`},
		{"containers merge by name", coreDoc, pod, "spec.containers", extPatchMergeKey, `"name"`},
		{"containers patch strategy", coreDoc, pod, "spec.containers", extPatchStrategy, `"merge"`},
		{"containers are Containers", coreDoc, pod, "spec.containers", "items", `{"$ref":"#/components/schemas/io.k8s.api.core.v1.Container"}`},
		{"volumes retain keys", coreDoc, pod, "spec.volumes", extPatchStrategy, `"merge,retainKeys"`},
		{"ports merge by containerPort", coreDoc, pod, "spec.containers.ports", extPatchMergeKey, `"containerPort"`},
		{"env merges by name", coreDoc, pod, "spec.containers.env", extPatchMergeKey, `"name"`},
		{"finalizers merge", coreDoc, pod, "metadata.finalizers", extPatchStrategy, `"merge"`},
		{"spec is wrapped in allOf", coreDoc, pod, "spec", "allOf", `[{"$ref":"#/components/schemas/io.k8s.api.core.v1.PodSpec"}]`},
		{"struct field default", coreDoc, pod, "spec", "default", `{}`},
		{"required string default", coreDoc, "io.k8s.api.core.v1.Container", "name", "default", `""`},
		{"required int default", coreDoc, "io.k8s.api.core.v1.ContainerPort", "containerPort", "default", `0`},
		{"optional field has no default", coreDoc, "io.k8s.api.core.v1.Container", "image", "default", `null`},
		{"Container requires name", coreDoc, "io.k8s.api.core.v1.Container", "", "required", `["name"]`},
		{"PodSpec requires containers", coreDoc, "io.k8s.api.core.v1.PodSpec", "", "required", `["containers"]`},
		{"Pod requires nothing", coreDoc, pod, "", "required", `null`},
		{"ObjectMeta requires nothing", coreDoc, meta + "ObjectMeta", "", "required", `null`},
		{"PodList requires items", coreDoc, "io.k8s.api.core.v1.PodList", "", "required", `["items"]`},
		{"Binding requires target", coreDoc, "io.k8s.api.core.v1.Binding", "", "required", `["target"]`},
		{"WatchEvent requires type and object", coreDoc, meta + "WatchEvent", "", "required", `["type","object"]`},
		{"inlined TypeMeta", coreDoc, pod, "kind", "type", `"string"`},
		{"Pod description", coreDoc, pod, "", "description", jsonString(corev1.Pod{}.SwaggerDoc()[""])},
		{"field description", coreDoc, "io.k8s.api.core.v1.Container", "image", "description", jsonString(corev1.Container{}.SwaggerDoc()["image"])},
		{"Pod GVK", coreDoc, pod, "", extGVK, `[{"group":"","kind":"Pod","version":"v1"}]`},
		{"PodList GVK", coreDoc, "io.k8s.api.core.v1.PodList", "", extGVK, `[{"group":"","kind":"PodList","version":"v1"}]`},
		{"Status GVK", coreDoc, meta + "Status", "", extGVK, `[{"group":"","kind":"Status","version":"v1"}]`},
		{"APIResourceList GVK", coreDoc, meta + "APIResourceList", "", extGVK, `[{"group":"","kind":"APIResourceList","version":"v1"}]`},
		{"DeleteOptions GVK in core", coreDoc, meta + "DeleteOptions", "", extGVK, `[{"group":"","kind":"DeleteOptions","version":"v1"}]`},
		{"DeleteOptions GVK in a group", leaseDoc, meta + "DeleteOptions", "", extGVK,
			`[{"group":"","kind":"DeleteOptions","version":"v1"},{"group":"coordination.k8s.io","kind":"DeleteOptions","version":"v1"}]`},
		{"WatchEvent GVK in a group", leaseDoc, meta + "WatchEvent", "", extGVK,
			`[{"group":"","kind":"WatchEvent","version":"v1"},{"group":"coordination.k8s.io","kind":"WatchEvent","version":"v1"}]`},
		{"Lease GVK", leaseDoc, "io.k8s.api.coordination.v1.Lease", "", extGVK, `[{"group":"coordination.k8s.io","kind":"Lease","version":"v1"}]`},
		{"Scale from another group", appsDoc, "io.k8s.api.autoscaling.v1.Scale", "", extGVK, `[{"group":"autoscaling","kind":"Scale","version":"v1"}]`},
		{"nested types carry no GVK", coreDoc, "io.k8s.api.core.v1.PodSpec", "", extGVK, `null`},
		{"Patch body schema", coreDoc, meta + "Patch", "", "type", `"object"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jsonString(prop(t, tt.doc, tt.model, tt.path)[tt.key])
			if got != tt.want {
				t.Errorf("%s %s[%q] = %s, want %s", tt.model, tt.path, tt.key, got, tt.want)
			}
		})
	}

	t.Run("every object schema is described", func(t *testing.T) {
		for name, s := range coreDoc["components"].(map[string]any)["schemas"].(map[string]any) {
			if d, _ := s.(map[string]any)["description"].(string); d == "" {
				t.Errorf("%s has no description", name)
			}
		}
	})
	t.Run("documents hold only what they reach", func(t *testing.T) {
		schemas := leaseDoc["components"].(map[string]any)["schemas"].(map[string]any)
		if _, ok := schemas[pod]; ok {
			t.Errorf("the coordination.k8s.io/v1 document contains %s", pod)
		}
	})
}

// TestStrategicMergePatchFromSchema checks what kubectl apply relies on: a
// three-way strategic merge patch computed from the served Pod schema
// (strategicpatch.PatchMetaFromOpenAPIV3, as kubectl's Patcher does) is the
// same as one computed from the Go struct tags, and merges lists by key.
// Conflicts are overwritten, as with kubectl apply's default --overwrite.
func TestStrategicMergePatchFromSchema(t *testing.T) {
	h := MustNew(t, testResources())
	doc := MustDocument(t, h, schema.GroupVersion{Version: "v1"})
	podSchema, ok := kindSchema(doc, schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
	if !ok {
		t.Fatal("no Pod schema")
	}
	fromSchema := strategicpatch.PatchMetaFromOpenAPIV3{Schema: podSchema, SchemaList: doc.Components.Schemas}
	fromStruct, err := strategicpatch.NewPatchMetaFromStruct(&corev1.Pod{})
	if err != nil {
		t.Fatal(err)
	}

	// Pods as the user wrote them (original, modified) and as the server
	// holds them (current: the original plus whatever others added).
	podJSON := func(containers, volumes string) string {
		return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web"}},"spec":{"containers":[` + containers + `]` + volumes + `}}`
	}
	app := func(image string, extra string) string {
		return `{"name":"app","image":"` + image + `"` + extra + `}`
	}
	sidecar := `{"name":"proxy","image":"envoy:1"}`
	tests := []struct {
		name                        string
		original, modified, current string
		wantInResult                []string // substrings of the patched current pod
		wantNotInResult             []string
	}{
		{
			name:         "image change keeps a container added by someone else",
			original:     podJSON(app("nginx:1.25", ""), ""),
			modified:     podJSON(app("nginx:1.27", ""), ""),
			current:      podJSON(app("nginx:1.25", "")+","+sidecar, ""),
			wantInResult: []string{`"image":"nginx:1.27"`, `"name":"proxy"`},
		},
		{
			name:         "env var added to one container",
			original:     podJSON(app("nginx", `,"env":[{"name":"A","value":"1"}]`), ""),
			modified:     podJSON(app("nginx", `,"env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]`), ""),
			current:      podJSON(app("nginx", `,"env":[{"name":"A","value":"1"},{"name":"INJECTED","value":"x"}]`), ""),
			wantInResult: []string{`"name":"B"`, `"name":"INJECTED"`},
		},
		{
			name:            "container removed",
			original:        podJSON(app("nginx", "")+`,{"name":"old","image":"busybox"}`, ""),
			modified:        podJSON(app("nginx", ""), ""),
			current:         podJSON(app("nginx", "")+`,{"name":"old","image":"busybox"},`+sidecar, ""),
			wantInResult:    []string{`"name":"proxy"`},
			wantNotInResult: []string{`"name":"old"`},
		},
		{
			name:         "port changed, merged by containerPort",
			original:     podJSON(app("nginx", `,"ports":[{"containerPort":80,"name":"http"}]`), ""),
			modified:     podJSON(app("nginx", `,"ports":[{"containerPort":80,"name":"web"}]`), ""),
			current:      podJSON(app("nginx", `,"ports":[{"containerPort":80,"name":"http"},{"containerPort":9090,"name":"metrics"}]`), ""),
			wantInResult: []string{`"name":"web"`, `"containerPort":9090`},
		},
		{
			name:            "volume source switched, other keys retained away",
			original:        podJSON(app("nginx", ""), `,"volumes":[{"name":"data","emptyDir":{}}]`),
			modified:        podJSON(app("nginx", ""), `,"volumes":[{"name":"data","hostPath":{"path":"/srv"}}]`),
			current:         podJSON(app("nginx", ""), `,"volumes":[{"name":"data","emptyDir":{}}]`),
			wantInResult:    []string{`"hostPath":{"path":"/srv"}`},
			wantNotInResult: []string{`emptyDir`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := strategicpatch.CreateThreeWayMergePatch([]byte(tt.original), []byte(tt.modified), []byte(tt.current), fromStruct, true)
			if err != nil {
				t.Fatalf("patch from struct: %v", err)
			}
			got, err := strategicpatch.CreateThreeWayMergePatch([]byte(tt.original), []byte(tt.modified), []byte(tt.current), fromSchema, true)
			if err != nil {
				t.Fatalf("patch from schema: %v", err)
			}
			if !jsonEqual(t, got, want) {
				t.Errorf("patch from schema = %s\nwant (from struct) %s", got, want)
			}
			result, err := strategicpatch.StrategicMergePatchUsingLookupPatchMeta([]byte(tt.current), got, fromSchema)
			if err != nil {
				t.Fatalf("applying the patch: %v", err)
			}
			compact := string(result)
			for _, s := range tt.wantInResult {
				if !strings.Contains(compact, s) {
					t.Errorf("patched pod %s lacks %s", compact, s)
				}
			}
			for _, s := range tt.wantNotInResult {
				if strings.Contains(compact, s) {
					t.Errorf("patched pod %s still has %s", compact, s)
				}
			}
		})
	}

	// Control: the comparison is only meaningful if the extensions matter.
	// Without them the list is replaced and the sidecar is lost.
	t.Run("control without patch extensions", func(t *testing.T) {
		stripped := stripPatchExtensions(doc.Components.Schemas)
		bare := strategicpatch.PatchMetaFromOpenAPIV3{Schema: stripped["io.k8s.api.core.v1.Pod"], SchemaList: stripped}
		tt := tests[0]
		patch, err := strategicpatch.CreateThreeWayMergePatch([]byte(tt.original), []byte(tt.modified), []byte(tt.current), bare, true)
		if err != nil {
			t.Fatal(err)
		}
		result, err := strategicpatch.StrategicMergePatchUsingLookupPatchMeta([]byte(tt.current), patch, bare)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(result), `"name":"proxy"`) {
			t.Errorf("without extensions the sidecar survived; the test above could not tell a broken schema: %s", result)
		}
	})
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

// stripPatchExtensions returns a deep copy of schemas without the
// x-kubernetes-patch-* extensions.
func stripPatchExtensions(schemas map[string]*spec.Schema) map[string]*spec.Schema {
	b, _ := json.Marshal(schemas)
	var generic map[string]any
	_ = json.Unmarshal(b, &generic)
	var strip func(any)
	strip = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			delete(x, extPatchStrategy)
			delete(x, extPatchMergeKey)
			for _, e := range x {
				strip(e)
			}
		case []any:
			for _, e := range x {
				strip(e)
			}
		}
	}
	strip(generic)
	b, _ = json.Marshal(generic)
	out := map[string]*spec.Schema{}
	_ = json.Unmarshal(b, &out)
	return out
}

// TestParameterOrder checks the sorted, hoisted layout kube-apiserver uses:
// parameters shared by every operation of a path sit on the path.
func TestParameterOrder(t *testing.T) {
	h := MustNew(t, testResources())
	doc := MustDocument(t, h, schema.GroupVersion{Version: "v1"})
	tests := []struct {
		path       string
		wantOnPath []string
		method     string
		wantOnOp   []string
	}{
		{"/api/v1/namespaces/{namespace}/pods/{name}", []string{"name", "namespace", "pretty"}, "PATCH", []string{"dryRun", "fieldManager", "fieldValidation"}},
		{"/api/v1/namespaces/{namespace}/pods", []string{"namespace", "pretty"}, "GET",
			[]string{"allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds", "watch"}},
		{"/api/v1/namespaces/{namespace}/pods/{name}/binding", []string{"dryRun", "fieldManager", "fieldValidation", "name", "namespace", "pretty"}, "POST", nil},
	}
	names := func(ps []*spec3.Parameter) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			item := doc.Paths.Paths[tt.path]
			if got := names(item.Parameters); fmt.Sprint(got) != fmt.Sprint(tt.wantOnPath) {
				t.Errorf("path parameters = %v, want %v", got, tt.wantOnPath)
			}
			got := names(operation(item, tt.method).Parameters)
			if !sort.StringsAreSorted(got) || fmt.Sprint(got) != fmt.Sprint(tt.wantOnOp) {
				t.Errorf("%s parameters = %v, want %v", tt.method, got, tt.wantOnOp)
			}
		})
	}
}
