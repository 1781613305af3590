package registry

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/apis/core"
	upcorev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// Nodes is the nodes resource. A node may be created with its status (the
// kubelet registers that way); afterwards the status changes only through
// nodes/status.
var Nodes = &Resource{
	Kind:        corev1.SchemeGroupVersion.WithKind("Node"),
	Plural:      "nodes",
	Singular:    "node",
	ShortNames:  []string{"no"},
	NewFunc:     func() runtime.Object { return &corev1.Node{} },
	NewListFunc: func() runtime.Object { return &corev1.NodeList{} },
	Status:      &NodeStatusStrategy,
	Table:       printers.Nodes,
	Default:     defaultNode,
	Strategy: Strategy{
		PrepareForCreate: func(obj runtime.Object) {
			n := obj.(*corev1.Node)
			n.Spec.ConfigSource = nil
			n.Status.Config = nil
		},
		PrepareForUpdate: func(obj, old runtime.Object) {
			obj.(*corev1.Node).Status = old.(*corev1.Node).Status
		},
		Validate:                 validateNode,
		ValidateUpdate:           validateNodeUpdate,
		WarningsOnCreate:         onCreate(warnNode),
		WarningsOnUpdate:         onUpdate(warnNode),
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
	ValidateUpdate:           validateNodeStatus,
	AllowUnconditionalUpdate: true,
}

// The defaults and validation of nodes are upstream's nodeStrategy and
// nodeStatusStrategy (pkg/registry/core/node/strategy.go).
var (
	defaultNode        = upstreamDefaults(upcorev1.SetObjectDefaults_Node, upcorev1.Convert_v1_Node_To_core_Node, upcorev1.Convert_core_Node_To_v1_Node)
	validateNode       = upstreamValidate(upcorev1.Convert_v1_Node_To_core_Node, corevalidation.ValidateNode)
	validateNodeUpdate = upstreamValidateUpdate(upcorev1.Convert_v1_Node_To_core_Node, func(n, old *core.Node) field.ErrorList {
		return append(corevalidation.ValidateNode(n), corevalidation.ValidateNodeUpdate(n, old)...)
	})
	validateNodeStatus = upstreamValidateSubresource("status", upcorev1.Convert_v1_Node_To_core_Node, corevalidation.ValidateNodeUpdate)
)
