package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"reflect"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// subScale is the scale subresource of custom resources.
const subScale = "scale"

// crdServing is what serves one CRD: an endpoint per served version. It
// is rebuilt when the CRD's spec or accepted names change (upstream's
// crdInfo, which its handler drops on every CRD update).
type crdServing struct {
	uid      types.UID
	spec     apiextensionsv1.CustomResourceDefinitionSpec
	names    apiextensionsv1.CustomResourceDefinitionNames
	versions map[string]*crdVersion
	// stopCaches ends the versions' watch caches (crd_caches.go); nil
	// when none were started.
	stopCaches context.CancelFunc
}

// crdVersion serves one version of a CRD.
type crdVersion struct {
	crd      *apiextensionsv1.CustomResourceDefinition
	s        *Server
	endpoint *endpoint
	stores   *registry.CustomResourceStores
	// status is the status subresource, scale the scale subresource's
	// definition; nil when the version does not declare them.
	status *subresource
	scale  *apiextensionsv1.CustomResourceSubresourceScale
}

// servingFor returns what serves crd, building it when the cached one
// is for another UID, spec or set of accepted names.
func (c *crdHandler) servingFor(crd *apiextensionsv1.CustomResourceDefinition) (*crdServing, error) {
	c.mu.RLock()
	cur := c.serving[crd.Name]
	c.mu.RUnlock()
	if cur != nil && sameServing(cur, crd) {
		return cur, nil
	}
	next, err := c.s.buildCRDServing(crd)
	if err != nil {
		return nil, err
	}
	c.caches.start(next)
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur := c.serving[crd.Name]; cur != nil && cur != next && sameServing(cur, crd) {
		next.stop() // another request built the same serving first
		return cur, nil
	}
	c.serving[crd.Name].stop()
	c.serving[crd.Name] = next
	return next, nil
}

// sameServing reports whether sv serves crd as it is now.
func sameServing(sv *crdServing, crd *apiextensionsv1.CustomResourceDefinition) bool {
	return sv.uid == crd.UID && reflect.DeepEqual(sv.spec, crd.Spec) && reflect.DeepEqual(sv.names, crd.Status.AcceptedNames)
}

// forget drops what serves the CRD called name.
func (c *crdHandler) forget(name string) {
	c.mu.Lock()
	c.serving[name].stop()
	delete(c.serving, name)
	c.mu.Unlock()
}

// buildCRDServing builds an endpoint for every served version of crd.
func (s *Server) buildCRDServing(crd *apiextensionsv1.CustomResourceDefinition) (*crdServing, error) {
	out := &crdServing{uid: crd.UID, spec: *crd.Spec.DeepCopy(), names: *crd.Status.AcceptedNames.DeepCopy(), versions: map[string]*crdVersion{}}
	cfg := registry.StoreConfig{Client: s.cfg.Etcd, BookmarkInterval: s.cfg.BookmarkInterval, WatchCache: s.cfg.WatchCache, OnWrite: s.observeWrite}
	for _, ver := range crd.Spec.Versions {
		if !ver.Served {
			continue
		}
		v, err := s.buildCRDVersion(crd, ver, cfg)
		if err != nil {
			return nil, fmt.Errorf("CRD %s version %s: %w", crd.Name, ver.Name, err)
		}
		out.versions[ver.Name] = v
	}
	return out, nil
}

// buildCRDVersion builds the endpoint of one served version.
func (s *Server) buildCRDVersion(crd *apiextensionsv1.CustomResourceDefinition, ver apiextensionsv1.CustomResourceDefinitionVersion, cfg registry.StoreConfig) (*crdVersion, error) {
	stores, err := registry.NewCustomResourceStores(crd, ver.Name, cfg)
	if err != nil {
		return nil, err
	}
	res := stores.Resource
	e := &endpoint{gv: res.Kind.GroupVersion(), res: res, store: stores.Main, verbs: crVerbs}
	e.delete = e.store.Delete
	v := &crdVersion{crd: crd, s: s, endpoint: e, stores: stores}
	if stores.Status != nil {
		e.subresources = append(e.subresources, statusSubresource(res, stores.Status))
		v.status = &e.subresources[len(e.subresources)-1]
	}
	if ver.Subresources != nil && ver.Subresources.Scale != nil {
		v.scale = ver.Subresources.Scale
		// Listed for discovery; crd_scale.go serves it.
		e.subresources = append(e.subresources, subresource{name: subScale, kind: scaleGVK, verbs: []string{verbGet, verbPatch, verbUpdate}})
		if v.status != nil {
			v.status = &e.subresources[0]
		}
	}
	return v, nil
}

// hasSubresource reports whether the version declares sub.
func (v *crdVersion) hasSubresource(sub string) bool {
	for _, s := range v.endpoint.subresources {
		if s.name == sub {
			return true
		}
	}
	return false
}

// resourceHandler is the handler of verb a.Verb on the resource itself.
// While the CRD terminates, creates are forbidden with upstream's
// message.
func (v *crdVersion) resourceHandler(a auth.Attributes, terminating bool) handlerFunc {
	h := &handlers{s: v.s, e: v.endpoint}
	switch a.Verb {
	case auth.VerbGet:
		return h.get
	case auth.VerbList:
		return h.list
	case auth.VerbWatch:
		return h.watch
	case auth.VerbCreate:
		if terminating {
			return func(http.ResponseWriter, *http.Request, params) error {
				return apierrors.NewForbidden(v.endpoint.res.GroupResource(), a.Name, fmt.Errorf("create not allowed while custom resource definition is terminating"))
			}
		}
		return withBodyTypes(h.create)
	case auth.VerbUpdate:
		return withBodyTypes(h.update)
	case auth.VerbPatch:
		return withPatchTypes(h.patch)
	case auth.VerbDelete:
		return h.delete
	case auth.VerbDeleteCollection:
		return h.deleteCollection
	}
	return nil
}

// statusHandler is the handler of verb a.Verb on /status.
func (v *crdVersion) statusHandler(a auth.Attributes) handlerFunc {
	h := &handlers{s: v.s, e: v.endpoint, sub: v.status}
	switch a.Verb {
	case auth.VerbGet:
		return h.get
	case auth.VerbUpdate:
		return withBodyTypes(h.update)
	case auth.VerbPatch:
		return withPatchTypes(h.patch)
	}
	return nil
}

// withBodyTypes answers 415 to a body custom resources cannot take
// (protobuf), before next reads it.
func withBodyTypes(next handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, p params) error {
		if mt := parseMediaType(r.Header.Get("Content-Type")); mt != "" && !contains(crBodyTypes, mt) {
			return unsupportedMediaType(crBodyTypes)
		}
		return next(w, r, p)
	}
}

// withPatchTypes answers 415, listing the patch types of custom
// resources, to any other patch (a strategic merge patch among them).
func withPatchTypes(next handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, p params) error {
		if !contains(crPatchTypes, parseMediaType(r.Header.Get("Content-Type"))) {
			return unsupportedMediaType(crPatchTypes)
		}
		return next(w, r, p)
	}
}
