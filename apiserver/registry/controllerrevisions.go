package registry

import (
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// ControllerRevisions is apps/v1 controllerrevisions: the immutable
// snapshots of a StatefulSet's or DaemonSet's pod template that their
// controllers roll between. Its data never changes once written.
var ControllerRevisions = &Resource{
	Kind:         appsv1.SchemeGroupVersion.WithKind("ControllerRevision"),
	Plural:       "controllerrevisions",
	Singular:     "controllerrevision",
	Namespaced:   true,
	NewFunc:      func() runtime.Object { return &appsv1.ControllerRevision{} },
	NewListFunc:  func() runtime.Object { return &appsv1.ControllerRevisionList{} },
	Table:        printers.ControllerRevisions,
	ValidateName: validation.NameIsDNSSubdomain,
	Strategy: Strategy{
		Validate:                 validateControllerRevisionCreate,
		ValidateUpdate:           validateControllerRevisionUpdate,
		AllowUnconditionalUpdate: true,
	},
}

// validateControllerRevisionCreate is upstream's
// ValidateControllerRevisionCreate after the metadata: a revision is not
// negative and its data is a JSON object.
func validateControllerRevisionCreate(obj runtime.Object) field.ErrorList {
	cr := obj.(*appsv1.ControllerRevision)
	errs := validation.ValidateNonnegativeField(cr.Revision, field.NewPath("revision"))
	data := field.NewPath("data")
	var v any
	switch err := json.Unmarshal(cr.Data.Raw, &v); {
	case cr.Data.Raw == nil:
		errs = append(errs, field.Required(data, "data is mandatory"))
	case err != nil:
		errs = append(errs, field.Invalid(data, "<value omitted>", fmt.Sprintf("error parsing data: %v", err.Error())))
	case v == nil:
		errs = append(errs, field.Required(data, "data is mandatory"))
	default:
		if _, isObject := v.(map[string]any); !isObject {
			errs = append(errs, field.Required(data, "data must be a valid JSON object"))
		}
	}
	return errs
}

// validateControllerRevisionUpdate is upstream's
// ValidateControllerRevisionUpdate after the metadata: the revision is
// not negative and the data is what it was.
func validateControllerRevisionUpdate(obj, old runtime.Object) field.ErrorList {
	cr, o := obj.(*appsv1.ControllerRevision), old.(*appsv1.ControllerRevision)
	errs := validation.ValidateNonnegativeField(cr.Revision, field.NewPath("revision"))
	return append(errs, validation.ValidateImmutableField(cr.Data, o.Data, field.NewPath("data"))...)
}
