package apiextensionsserver

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// scaleHandler is the handler of verb a.Verb on /scale: an
// autoscaling/v1 Scale read from and written to the custom resource's
// specReplicasPath (and statusReplicasPath, labelSelectorPath), as
// upstream's scale storage does.
func (v *crdVersion) scaleHandler(a auth.Attributes) apiserver.HandlerFunc {
	switch a.Verb {
	case auth.VerbGet:
		return v.getScale
	case auth.VerbUpdate:
		return withScaleBodyTypes(v.writeScale)
	case auth.VerbPatch:
		return withPatchTypes(v.writeScale)
	}
	return nil
}

// scaleBodyTypes are the bodies a PUT of /scale takes: a Scale is a
// built-in kind, so protobuf as well as JSON and YAML, as upstream's
// scale subresource decodes with the codecs of the scale scheme (what
// kube-controller-manager's scale client sends by default).
var scaleBodyTypes = []string{runtime.ContentTypeJSON, runtime.ContentTypeYAML, runtime.ContentTypeProtobuf}

// withScaleBodyTypes answers 415 to a body not in scaleBodyTypes,
// before next reads it.
func withScaleBodyTypes(next apiserver.HandlerFunc) apiserver.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, p apiserver.Params) error {
		if mt := apiserver.ParseMediaType(r.Header.Get("Content-Type")); mt != "" && !slices.Contains(scaleBodyTypes, mt) {
			return apiserver.UnsupportedMediaType(scaleBodyTypes)
		}
		return next(w, r, p)
	}
}

// scaleOf is the Scale of a custom resource.
func (v *crdVersion) scaleOf(u *unstructured.Unstructured) *autoscalingv1.Scale {
	sc := &autoscalingv1.Scale{TypeMeta: metav1.TypeMeta{APIVersion: apiserver.ScaleGVK.GroupVersion().String(), Kind: apiserver.ScaleGVK.Kind},
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
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(sc)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	return v.s.WriteObject(w, r, http.StatusOK, &unstructured.Unstructured{Object: m})
}

// getScale serves GET /scale.
func (v *crdVersion) getScale(w http.ResponseWriter, r *http.Request, p apiserver.Params) error {
	obj, err := v.endpoint.Store().Get(r.Context(), p.Namespace, p.Name, nil)
	if err != nil {
		return err
	}
	return v.writeScaleObject(w, r, v.scaleOf(obj.(*unstructured.Unstructured)))
}

// writeScale serves PUT and PATCH of /scale: it updates the custom
// resource from the Scale the request makes of the current one (PUT: the
// request's; PATCH: the patched or applied current one): spec.replicas
// goes to specReplicasPath, and the write is recorded in the object's
// managedFields under subresource scale. A resourceVersion in the Scale
// must be the object's (409 otherwise). It answers the new Scale.
func (v *crdVersion) writeScale(w http.ResponseWriter, r *http.Request, p apiserver.Params) error {
	sw, err := v.s.ReadScaleWrite(r)
	if err != nil {
		return err
	}
	admit := v.s.UpdateAdmission(r, v.endpoint, subScale, p)
	replicas := pathOf(v.scale.SpecReplicasPath)
	out, _, err := v.endpoint.Store().Update(r.Context(), p.Namespace, p.Name, func(ctx context.Context, current runtime.Object) (runtime.Object, error) {
		u, ok := current.(*unstructured.Unstructured)
		if !ok || u.GetResourceVersion() == "" {
			return nil, apierrors.NewNotFound(v.endpoint.Resource().GroupResource(), p.Name)
		}
		sc, err := sw.Write(u, u.GroupVersionKind().GroupVersion(), fieldpath.MakePathOrDie(toAny(replicas)...), v.scaleOf(u))
		if err != nil {
			return nil, err
		}
		if err := v.checkScale(sc, u); err != nil {
			return nil, err
		}
		if err := unstructured.SetNestedField(u.Object, int64(sc.Spec.Replicas), replicas...); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		return u, nil
	}, nil, admit, registry.Options{DryRun: sw.DryRun()})
	if err != nil {
		return err
	}
	if !sw.DryRun() {
		v.s.TraceStored(r.Context(), v.endpoint, "update (scale)", out)
	}
	return v.writeScaleObject(w, r, v.scaleOf(out.(*unstructured.Unstructured)))
}

// toAny is fields as the parts of a fieldpath.
func toAny(fields []string) []any {
	out := make([]any, len(fields))
	for i, f := range fields {
		out[i] = f
	}
	return out
}

// checkScale validates a Scale written to u, as upstream's scale storage
// does: its name is u's, its resourceVersion (if any) is u's, and
// spec.replicas is not negative.
func (v *crdVersion) checkScale(sc *autoscalingv1.Scale, u *unstructured.Unstructured) error {
	if sc.Name != "" && sc.Name != u.GetName() {
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", sc.Name, u.GetName()))
	}
	if sc.ResourceVersion != "" && sc.ResourceVersion != u.GetResourceVersion() {
		return apierrors.NewConflict(v.endpoint.Resource().GroupResource(), u.GetName(), fmt.Errorf("%s", "the object has been modified; please apply your changes to the latest version and try again"))
	}
	if errs := apivalidation.ValidateNonnegativeField(int64(sc.Spec.Replicas), field.NewPath("spec", "replicas")); len(errs) > 0 {
		return apierrors.NewInvalid(apiserver.ScaleGVK.GroupKind(), sc.Name, errs)
	}
	return nil
}
