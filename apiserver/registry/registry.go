package registry

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
}

// New builds the stores on cfg's etcd client.
func New(cfg StoreConfig) (*Registry, error) {
	var r Registry
	for _, s := range []struct {
		dst **Store
		res *Resource
	}{
		{&r.Pods, Pods}, {&r.Nodes, Nodes}, {&r.Namespaces, Namespaces},
		{&r.Events, Events}, {&r.Leases, Leases},
		{&r.ConfigMaps, ConfigMaps}, {&r.Secrets, Secrets}, {&r.ServiceAccounts, ServiceAccounts},
		{&r.Services, Services}, {&r.Endpoints, Endpoints}, {&r.EndpointSlices, EndpointSlices},
		{&r.Deployments, Deployments}, {&r.ReplicaSets, ReplicaSets},
		{&r.Roles, Roles}, {&r.ClusterRoles, ClusterRoles},
		{&r.RoleBindings, RoleBindings}, {&r.ClusterRoleBindings, ClusterRoleBindings},
		{&r.CustomResourceDefinitions, CustomResourceDefinitions}, {&r.APIServices, APIServices},
	} {
		st, err := NewStore(s.res, cfg)
		if err != nil {
			return nil, err
		}
		*s.dst = st
	}
	r.PodStatus = r.Pods.WithStrategy(PodStatusStrategy)
	r.DeploymentStatus = r.Deployments.WithStrategy(DeploymentStatusStrategy)
	r.ReplicaSetStatus = r.ReplicaSets.WithStrategy(ReplicaSetStatusStrategy)
	if err := r.setUpServiceAllocation(); err != nil {
		return nil, err
	}
	r.Binder = NewBinder(r.Pods)
	r.NodeStatus = r.Nodes.WithStrategy(NodeStatusStrategy)
	r.NamespaceStatus = r.Namespaces.WithStrategy(NamespaceStatusStrategy)
	r.NamespaceFinalize = r.Namespaces.WithStrategy(NamespaceFinalizeStrategy)
	r.CustomResourceDefinitionStatus = r.CustomResourceDefinitions.WithStrategy(CustomResourceDefinitionStatusStrategy)
	r.APIServiceStatus = r.APIServices.WithStrategy(APIServiceStatusStrategy)
	return &r, nil
}

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

// cachedStores are the stores with a watch cache: all but the events',
// as kube-apiserver's default watch cache sizes (DefaultWatchCacheSizes:
// events 0) leave events without one. Events are many, written once or
// twice and read rarely; their lists and watches go to etcd.
func (r *Registry) cachedStores() []*Store {
	return []*Store{r.Pods, r.Nodes, r.Namespaces, r.Leases,
		r.ConfigMaps, r.Secrets, r.ServiceAccounts, r.Services, r.Endpoints,
		r.EndpointSlices, r.Deployments, r.ReplicaSets,
		r.Roles, r.ClusterRoles, r.RoleBindings, r.ClusterRoleBindings,
		r.CustomResourceDefinitions, r.APIServices}
}

// Bootstrap creates the namespaces every cluster has, if they are missing.
// It is safe to run on every start.
func (r *Registry) Bootstrap(ctx context.Context) error {
	for _, name := range BootstrapNamespaces {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		defaultNamespace(ns)
		if _, err := r.Namespaces.Create(ctx, "", ns, nil, Options{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create namespace %s: %w", name, err)
		}
	}
	return nil
}
