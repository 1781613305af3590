package apiserver

import (
	"context"
	"net/http"

	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesim/kubesim/apiserver/registry"
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

var allVerbs = []string{verbCreate, verbDelete, verbDeleteCollection, verbGet, verbList, verbPatch, verbUpdate, verbWatch}

// deleteFunc deletes one object (the namespace resource has its own).
type deleteFunc func(ctx context.Context, namespace, name string, validate registry.ValidateObjectFunc, opts *metav1.DeleteOptions) (runtime.Object, bool, error)

// endpoint is one served resource: what discovery, OpenAPI and the routes
// are built from, and what the server does for it besides serving it.
type endpoint struct {
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
type frameHook func(s *Server, ctx context.Context, user string, ev watch.Event, timer *pausableTimer) (*stagedFrame, error)

// has reports whether the endpoint serves verb.
func (e *endpoint) has(verb string) bool { return contains(e.verbs, verb) }

// gvk is the kind the endpoint serves, in its group-version.
func (e *endpoint) gvk() schema.GroupVersionKind { return e.gv.WithKind(e.res.Kind.Kind) }

// subresource kinds.
const (
	subStatus   = "status"
	subBinding  = "binding"
	subFinalize = "finalize"
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
	create func(h *handlers, w http.ResponseWriter, r *http.Request, p params) error
	// newFunc returns an empty request body object.
	newFunc func() runtime.Object
	// serve, if set, is the handler of each verb of a subresource that
	// is not its parent's kind (deployments/scale).
	serve func(h *handlers, verb string) handlerFunc
	// admitUpdate, if set, wraps the validating admission of each update
	// (PUT or PATCH) of the subresource that is not a dry run (pods/status:
	// admitPodStatus).
	admitUpdate updateHook
}

// group is one served group-version and its endpoints.
type group struct {
	gv        schema.GroupVersion
	endpoints []*endpoint
	// bindings, if set, is the endpoint whose objects the legacy POST
	// namespaces/{ns}/bindings binds (core only: pods).
	bindings *endpoint
	// reviews are create-only resources that are computed, not stored
	// (selfsubjectaccessreviews).
	reviews []review
}

// review is a create-only, never stored resource.
type review struct {
	plural, singular string
	kind             schema.GroupVersionKind
	create           func(s *Server) handlerFunc
}

// buildGroups lays out what the server serves.
func buildGroups(reg *registry.Registry) []*group {
	v1 := corev1.SchemeGroupVersion
	podKind, bindingKind := v1.WithKind("Pod"), v1.WithKind("Binding")
	newBinding := func() runtime.Object { return &corev1.Binding{} }
	// The stages of a pod's creation are recorded, and held at the gate,
	// from inside its create, its status updates and its watches
	// (flowstages.go).
	pods := &endpoint{gv: v1, res: registry.Pods, store: reg.Pods, verbs: allVerbs,
		admitCreate: (*Server).admitPodCreate, stageFrame: (*Server).stageFrame,
		subresources: []subresource{
			{name: subBinding, kind: bindingKind, verbs: []string{verbCreate}, newFunc: newBinding, create: (*handlers).bind},
			{name: subStatus, kind: podKind, verbs: []string{verbGet, verbPatch, verbUpdate}, store: reg.PodStatus,
				admitUpdate: (*Server).admitPodStatus},
		}}
	core := &group{gv: v1, bindings: pods, endpoints: []*endpoint{
		{gv: v1, res: registry.ConfigMaps, store: reg.ConfigMaps, verbs: allVerbs},
		{gv: v1, res: registry.Endpoints, store: reg.Endpoints, verbs: allVerbs},
		{gv: v1, res: registry.Events, store: reg.Events, verbs: allVerbs},
		{gv: v1, res: registry.Namespaces, store: reg.Namespaces,
			verbs: []string{verbCreate, verbDelete, verbGet, verbList, verbPatch, verbUpdate, verbWatch},
			delete: func(ctx context.Context, _, name string, validate registry.ValidateObjectFunc, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
				return registry.DeleteNamespace(ctx, reg.Namespaces, name, validate, opts)
			},
			subresources: []subresource{
				{name: subFinalize, kind: v1.WithKind("Namespace"), verbs: []string{verbUpdate}, store: reg.NamespaceFinalize},
				{name: subStatus, kind: v1.WithKind("Namespace"), verbs: []string{verbGet, verbPatch, verbUpdate}, store: reg.NamespaceStatus},
			}},
		{gv: v1, res: registry.Nodes, store: reg.Nodes, verbs: allVerbs, subresources: []subresource{
			{name: subStatus, kind: v1.WithKind("Node"), verbs: []string{verbGet, verbPatch, verbUpdate}, store: reg.NodeStatus},
		}},
		pods,
		{gv: v1, res: registry.Secrets, store: reg.Secrets, verbs: allVerbs},
		{gv: v1, res: registry.ServiceAccounts, store: reg.ServiceAccounts, verbs: allVerbs,
			subresources: []subresource{tokenSubresource()}},
		{gv: v1, res: registry.Services, store: reg.Services, verbs: allVerbs, subresources: []subresource{
			{name: subStatus, kind: v1.WithKind("Service"), verbs: []string{verbGet, verbPatch, verbUpdate}, store: reg.ServiceStatus},
		}},
	}}
	coord := &group{gv: coordinationv1.SchemeGroupVersion, endpoints: []*endpoint{
		{gv: coordinationv1.SchemeGroupVersion, res: registry.Leases, store: reg.Leases, verbs: allVerbs},
	}}
	rbac := rbacv1.SchemeGroupVersion
	rbacGroup := &group{gv: rbac, endpoints: []*endpoint{
		{gv: rbac, res: registry.ClusterRoleBindings, store: reg.ClusterRoleBindings, verbs: allVerbs},
		{gv: rbac, res: registry.ClusterRoles, store: reg.ClusterRoles, verbs: allVerbs},
		{gv: rbac, res: registry.RoleBindings, store: reg.RoleBindings, verbs: allVerbs},
		{gv: rbac, res: registry.Roles, store: reg.Roles, verbs: allVerbs},
	}}
	authz := &group{gv: authorizationv1.SchemeGroupVersion, reviews: []review{{
		plural: "selfsubjectaccessreviews", singular: "selfsubjectaccessreview",
		kind:   authorizationv1.SchemeGroupVersion.WithKind("SelfSubjectAccessReview"),
		create: func(s *Server) handlerFunc { return s.createSelfSubjectAccessReview },
	}, selfSubjectRulesReview()}}
	apps, discovery := appsGroup(reg), discoveryGroup(reg)
	groups := []*group{core, apps, authenticationGroup(), coord, discovery, rbacGroup, authz}
	for _, g := range groups {
		for _, e := range g.endpoints {
			if e.delete == nil {
				e.delete = e.store.Delete
			}
		}
	}
	return groups
}
