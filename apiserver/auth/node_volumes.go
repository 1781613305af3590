package auth

import "k8s.io/apimachinery/pkg/runtime/schema"

// The volume kinds a kubelet reads, one by one, for its pods' volumes.
var (
	claimsResource  = schema.GroupResource{Resource: "persistentvolumeclaims"}
	volumesResource = schema.GroupResource{Resource: "persistentvolumes"}
)

// volumeAccess is upstream's rule for a kubelet's reads of
// PersistentVolumeClaims and PersistentVolumes (get of one named object,
// as its volume manager reads a pod's claims and their volumes), without
// the graph that limits them to the objects its own pods use. With a
// graph (NewNodeAuthorizerWithGraph, the server's) claims are decided by
// it (node_graph.go) and this rule serves volumes only: the graph does
// not follow a claim to its volume, so a node may get any single volume;
// without one (NewNodeAuthorizer) it serves claims too. The claim's
// status (persistentvolumeclaims/status, for volume expansion) is left
// to RBAC.
func volumeAccess(_ string, a Attributes) (bool, string) {
	if a.Subresource != "" || a.Verb != VerbGet {
		return false, "can only get individual resources of this type"
	}
	if a.Name == "" {
		return false, "No Object name found"
	}
	return true, ""
}
