package registry

import (
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/runtime"
	upcoordinationv1 "k8s.io/kubernetes/pkg/apis/coordination/v1"
	coordinationvalidation "k8s.io/kubernetes/pkg/apis/coordination/validation"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// Leases is coordination.k8s.io/v1 leases: node heartbeats live in
// kube-node-lease. Validation is upstream's (pkg/registry/coordination/lease).
var Leases = &Resource{
	Kind:        coordinationv1.SchemeGroupVersion.WithKind("Lease"),
	Plural:      "leases",
	Singular:    "lease",
	Namespaced:  true,
	NewFunc:     func() runtime.Object { return &coordinationv1.Lease{} },
	NewListFunc: func() runtime.Object { return &coordinationv1.LeaseList{} },
	Table:       printers.Leases,
	Strategy: Strategy{
		Validate:       upstreamValidate(upcoordinationv1.Convert_v1_Lease_To_coordination_Lease, coordinationvalidation.ValidateLease),
		ValidateUpdate: upstreamValidateUpdate(upcoordinationv1.Convert_v1_Lease_To_coordination_Lease, coordinationvalidation.ValidateLeaseUpdate),
		// Upstream's lease strategy refuses an update without a
		// resourceVersion (AllowUnconditionalUpdate false): a lease is a
		// lock, and a blind write could steal it.
	},
}
