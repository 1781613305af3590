package openapi

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kube-openapi/pkg/spec3"
)

// Media types this server answers with. It speaks JSON only (no YAML, no
// protobuf), so unlike kube-apiserver's documents these list only JSON.
var (
	objectMediaTypes = []string{"application/json"}
	streamMediaTypes = []string{"application/json", "application/json;stream=watch"}
)

// patchContentTypes are the PATCH bodies this server accepts. Server-side
// apply (application/apply-patch+yaml) is not among them.
var patchContentTypes = []string{
	string(types.JSONPatchType),
	string(types.MergePatchType),
	string(types.StrategicMergePatchType),
}

// route is one operation before it is placed in the document.
type route struct {
	method      string // GET, POST, PUT, PATCH, DELETE
	path        string
	verb        string // first word of the operation name: list, create, read ...
	rest        string // the rest of it: NamespacedPod, PodListForAllNamespaces ...
	action      string // x-kubernetes-action; empty for discovery
	gvk         *schema.GroupVersionKind
	description string
	params      []*spec3.Parameter
	body        *body
	responses   []response
}

// body is the request body of an operation.
type body struct {
	model        any
	contentTypes []string
	required     bool
}

// response is one answer of an operation: its status code and what it
// carries.
type response struct {
	code        int
	description string
	model       any
	mediaTypes  []string
}

// gvRoot is the URL prefix of a group-version: /api/v1 or /apis/<group>/<version>.
func gvRoot(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "/api/" + gv.Version
	}
	return "/apis/" + gv.Group + "/" + gv.Version
}

// routesFor lists the operations of one group-version, following the
// actions kube-apiserver's installer registers for each verb.
func routesFor(gv schema.GroupVersion, resources []Resource, q *queryParamSets) ([]route, error) {
	root := gvRoot(gv)
	routes := []route{{
		method: "GET", path: root + "/", verb: "get", rest: "APIResources",
		description: "get available resources",
		responses:   []response{{200, "OK", &metav1.APIResourceList{}, objectMediaTypes}},
	}}
	for _, r := range resources {
		rs, err := resourceRoutes(root, r, q)
		if err != nil {
			return nil, fmt.Errorf("resource %s: %w", r.Plural, err)
		}
		routes = append(routes, rs...)
	}
	return routes, nil
}

// resourceRoutes lists the operations of one resource and its
// subresources under root, the URL prefix of its group-version: per verb
// the operations kube-apiserver's installer registers, the legacy /watch/
// paths, and the all-namespaces forms of a namespaced resource's list and
// watch. It fails on a verb it does not know, on list without a List
// object, and on a malformed subresource.
func resourceRoutes(root string, r Resource, q *queryParamSets) ([]route, error) {
	for _, v := range r.Verbs {
		if !contains([]string{VerbCreate, VerbDelete, VerbDeleteCollection, VerbGet, VerbList, VerbPatch, VerbUpdate, VerbWatch}, v) {
			return nil, fmt.Errorf("unknown verb %q", v)
		}
	}
	if r.has(VerbList) && r.List == nil {
		return nil, fmt.Errorf("verb list needs a List object")
	}
	rp := newResourcePaths(root, r)
	routes := append(rp.collectionRoutes(q), rp.itemRoutes(q)...)
	for _, sub := range r.Subresources {
		rs, err := rp.subresourceRoutes(sub, q)
		if err != nil {
			return nil, fmt.Errorf("subresource %s: %w", sub.Name, err)
		}
		routes = append(routes, rs...)
	}
	return routes, nil
}

// has reports whether r serves verb.
func (r Resource) has(verb string) bool { return contains(r.Verbs, verb) }

// resourcePaths are the paths of one resource and the path parameters
// they carry: what its operations and its subresources' are built from.
type resourcePaths struct {
	r    Resource
	gvk  *schema.GroupVersionKind // of every operation on the resource itself
	root string                   // the group-version's URL prefix
	// scope is "Namespaced" for a namespaced resource, else "": the word
	// after the verb in its collection and item operation ids.
	scope string
	// coll and item are the collection and item paths, relative to root:
	// pods or namespaces/{namespace}/pods, and that with /{name}.
	coll, item string
	// scopeParams is the namespace parameter of a namespaced resource;
	// itemParams is scopeParams and the name parameter.
	scopeParams, itemParams []*spec3.Parameter
}

// newResourcePaths lays out the paths of r under root.
func newResourcePaths(root string, r Resource) *resourcePaths {
	gvk := r.Kind
	rp := &resourcePaths{r: r, gvk: &gvk, root: root, coll: r.Plural}
	if r.Namespaced {
		rp.scope, rp.coll = "Namespaced", "namespaces/{namespace}/"+r.Plural
		rp.scopeParams = []*spec3.Parameter{pathParam("namespace", namespaceDescription)}
	}
	rp.item = rp.coll + "/{name}"
	rp.itemParams = append(clone(rp.scopeParams), pathParam("name", "name of the "+r.Kind.Kind))
	return rp
}

