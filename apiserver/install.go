package apiserver

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"unicode"

	restful "github.com/emicklei/go-restful/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/apiserver/pkg/endpoints/deprecation"

	"github.com/kubesim/kubesim/apiserver/request"
)

// InstallAPIGroups adds to c, kube-apiserver's go-restful Container, one
// WebService per built-in group-version, with a Route per verb and path,
// and the discovery services (/api, /apis, /version), and makes c the
// Container RestfulContainer returns. Package kubeapiserver calls it
// once.
func (s *Server) InstallAPIGroups(c *restful.Container) {
	for _, g := range s.groups {
		c.Add(s.GroupWebService(g))
	}
	s.installDiscovery(c)
	s.container = c
}

// HealthHandler serves /healthz, /livez and /readyz (health.go).
func (s *Server) HealthHandler() http.Handler { return http.HandlerFunc(s.health) }

// The media types of the routes, as upstream's APIInstaller sets them. Its
// go-restful answers, before any handler runs, a request whose Accept none
// of a route's Produces matches with 406 ("406: Not Acceptable\n\nAvailable
// representations: ...") and one whose Content-Type its Consumes lacks
// with 415 ("415: Unsupported Media Type"), through serviceError. Only
// lists and watches produce the stream types; only PATCH names what it
// consumes (every patch type upstream's route takes).
var (
	objectMediaTypes = acceptedMediaTypes
	allMediaTypes    = append(slices.Clone(objectMediaTypes), mediaJSON+";stream=watch", mediaProtobuf+";stream=watch")
	routePatchTypes  = slices.Clone(patchTypes)
)

// serviceError answers an error of go-restful's own dispatch (no Route
// for the path in a WebService that claimed it: 404; a Route for the path
// but not the method: 405; not the media types of the Route: 415, 406) as
// kube-apiserver does, with a metav1.Status.
func (s *Server) serviceError(serr restful.ServiceError, req *restful.Request, resp *restful.Response) {
	s.WriteError(resp.ResponseWriter, req.Request, apierrors.NewGenericServerResponse(serr.Code, "", schema.GroupResource{}, "", serr.Message, 0, false))
}

// rootPath is the URL prefix of a group-version.
func rootPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "/api/" + gv.Version
	}
	return "/apis/" + gv.Group + "/" + gv.Version
}

// RouteFunction adapts the plain handler h to the go-restful route
// function of a Route in ws: it records in the request's trace what
// go-restful's dispatch chose (the WebService, the Route and its path
// parameters), calls h with the path parameters, and answers an error h
// returns as a metav1.Status; Monitor records the request in the request
// metrics.
func (s *Server) RouteFunction(ws *restful.WebService, h HandlerFunc) restful.RouteFunction {
	return func(req *restful.Request, resp *restful.Response) {
		p := Params{Namespace: req.PathParameter("namespace"), Name: req.PathParameter("name")}
		if t := request.TraceFrom(req.Request.Context()); t.Recording() {
			route := req.SelectedRoute()
			template := req.Request.Method + " " + req.SelectedRoutePath()
			t.SetRoute(template)
			var pp []string
			for _, k := range slices.Sorted(maps.Keys(req.PathParameters())) {
				pp = append(pp, k+"="+req.PathParameter(k))
			}
			op := ""
			if route != nil {
				op = route.Operation()
			}
			t.Step("dispatched", "ok",
				fmt.Sprintf("go-restful: Container → WebService %s → Route %s (%s)", ws.RootPath(), template, op),
				"webservice", ws.RootPath(), "route", template, "operation", op, "params", strings.Join(pp, ","))
		}
		s.Monitor(resp.ResponseWriter, req.Request, func(w http.ResponseWriter, r *http.Request) {
			if err := h(w, r, p); err != nil {
				s.WriteError(w, r, err)
			}
		})
	}
}

