package openapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/openapi3"
	"k8s.io/client-go/rest"
	"k8s.io/kube-openapi/pkg/spec3"
)

var allVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// testResources is a server like kubesim's: core pods (with status and
// binding), nodes, namespaces and events; leases; an RBAC kind; and a
// deployment with a cross-group scale subresource.
func testResources() []Resource {
	core := func(kind string) schema.GroupVersionKind { return schema.GroupVersionKind{Version: "v1", Kind: kind} }
	return []Resource{
		{
			Kind: core("Pod"), Plural: "pods", Namespaced: true, Verbs: allVerbs,
			Object: &corev1.Pod{}, List: &corev1.PodList{}, DeleteReturnsObject: true,
			Subresources: []Subresource{
				{Name: "status", Kind: core("Pod"), Object: &corev1.Pod{}, Verbs: []string{"get", "patch", "update"}},
				{Name: "binding", Kind: core("Binding"), Object: &corev1.Binding{}, Verbs: []string{"create"}},
			},
		},
		{
			Kind: core("Node"), Plural: "nodes", Verbs: allVerbs,
			Object: &corev1.Node{}, List: &corev1.NodeList{},
			Subresources: []Subresource{
				{Name: "status", Kind: core("Node"), Object: &corev1.Node{}, Verbs: []string{"get", "patch", "update"}},
			},
		},
		{
			Kind: core("Namespace"), Plural: "namespaces", Verbs: []string{"create", "delete", "get", "list", "patch", "update", "watch"},
			Object: &corev1.Namespace{}, List: &corev1.NamespaceList{},
		},
		{
			Kind: core("Event"), Plural: "events", Namespaced: true, Verbs: allVerbs,
			Object: &corev1.Event{}, List: &corev1.EventList{},
		},
		{
			Kind:   schema.GroupVersionKind{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"},
			Plural: "leases", Namespaced: true, Verbs: allVerbs,
			Object: &coordinationv1.Lease{}, List: &coordinationv1.LeaseList{},
		},
		{
			Kind:   schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"},
			Plural: "clusterroles", Verbs: allVerbs,
			Object: &rbacv1.ClusterRole{}, List: &rbacv1.ClusterRoleList{},
		},
		{
			Kind:   schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
			Plural: "deployments", Namespaced: true, Verbs: allVerbs,
			Object: &appsv1.Deployment{}, List: &appsv1.DeploymentList{},
			Subresources: []Subresource{
				{Name: "scale", Kind: schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"},
					Object: &autoscalingv1.Scale{}, Verbs: []string{"get", "patch", "update"}},
			},
		},
	}
}

// MustNew builds a Handler from resources or fails the test.
func MustNew(tb testing.TB, resources []Resource) *Handler {
	tb.Helper()
	h, err := New(resources)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return h
}

// get serves one request on h and returns the recorded response.
func get(tb testing.TB, h http.Handler, target string, header map[string]string) *httptest.ResponseRecorder {
	tb.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// MustDocument fetches the document of gv through client-go's OpenAPI v3
// client, the code kubectl uses: it reads the index at /openapi/v3, follows
// the serverRelativeURL with its hash and decodes the JSON into spec3.
func MustDocument(tb testing.TB, h *Handler, gv schema.GroupVersion) *spec3.OpenAPI {
	tb.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	dc, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		tb.Fatal(err)
	}
	doc, err := openapi3.NewRoot(dc.OpenAPIV3()).GVSpec(gv)
	if err != nil {
		tb.Fatalf("GVSpec(%v): %v", gv, err)
	}
	return doc
}

// MustRawDocument returns the served bytes of one document decoded as
// generic JSON, for checks on the exact wire form.
func MustRawDocument(tb testing.TB, h *Handler, key string) map[string]any {
	tb.Helper()
	rec := get(tb, h, Path+"/"+key, nil)
	if rec.Code != http.StatusOK {
		tb.Fatalf("GET %s: status %d", key, rec.Code)
	}
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		tb.Fatal(err)
	}
	return m
}
