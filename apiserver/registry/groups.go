package registry

import (
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Group is one group-version kube-apiserver serves and its stored
// resources, as one of upstream's RESTStorageProviders lays them out
// (pkg/registry/apps/rest/storage_apps.go...).
type Group struct {
	GroupVersion schema.GroupVersion
	Resources    []*Resource
}

// Groups are the built-in group-versions of kube-apiserver, in the order
// discovery lists them, each with its stored resources in the order of
// its resource list. Adding a built-in kind is a file that declares its
// Resource (types, strategy, status, scale, short names, categories,
// scope, and its printer columns: a Handler of apiserver/printers) and
// one entry here: the stores, the watch cache, the routes, discovery,
// OpenAPI and `kubectl explain` follow from it.
// A group served in two versions (autoscaling) has an entry for each,
// its preferred version first. The authentication and authorization
// groups store nothing: their reviews are computed by the server.
var Groups = []Group{
	{corev1.SchemeGroupVersion, []*Resource{ComponentStatuses, ConfigMaps, Endpoints, Events, Namespaces, Nodes, LimitRanges, PersistentVolumeClaims, PersistentVolumes, PodTemplates, Pods, ReplicationControllers, ResourceQuotas, Secrets, ServiceAccounts, Services}},
	{appsv1.SchemeGroupVersion, []*Resource{ControllerRevisions, DaemonSets, Deployments, ReplicaSets, StatefulSets}},
	{authenticationv1.SchemeGroupVersion, nil},
	{coordinationv1.SchemeGroupVersion, []*Resource{Leases}},
	{discoveryv1.SchemeGroupVersion, []*Resource{EndpointSlices}},
	{rbacv1.SchemeGroupVersion, []*Resource{ClusterRoleBindings, ClusterRoles, RoleBindings, Roles}},
	{eventsv1.SchemeGroupVersion, []*Resource{EventsV1}},
	{authorizationv1.SchemeGroupVersion, nil},
	{autoscalingv2.SchemeGroupVersion, []*Resource{HorizontalPodAutoscalers}},
	{autoscalingv1.SchemeGroupVersion, []*Resource{HorizontalPodAutoscalersV1}},
	{batchv1.SchemeGroupVersion, []*Resource{CronJobs, Jobs}},
	{certificatesv1.SchemeGroupVersion, []*Resource{CertificateSigningRequests}},
	{networkingv1.SchemeGroupVersion, []*Resource{IngressClasses, Ingresses, NetworkPolicies}},
	{policyv1.SchemeGroupVersion, []*Resource{PodDisruptionBudgets}},
	{storagev1.SchemeGroupVersion, []*Resource{StorageClasses}},
	{schedulingv1.SchemeGroupVersion, []*Resource{PriorityClasses}},
}

// chainResources are the resources of the other servers of the chain:
// CustomResourceDefinitions (apiextensions) and APIServices (aggregator).
var chainResources = []*Resource{CustomResourceDefinitions, APIServices}

// allResources are the resources the registry keeps stores for.
func allResources() []*Resource {
	var all []*Resource
	for _, g := range Groups {
		all = append(all, g.Resources...)
	}
	return append(all, chainResources...)
}
