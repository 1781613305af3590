package auth

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestResolveRequest(t *testing.T) {
	// res builds the expected attributes of a resource request.
	res := func(verb, group, version, ns, resource, name, sub string) Attributes {
		return Attributes{Verb: verb, ResourceRequest: true, APIGroup: group, APIVersion: version,
			Namespace: ns, Resource: resource, Name: name, Subresource: sub}
	}
	nonRes := func(verb string) Attributes { return Attributes{Verb: verb} }
	withSelector := func(a Attributes, fs string) Attributes { a.FieldSelector = fs; return a }

	tests := []struct {
		method string
		url    string
		want   Attributes // Path is filled in from url
	}{
		// Namespaced resources.
		{http.MethodGet, "/api/v1/namespaces/default/pods", res("list", "", "v1", "default", "pods", "", "")},
		{http.MethodGet, "/api/v1/namespaces/default/pods/web", res("get", "", "v1", "default", "pods", "web", "")},
		{http.MethodHead, "/api/v1/namespaces/default/pods/web", res("get", "", "v1", "default", "pods", "web", "")},
		{http.MethodPost, "/api/v1/namespaces/default/pods", res("create", "", "v1", "default", "pods", "", "")},
		{http.MethodPut, "/api/v1/namespaces/default/pods/web", res("update", "", "v1", "default", "pods", "web", "")},
		{http.MethodPatch, "/api/v1/namespaces/default/pods/web", res("patch", "", "v1", "default", "pods", "web", "")},
		{http.MethodDelete, "/api/v1/namespaces/default/pods/web", res("delete", "", "v1", "default", "pods", "web", "")},
		{http.MethodDelete, "/api/v1/namespaces/default/pods", res("deletecollection", "", "v1", "default", "pods", "", "")},
		{http.MethodOptions, "/api/v1/namespaces/default/pods/web", res("", "", "v1", "default", "pods", "web", "")},
		// All namespaces and cluster-scoped resources.
		{http.MethodGet, "/api/v1/pods", res("list", "", "v1", "", "pods", "", "")},
		{http.MethodHead, "/api/v1/pods", res("list", "", "v1", "", "pods", "", "")},
		{http.MethodGet, "/api/v1/nodes/node-a", res("get", "", "v1", "", "nodes", "node-a", "")},
		{http.MethodDelete, "/api/v1/nodes", res("deletecollection", "", "v1", "", "nodes", "", "")},
		{http.MethodDelete, "/api/v1/nodes/node-b", res("delete", "", "v1", "", "nodes", "node-b", "")},
		// Subresources.
		{http.MethodGet, "/api/v1/namespaces/default/pods/web/status", res("get", "", "v1", "default", "pods", "web", "status")},
		{http.MethodPatch, "/api/v1/namespaces/default/pods/web/status", res("patch", "", "v1", "default", "pods", "web", "status")},
		{http.MethodPost, "/api/v1/namespaces/default/pods/web/binding", res("create", "", "v1", "default", "pods", "web", "binding")},
		{http.MethodGet, "/api/v1/namespaces/default/pods/web/proxy/some/path", res("get", "", "v1", "default", "pods", "web", "proxy")},
		{http.MethodPut, "/api/v1/nodes/node-a/status", res("update", "", "v1", "", "nodes", "node-a", "status")},
		{http.MethodPost, "/api/v1/namespaces/default/bindings", res("create", "", "v1", "default", "bindings", "", "")},
		// The namespace resource: its namespace is its own name.
		{http.MethodGet, "/api/v1/namespaces", res("list", "", "v1", "", "namespaces", "", "")},
		{http.MethodPost, "/api/v1/namespaces", res("create", "", "v1", "", "namespaces", "", "")},
		{http.MethodDelete, "/api/v1/namespaces", res("deletecollection", "", "v1", "", "namespaces", "", "")},
		{http.MethodGet, "/api/v1/namespaces/team-a", res("get", "", "v1", "team-a", "namespaces", "team-a", "")},
		{http.MethodDelete, "/api/v1/namespaces/team-a", res("delete", "", "v1", "team-a", "namespaces", "team-a", "")},
		{http.MethodPut, "/api/v1/namespaces/team-a/status", res("update", "", "v1", "team-a", "namespaces", "team-a", "status")},
		{http.MethodPut, "/api/v1/namespaces/team-a/finalize", res("update", "", "v1", "team-a", "namespaces", "team-a", "finalize")},
		// Named groups.
		{http.MethodGet, "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-a",
			res("get", "coordination.k8s.io", "v1", "kube-node-lease", "leases", "node-a", "")},
		{http.MethodPut, "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-a",
			res("update", "coordination.k8s.io", "v1", "kube-node-lease", "leases", "node-a", "")},
		{http.MethodGet, "/apis/coordination.k8s.io/v1/leases", res("list", "coordination.k8s.io", "v1", "", "leases", "", "")},
		{http.MethodPost, "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
			res("create", "rbac.authorization.k8s.io", "v1", "default", "roles", "", "")},
		{http.MethodGet, "/apis/rbac.authorization.k8s.io/v1/clusterroles/view",
			res("get", "rbac.authorization.k8s.io", "v1", "", "clusterroles", "view", "")},
		{http.MethodPost, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
			res("create", "authorization.k8s.io", "v1", "", "selfsubjectaccessreviews", "", "")},
		// Watches: the query parameter and the legacy /watch/ prefix.
		{http.MethodGet, "/api/v1/pods?watch=true", res("watch", "", "v1", "", "pods", "", "")},
		{http.MethodGet, "/api/v1/pods?watch=1", res("watch", "", "v1", "", "pods", "", "")},
		{http.MethodGet, "/api/v1/pods?watch=false", res("list", "", "v1", "", "pods", "", "")},
		{http.MethodGet, "/api/v1/namespaces/default/pods?watch=0", res("list", "", "v1", "default", "pods", "", "")},
		{http.MethodGet, "/api/v1/namespaces/default/pods?watch=true&resourceVersion=12&allowWatchBookmarks=true",
			res("watch", "", "v1", "default", "pods", "", "")},
		{http.MethodGet, "/api/v1/namespaces/default/pods/web?watch=true", res("get", "", "v1", "default", "pods", "web", "")},
		{http.MethodGet, "/api/v1/watch/pods", res("watch", "", "v1", "", "pods", "", "")},
		{http.MethodGet, "/api/v1/watch/namespaces/default/pods", res("watch", "", "v1", "default", "pods", "", "")},
		{http.MethodGet, "/api/v1/watch/namespaces/default/pods/web", res("watch", "", "v1", "default", "pods", "web", "")},
		{http.MethodGet, "/api/v1/watch/namespaces", res("watch", "", "v1", "", "namespaces", "", "")},
		{http.MethodGet, "/api/v1/watch/namespaces/team-a", res("watch", "", "v1", "team-a", "namespaces", "team-a", "")},
		{http.MethodGet, "/apis/coordination.k8s.io/v1/watch/namespaces/kube-node-lease/leases",
			res("watch", "coordination.k8s.io", "v1", "kube-node-lease", "leases", "", "")},
		// The legacy prefix takes no selectors into account.
		{http.MethodGet, "/api/v1/watch/pods?fieldSelector=metadata.name%3Dweb", res("watch", "", "v1", "", "pods", "", "")},
		// Field selectors: metadata.name pins the name of a list or watch.
		{http.MethodGet, "/api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Dweb",
			withSelector(res("list", "", "v1", "default", "pods", "web", ""), "metadata.name=web")},
		{http.MethodGet, "/api/v1/nodes?fieldSelector=metadata.name%3Dnode-a&watch=true",
			withSelector(res("watch", "", "v1", "", "nodes", "node-a", ""), "metadata.name=node-a")},
		{http.MethodGet, "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a",
			withSelector(res("list", "", "v1", "", "pods", "", ""), "spec.nodeName=node-a")},
		{http.MethodGet, "/api/v1/pods?watch=1&fieldSelector=spec.nodeName%3Dnode-a",
			withSelector(res("watch", "", "v1", "", "pods", "", ""), "spec.nodeName=node-a")},
		{http.MethodGet, "/api/v1/pods?fieldSelector=metadata.name%21%3Dweb",
			withSelector(res("list", "", "v1", "", "pods", "", ""), "metadata.name!=web")},
		{http.MethodGet, "/api/v1/pods?fieldSelector=metadata.name%3D..",
			withSelector(res("list", "", "v1", "", "pods", "", ""), "metadata.name=..")},
		// A query that does not decode: the selectors are lost, ?watch is still read.
		{http.MethodGet, "/api/v1/pods?fieldSelector=metadata.name%3Dweb,junk&watch=true",
			withSelector(res("watch", "", "v1", "", "pods", "", ""), "metadata.name=web,junk")},
		{http.MethodGet, "/api/v1/pods?fieldSelector=junk&watch=false",
			withSelector(res("list", "", "v1", "", "pods", "", ""), "junk")},
		{http.MethodDelete, "/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%3Dnode-a",
			withSelector(res("deletecollection", "", "v1", "default", "pods", "", ""), "spec.nodeName=node-a")},
		// Not resource requests: discovery, health, version, OpenAPI.
		{http.MethodGet, "/", nonRes("get")},
		{http.MethodGet, "/api", nonRes("get")},
		{http.MethodGet, "/api/v1", nonRes("get")},
		{http.MethodGet, "/api/v1/", nonRes("get")},
		{http.MethodGet, "/apis", nonRes("get")},
		{http.MethodGet, "/apis/coordination.k8s.io", nonRes("get")},
		{http.MethodGet, "/apis/coordination.k8s.io/v1", nonRes("get")},
		{http.MethodGet, "/apis/v1/pods", nonRes("get")},
		{http.MethodGet, "/healthz", nonRes("get")},
		{http.MethodHead, "/readyz/etcd", nonRes("head")},
		{http.MethodGet, "/version", nonRes("get")},
		{http.MethodGet, "/openapi/v3/api/v1", nonRes("get")},
		{http.MethodPost, "/metrics", nonRes("post")},
		{http.MethodGet, "/badprefix/v1/pods", nonRes("get")},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.url, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, tt.url, nil)
			got, err := ResolveRequest(r)
			if err != nil {
				t.Fatalf("err = %v, want none", err)
			}
			want := tt.want
			want.Path = r.URL.Path
			if got != want {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestResolveRequestErrors(t *testing.T) {
	for _, url := range []string{"/api/v1/watch", "/apis/coordination.k8s.io/v1/watch/", "/api/v1/proxy"} {
		t.Run(url, func(t *testing.T) {
			got, err := ResolveRequest(httptest.NewRequest(http.MethodGet, url, nil))
			if err == nil {
				t.Fatalf("got %+v and no error, want an error", got)
			}
			if !got.ResourceRequest {
				t.Errorf("ResourceRequest = false, want true (resolved as far as possible)")
			}
		})
	}
}
