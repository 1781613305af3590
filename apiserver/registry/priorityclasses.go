package registry

import (
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/runtime"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install" // legacyscheme: scheduling's versions, conversions and declarative validation
	upschedulingv1 "k8s.io/kubernetes/pkg/apis/scheduling/v1"
	"k8s.io/kubernetes/pkg/registry/scheduling/priorityclass"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// PriorityClasses is scheduling.k8s.io/v1 priorityclasses (cluster-scoped,
// short name pc), with upstream's strategy
// (pkg/registry/scheduling/priorityclass): a user's class may not go
// above 1000000000 nor take a name starting with "system-" unless it is
// one of the system classes as they are; value and preemptionPolicy are
// immutable. preemptionPolicy defaults to PreemptLowerPriority. That only
// one class is the global default is the Priority admission plugin's
// check, and that the system classes are not deleted too (upstream's
// storage refuses it; kubesim's plugin does, with the same Status).
var PriorityClasses = &Resource{
	Kind:        schedulingv1.SchemeGroupVersion.WithKind("PriorityClass"),
	Plural:      "priorityclasses",
	Singular:    "priorityclass",
	ShortNames:  []string{"pc"},
	NewFunc:     func() runtime.Object { return &schedulingv1.PriorityClass{} },
	NewListFunc: func() runtime.Object { return &schedulingv1.PriorityClassList{} },
	Table:       printers.PriorityClasses,
	Default:     upstreamDefaults(upschedulingv1.SetObjectDefaults_PriorityClass, upschedulingv1.Convert_v1_PriorityClass_To_scheduling_PriorityClass, upschedulingv1.Convert_scheduling_PriorityClass_To_v1_PriorityClass),
	Strategy:    upstreamStrategy(priorityclass.Strategy, "", upschedulingv1.Convert_v1_PriorityClass_To_scheduling_PriorityClass, upschedulingv1.Convert_scheduling_PriorityClass_To_v1_PriorityClass),
}
