package apiserver

import (
	"context"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/request"
)

// Verbs as discovery lists them.
const (
	verbCreate           = "create"
	verbDelete           = "delete"
	verbDeleteCollection = "deletecollection"
	verbGet              = "get"
	verbList             = "list"
	verbPatch            = "patch"
	verbUpdate           = "update"
	verbWatch            = "watch"
)

// deleteFunc deletes one object (the namespace resource has its own).
type deleteFunc func(ctx context.Context, namespace, name string, validate registry.ValidateObjectFunc, opts *metav1.DeleteOptions) (runtime.Object, bool, error)

// Endpoint is one served resource: what discovery, OpenAPI and the routes
// are built from, and what the server does for it besides serving it.
type Endpoint struct {
	gv           schema.GroupVersion
	res          *registry.Resource
	store        *registry.Store
	verbs        []string
	subresources []subresource
	delete       deleteFunc
	// admitCreate, if set, wraps the validating admission of each create
	// that is not a dry run (pods: admitPodCreate).
	admitCreate createHook
	// stageFrame, if set, is asked about each frame of a watch before it
	// is written (pods: Server.stageFrame).
	stageFrame frameHook
	// fields keeps the field managers of the endpoint's writes.
	fields fieldOwnership
	// computed, if set, answers get and list instead of the store: the
	// objects are computed by the server (componentstatuses).
	computed *computedReads
}

// computedReads are the reads of a resource the server computes instead
// of storing.
type computedReads struct {
	get  func(s *Server, ctx context.Context, name string) (runtime.Object, error)
	list func(s *Server, ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error)
}

// createHook wraps validate, the validating admission of a create that is
// not a dry run, with what the server does for the resource before the
// object is stored (pods: record stage 1, hold at the gate). It returns
// the validation the handler passes to the registry, and failed, which
// the handler calls if the create then fails.
type createHook func(s *Server, validate registry.ValidateObjectFunc) (wrapped registry.ValidateObjectFunc, failed func())

// updateHook wraps validate, the validating admission of an update (PUT
// or PATCH) that is not a dry run, with what the server does for the
// subresource before the object is stored (pods/status: record stage 7,
// hold at the gate). The registry may call the result more than once for
// one request (once per retry of its update loop).
type updateHook func(s *Server, validate registry.ValidateObjectUpdateFunc) registry.ValidateObjectUpdateFunc

// frameHook decides, before the frame of ev is written to the watch of
// user, whether the frame is a stage of its object's story, and may hold
// it with the watch's timer paused (pods: stages 3 and 6). It returns the
// stage to record with the frame, nil for any other frame, and an error
// only when ctx is done (the watch then ends).
type frameHook func(s *Server, ctx context.Context, user string, ev watch.Event, timer *request.PausableTimer) (*stagedFrame, error)

// has reports whether the endpoint serves verb.
func (e *Endpoint) has(verb string) bool { return contains(e.verbs, verb) }

// gvk is the kind the endpoint serves, in its group-version.
func (e *Endpoint) gvk() schema.GroupVersionKind { return e.gv.WithKind(e.res.Kind.Kind) }

// subresource kinds.
const (
	subStatus   = "status"
	subBinding  = "binding"
	subFinalize = "finalize"
	subApproval = "approval"
)

// subresource is pods/status, pods/binding, namespaces/finalize...
type subresource struct {
	name  string
	kind  schema.GroupVersionKind
	verbs []string
	// store serves get, update and patch of status and finalize (a
	// strategy on the parent's data).
	store *registry.Store
	// create serves POST on a subresource with verb create (binding).
	create func(h *handlers, w http.ResponseWriter, r *http.Request, p Params) error
	// newFunc returns an empty request body object.
	newFunc func() runtime.Object
	// serve, if set, is the handler of each verb of a subresource that
	// is not its parent's kind (deployments/scale).
	serve func(h *handlers, verb string) HandlerFunc
	// admitUpdate, if set, wraps the validating admission of each update
	// (PUT or PATCH) of the subresource that is not a dry run (pods/status:
	// admitPodStatus).
	admitUpdate updateHook
}

// Group is one served Group-version and its endpoints.
type Group struct {
	gv        schema.GroupVersion
	endpoints []*Endpoint
	// bindings, if set, is the endpoint whose objects the legacy POST
	// namespaces/{ns}/bindings binds (core only: pods).
	bindings *Endpoint
	// reviews are create-only resources that are computed, not stored
	// (selfsubjectaccessreviews).
	reviews []Review
}

