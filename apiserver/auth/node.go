package auth

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
)

// NodeLeaseNamespace holds the kubelets' heartbeat leases.
const NodeLeaseNamespace = "kube-node-lease"

// Resources the Node authorizer treats specially.
var (
	nodesResource  = schema.GroupResource{Resource: "nodes"}
	podsResource   = schema.GroupResource{Resource: "pods"}
	leasesResource = schema.GroupResource{Group: coordinationGroup, Resource: "leases"}

	// graphResources are kinds upstream lets a node reach only object by
	// object, mostly through its graph of what the node's pods use (node <-
	// pod <- secret...). kubesim serves none of them and keeps no such
	// graph, so a node gets no opinion on them.
	graphResources = map[schema.GroupResource]bool{
		{Resource: "secrets"}:                                          true,
		{Resource: "configmaps"}:                                       true,
		{Resource: "persistentvolumeclaims"}:                           true,
		{Resource: "persistentvolumes"}:                                true,
		{Resource: "serviceaccounts"}:                                  true,
		{Group: resourceGroup, Resource: "resourceclaims"}:             true,
		{Group: resourceGroup, Resource: "resourceslices"}:             true,
		{Group: storageGroup, Resource: "volumeattachments"}:           true,
		{Group: storageGroup, Resource: "csinodes"}:                    true,
		{Group: certificatesGroup, Resource: "podcertificaterequests"}: true,
	}
)

type nodeAuthorizer struct {
	rules []rbacv1.PolicyRule
	pods  PodsOnNode // the graph (node_graph.go); nil: none
}

// NewNodeAuthorizer returns kube-apiserver's Node authorizer for the
// resources kubesim serves. It has an opinion only on requests from a
// kubelet (user system:node:<name> in group system:nodes); for everyone
// else it answers NoOpinion with no reason.
//
// A kubelet is allowed what the system:node ClusterRole's rules grant
// (see BootstrapPolicy), narrowed as upstream narrows it:
//
//   - nodes: create, update and patch any node and nodes/status (the
//     NodeRestriction admission plugin then limits writes to its own
//     Node); get, list and watch only its own Node (by name, or with the
//     fieldSelector metadata.name=<node>).
//   - pods: create and delete (mirror pods), update and patch pods/status,
//     create pods/eviction; list and watch only with the fieldSelector
//     spec.nodeName=<node> or for one named pod; get one pod.
//   - coordination.k8s.io leases: get, create, update, patch and delete in
//     kube-node-lease, only the lease named after the node (any name on
//     create).
//   - events: create, update, patch.
//
// Upstream also checks that a pod a kubelet reads by name is bound to it
// (its graph of pods per node); kubesim allows reading any single pod.
// Of the kinds upstream grants object by object through that graph,
// NewNodeAuthorizerWithGraph grants secrets, configmaps and claims
// (node_graph.go); the others (volumes, CSI and DRA objects), and all of
// them without a graph, get NoOpinion. Everything else (namespaces,
// RBAC objects, bindings, non-resource paths) gets NoOpinion, and RBAC
// decides. NoOpinion reasons are upstream's, e.g. "node 'node-a' cannot
// read 'node-b', only its own Node object".
func NewNodeAuthorizer() Authorizer { return &nodeAuthorizer{rules: nodeRules()} }

func (z *nodeAuthorizer) Authorize(ctx context.Context, a Attributes) (Result, error) {
	node, isNode := nodeIdentity(a.User)
	if !isNode {
		return z.noOpinion(""), nil
	}
	if node == "" {
		return z.noOpinion(fmt.Sprintf("unknown node for user %q", a.User.Name)), nil
	}
	if a.ResourceRequest {
		var check func(string, Attributes) (bool, string)
		gr := schema.GroupResource{Group: a.APIGroup, Resource: a.Resource}
		switch {
		case gr == nodesResource:
			check = nodeAccess
		case gr == podsResource:
			check = podAccess
		case gr == leasesResource:
			check = leaseAccess
		case z.pods != nil && graphUses[gr] != nil:
			allowed, reason := z.graphAccess(ctx, node, gr, a)
			return z.decide(a, allowed, reason), nil
		case gr == claimsResource || gr == volumesResource:
			check = volumeAccess
		case graphResources[gr]:
			return z.noOpinion(""), nil
		}
		if check != nil {
			allowed, reason := check(node, a)
			return z.decide(a, allowed, reason), nil
		}
	}
	if _, ok := firstAllowing(a, z.rules); ok {
		return z.decide(a, true, ""), nil
	}
	return z.noOpinion(""), nil
}

