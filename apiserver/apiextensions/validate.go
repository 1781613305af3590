package apiextensions

import (
	"context"

	internal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate checks a new CRD as kube-apiserver's CRD strategy does
// (upstream's ValidateCustomResourceDefinition on the converted object):
// the name must be <plural>.<group>, exactly one version is the storage
// version, every version of a v1 CRD has a structural schema, the names
// are DNS labels, the kind is CamelCase... The errors' paths and texts are
// upstream's, so a 422 names what to fix.
func Validate(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	in, err := toInternal(crd)
	if err != nil {
		return field.ErrorList{field.InternalError(field.NewPath(""), err)}
	}
	return crdvalidation.ValidateCustomResourceDefinition(ctx, in)
}

// ValidateUpdate checks an update of old to crd as kube-apiserver does
// (the same rules, plus what may not change: the group, the scope once
// stored, a storage version still listed in status.storedVersions...).
func ValidateUpdate(ctx context.Context, crd, old *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	return validateInternalUpdate(ctx, crd, old, crdvalidation.ValidateCustomResourceDefinitionUpdate)
}

// ValidateStatusUpdate checks an update of the status subresource, as
// upstream's status strategy does.
func ValidateStatusUpdate(ctx context.Context, crd, old *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	return validateInternalUpdate(ctx, crd, old, crdvalidation.ValidateUpdateCustomResourceDefinitionStatus)
}

// validateInternalUpdate converts crd and old to the internal types
// upstream's validation takes and runs validate on them.
func validateInternalUpdate(ctx context.Context, crd, old *apiextensionsv1.CustomResourceDefinition,
	validate func(ctx context.Context, crd, old *internal.CustomResourceDefinition) field.ErrorList) field.ErrorList {
	in, err := toInternal(crd)
	if err != nil {
		return field.ErrorList{field.InternalError(field.NewPath(""), err)}
	}
	oldIn, err := toInternal(old)
	if err != nil {
		return field.ErrorList{field.InternalError(field.NewPath(""), err)}
	}
	return validate(ctx, in, oldIn)
}