// Review is a create-only, never stored resource (selfsubjectaccessreviews):
// Create answers a POST of Kind to /<group-version>/<Plural>, or, when
// Namespaced (localsubjectaccessreviews), to
// /<group-version>/namespaces/{namespace}/<Plural>.
type Review struct {
	Plural, Singular string
	Kind             schema.GroupVersionKind
	Namespaced       bool
	Create           HandlerFunc
}

// AddReviews adds reviews to the built-in group-version of their kind,
// before InstallAPIGroups installs its routes.
func (s *Server) AddReviews(reviews ...Review) {
	for _, rv := range reviews {
		for _, g := range s.groups {
			if g.gv == rv.Kind.GroupVersion() {
				g.reviews = append(g.reviews, rv)
			}
		}
	}
}

// buildGroups lays out what the server serves: an endpoint for each
// resource of registry.Groups, with its status and scale subresources
// when its registration declares them, and what kube-apiserver does
// besides storing for a few kinds (serverExtras). The reviews of the
// authentication and authorization groups are kube-apiserver's
// (AddReviews).
func buildGroups(reg *registry.Registry) []*Group {
	extras := serverExtras(reg)
	var groups []*Group
	for _, rg := range registry.Groups {
		g := &Group{gv: rg.GroupVersion}
		for _, res := range rg.Resources {
			e := newEndpoint(rg.GroupVersion, res, reg)
			if extra := extras[res]; extra != nil {
				extra(e)
			}
			e.sortSubresources()
			g.endpoints = append(g.endpoints, e)
		}
		if rg.GroupVersion == corev1.SchemeGroupVersion {
			g.bindings = g.endpoint(registry.Pods)
		}
		groups = append(groups, g)
	}
	return groups
}

// newEndpoint is the endpoint of res in gv as its registration declares
// it: its verbs, its status subresource (get, update, patch) and its
// scale subresource.
func newEndpoint(gv schema.GroupVersion, res *registry.Resource, reg *registry.Registry) *Endpoint {
	e := &Endpoint{gv: gv, res: res, store: reg.Store(res), verbs: res.ServedVerbs()}
	e.delete = e.store.Delete
	if res.Status != nil {
		e.subresources = append(e.subresources, statusSubresource(res, reg.StatusStore(res)))
	}
	if res.Scale != nil {
		e.subresources = append(e.subresources, scaleSubresource())
	}
	return e
}

// statusSubresource is {plural}/status of res: get, update and patch
// through store, the status strategy's store on res's data.
func statusSubresource(res *registry.Resource, store *registry.Store) subresource {
	return subresource{name: subStatus, kind: res.Kind, verbs: []string{verbGet, verbPatch, verbUpdate}, store: store}
}

// registrationGroup lays out apiregistration.k8s.io/v1, which the
// aggregator serves.
func registrationGroup(reg *registry.Registry) *Group {
	gv := apiregistrationv1.SchemeGroupVersion
	apiServices := newEndpoint(gv, registry.APIServices, reg)
	return &Group{gv: gv, endpoints: []*Endpoint{apiServices}}
}

// extensionsGroup lays out apiextensions.k8s.io/v1.
func extensionsGroup(reg *registry.Registry) *Group {
	gv := apiextensionsv1.SchemeGroupVersion
	crds := newEndpoint(gv, registry.CustomResourceDefinitions, reg)
	crds.delete = func(ctx context.Context, _, name string, validate registry.ValidateObjectFunc, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
		return registry.DeleteCustomResourceDefinition(ctx, reg.CustomResourceDefinitions, name, validate, opts)
	}
	return &Group{gv: gv, endpoints: []*Endpoint{crds}}
}

// RegistrationGroup is apiregistration.k8s.io/v1, served by the
// aggregator; ExtensionsGroup is apiextensions.k8s.io/v1, served by the
// apiextensions server. The generic server lays them out (it lists them in
// discovery and OpenAPI) and the server that serves them installs them.
func (s *Server) RegistrationGroup() *Group { return s.registration }

// ExtensionsGroup: see RegistrationGroup.
func (s *Server) ExtensionsGroup() *Group { return s.extensions }

// ListedPaths are the group-version paths the aggregator's delegates serve
// (upstream's ListedPaths of kube-apiserver, which include the
// apiextensions server's): /api/v1 and /apis/<group>/<version>.
func (s *Server) ListedPaths() []string {
	var out []string
	for _, g := range append(append([]*Group(nil), s.groups...), s.extensions) {
		out = append(out, rootPath(g.gv))
	}
	return out
}

// endpoint returns the group's endpoint of res, nil if it has none.
func (g *Group) endpoint(res *registry.Resource) *Endpoint {
	for _, e := range g.endpoints {
		if e.res == res {
			return e
		}
	}
	return nil
}