func (z *nodeAuthorizer) noOpinion(reason string) Result {
	return Result{Decision: DecisionNoOpinion, Reason: reason, Authorizer: AuthorizerNode}
}

// decide turns an access check into a Result; an allowed request names the
// system:node rule that covers it.
func (z *nodeAuthorizer) decide(a Attributes, allowed bool, reason string) Result {
	if !allowed {
		return z.noOpinion(reason)
	}
	res := Result{Decision: DecisionAllow, Authorizer: AuthorizerNode}
	if r, ok := firstAllowing(a, z.rules); ok {
		res.Rule = DescribeRule(r)
	}
	return res
}

// nodeAccess is upstream's rule for a kubelet's requests on Node objects.
func nodeAccess(node string, a Attributes) (bool, string) {
	switch a.Subresource {
	case "":
		switch a.Verb {
		case VerbCreate, VerbUpdate, VerbPatch:
			return true, ""
		case VerbGet, VerbList, VerbWatch:
			switch a.Name {
			case node:
				return true, ""
			case "":
				return false, fmt.Sprintf("node '%s' cannot read all nodes, only its own Node object", node)
			default:
				return false, fmt.Sprintf("node '%s' cannot read '%s', only its own Node object", node, a.Name)
			}
		}
	case "status":
		if a.Verb == VerbUpdate || a.Verb == VerbPatch {
			return true, ""
		}
	}
	return false, ""
}

// podAccess is upstream's rule for a kubelet's requests on pods, without
// the pod-to-node graph.
func podAccess(node string, a Attributes) (bool, string) {
	switch a.Subresource {
	case "":
		switch a.Verb {
		case VerbGet:
			if a.Name == "" {
				return false, "No Object name found"
			}
			return true, ""
		case VerbList, VerbWatch:
			if selectsField(a.FieldSelector, "spec.nodeName", node) || a.Name != "" {
				return true, ""
			}
			return false, "can only list/watch pods with spec.nodeName field selector"
		case VerbCreate, VerbDelete:
			return true, ""
		}
	case "status":
		if a.Verb == VerbUpdate || a.Verb == VerbPatch {
			return true, ""
		}
	case "eviction":
		if a.Verb == VerbCreate {
			return true, ""
		}
	}
	return false, ""
}

// leaseAccess is upstream's rule for a kubelet's requests on leases.
func leaseAccess(node string, a Attributes) (bool, string) {
	switch a.Verb {
	case VerbGet, VerbCreate, VerbUpdate, VerbPatch, VerbDelete:
	default:
		return false, "can only get, create, update, patch, or delete a node lease"
	}
	if a.Namespace != NodeLeaseNamespace {
		return false, fmt.Sprintf("can only access leases in the %q system namespace", NodeLeaseNamespace)
	}
	// On create the name is in the body; NodeRestriction admission checks it.
	if a.Verb != VerbCreate && a.Name != node {
		return false, "can only access node lease with the same name as the requesting node"
	}
	return true, ""
}

// selectsField reports whether the field selector requires field=value.
func selectsField(selector, field, value string) bool {
	if selector == "" {
		return false
	}
	sel, err := fields.ParseSelector(selector)
	if err != nil {
		return false
	}
	for _, req := range sel.Requirements() {
		if req.Field == field && req.Operator == selection.Equals && req.Value == value {
			return true
		}
	}
	return false
}
