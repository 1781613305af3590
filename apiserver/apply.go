package apiserver

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// serverSideApply merges an applied configuration (an
// application/apply-patch+yaml body) into current, or into a new object
// when exists is false, with the endpoint's field manager, as
// kube-apiserver's apply patcher does: the configuration is read as
// unstructured YAML; the field manager checks its apiVersion and kind,
// refuses managedFields in it, finds the fields other managers own with
// another value (409 Conflict, one cause per field, unless force), merges
// by the kind's schema, defaults the result and records the fields of the
// configuration as the manager's Apply entry. Under fieldValidation
// Strict or Warn, duplicate fields in the YAML then fail or warn.
func (h *handlers) serverSideApply(ctx context.Context, current runtime.Object, exists bool, body []byte, opts *metav1.PatchOptions) (runtime.Object, error) {
	fm := h.e.fieldManager(h.subresourceName())
	if fm == nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("no field manager for %s", h.e.res.GroupResource()))
	}
	patchObj := &unstructured.Unstructured{Object: map[string]any{}}
	if err := yaml.Unmarshal(body, &patchObj.Object); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
	}
	live := current
	if !exists {
		live = h.e.res.NewFunc()
	}
	force := opts.Force != nil && *opts.Force
	obj, err := fm.Apply(live, patchObj, opts.FieldManager, force)
	if err != nil {
		return nil, err
	}
	validation := fieldValidation(opts.FieldValidation)
	if validation == metav1.FieldValidationStrict || validation == metav1.FieldValidationWarn {
		if err := yaml.UnmarshalStrict(body, &map[string]any{}); err != nil {
			if validation == metav1.FieldValidationStrict {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("error strict decoding patch: %v", err))
			}
			recordWarnings(ctx, []string{err.Error()})
		}
	}
	if !exists {
		if err := uidOnCreate(h.e.res.GroupResource(), obj); err != nil {
			return nil, err
		}
	}
	return obj, nil
}

// uidOnCreate refuses an apply that would create an object while naming
// a uid, with upstream's 409.
func uidOnCreate(gr schema.GroupResource, obj runtime.Object) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	if uid := m.GetUID(); uid != "" {
		return apierrors.NewConflict(gr, m.GetName(),
			fmt.Errorf("uid mismatch: the provided object specified uid %s, and no existing object was found", uid))
	}
	return nil
}
