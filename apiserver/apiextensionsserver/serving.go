package apiextensionsserver

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// subStatus and subScale are the subresources of custom resources.
const (
	subStatus = "status"
	subScale  = "scale"
)

// crdServing is what serves one CRD: an endpoint per served version. It
// is rebuilt when the CRD's spec or accepted names change (upstream's
// crdInfo, which its handler drops on every CRD update).
type crdServing struct {
	uid      types.UID
	spec     apiextensionsv1.CustomResourceDefinitionSpec
	names    apiextensionsv1.CustomResourceDefinitionNames
	versions map[string]*crdVersion
	// stopCaches ends the versions' watch caches (caches.go); nil
	// when none were started.
	stopCaches context.CancelFunc
}

// crdVersion serves one version of a CRD.
type crdVersion struct {
	crd      *apiextensionsv1.CustomResourceDefinition
	s        *apiserver.Server
	endpoint *apiserver.Endpoint
	stores   *registry.CustomResourceStores
	// scale is the scale subresource's definition; nil when the version
	// does not declare it.
	scale *apiextensionsv1.CustomResourceSubresourceScale
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
	next, err := buildCRDServing(c.s, crd)
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
func buildCRDServing(s *apiserver.Server, crd *apiextensionsv1.CustomResourceDefinition) (*crdServing, error) {
	out := &crdServing{uid: crd.UID, spec: *crd.Spec.DeepCopy(), names: *crd.Status.AcceptedNames.DeepCopy(), versions: map[string]*crdVersion{}}
	cfg := s.StoreConfig()
	for _, ver := range crd.Spec.Versions {
		if !ver.Served {
			continue
		}
		v, err := buildCRDVersion(s, crd, ver, cfg)
		if err != nil {
			return nil, fmt.Errorf("CRD %s version %s: %w", crd.Name, ver.Name, err)
		}
		out.versions[ver.Name] = v
	}
	return out, nil
}

// buildCRDVersion builds the endpoint of one served version.
func buildCRDVersion(s *apiserver.Server, crd *apiextensionsv1.CustomResourceDefinition, ver apiextensionsv1.CustomResourceDefinitionVersion, cfg registry.StoreConfig) (*crdVersion, error) {
	stores, err := registry.NewCustomResourceStores(crd, ver.Name, cfg)
	if err != nil {
		return nil, err
	}
	res := stores.Resource
	e := apiserver.NewEndpoint(res, stores.Main, crVerbs)
	v := &crdVersion{crd: crd, s: s, endpoint: e, stores: stores}
	if stores.Status != nil {
		e.AddStatus(stores.Status)
	}
	e.UseCustomResourceFields(crd)
	if ver.Subresources != nil && ver.Subresources.Scale != nil {
		v.scale = ver.Subresources.Scale
		// Listed for discovery; scale.go serves it.
		e.AddListedSubresource(subScale, apiserver.ScaleGVK, []string{"get", "patch", "update"})
	}
	return v, nil
}

// hasSubresource reports whether the version declares sub.
func (v *crdVersion) hasSubresource(sub string) bool { return v.endpoint.HasSubresource(sub) }

// resourceHandler is the handler of verb a.Verb on the resource itself.
// While the CRD terminates, creates are forbidden with upstream's
// message.
func (v *crdVersion) resourceHandler(a auth.Attributes, terminating bool) apiserver.HandlerFunc {
	h := v.s.ResourceHandler(v.endpoint, "", a.Verb)
	switch {
	case h == nil:
		return nil
	case a.Verb == auth.VerbCreate && terminating:
		return func(http.ResponseWriter, *http.Request, apiserver.Params) error {
			return apierrors.NewForbidden(v.endpoint.Resource().GroupResource(), a.Name, fmt.Errorf("create not allowed while custom resource definition is terminating"))
		}
	case a.Verb == auth.VerbCreate || a.Verb == auth.VerbUpdate:
		return withBodyTypes(h)
	case a.Verb == auth.VerbPatch:
		return withPatchTypes(h)
	}
	return h
}

// statusHandler is the handler of verb a.Verb on /status.
func (v *crdVersion) statusHandler(a auth.Attributes) apiserver.HandlerFunc {
	h := v.s.ResourceHandler(v.endpoint, subStatus, a.Verb)
	switch {
	case h == nil:
		return nil
	case a.Verb == auth.VerbUpdate:
		return withBodyTypes(h)
	case a.Verb == auth.VerbPatch:
		return withPatchTypes(h)
	}
	return h
}

// withBodyTypes answers 415 to a body custom resources cannot take
// (protobuf), before next reads it.
func withBodyTypes(next apiserver.HandlerFunc) apiserver.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, p apiserver.Params) error {
		if mt := apiserver.ParseMediaType(r.Header.Get("Content-Type")); mt != "" && !slices.Contains(crBodyTypes, mt) {
			return apiserver.UnsupportedMediaType(crBodyTypes)
		}
		return next(w, r, p)
	}
}

// withPatchTypes answers 415, listing the patch types of custom
// resources, to any other patch (a strategic merge patch among them).
func withPatchTypes(next apiserver.HandlerFunc) apiserver.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, p apiserver.Params) error {
		if !slices.Contains(crPatchTypes, apiserver.ParseMediaType(r.Header.Get("Content-Type"))) {
			return apiserver.UnsupportedMediaType(crPatchTypes)
		}
		return next(w, r, p)
	}
}
