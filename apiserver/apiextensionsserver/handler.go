package apiextensionsserver

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/request"
)

// crdHandler serves the custom resources of every CRD, as upstream's
// crdHandler does, without go-restful: for a resource request it finds
// the CRD <resource>.<group> and dispatches by verb and subresource to
// the generic handlers of the version's endpoint (apiserver/handlers.go), and it
// answers discovery for the groups and group-versions CRDs serve.
// Anything it does not serve goes to delegate, the not-found handler:
// an unknown group, a CRD not yet accepted, a version not served, the
// wrong scope. Safe for concurrent use.
type crdHandler struct {
	s        *apiserver.Server
	delegate http.Handler

	mu sync.RWMutex
	// crds mirrors the stored CRDs, by name (crdController keeps it).
	crds map[string]*apiextensionsv1.CustomResourceDefinition
	// serving holds what serves each CRD, by name, built on first use
	// and rebuilt when the CRD's spec or accepted names change.
	serving map[string]*crdServing
	// synced is closed once crds holds the first full state.
	synced chan struct{}
	// caches runs the watch caches of the served versions.
	caches crdCaches
}

func newCRDHandler(s *apiserver.Server, delegate http.Handler) *crdHandler {
	return &crdHandler{s: s, delegate: delegate, crds: map[string]*apiextensionsv1.CustomResourceDefinition{},
		serving: map[string]*crdServing{}, synced: make(chan struct{})}
}

// crd returns the CRD called name, or nil.
func (c *crdHandler) crd(name string) *apiextensionsv1.CustomResourceDefinition {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.crds[name]
}

// ServeHTTP implements http.Handler.
func (c *crdHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a, ok := request.AttributesFrom(r.Context())
	if !ok {
		c.s.WriteError(w, r, apierrors.NewInternalError(fmt.Errorf("no RequestInfo found in the context")))
		return
	}
	if !a.ResourceRequest {
		c.serveNonResource(w, r)
		return
	}
	crd := c.crd(a.Resource + "." + a.APIGroup)
	if reason := c.notServed(crd, a); reason != "" {
		c.pass(w, r, reason)
		return
	}
	serving, err := c.servingFor(crd)
	if err != nil {
		c.s.WriteError(w, r, apierrors.NewInternalError(fmt.Errorf("error resolving resource")))
		return
	}
	v := serving.versions[a.APIVersion]
	apiserver.TraceHop(r, apiserver.ServerAPIExtensions, "served", "served by CRD "+crd.Name)
	apiserver.SetTraceRoute(r.Context(), r.Method+" "+crRouteTemplate(a)+" (crdHandler)")
	c.serveResource(w, r, a, crd, v)
}

// crRouteTemplate is the path template a custom resource request
// matched, in go-restful's notation, for the trace's route column.
func crRouteTemplate(a auth.Attributes) string {
	p := "/apis/" + a.APIGroup + "/" + a.APIVersion
	if isLegacyWatchPath(a.Path) {
		p += "/watch"
	}
	if a.Namespace != "" {
		p += "/namespaces/{namespace}"
	}
	p += "/" + a.Resource
	if a.Name != "" {
		p += "/{name}"
	}
	if a.Subresource != "" {
		p += "/" + a.Subresource
	}
	return p
}

// pass records why the request is not the apiextensions server's and
// hands it to the delegate.
func (c *crdHandler) pass(w http.ResponseWriter, r *http.Request, reason string) {
	apiserver.TraceHop(r, apiserver.ServerAPIExtensions, "delegated", reason+", delegated")
	c.delegate.ServeHTTP(w, r)
}

// notServed says why crd does not serve the request described by a, as
// upstream's crdHandler decides it, or "" when it does.
func (c *crdHandler) notServed(crd *apiextensionsv1.CustomResourceDefinition, a auth.Attributes) string {
	gvr := schema.GroupVersionResource{Group: a.APIGroup, Version: a.APIVersion, Resource: a.Resource}
	switch {
	case crd == nil:
		return "no CRD serves " + gvr.Resource + "." + gvr.Group
	case crd.Spec.Scope != apiextensionsv1.NamespaceScoped && a.Namespace != "":
		return "CRD " + crd.Name + " is cluster-scoped, the request names a namespace"
	case crd.Spec.Scope == apiextensionsv1.NamespaceScoped && a.Namespace == "" && a.Verb != auth.VerbList && a.Verb != auth.VerbWatch:
		return "CRD " + crd.Name + " is namespaced, the request names no namespace"
	case !apihelpers.HasServedCRDVersion(crd, a.APIVersion):
		return "CRD " + crd.Name + " does not serve version " + a.APIVersion
	case !apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.NamesAccepted) && !apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.Established):
		return "CRD " + crd.Name + " is not established yet (its names are not accepted)"
	}
	return ""
}

// crPatchTypes are the patch formats of custom resources, in upstream's
// order: no strategic merge patch (a custom resource has no Go struct
// whose tags would say how lists merge); server-side apply merges by the
// CRD's schema.
var crPatchTypes = []string{string(types.JSONPatchType), string(types.MergePatchType), string(types.ApplyYAMLPatchType)}

// crBodyTypes are the request bodies custom resources accept: no
// protobuf, as upstream (CBOR, which upstream may also take, neither).
var crBodyTypes = []string{runtime.ContentTypeJSON, runtime.ContentTypeYAML}

// serveResource dispatches a request for v, a served version of crd, by
// subresource and verb, as upstream's serveResource, serveStatus and
// serveScale do.
func (c *crdHandler) serveResource(w http.ResponseWriter, r *http.Request, a auth.Attributes, crd *apiextensionsv1.CustomResourceDefinition, v *crdVersion) {
	r, err := v.prepareRequest(r)
	if err != nil {
		c.s.WriteError(w, r, err)
		return
	}
	p := apiserver.Params{Namespace: a.Namespace, Name: a.Name}
	terminating := crd.DeletionTimestamp != nil || apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.Terminating)
	var h apiserver.HandlerFunc
	switch a.Subresource {
	case "":
		h = v.resourceHandler(a, terminating)
	case subStatus:
		h = v.statusHandler(a)
	case subScale:
		if v.scale != nil {
			h = v.scaleHandler(a)
		}
	}
	if h == nil {
		err = apierrors.NewNotFound(schema.GroupResource{Group: a.APIGroup, Resource: a.Resource}, a.Name)
		if a.Subresource == "" || v.hasSubresource(a.Subresource) {
			err = apierrors.NewMethodNotSupported(schema.GroupResource{Group: a.APIGroup, Resource: a.Resource}, a.Verb)
		}
		c.s.WriteError(w, r, err)
		return
	}
	// Upstream's handler instruments the custom resource's handlers as
	// its installer does the built-in routes.
	c.s.Monitor(w, r, func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r, p); err != nil {
			c.s.WriteError(w, r, err)
		}
	})
}

// isLegacyWatchPath reports whether path is a /apis/<g>/<v>/watch/...
// path.
func isLegacyWatchPath(path string) bool {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	return len(parts) > 3 && parts[0] == "apis" && parts[3] == "watch"
}
