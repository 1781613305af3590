package auth

import (
	"fmt"
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Kubernetes API verbs as RBAC rules name them.
const (
	VerbGet              = "get"
	VerbList             = "list"
	VerbWatch            = "watch"
	VerbCreate           = "create"
	VerbUpdate           = "update"
	VerbPatch            = "patch"
	VerbDelete           = "delete"
	VerbDeleteCollection = "deletecollection"
	VerbProxy            = "proxy"
)

// Attributes describe one request for authorization, as kube-apiserver's
// RequestInfo and authorizer attributes do.
type Attributes struct {
	// User is who makes the request; ResolveRequest leaves it nil.
	User *User
	// Verb is the Kubernetes verb of a resource request (get list watch
	// create update patch delete deletecollection, or proxy) and the
	// lowercased HTTP method of a non-resource request.
	Verb string
	// ResourceRequest is true for /api/<v>/... and /apis/<g>/<v>/... paths
	// that name a resource; the other fields below then describe it.
	ResourceRequest bool
	// Path is the URL path.
	Path string

	APIGroup, APIVersion, Resource, Subresource, Namespace, Name string

	// FieldSelector is the raw fieldSelector query parameter of a list,
	// watch or deletecollection (not set for the legacy /watch/ paths, as
	// upstream). The Node authorizer reads it: a kubelet may list and watch
	// only the pods whose spec.nodeName is its own.
	FieldSelector string
}

// IsResourceRequest reports a.ResourceRequest (upstream's accessor name).
func (a Attributes) IsResourceRequest() bool { return a.ResourceRequest }

// Path roots that hold resource requests: the groupless legacy API and the
// named groups.
const (
	legacyAPIPrefix = "api"
	groupAPIPrefix  = "apis"
)

// namespaceSubresources are the subresources of the namespace resource; any
// other word after /namespaces/{name}/ is a namespaced resource.
var namespaceSubresources = map[string]bool{"status": true, "finalize": true}

// ResolveRequest reads the authorization attributes of r from its method,
// path and query, with kube-apiserver's rules (User is left nil):
//
//   - Paths outside /api/<version>/<...> and /apis/<group>/<version>/<...>
//     (/healthz, /version, /openapi/v3, and the discovery paths /api,
//     /api/v1, /apis, /apis/<group>, /apis/<group>/<version>) are
//     non-resource requests with the lowercased HTTP method as verb.
//   - The verb comes from the method: POST create, GET and HEAD get, PUT
//     update, PATCH patch, DELETE delete; any other method gives "".
//     A get without a name is a list, or a watch when the query says
//     ?watch=true (or any value but false/0); a delete without a name is a
//     deletecollection. A first segment "watch" or "proxy" after the
//     version (the legacy /api/v1/watch/... paths) is the verb itself.
//   - namespaces/{ns}/<resource>/{name}/<subresource> sets the namespace;
//     /namespaces/{name}[/status|/finalize] is the namespace resource
//     itself, whose Namespace is set to its name, as upstream does.
//   - A list or watch without a name whose fieldSelector requires
//     metadata.name=<x> (a valid path segment) gets Name x, so that RBAC
//     resourceNames apply to it.
//
// The error is upstream's for a path that ends right after a special verb
// (/api/v1/watch); kube-apiserver answers it with a 500. The returned
// Attributes then hold what was resolved so far.
func ResolveRequest(r *http.Request) (Attributes, error) {
	a := Attributes{Path: r.URL.Path, Verb: strings.ToLower(r.Method)}

	parts := splitPath(r.URL.Path)
	if len(parts) < 3 || (parts[0] != legacyAPIPrefix && parts[0] != groupAPIPrefix) {
		return a, nil
	}
	prefix := parts[0]
	parts = parts[1:]
	if prefix == groupAPIPrefix {
		if len(parts) < 3 { // group, version and at least one more
			return a, nil
		}
		a.APIGroup = parts[0]
		parts = parts[1:]
	}
	a.ResourceRequest = true
	a.APIVersion = parts[0]
	parts = parts[1:]

	verbFromPath := false
	if parts[0] == VerbWatch || parts[0] == VerbProxy {
		if len(parts) < 2 {
			return a, fmt.Errorf("unable to determine kind and namespace from url, %v", r.URL)
		}
		a.Verb = parts[0]
		parts = parts[1:]
		verbFromPath = true
	} else {
		a.Verb = verbForMethod(r.Method)
	}

	if parts[0] == "namespaces" && len(parts) > 1 {
		a.Namespace = parts[1]
		if len(parts) > 2 && !namespaceSubresources[parts[2]] {
			parts = parts[2:] // a resource inside the namespace
		}
	}

	// parts is now resource[/name[/subresource[/more...]]].
	a.Resource = parts[0]
	if len(parts) > 1 {
		a.Name = parts[1]
	}
	if len(parts) > 2 && a.Verb != VerbProxy {
		a.Subresource = parts[2]
	}

	if a.Name == "" && a.Verb == VerbGet {
		a.Verb, a.Name = listVerb(r)
	}
	if a.Name == "" && a.Verb == VerbDelete {
		a.Verb = VerbDeleteCollection
	}
	if !verbFromPath && (a.Verb == VerbList || a.Verb == VerbWatch || a.Verb == VerbDeleteCollection) {
		if v := r.URL.Query()["fieldSelector"]; len(v) > 0 {
			a.FieldSelector = v[0]
		}
	}
	return a, nil
}

// verbForMethod maps an HTTP method to the verb of a request on a named
// object (or a collection, before list and deletecollection are told apart).
func verbForMethod(method string) string {
	switch method {
	case http.MethodPost:
		return VerbCreate
	case http.MethodGet, http.MethodHead:
		return VerbGet
	case http.MethodPut:
		return VerbUpdate
	case http.MethodPatch:
		return VerbPatch
	case http.MethodDelete:
		return VerbDelete
	}
	return ""
}

// listVerb tells list from watch for a GET on a collection, by decoding the
// query as ListOptions the way the server does, and returns the name a
// metadata.name field selector pins the request to. A query that does not
// decode still honours ?watch unless it is false or 0.
func listVerb(r *http.Request) (verb, name string) {
	query := r.URL.Query()
	opts := metainternalversion.ListOptions{}
	if err := metainternalversionscheme.ParameterCodec.DecodeParameters(query, metav1.SchemeGroupVersion, &opts); err != nil {
		opts = metainternalversion.ListOptions{}
		if v := query["watch"]; len(v) > 0 {
			switch strings.ToLower(v[0]) {
			case "false", "0":
			default:
				opts.Watch = true
			}
		}
	}
	verb = VerbList
	if opts.Watch {
		verb = VerbWatch
	}
	if opts.FieldSelector != nil {
		if n, ok := opts.FieldSelector.RequiresExactMatch("metadata.name"); ok && len(content.IsPathSegmentName(n)) == 0 {
			name = n
		}
	}
	return verb, name
}

// splitPath returns the segments of a URL path, without empty ends.
func splitPath(path string) []string {
	path = strings.Trim(path, "/")
	if path == "" {
		return nil
	}
	return strings.Split(path, "/")
}
