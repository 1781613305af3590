package admission

import (
	"context"
	"fmt"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
)

// NodeRestrictionName is the NodeRestriction plugin's name.
const NodeRestrictionName = "NodeRestriction"

// Node identities: a kubelet authenticates as system:node:<name> in the
// system:nodes group.
const (
	NodeUserPrefix = "system:node:"
	NodesGroup     = "system:nodes"
)

var (
	nodesResource  = schema.GroupResource{Resource: "nodes"}
	leasesResource = schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}

	// kubeletLabels are the node labels a kubelet may set on its own Node
	// although they are in the kubernetes.io namespace.
	kubeletLabels = sets.New(
		corev1.LabelHostname,
		corev1.LabelTopologyZone,
		corev1.LabelTopologyRegion,
		corev1.LabelFailureDomainBetaZone,
		corev1.LabelFailureDomainBetaRegion,
		corev1.LabelInstanceType,
		corev1.LabelInstanceTypeStable,
		corev1.LabelOSStable,
		corev1.LabelArchStable,
		"beta.kubernetes.io/os",
		"beta.kubernetes.io/arch",
	)
	// kubeletLabelNamespaces are label key prefixes (and their
	// subdomains) a kubelet may set freely.
	kubeletLabelNamespaces = []string{corev1.LabelNamespaceSuffixKubelet, corev1.LabelNamespaceSuffixNode}
)

// NodeRestriction limits what a kubelet may write to what concerns its
// own node: its Node object, its Lease, the status of pods bound to it,
// and deleting or evicting those pods. Requests from other users are not
// its business. It is a mutating plugin only, as upstream's (its Plugin
// implements Admit and no Validate), though it changes nothing. It is
// safe for concurrent use.
//
// What it needs in Attributes: User; for pods/status updates OldObject
// (the stored pod); for pod deletes and pods/eviction creates OldObject
// set to the stored pod (nil means the pod does not exist); for Node
// updates Object and OldObject.
//
// Not reproduced: the check of a mirror pod's owner UID against the Node
// and of the API objects it references, and the rules for resources
// kubesim does not serve (PVCs, service account tokens, CSINodes,
// ResourceSlices, CSRs, pod certificate requests).
type NodeRestriction struct{}

var _ MutatingPlugin = (*NodeRestriction)(nil)

// NewNodeRestriction returns the plugin.
func NewNodeRestriction() *NodeRestriction { return &NodeRestriction{} }

// Name returns "NodeRestriction".
func (*NodeRestriction) Name() string { return NodeRestrictionName }

// Handles reports whether upstream's NodeRestriction handles op (creates, updates and deletes).
func (*NodeRestriction) Handles(op Operation) bool { return handles(op, Create, Update, Delete) }

// NodeIdentity returns the node a user acts for: isNode is true for a user
// named system:node:<name> in the system:nodes group (name may then be
// empty, which NodeRestriction rejects).
func NodeIdentity(u UserInfo) (name string, isNode bool) {
	name, ok := strings.CutPrefix(u.Name, NodeUserPrefix)
	if !ok {
		return "", false
	}
	for _, g := range u.Groups {
		if g == NodesGroup {
			return name, true
		}
	}
	return "", false
}

// Admit changes nothing (fields are always nil) and rejects, with 403
// errors worded as kube-apiserver's, a kubelet's request that reaches
// beyond its node:
//   - nodes: another node (`node "node-a" is not allowed to modify node
//     "node-b"`), or on its own a change of taints, ownerReferences,
//     configSource, or of kubernetes.io / k8s.io labels other than the
//     kubelet's own;
//   - pods: creating anything but a mirror pod bound to itself, updating
//     a pod, deleting a pod not bound to it;
//   - pods/status: pods not bound to it, or changing their labels;
//   - pods/eviction: pods not bound to it; other pod subresources;
//   - leases: outside kube-node-lease, or another node's lease.
func (*NodeRestriction) Admit(_ context.Context, a *Attributes) ([]string, bool, error) {
	handled, err := admitNode(a)
	return nil, handled, err
}

func admitNode(a *Attributes) (bool, error) {
	node, isNode := NodeIdentity(a.User)
	if !isNode {
		return false, nil
	}
	if node == "" {
		return true, newForbidden(a, fmt.Errorf("could not determine node from user %q", a.User.Name))
	}
	switch a.Resource.GroupResource() {
	case podsResource:
		switch a.Subresource {
		case "":
			return true, admitNodePod(node, a)
		case "status":
			return true, admitNodePodStatus(node, a)
		case "eviction":
			return true, admitNodeEviction(node, a)
		}
		return true, newForbidden(a, fmt.Errorf("unexpected pod subresource %q, only 'status' and 'eviction' are allowed", a.Subresource))
	case nodesResource:
		return true, admitNodeNode(node, a)
	case leasesResource:
		return true, admitNodeLease(node, a)
	}
	return false, nil
}

