package registry

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// Nodes is the nodes resource. A node may be created with its status (the
// kubelet registers that way); afterwards the status changes only through
// nodes/status.
var Nodes = &Resource{
	Kind:         corev1.SchemeGroupVersion.WithKind("Node"),
	Plural:       "nodes",
	Singular:     "node",
	ShortNames:   []string{"no"},
	NewFunc:      func() runtime.Object { return &corev1.Node{} },
	NewListFunc:  func() runtime.Object { return &corev1.NodeList{} },
	Status:       &NodeStatusStrategy,
	Table:        printers.Nodes,
	ValidateName: validation.NameIsDNSSubdomain,
	Strategy: Strategy{
		PrepareForCreate: func(obj runtime.Object) {
			n := obj.(*corev1.Node)
			n.Spec.ConfigSource = nil
			n.Status.Config = nil
		},
		PrepareForUpdate: func(obj, old runtime.Object) {
			obj.(*corev1.Node).Status = old.(*corev1.Node).Status
		},
		AllowUnconditionalUpdate: true,
	},
	Fields: func(obj runtime.Object) fields.Set {
		n := obj.(*corev1.Node)
		return fields.Set{"metadata.name": n.Name, "spec.unschedulable": strconv.FormatBool(n.Spec.Unschedulable)}
	},
	FieldLabels: []string{"metadata.name", "spec.unschedulable"},
}

// NodeStatusStrategy is the strategy of nodes/status.
var NodeStatusStrategy = Strategy{
	PrepareForUpdate: func(obj, old runtime.Object) {
		obj.(*corev1.Node).Spec = old.(*corev1.Node).Spec
	},
	AllowUnconditionalUpdate: true,
}
