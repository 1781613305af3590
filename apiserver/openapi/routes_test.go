package openapi

import (
	"slices"
	"strings"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestResourceRoutesFollowVerbs checks which operations, in which order,
// a resource's verbs and scope give.
func TestResourceRoutesFollowVerbs(t *testing.T) {
	q, err := buildQueryParamSets()
	if err != nil {
		t.Fatal(err)
	}
	lease := func(namespaced bool, verbs ...string) Resource {
		return Resource{
			Kind:   schema.GroupVersionKind{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"},
			Plural: "leases", Namespaced: namespaced, Verbs: verbs,
			Object: &coordinationv1.Lease{}, List: &coordinationv1.LeaseList{},
		}
	}
	const root = "/apis/coordination.k8s.io/v1"
	tests := []struct {
		name string
		r    Resource
		want []string // method, path, verb+rest, action
	}{
		{"list without watch, cluster-scoped", lease(false, VerbList), []string{
			"GET /apis/coordination.k8s.io/v1/leases listLease list",
		}},
		{"list and watch, namespaced", lease(true, VerbList, VerbWatch), []string{
			"GET /apis/coordination.k8s.io/v1/namespaces/{namespace}/leases listNamespacedLease list",
			"GET /apis/coordination.k8s.io/v1/leases listLeaseForAllNamespaces list",
			"GET /apis/coordination.k8s.io/v1/watch/namespaces/{namespace}/leases watchNamespacedLeaseList watchlist",
			"GET /apis/coordination.k8s.io/v1/watch/leases watchLeaseListForAllNamespaces watchlist",
			"GET /apis/coordination.k8s.io/v1/watch/namespaces/{namespace}/leases/{name} watchNamespacedLease watch",
		}},
		{"watch without list: only the item's watch", lease(false, VerbWatch), []string{
			"GET /apis/coordination.k8s.io/v1/watch/leases/{name} watchLease watch",
		}},
		{"writes, namespaced", lease(true, VerbDelete, VerbPatch, VerbCreate, VerbUpdate, VerbDeleteCollection, VerbGet), []string{
			"POST /apis/coordination.k8s.io/v1/namespaces/{namespace}/leases createNamespacedLease post",
			"DELETE /apis/coordination.k8s.io/v1/namespaces/{namespace}/leases deletecollectionNamespacedLease deletecollection",
			"GET /apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name} readNamespacedLease get",
			"PUT /apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name} replaceNamespacedLease put",
			"PATCH /apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name} patchNamespacedLease patch",
			"DELETE /apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name} deleteNamespacedLease delete",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			routes, err := resourceRoutes(root, tt.r, q)
			if err != nil {
				t.Fatalf("resourceRoutes: %v", err)
			}
			var got []string
			for _, rt := range routes {
				got = append(got, strings.Join([]string{rt.method, rt.path, rt.verb + rt.rest, rt.action}, " "))
				if rt.gvk == nil || *rt.gvk != tt.r.Kind {
					t.Errorf("%s %s: kind %v, want %v", rt.method, rt.path, rt.gvk, tt.r.Kind)
				}
				if len(rt.params) == 0 || rt.params[0].Name != "pretty" {
					t.Errorf("%s %s: parameters do not start with pretty", rt.method, rt.path)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("routes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestSubresourceRoutes checks that a subresource's operations are named
// for the parent and typed by the subresource's kind.
func TestSubresourceRoutes(t *testing.T) {
	q, err := buildQueryParamSets()
	if err != nil {
		t.Fatal(err)
	}
	pod := testResources()[0]
	rp := newResourcePaths("/api/v1", pod)
	binding := pod.Subresources[1]
	routes, err := rp.subresourceRoutes(binding, q)
	if err != nil {
		t.Fatalf("subresourceRoutes: %v", err)
	}
	if len(routes) != 1 {
		t.Fatalf("got %d routes, want 1", len(routes))
	}
	rt := routes[0]
	if got, want := rt.method+" "+rt.path+" "+rt.verb+rt.rest, "POST /api/v1/namespaces/{namespace}/pods/{name}/binding createNamespacedPodBinding"; got != want {
		t.Errorf("route %q, want %q", got, want)
	}
	if *rt.gvk != binding.Kind {
		t.Errorf("kind %v, want %v", *rt.gvk, binding.Kind)
	}
	if rt.description != "create binding of a Pod" {
		t.Errorf("description %q, want %q", rt.description, "create binding of a Pod")
	}
	var names []string
	for _, p := range rt.params {
		names = append(names, p.In+":"+p.Name+":"+p.Description)
	}
	if !slices.Contains(names, "path:name:name of the Binding") {
		t.Errorf("parameters %v lack the name of the Binding", names)
	}
}
