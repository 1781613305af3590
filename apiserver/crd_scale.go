package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// scaleGVK is the kind of the scale subresource: autoscaling/v1 Scale.
var scaleGVK = autoscalingv1.SchemeGroupVersion.WithKind("Scale")

// scaleHandler is the handler of verb a.Verb on /scale: an
// autoscaling/v1 Scale read from and written to the custom resource's
// specReplicasPath (and statusReplicasPath, labelSelectorPath), as
// upstream's scale storage does.
func (v *crdVersion) scaleHandler(a auth.Attributes) handlerFunc {
	switch a.Verb {
	case auth.VerbGet:
		return v.getScale
	case auth.VerbUpdate:
		return withBodyTypes(func(w http.ResponseWriter, r *http.Request, p params) error {
			body, err := readBody(r, v.s.cfg.MaxRequestBodyBytes)
			if err != nil {
				return err
			}
			return v.writeScale(w, r, p, func(*autoscalingv1.Scale) ([]byte, error) { return body, nil })
		})
	case auth.VerbPatch:
		return withPatchTypes(v.patchScale)
	}
	return nil
}

// scaleOf is the Scale of a custom resource.
func (v *crdVersion) scaleOf(u *unstructured.Unstructured) *autoscalingv1.Scale {
	sc := &autoscalingv1.Scale{TypeMeta: metav1.TypeMeta{APIVersion: scaleGVK.GroupVersion().String(), Kind: scaleGVK.Kind},
		ObjectMeta: metav1.ObjectMeta{Name: u.GetName(), Namespace: u.GetNamespace(), UID: u.GetUID(),
			ResourceVersion: u.GetResourceVersion(), CreationTimestamp: u.GetCreationTimestamp()}}
	spec, _, _ := unstructured.NestedInt64(u.Object, pathOf(v.scale.SpecReplicasPath)...)
	status, _, _ := unstructured.NestedInt64(u.Object, pathOf(v.scale.StatusReplicasPath)...)
	sc.Spec.Replicas, sc.Status.Replicas = int32(spec), int32(status)
	if v.scale.LabelSelectorPath != nil {
		sc.Status.Selector, _, _ = unstructured.NestedString(u.Object, pathOf(*v.scale.LabelSelectorPath)...)
	}
	return sc
}

// pathOf splits a .a.b JSON path into its fields.
func pathOf(p string) []string { return strings.Split(strings.TrimPrefix(p, "."), ".") }

// writeScaleObject answers a Scale (an autoscaling/v1 kind the server's
// scheme does not hold, so written as unstructured).
func (v *crdVersion) writeScaleObject(w http.ResponseWriter, r *http.Request, sc *autoscalingv1.Scale) error {
	o, err := negotiate(r)
	if err != nil {
		return err
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(sc)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	v.s.writeObject(w, r, http.StatusOK, &unstructured.Unstructured{Object: m}, o)
	return nil
}

// getScale serves GET /scale.
func (v *crdVersion) getScale(w http.ResponseWriter, r *http.Request, p params) error {
	obj, err := v.endpoint.store.Get(r.Context(), p.namespace, p.name, nil)
	if err != nil {
		return err
	}
	return v.writeScaleObject(w, r, v.scaleOf(obj.(*unstructured.Unstructured)))
}

// patchScale serves PATCH /scale: the patch applies to the current
// Scale.
func (v *crdVersion) patchScale(w http.ResponseWriter, r *http.Request, p params) error {
	patch, err := readBody(r, v.s.cfg.MaxRequestBodyBytes)
	if err != nil {
		return err
	}
	pt := types.PatchType(parseMediaType(r.Header.Get("Content-Type")))
	return v.writeScale(w, r, p, scalePatcher(pt, patch))
}

// writeScale updates the custom resource from the Scale newScale makes
// of the current one (PUT: the request's; PATCH: the patched current
// one): spec.replicas goes to specReplicasPath. A resourceVersion in the
// Scale must be the object's (409 otherwise). It answers the new Scale.
func (v *crdVersion) writeScale(w http.ResponseWriter, r *http.Request, p params, newScale func(cur *autoscalingv1.Scale) ([]byte, error)) error {
	h := &handlers{s: v.s, e: v.endpoint}
	attrs := h.admissionAttributes(r, admission.Update, subScale, p.namespace, p.name, false)
	out, _, err := v.endpoint.store.Update(r.Context(), p.namespace, p.name, func(ctx context.Context, current runtime.Object) (runtime.Object, error) {
		u, ok := current.(*unstructured.Unstructured)
		if !ok || u.GetResourceVersion() == "" {
			return nil, apierrors.NewNotFound(v.endpoint.res.GroupResource(), p.name)
		}
		data, err := newScale(v.scaleOf(u))
		if err != nil {
			return nil, err
		}
		var sc autoscalingv1.Scale
		if err := yaml.Unmarshal(data, &sc); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type Scale): %v", err))
		}
		if err := v.checkScale(&sc, u); err != nil {
			return nil, err
		}
		if err := unstructured.SetNestedField(u.Object, int64(sc.Spec.Replicas), pathOf(v.scale.SpecReplicasPath)...); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		return u, nil
	}, nil, h.s.updateValidator(attrs), registry.Options{})
	if err != nil {
		return err
	}
	h.traceStored(r.Context(), "update (scale)", out)
	return v.writeScaleObject(w, r, v.scaleOf(out.(*unstructured.Unstructured)))
}

// checkScale validates a Scale written to u, as upstream's scale storage
// does: its name is u's, its resourceVersion (if any) is u's, and
// spec.replicas is not negative.
func (v *crdVersion) checkScale(sc *autoscalingv1.Scale, u *unstructured.Unstructured) error {
	if sc.Name != "" && sc.Name != u.GetName() {
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", sc.Name, u.GetName()))
	}
	if sc.ResourceVersion != "" && sc.ResourceVersion != u.GetResourceVersion() {
		return apierrors.NewConflict(v.endpoint.res.GroupResource(), u.GetName(), fmt.Errorf("%s", "the object has been modified; please apply your changes to the latest version and try again"))
	}
	if errs := apivalidation.ValidateNonnegativeField(int64(sc.Spec.Replicas), field.NewPath("spec", "replicas")); len(errs) > 0 {
		return apierrors.NewInvalid(scaleGVK.GroupKind(), sc.Name, errs)
	}
	return nil
}