// GroupWebService builds the WebService of one group-version: GET on its
// root lists its resources; each endpoint adds its routes.
func (s *Server) GroupWebService(g *Group) *restful.WebService {
	ws := new(restful.WebService)
	// Routes produce allMediaTypes unless they say otherwise; handlers
	// then negotiate the form of their answer themselves.
	ws.Path(rootPath(g.gv)).Consumes("*/*").Produces(allMediaTypes...)
	ws.Doc("API at " + rootPath(g.gv))
	ws.Route(ws.GET("/").Produces(objectMediaTypes...).To(s.RouteFunction(ws, func(w http.ResponseWriter, r *http.Request, _ Params) error {
		s.ServeResourceList(w, r, g)
		return nil
	})).Operation("get" + opGroup(g.gv) + "APIResources").Doc("get available resources"))
	for _, e := range g.endpoints {
		s.installEndpoint(ws, e)
	}
	if g.bindings != nil {
		h := &handlers{s: s, e: g.bindings}
		ws.Route(ws.POST("/namespaces/{namespace}/bindings").Produces(objectMediaTypes...).To(s.RouteFunction(ws, h.bind)).
			Operation("create" + opGroup(g.gv) + "NamespacedBinding").Doc("create a Binding"))
	}
	for _, rv := range g.reviews {
		path, scope := "/"+rv.Plural, ""
		if rv.Namespaced {
			path, scope = "/namespaces/{namespace}/"+rv.Plural, "Namespaced"
		}
		ws.Route(ws.POST(path).Produces(objectMediaTypes...).To(s.RouteFunction(ws, rv.Create)).
			Operation("create" + opGroup(g.gv) + scope + rv.Kind.Kind).Doc("create a " + rv.Kind.Kind))
	}
	return ws
}

// installEndpoint adds the routes of one resource, with upstream's paths:
// the collection and item paths (under namespaces/{namespace} for
// namespaced resources, plus the all-namespaces list), subresources, and
// the legacy /watch/ paths.
func (s *Server) installEndpoint(ws *restful.WebService, e *Endpoint) {
	h := &handlers{s: s, e: e}
	plural, kind := e.res.Plural, e.res.Kind.Kind
	op := func(verb, scope, suffix string) string {
		return verb + opGroup(e.gv) + scope + kind + suffix
	}
	coll, scope := "/"+plural, ""
	if e.res.Namespaced {
		coll, scope = "/namespaces/{namespace}/"+plural, "Namespaced"
	}
	item := coll + "/{name}"
	route := func(b *restful.RouteBuilder, operation, doc string) {
		ws.Route(b.Operation(operation).Doc(doc))
	}
	// Every route of a deprecated kind warns of it, as upstream's
	// installer adds its deprecation warning to each (AddWarningsHandler).
	warnings := deprecationWarnings(e, s.cfg.Version)
	to := func(f HandlerFunc) restful.RouteFunction { return s.RouteFunction(ws, withWarnings(f, warnings)) }
	// Lists and watches keep the WebService's allMediaTypes.
	object := func(b *restful.RouteBuilder) *restful.RouteBuilder { return b.Produces(objectMediaTypes...) }
	if e.has(verbList) {
		route(ws.GET(coll).To(to(h.list)), op("list", scope, ""), "list or watch objects of kind "+kind)
		if e.res.Namespaced {
			route(ws.GET("/"+plural).To(to(h.list)), op("list", "", "ForAllNamespaces"), "list or watch objects of kind "+kind+" in all namespaces")
		}
	}
	if e.has(verbWatch) {
		route(ws.GET("/watch"+coll).To(to(h.watch)), op("watch", scope, "List"), "watch changes to a list of "+kind+" (deprecated: use ?watch=true on the list)")
		route(ws.GET("/watch"+item).To(to(h.watch)), op("watch", scope, ""), "watch changes to an object of kind "+kind+" (deprecated: use ?watch=true with a fieldSelector)")
		if e.res.Namespaced {
			route(ws.GET("/watch/"+plural).To(to(h.watch)), op("watch", "", "ListForAllNamespaces"), "watch changes to "+kind+" in all namespaces (deprecated)")
		}
	}
	if e.has(verbCreate) {
		route(object(ws.POST(coll)).To(to(h.create)), op("create", scope, ""), "create a "+kind)
	}
	if e.has(verbDeleteCollection) {
		route(object(ws.DELETE(coll)).To(to(h.deleteCollection)), op("deletecollection", scope, ""), "delete a collection of "+kind)
	}
	if e.has(verbGet) {
		route(object(ws.GET(item)).To(to(h.get)), op("read", scope, ""), "read the specified "+kind)
	}
	if e.has(verbUpdate) {
		route(object(ws.PUT(item)).To(to(h.update)), op("replace", scope, ""), "replace the specified "+kind)
	}
	if e.has(verbPatch) {
		route(object(ws.PATCH(item)).Consumes(routePatchTypes...).To(to(h.patch)), op("patch", scope, ""), "partially update the specified "+kind)
	}
	if e.has(verbDelete) {
		route(object(ws.DELETE(item)).To(to(h.delete)), op("delete", scope, ""), "delete a "+kind)
	}
	for i := range e.subresources {
		s.installSubresource(ws, e, &e.subresources[i], item, scope)
	}
}

