package apiextensions

import (
	"fmt"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/sets"
)

// Condition reasons and messages of the naming and establishing
// controllers, as upstream's.
const (
	ReasonNoConflicts          = "NoConflicts"
	ReasonPluralConflict       = "PluralConflict"
	ReasonSingularConflict     = "SingularConflict"
	ReasonShortNamesConflict   = "ShortNamesConflict"
	ReasonKindConflict         = "KindConflict"
	ReasonListKindConflict     = "ListKindConflict"
	ReasonNotAccepted          = "NotAccepted"
	ReasonInstalling           = "Installing"
	ReasonInitialNamesAccepted = "InitialNamesAccepted"
)

// AcceptNames computes what upstream's naming controller writes for crd,
// given the other CRDs of the server: the names it is granted, its
// NamesAccepted condition (True/NoConflicts, or False with the reason of
// the last conflict and "\"x\" is already in use") and its Established
// condition as the naming controller leaves it (False/NotAccepted while a
// name conflicts, False/Installing once all are accepted; an Established
// condition already True is kept). A name is granted when it is the one
// crd already holds or no other CRD of the same group holds it; plural,
// singular and short names share one namespace, kind and list kind
// another (the CRD's own accepted names among them, as upstream).
// The establishing controller then turns Established True
// (Establish).
func AcceptNames(crd *apiextensionsv1.CustomResourceDefinition, all []*apiextensionsv1.CustomResourceDefinition) (apiextensionsv1.CustomResourceDefinitionNames, apiextensionsv1.CustomResourceDefinitionCondition, apiextensionsv1.CustomResourceDefinitionCondition) {
	resources, kinds := sets.New[string](), sets.New[string]()
	for _, other := range all {
		// Upstream counts the CRD's own accepted names too.
		if other.Spec.Group != crd.Spec.Group {
			continue
		}
		an := other.Status.AcceptedNames
		resources.Insert(an.Plural, an.Singular)
		resources.Insert(an.ShortNames...)
		kinds.Insert(an.Kind, an.ListKind)
	}
	resources.Delete("")
	kinds.Delete("")

	cond := apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionUnknown}
	conflict := func(reason string, err error) {
		cond.Status, cond.Reason, cond.Message = apiextensionsv1.ConditionFalse, reason, err.Error()
	}
	want, have := crd.Spec.Names, crd.Status.AcceptedNames
	names := have
	take := func(requested, accepted string, used sets.Set[string], reason string, dst *string) {
		if err := freeOrOurs(requested, accepted, used); err != nil {
			conflict(reason, err)
			return
		}
		*dst = requested
	}
	take(want.Plural, have.Plural, resources, ReasonPluralConflict, &names.Plural)
	take(want.Singular, have.Singular, resources, ReasonSingularConflict, &names.Singular)
	if !slices.Equal(want.ShortNames, have.ShortNames) {
		var errs []error
		for _, sn := range want.ShortNames {
			if slices.Contains(have.ShortNames, sn) {
				continue
			}
			if err := freeOrOurs(sn, "", resources); err != nil {
				errs = append(errs, err)
			}
		}
		if len(errs) > 0 {
			conflict(ReasonShortNamesConflict, utilerrors.NewAggregate(errs))
		} else {
			names.ShortNames = want.ShortNames
		}
	}
	take(want.Kind, have.Kind, kinds, ReasonKindConflict, &names.Kind)
	take(want.ListKind, have.ListKind, kinds, ReasonListKindConflict, &names.ListKind)
	names.Categories = want.Categories
	if cond.Status == apiextensionsv1.ConditionUnknown {
		cond.Status, cond.Reason, cond.Message = apiextensionsv1.ConditionTrue, ReasonNoConflicts, "no conflicts found"
	}
	return names, cond, establishedAfterNaming(crd, cond)
}

// establishedAfterNaming is the Established condition the naming
// controller leaves.
func establishedAfterNaming(crd *apiextensionsv1.CustomResourceDefinition, names apiextensionsv1.CustomResourceDefinitionCondition) apiextensionsv1.CustomResourceDefinitionCondition {
	est := apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse,
		Reason: ReasonNotAccepted, Message: "not all names are accepted"}
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established {
			est = c
		}
	}
	if est.Status != apiextensionsv1.ConditionTrue && names.Status == apiextensionsv1.ConditionTrue {
		est = apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse,
			Reason: ReasonInstalling, Message: "the initial names have been accepted"}
	}
	return est
}

// EstablishedCondition is what upstream's establishing controller sets
// once NamesAccepted is True.
func EstablishedCondition() apiextensionsv1.CustomResourceDefinitionCondition {
	return apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue,
		Reason: ReasonInitialNamesAccepted, Message: "the initial names have been accepted"}
}

// freeOrOurs is nil when requested is the name already accepted or no
// other CRD uses it.
func freeOrOurs(requested, accepted string, used sets.Set[string]) error {
	if requested == accepted || !used.Has(requested) {
		return nil
	}
	return fmt.Errorf("%q is already in use", requested)
}