func admitNodePod(node string, a *Attributes) error {
	switch a.Operation {
	case Create:
		return admitMirrorPod(node, a)
	case Delete:
		pod, ok := a.OldObject.(*corev1.Pod)
		if !ok {
			return apierrors.NewNotFound(podsResource, a.Name)
		}
		if pod.Spec.NodeName != node {
			return newForbidden(a, fmt.Errorf("node %q can only delete pods with spec.nodeName set to itself", node))
		}
		return nil
	}
	return newForbidden(a, fmt.Errorf("unexpected operation %q, node %q can only create and delete mirror pods", a.Operation, node))
}

// admitMirrorPod: a kubelet may create only the mirror of a static pod:
// annotated as such, bound to itself, owned (as controller, without
// blockOwnerDeletion) by its Node.
func admitMirrorPod(node string, a *Attributes) error {
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return newForbidden(a, fmt.Errorf("unexpected type %T", a.Object))
	}
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; !mirror {
		return newForbidden(a, fmt.Errorf("pod does not have %q annotation, node %q can only create mirror pods", corev1.MirrorPodAnnotationKey, node))
	}
	if pod.Spec.NodeName != node {
		return newForbidden(a, fmt.Errorf("node %q can only create pods with spec.nodeName set to itself", node))
	}
	switch len(pod.OwnerReferences) {
	case 0:
		return newForbidden(a, fmt.Errorf("node %q can only create pods with an owner reference set to itself", node))
	case 1:
	default:
		return newForbidden(a, fmt.Errorf("node %q can only create pods with a single owner reference set to itself", node))
	}
	owner := pod.OwnerReferences[0]
	if owner.APIVersion != corev1.SchemeGroupVersion.String() || owner.Kind != "Node" || owner.Name != node {
		return newForbidden(a, fmt.Errorf("node %q can only create pods with an owner reference set to itself", node))
	}
	if owner.Controller == nil || !*owner.Controller {
		return newForbidden(a, fmt.Errorf("node %q can only create pods with a controller owner reference set to itself", node))
	}
	if owner.BlockOwnerDeletion != nil && *owner.BlockOwnerDeletion {
		return newForbidden(a, fmt.Errorf("node %q must not set blockOwnerDeletion on an owner reference", node))
	}
	return nil
}

func admitNodePodStatus(node string, a *Attributes) error {
	if a.Operation != Update {
		return newForbidden(a, fmt.Errorf("unexpected operation %q", a.Operation))
	}
	old, ok := a.OldObject.(*corev1.Pod)
	if !ok {
		return newForbidden(a, fmt.Errorf("unexpected type %T", a.OldObject))
	}
	if old.Spec.NodeName != node {
		return newForbidden(a, fmt.Errorf("node %q can only update pod status for pods with spec.nodeName set to itself", node))
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return newForbidden(a, fmt.Errorf("unexpected type %T", a.Object))
	}
	switch {
	case !labels.Equals(old.Labels, pod.Labels):
		return newForbidden(a, fmt.Errorf("node %q cannot update labels through pod status", node))
	case !apiequality.Semantic.DeepEqual(old.Status.ResourceClaimStatuses, pod.Status.ResourceClaimStatuses):
		return newForbidden(a, fmt.Errorf("node %q cannot update resource claim statues", node))
	case !apiequality.Semantic.DeepEqual(old.Status.ExtendedResourceClaimStatus, pod.Status.ExtendedResourceClaimStatus):
		return newForbidden(a, fmt.Errorf("node %q cannot update extended resource claim status", node))
	case !apiequality.Semantic.DeepEqual(old.Status.NodeAllocatableResourceClaimStatuses, pod.Status.NodeAllocatableResourceClaimStatuses):
		return newForbidden(a, fmt.Errorf("node %q cannot update node allocatable resource claim statuses", node))
	}
	return nil
}

func admitNodeEviction(node string, a *Attributes) error {
	if a.Operation != Create {
		return newForbidden(a, fmt.Errorf("unexpected operation %s", a.Operation))
	}
	pod, ok := a.OldObject.(*corev1.Pod)
	if !ok {
		return apierrors.NewNotFound(podsResource, a.Name)
	}
	if pod.Spec.NodeName != node {
		return newForbidden(a, fmt.Errorf("node %s can only evict pods with spec.nodeName set to itself", node))
	}
	return nil
}