// objectResponses answers each of codes with obj as JSON.
func objectResponses(obj any, codes ...int) []response {
	var out []response
	for _, c := range codes {
		out = append(out, response{c, statusText(c), obj, objectMediaTypes})
	}
	return out
}

// collectionRoutes lists the operations on the resource's collection, in
// kube-apiserver's order: list, create, deletecollection, the legacy
// watch of the list.
func (rp *resourcePaths) collectionRoutes(q *queryParamSets) []route {
	r, kind := rp.r, rp.r.Kind.Kind
	routes := rp.listRoutes(q)
	if r.has(VerbCreate) {
		routes = append(routes, route{method: "POST", path: rp.root + "/" + rp.coll, verb: "create", rest: rp.scope + kind, action: "post",
			gvk: rp.gvk, description: "create" + article(kind) + kind, params: withPretty(q.create, rp.scopeParams),
			body:      &body{r.Object, []string{"*/*"}, true},
			responses: objectResponses(r.Object, 200, 201, 202)})
	}
	if r.has(VerbDeleteCollection) {
		routes = append(routes, route{method: "DELETE", path: rp.root + "/" + rp.coll, verb: "deletecollection", rest: rp.scope + kind, action: "deletecollection",
			gvk: rp.gvk, description: "delete collection of " + kind, params: withPretty(q.deleteCollection, rp.scopeParams),
			body:      &body{&metav1.DeleteOptions{}, []string{"*/*"}, false},
			responses: objectResponses(&metav1.Status{}, 200)})
	}
	return append(routes, rp.watchListRoutes(q)...)
}

// listRoutes lists the list operations of a resource with verb list: on
// its collection and, if it is namespaced, across all namespaces.
func (rp *resourcePaths) listRoutes(q *queryParamSets) []route {
	r, kind := rp.r, rp.r.Kind.Kind
	if !r.has(VerbList) {
		return nil
	}
	desc := "list objects of kind " + kind
	if r.has(VerbWatch) {
		desc = "list or watch objects of kind " + kind
	}
	list := route{method: "GET", path: rp.root + "/" + rp.coll, verb: "list", rest: rp.scope + kind, action: "list",
		gvk: rp.gvk, description: desc, params: withPretty(q.list, rp.scopeParams),
		responses: []response{{200, "OK", r.List, streamMediaTypes}}}
	if !r.Namespaced {
		return []route{list}
	}
	all := list
	all.path, all.rest, all.params = rp.root+"/"+r.Plural, kind+"ForAllNamespaces", withPretty(q.list)
	return []route{list, all}
}

// watchListRoutes lists the legacy /watch/ form of the list watch, kept by
// kube-apiserver for old clients, of a resource with verbs list and
// watch: on its collection and, if it is namespaced, across all
// namespaces.
func (rp *resourcePaths) watchListRoutes(q *queryParamSets) []route {
	r, kind := rp.r, rp.r.Kind.Kind
	if !r.has(VerbWatch) || !r.has(VerbList) {
		return nil
	}
	watchList := route{method: "GET", path: rp.root + "/watch/" + rp.coll, verb: "watch", rest: rp.scope + kind + "List", action: "watchlist",
		gvk:         rp.gvk,
		description: "watch individual changes to a list of " + kind + ". deprecated: use the 'watch' parameter with a list operation instead.",
		params:      withPretty(q.list, rp.scopeParams),
		responses:   []response{{200, "OK", &metav1.WatchEvent{}, streamMediaTypes}}}
	if !r.Namespaced {
		return []route{watchList}
	}
	all := watchList
	all.path, all.rest, all.params = rp.root+"/watch/"+r.Plural, kind+"ListForAllNamespaces", withPretty(q.list)
	return []route{watchList, all}
}

// itemRoutes lists the operations on one object of the resource, in
// kube-apiserver's order: read, replace, patch, delete, and the legacy
// watch of one object.
func (rp *resourcePaths) itemRoutes(q *queryParamSets) []route {
	r, kind := rp.r, rp.r.Kind.Kind
	path := rp.root + "/" + rp.item
	item := func(method, verb, action, description string, params []*spec3.Parameter, b *body, responses []response) route {
		return route{method: method, path: path, verb: verb, rest: rp.scope + kind, action: action, gvk: rp.gvk,
			description: description, params: params, body: b, responses: responses}
	}
	deleted := any(&metav1.Status{})
	if r.DeleteReturnsObject {
		deleted = r.Object
	}
	var routes []route
	if r.has(VerbGet) {
		routes = append(routes, item("GET", "read", "get", "read the specified "+kind, withPretty(rp.itemParams),
			nil, objectResponses(r.Object, 200)))
	}
	if r.has(VerbUpdate) {
		routes = append(routes, item("PUT", "replace", "put", "replace the specified "+kind, withPretty(q.update, rp.itemParams),
			&body{r.Object, []string{"*/*"}, true}, objectResponses(r.Object, 200, 201)))
	}
	if r.has(VerbPatch) {
		// Only 200: kube-apiserver also lists 201, which only server-side
		// apply can produce.
		routes = append(routes, item("PATCH", "patch", "patch", "partially update the specified "+kind, withPretty(q.patch, rp.itemParams),
			&body{&metav1.Patch{}, patchContentTypes, true}, objectResponses(r.Object, 200)))
	}
	if r.has(VerbDelete) {
		routes = append(routes, item("DELETE", "delete", "delete", "delete"+article(kind)+kind, withPretty(q.delete, rp.itemParams),
			&body{&metav1.DeleteOptions{}, []string{"*/*"}, false}, objectResponses(deleted, 200, 202)))
	}
	if r.has(VerbWatch) {
		w := item("GET", "watch", "watch", "watch changes to an object of kind "+kind+". deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.",
			withPretty(q.list, rp.itemParams), nil, []response{{200, "OK", &metav1.WatchEvent{}, streamMediaTypes}})
		w.path = rp.root + "/watch/" + rp.item
		routes = append(routes, w)
	}
	return routes
}

