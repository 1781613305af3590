package scenarios

import (
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ObjectSpec names one API object.
type ObjectSpec struct {
	Kind      string
	Name      string
	Namespace string // empty for cluster-scoped kinds
}

// nsName returns name, or namespace/name outside the default namespace.
func nsName(namespace, name string) string {
	if namespace == "" || namespace == DefaultNamespace {
		return name
	}
	return namespace + "/" + name
}

func (o ObjectSpec) String() string {
	if o.Namespace == "" {
		return o.Kind + " " + o.Name
	}
	return o.Kind + " " + o.Namespace + "/" + o.Name
}

// objectOf returns the ObjectSpec naming o.
func objectOf(o *unstructured.Unstructured) ObjectSpec {
	return ObjectSpec{Kind: o.GetKind(), Name: o.GetName(), Namespace: o.GetNamespace()}
}

// kindInfo is what the runner knows about a supported kind.
type kindInfo struct {
	gvr        schema.GroupVersionResource
	namespaced bool
}

// apiVersion returns the kind's apiVersion ("v1", "rbac.authorization.k8s.io/v1").
func (k kindInfo) apiVersion() string { return k.gvr.GroupVersion().String() }

// kinds are the kinds scenarios may name: a static REST mapping.
var kinds = map[string]kindInfo{
	"Pod":                      {schema.GroupVersionResource{Version: "v1", Resource: "pods"}, true},
	"Node":                     {schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, false},
	"Namespace":                {schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, false},
	"Event":                    {schema.GroupVersionResource{Version: "v1", Resource: "events"}, true},
	"Lease":                    {schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}, true},
	"Role":                     {schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}, true},
	"RoleBinding":              {schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"}, true},
	"ClusterRole":              {schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}, false},
	"ClusterRoleBinding":       {schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}, false},
	"CustomResourceDefinition": {schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}, false},
	"APIService":               {schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}, false},
	"Deployment":               {schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, true},
	"ReplicaSet":               {schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}, true},
	"StatefulSet":              {schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}, true},
	"DaemonSet":                {schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}, true},
	"PersistentVolumeClaim":    {schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}, true},
	"Service":                  {schema.GroupVersionResource{Version: "v1", Resource: "services"}, true},
	"Endpoints":                {schema.GroupVersionResource{Version: "v1", Resource: "endpoints"}, true},
	"EndpointSlice":            {schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}, true},
	"ConfigMap":                {schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, true},
	"Secret":                   {schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, true},
	"ServiceAccount":           {schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, true},
	"HorizontalPodAutoscaler":  {schema.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}, true},
	"Job":                      {schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}, true},
	"CronJob":                  {schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "cronjobs"}, true},
	"PodDisruptionBudget":      {schema.GroupVersionResource{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"}, true},
}

// kindNames lists the supported kinds in a fixed order, for messages.
var kindNames = []string{"Pod", "Node", "Namespace", "Event", "Lease", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "APIService",
	"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "PersistentVolumeClaim", "Service", "Endpoints", "EndpointSlice", "ConfigMap", "Secret",
	"ServiceAccount", "HorizontalPodAutoscaler", "Job", "CronJob", "PodDisruptionBudget"}

// objectDoc is the kind, name and namespace naming an object, as update,
// delete, patch and absent write them.
type objectDoc struct {
	Kind      str         `yaml:"kind" load:"required"`
	Name      objectName  `yaml:"name" load:"required"`
	Namespace *objectName `yaml:"namespace"`
}

// objectRef returns the object d, read from mapping n, names (see
// namespaceOf).
func (l *loader) objectRef(n *yaml.Node, d objectDoc) (ObjectSpec, error) {
	o := ObjectSpec{Kind: string(d.Kind), Name: string(d.Name)}
	var err error
	o.Namespace, err = l.namespaceOf(n, o.Kind, d.Namespace)
	return o, err
}

// namespaceOf checks that kind, of mapping n, is one the loader knows
// (kindOf), and returns the namespace its objects are in: ns, which only
// a namespaced kind may give, or DefaultNamespace for a namespaced kind;
// none for a cluster-scoped one.
func (l *loader) namespaceOf(n *yaml.Node, kind string, ns *objectName) (string, error) {
	info, ok := l.kindOf(kind)
	switch {
	case !ok:
		return "", errAt(valueOf(n, "kind"), "unknown kind %q (known: %s)", kind, strings.Join(kindNames, ", "))
	case ns != nil && !info.namespaced:
		return "", errAbout(valueOf(n, "namespace"), keyOf(n, "namespace"), "%s is not namespaced", kind)
	case ns != nil:
		return string(*ns), nil
	case info.namespaced:
		return DefaultNamespace, nil
	}
	return "", nil
}

// podDoc is the pod and namespace naming the pod of an expectation.
type podDoc struct {
	Pod       objectName  `yaml:"pod" load:"required"`
	Namespace *objectName `yaml:"namespace"`
}

// ref returns the pod's name and namespace (DefaultNamespace if d gives
// none).
func (d podDoc) ref() (name, namespace string) {
	namespace = DefaultNamespace
	if d.Namespace != nil {
		namespace = string(*d.Namespace)
	}
	return string(d.Pod), namespace
}