// installSubresource adds the routes of sub, a subresource of e, under
// e's item path: one per verb sub serves, create as POST (to sub's own
// handler), get as GET, update as PUT and patch as PATCH.
func (s *Server) installSubresource(ws *restful.WebService, e *Endpoint, sub *subresource, item, scope string) {
	h := &handlers{s: s, e: e, sub: sub}
	path, kind := item+"/"+sub.name, e.res.Kind.Kind
	for _, verb := range sub.verbs {
		var b *restful.RouteBuilder
		var opVerb, doc string
		if sub.serve != nil {
			s.installServedSubresource(ws, e, sub, path, scope, verb)
			continue
		}
		switch verb {
		case verbCreate:
			create := func(w http.ResponseWriter, r *http.Request, p Params) error { return sub.create(h, w, r, p) }
			b, opVerb, doc = ws.POST(path).To(s.RouteFunction(ws, create)), "create", "create "+sub.name+" of a "+kind
		case verbGet:
			b, opVerb, doc = ws.GET(path).To(s.RouteFunction(ws, h.get)), "read", "read "+sub.name+" of the specified "+kind
		case verbUpdate:
			b, opVerb, doc = ws.PUT(path).To(s.RouteFunction(ws, h.update)), "replace", "replace "+sub.name+" of the specified "+kind
		case verbPatch:
			b, opVerb, doc = ws.PATCH(path).To(s.RouteFunction(ws, h.patch)), "patch", "partially update "+sub.name+" of the specified "+kind
		default:
			continue
		}
		ws.Route(subresourceMedia(b, verb).Operation(opVerb + opGroup(e.gv) + scope + kind + exported(sub.name)).Doc(doc))
	}
}

// subresourceMedia gives a subresource's route of verb its media types,
// as upstream's: the object types, and for PATCH the patch types.
func subresourceMedia(b *restful.RouteBuilder, verb string) *restful.RouteBuilder {
	b.Produces(objectMediaTypes...)
	if verb == verbPatch {
		b.Consumes(routePatchTypes...)
	}
	return b
}

// opGroup is the group-version part of an operation id: CoreV1,
// CoordinationV1.
func opGroup(gv schema.GroupVersion) string {
	g := "core"
	if gv.Group != "" {
		g, _, _ = strings.Cut(gv.Group, ".")
	}
	return exported(g) + exported(gv.Version)
}

// exported upper-cases the first letter of s: status -> Status.
func exported(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// deprecationWarnings are the warnings upstream's installer gives every
// request to e's routes: its kind's deprecation (k8s.io/api's
// APILifecycleDeprecated, as of the version served), e.g. "v1 Endpoints
// is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice".
func deprecationWarnings(e *Endpoint, v version.Info) []string {
	obj := e.res.NewFunc()
	obj.GetObjectKind().SetGroupVersionKind(e.gvk())
	major, minor, _ := deprecation.MajorMinor(v)
	if !deprecation.IsDeprecated(obj, major, minor) {
		return nil
	}
	return []string{deprecation.WarningMessage(obj)}
}

// withWarnings adds warnings to the request's before h runs, so that an
// error answer carries them too.
func withWarnings(h HandlerFunc, warnings []string) HandlerFunc {
	if len(warnings) == 0 {
		return h
	}
	return func(w http.ResponseWriter, r *http.Request, p Params) error {
		recordWarnings(r.Context(), warnings)
		return h(w, r, p)
	}
}