// subresourceRoutes lists the operations of sub, a subresource of the
// resource (pods/status, pods/binding and the like), one per verb it
// serves. Their operation names and descriptions use the parent's kind;
// their x-kubernetes-group-version-kind, name parameter text and bodies
// use the subresource's kind. It fails on a malformed subresource and on
// a verb a subresource cannot have.
func (rp *resourcePaths) subresourceRoutes(sub Subresource, q *queryParamSets) ([]route, error) {
	if sub.Name == "" || strings.Contains(sub.Name, "/") {
		return nil, fmt.Errorf("bad subresource name %q", sub.Name)
	}
	if sub.Object == nil {
		return nil, fmt.Errorf("no Object")
	}
	if sub.Kind.Kind == "" || sub.Kind.Version == "" {
		return nil, fmt.Errorf("incomplete Kind %v", sub.Kind)
	}
	gvk := sub.Kind
	path := rp.root + "/" + rp.item + "/" + sub.Name
	params := append(clone(rp.scopeParams), pathParam("name", "name of the "+sub.Kind.Kind))
	rest := rp.scope + rp.r.Kind.Kind + titleCase(sub.Name)
	var routes []route
	for _, v := range sub.Verbs {
		rt, err := subresourceRoute(v, sub, rp.r.Kind.Kind, params, q)
		if err != nil {
			return nil, err
		}
		rt.path, rt.rest, rt.gvk = path, rest, &gvk
		routes = append(routes, rt)
	}
	return routes, nil
}

// subresourceRoute is the operation of verb on sub, a subresource of a
// resource of kind parentKind, whose path parameters are params; its path,
// operation name and kind are for the caller to fill in.
func subresourceRoute(verb string, sub Subresource, parentKind string, params []*spec3.Parameter, q *queryParamSets) (route, error) {
	switch verb {
	case VerbGet:
		return route{method: "GET", verb: "read", action: "get",
			description: "read " + sub.Name + " of the specified " + parentKind, params: withPretty(params),
			responses: objectResponses(sub.Object, 200)}, nil
	case VerbCreate:
		return route{method: "POST", verb: "create", action: "post",
			description: "create " + sub.Name + " of" + article(parentKind) + parentKind, params: withPretty(q.create, params),
			body: &body{sub.Object, []string{"*/*"}, true}, responses: objectResponses(sub.Object, 200, 201, 202)}, nil
	case VerbUpdate:
		return route{method: "PUT", verb: "replace", action: "put",
			description: "replace " + sub.Name + " of the specified " + parentKind, params: withPretty(q.update, params),
			body: &body{sub.Object, []string{"*/*"}, true}, responses: objectResponses(sub.Object, 200, 201)}, nil
	case VerbPatch:
		return route{method: "PATCH", verb: "patch", action: "patch",
			description: "partially update " + sub.Name + " of the specified " + parentKind, params: withPretty(q.patch, params),
			body: &body{&metav1.Patch{}, patchContentTypes, true}, responses: objectResponses(sub.Object, 200)}, nil
	case VerbDelete:
		return route{method: "DELETE", verb: "delete", action: "delete",
			description: "delete " + sub.Name + " of" + article(parentKind) + parentKind, params: withPretty(q.delete, params),
			body: &body{&metav1.DeleteOptions{}, []string{"*/*"}, false}, responses: objectResponses(&metav1.Status{}, 200, 202)}, nil
	}
	return route{}, fmt.Errorf("verb %q is not supported on a subresource", verb)
}

// statusText is the description of a response code, as kube-apiserver
// words it.
func statusText(code int) string {
	switch code {
	case 200:
		return "OK"
	case 201:
		return "Created"
	case 202:
		return "Accepted"
	}
	return fmt.Sprint(code)
}

// article returns " a ", " an " or, for a plural-looking noun, " ", so that
// "create"+article(kind)+kind reads like kube-apiserver's descriptions.
func article(noun string) string {
	if strings.HasSuffix(noun, "s") && !strings.HasSuffix(noun, "ss") {
		return " "
	}
	if noun != "" && strings.ContainsRune("aeiouAEIOU", rune(noun[0])) {
		return " an "
	}
	return " a "
}

// titleCase upper-cases the first letter and lower-cases the rest
// (status -> Status, ephemeralcontainers -> Ephemeralcontainers).
func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + strings.ToLower(s[1:])
}
