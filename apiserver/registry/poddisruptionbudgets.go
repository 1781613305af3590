package registry

import (
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	_ "k8s.io/kubernetes/pkg/apis/policy/install" // legacyscheme: policy's versions, conversions and declarative validation
	uppolicyv1 "k8s.io/kubernetes/pkg/apis/policy/v1"
	"k8s.io/kubernetes/pkg/registry/policy/poddisruptionbudget"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// PodDisruptionBudgets is policy/v1 poddisruptionbudgets, with upstream's
// strategies (pkg/registry/policy/poddisruptionbudget): status only
// through poddisruptionbudgets/status (the disruption controller's, and
// the eviction's), a change of spec bumps metadata.generation, and an
// update must name a resourceVersion (no unconditional updates), since
// evictions count on its conflicts.
var PodDisruptionBudgets = &Resource{
	Kind:        policyv1.SchemeGroupVersion.WithKind("PodDisruptionBudget"),
	Plural:      "poddisruptionbudgets",
	Singular:    "poddisruptionbudget",
	ShortNames:  []string{"pdb"},
	Namespaced:  true,
	NewFunc:     func() runtime.Object { return &policyv1.PodDisruptionBudget{} },
	NewListFunc: func() runtime.Object { return &policyv1.PodDisruptionBudgetList{} },
	Table:       printers.PodDisruptionBudgets,
	Default:     upstreamDefaults[policyv1.PodDisruptionBudget](nil, uppolicyv1.Convert_v1_PodDisruptionBudget_To_policy_PodDisruptionBudget, uppolicyv1.Convert_policy_PodDisruptionBudget_To_v1_PodDisruptionBudget),
	Strategy:    upstreamStrategy(poddisruptionbudget.Strategy, "", uppolicyv1.Convert_v1_PodDisruptionBudget_To_policy_PodDisruptionBudget, uppolicyv1.Convert_policy_PodDisruptionBudget_To_v1_PodDisruptionBudget),
	Status:      &PodDisruptionBudgetStatusStrategy,
}

// PodDisruptionBudgetStatusStrategy is the strategy of
// poddisruptionbudgets/status.
var PodDisruptionBudgetStatusStrategy = upstreamStrategy(poddisruptionbudget.StatusStrategy, "status", uppolicyv1.Convert_v1_PodDisruptionBudget_To_policy_PodDisruptionBudget, uppolicyv1.Convert_policy_PodDisruptionBudget_To_v1_PodDisruptionBudget)
