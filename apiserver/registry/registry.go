package registry

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Registry holds the stores of every resource the server serves.
type Registry struct {
	Pods       *Store
	PodStatus  *Store
	Binder     *Binder
	Nodes      *Store
	NodeStatus *Store
	Namespaces *Store
	// NamespaceStatus and NamespaceFinalize serve namespaces/status and
	// namespaces/finalize.
	NamespaceStatus   *Store
	NamespaceFinalize *Store
	Events            *Store
	Leases            *Store

	ConfigMaps      *Store
	Secrets         *Store
	ServiceAccounts *Store
	// Services allocate through ServiceAllocator; ServiceStatus serves
	// services/status.
	Services         *Store
	ServiceStatus    *Store
	ServiceAllocator *ServiceAllocator
	Endpoints        *Store
	EndpointSlices   *Store

	// Deployments and ReplicaSets, with their status subresources.
	Deployments      *Store
	DeploymentStatus *Store
	ReplicaSets      *Store
	ReplicaSetStatus *Store

	Roles               *Store
	ClusterRoles        *Store
	RoleBindings        *Store
	ClusterRoleBindings *Store

	// CustomResourceDefinitions (and their status) are served by the
	// apiextensions server, APIServices (and theirs) by the aggregator.
	CustomResourceDefinitions      *Store
	CustomResourceDefinitionStatus *Store
	APIServices                    *Store
	APIServiceStatus               *Store

	// stores and statuses hold every store, by resource (Store,
	// StatusStore) by group-version-resource; the fields above name those the server's own code
	// uses.
	stores, statuses map[schema.GroupVersionResource]*Store
}

// New builds the stores on cfg's etcd client: one for each resource of
// Groups and of the other servers of the chain, and one for each status
// subresource, on the same data.
func New(cfg StoreConfig) (*Registry, error) {
	r := Registry{stores: map[schema.GroupVersionResource]*Store{}, statuses: map[schema.GroupVersionResource]*Store{}}
	for _, res := range allResources() {
		st, err := NewStore(res, cfg)
		if err != nil {
			return nil, err
		}
		r.stores[res.gvr()] = st
		if res.Status != nil {
			r.statuses[res.gvr()] = st.WithStrategy(*res.Status)
		}
	}
	r.name()
	if err := r.setUpServiceAllocation(); err != nil {
		return nil, err
	}
	r.Binder = NewBinder(r.Pods)
	r.NamespaceFinalize = r.Namespaces.WithStrategy(NamespaceFinalizeStrategy)
	return &r, nil
}

// name fills the fields of the stores the server's own code uses by name.
func (r *Registry) name() {
	r.Pods, r.PodStatus = r.Store(Pods), r.StatusStore(Pods)
	r.Nodes, r.NodeStatus = r.Store(Nodes), r.StatusStore(Nodes)
	r.Namespaces, r.NamespaceStatus = r.Store(Namespaces), r.StatusStore(Namespaces)
	r.Events, r.Leases = r.Store(Events), r.Store(Leases)
	r.ConfigMaps, r.Secrets, r.ServiceAccounts = r.Store(ConfigMaps), r.Store(Secrets), r.Store(ServiceAccounts)
	r.Services, r.ServiceStatus = r.Store(Services), r.StatusStore(Services)
	r.Endpoints, r.EndpointSlices = r.Store(Endpoints), r.Store(EndpointSlices)
	r.Deployments, r.ReplicaSets = r.Store(Deployments), r.Store(ReplicaSets)
	r.Roles, r.ClusterRoles = r.Store(Roles), r.Store(ClusterRoles)
	r.RoleBindings, r.ClusterRoleBindings = r.Store(RoleBindings), r.Store(ClusterRoleBindings)
	r.CustomResourceDefinitions = r.Store(CustomResourceDefinitions)
	r.CustomResourceDefinitionStatus = r.StatusStore(CustomResourceDefinitions)
	r.APIServices, r.APIServiceStatus = r.Store(APIServices), r.StatusStore(APIServices)
}

// Store returns the store of res, nil if the registry keeps none.
func (r *Registry) Store(res *Resource) *Store { return r.stores[res.gvr()] }

// StatusStore returns the store of res's status subresource, nil if res
// has none.
func (r *Registry) StatusStore(res *Resource) *Store { return r.statuses[res.gvr()] }

// RunWatchCaches keeps the watch cache of every resource until ctx is
// done: each resource's changes are read from etcd and decoded once, and
// watchers are fed from there (storage.Store.Run). It returns when all
// have stopped.
func (r *Registry) RunWatchCaches(ctx context.Context) {
	var wg sync.WaitGroup
	// The service allocator follows the Services from their watch cache.
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.ServiceAllocator.Run(ctx, r.Services)
	}()
	for _, st := range r.cachedStores() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st.Storage().Run(ctx)
		}()
	}
	wg.Wait()
}

// WaitForWatchCaches blocks until the watch cache of every resource
// serves watchers (RunWatchCaches must be running), or ctx is done.
func (r *Registry) WaitForWatchCaches(ctx context.Context) error {
	for _, st := range r.cachedStores() {
		if err := st.Storage().WaitForWatchCache(ctx); err != nil {
			return err
		}
	}
	return nil
}

// cachedStores are the stores with a watch cache: all but those of
// resources marked NoWatchCache (events, as kube-apiserver's default
// watch cache sizes leave them without one: they are many, written once
// or twice and read rarely, so their lists and watches go to etcd).
func (r *Registry) cachedStores() []*Store {
	var out []*Store
	for _, res := range allResources() {
		if !res.NoWatchCache {
			out = append(out, r.Store(res))
		}
	}
	return out
}

// Bootstrap creates the namespaces every cluster has, if they are missing.
// It is safe to run on every start.
func (r *Registry) Bootstrap(ctx context.Context) error {
	for _, name := range BootstrapNamespaces {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		defaultNamespace(ns, false)
		if _, err := r.Namespaces.Create(ctx, "", ns, nil, Options{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create namespace %s: %w", name, err)
		}
	}
	return nil
}
