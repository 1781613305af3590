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
	"Service":                  {schema.GroupVersionResource{Version: "v1", Resource: "services"}, true},
	"Endpoints":                {schema.GroupVersionResource{Version: "v1", Resource: "endpoints"}, true},
	"EndpointSlice":            {schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}, true},
	"ConfigMap":                {schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, true},
	"Secret":                   {schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, true},
	"ServiceAccount":           {schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, true},
}

// kindNames lists the supported kinds in a fixed order, for messages.
var kindNames = []string{"Pod", "Node", "Namespace", "Event", "Lease", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "APIService",
	"Deployment", "ReplicaSet", "Service", "Endpoints", "EndpointSlice", "ConfigMap", "Secret", "ServiceAccount"}

// objectDoc is the kind, name and namespace naming an object, as update,
// delete, patch and absent write them.
type objectDoc struct {
	Kind      str         `yaml:"kind" load:"required"`
	Name      objectName  `yaml:"name" load:"required"`
	Namespace *objectName `yaml:"namespace"`
}

// objectRef returns the object d, read from mapping n, names: of a kind
// the loader knows (kindOf), in its namespace (DefaultNamespace if it
// gives none) when the kind is namespaced, in none when not.
func (l *loader) objectRef(n *yaml.Node, d objectDoc) (ObjectSpec, error) {
	o := ObjectSpec{Kind: string(d.Kind), Name: string(d.Name)}
	info, ok := l.kindOf(o.Kind)
	switch {
	case !ok:
		return o, errAt(valueOf(n, "kind"), "unknown kind %q (known: %s)", o.Kind, strings.Join(kindNames, ", "))
	case d.Namespace != nil && !info.namespaced:
		return o, errAbout(valueOf(n, "namespace"), keyOf(n, "namespace"), "%s is not namespaced", o.Kind)
	case d.Namespace != nil:
		o.Namespace = string(*d.Namespace)
	case info.namespaced:
		o.Namespace = DefaultNamespace
	}
	return o, nil
}

// object reads kind, name and namespace of update, delete, patch and absent.
func (l *loader) object(n *yaml.Node, fields map[string]field, what string) (ObjectSpec, error) {
	var o ObjectSpec
	kf, ok := fields["kind"]
	if !ok {
		return o, l.errAt(n, "%s: missing field \"kind\"", what)
	}
	kind, err := l.str(kf.val, what+".kind")
	if err != nil {
		return o, err
	}
	info, ok := l.kindOf(kind)
	if !ok {
		return o, l.errAt(kf.val, "%s.kind: unknown kind %q (known: %s)", what, kind, strings.Join(kindNames, ", "))
	}
	o.Kind = kind
	nf, ok := fields["name"]
	if !ok {
		return o, l.errAt(n, "%s: missing field \"name\"", what)
	}
	if o.Name, err = l.objectName(nf.val, what+".name"); err != nil {
		return o, err
	}
	if f, ok := fields["namespace"]; ok {
		if !info.namespaced {
			return o, l.errAt(f.key, "%s.namespace: %s is not namespaced", what, kind)
		}
		if o.Namespace, err = l.objectName(f.val, what+".namespace"); err != nil {
			return o, err
		}
	} else if info.namespaced {
		o.Namespace = DefaultNamespace
	}
	return o, nil
}

// pod reads the pod and namespace of a pod expectation.
func (l *loader) pod(n *yaml.Node, fields map[string]field, what string) (name, namespace string, err error) {
	f, ok := fields["pod"]
	if !ok {
		return "", "", l.errAt(n, "%s: missing field \"pod\"", what)
	}
	if name, err = l.objectName(f.val, what+".pod"); err != nil {
		return "", "", err
	}
	namespace = DefaultNamespace
	if f, ok := fields["namespace"]; ok {
		if namespace, err = l.objectName(f.val, what+".namespace"); err != nil {
			return "", "", err
		}
	}
	return name, namespace, nil
}
