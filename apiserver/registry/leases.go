package registry

import (
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// Leases is coordination.k8s.io/v1 leases: node heartbeats live in
// kube-node-lease.
var Leases = &Resource{
	Kind:         coordinationv1.SchemeGroupVersion.WithKind("Lease"),
	Plural:       "leases",
	Singular:     "lease",
	Namespaced:   true,
	NewFunc:      func() runtime.Object { return &coordinationv1.Lease{} },
	NewListFunc:  func() runtime.Object { return &coordinationv1.LeaseList{} },
	Table:        printers.Leases,
	ValidateName: validation.NameIsDNSSubdomain,
	Strategy:     Strategy{AllowUnconditionalUpdate: true},
}