func admitNodeNode(node string, a *Attributes) error {
	if name := requestName(a); name != node {
		return newForbidden(a, fmt.Errorf("node %q is not allowed to modify node %q", node, name))
	}
	switch a.Operation {
	case Create:
		n, ok := a.Object.(*corev1.Node)
		if !ok {
			return newForbidden(a, fmt.Errorf("unexpected type %T", a.Object))
		}
		if n.Spec.ConfigSource != nil {
			return newForbidden(a, fmt.Errorf("node %q is not allowed to create pods with a non-nil configSource", node))
		}
		if bad := forbiddenNodeLabels(n.Labels, nil); len(bad) > 0 {
			return newForbidden(a, fmt.Errorf("node %q is not allowed to set the following labels: %s", node, strings.Join(bad, ", ")))
		}
	case Update:
		n, ok := a.Object.(*corev1.Node)
		if !ok {
			return newForbidden(a, fmt.Errorf("unexpected type %T", a.Object))
		}
		old, ok := a.OldObject.(*corev1.Node)
		if !ok {
			return newForbidden(a, fmt.Errorf("unexpected type %T", a.Object))
		}
		if n.Spec.ConfigSource != nil && !apiequality.Semantic.DeepEqual(n.Spec.ConfigSource, old.Spec.ConfigSource) {
			return newForbidden(a, fmt.Errorf("node %q is not allowed to update configSource to a new non-nil configSource", node))
		}
		if !apiequality.Semantic.DeepEqual(n.Spec.Taints, old.Spec.Taints) {
			return newForbidden(a, fmt.Errorf("node %q is not allowed to modify taints", node))
		}
		if !apiequality.Semantic.DeepEqual(n.OwnerReferences, old.OwnerReferences) {
			return newForbidden(a, fmt.Errorf("node %q is not allowed to modify ownerReferences", node))
		}
		if bad := forbiddenNodeLabels(n.Labels, old.Labels); len(bad) > 0 {
			// kube-apiserver's text has no node name here.
			return newForbidden(a, fmt.Errorf("is not allowed to modify labels: %s", strings.Join(bad, ", ")))
		}
	}
	return nil
}

// forbiddenNodeLabels lists, sorted, the label keys that differ between a
// and b and that a kubelet may not set: keys under node-restriction.kubernetes.io,
// and kubernetes.io / k8s.io keys that are not kubelet labels.
func forbiddenNodeLabels(a, b map[string]string) []string {
	changed := sets.New[string]()
	for k, v := range a {
		if w, ok := b[k]; !ok || v != w {
			changed.Insert(k)
		}
	}
	for k, v := range b {
		if w, ok := a[k]; !ok || v != w {
			changed.Insert(k)
		}
	}
	bad := sets.New[string]()
	for k := range changed {
		ns := labelNamespace(k)
		if inDomain(ns, corev1.LabelNamespaceNodeRestriction) {
			bad.Insert(k)
		}
		if (inDomain(ns, "kubernetes.io") || inDomain(ns, "k8s.io")) && !isKubeletLabel(k) {
			bad.Insert(k)
		}
	}
	return sets.List(bad)
}

func labelNamespace(key string) string {
	ns, _, ok := strings.Cut(key, "/")
	if !ok {
		return ""
	}
	return ns
}

// inDomain: ns is domain or one of its subdomains.
func inDomain(ns, domain string) bool { return ns == domain || strings.HasSuffix(ns, "."+domain) }

func isKubeletLabel(key string) bool {
	if kubeletLabels.Has(key) {
		return true
	}
	ns := labelNamespace(key)
	for _, allowed := range kubeletLabelNamespaces {
		if inDomain(ns, allowed) {
			return true
		}
	}
	return false
}

func admitNodeLease(node string, a *Attributes) error {
	if a.Namespace != corev1.NamespaceNodeLease {
		return newForbidden(a, fmt.Errorf("can only access leases in the %q system namespace", corev1.NamespaceNodeLease))
	}
	name := a.Name
	if a.Operation == Create {
		// The lease's own name, not the request's.
		lease, ok := a.Object.(*coordinationv1.Lease)
		if !ok {
			return newForbidden(a, fmt.Errorf("unexpected type %T", a.Object))
		}
		name = lease.Name
	}
	if name != node {
		return newForbidden(a, fmt.Errorf("can only access node lease with the same name as the requesting node"))
	}
	return nil
}
