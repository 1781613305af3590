package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	restful "github.com/emicklei/go-restful/v3"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// subScale is the scale subresource; ScaleGVK its kind, autoscaling/v1
// Scale (custom resources' too).
const subScale = "scale"

var ScaleGVK = autoscalingv1.SchemeGroupVersion.WithKind("Scale")

// scaleSubresource is {plural}/scale of a resource whose registration
// has Scale accessors (deployments, replicasets): an autoscaling/v1 Scale
// read from and written to its replicas, as upstream's scale storage
// serves it.
func scaleSubresource() subresource {
	return subresource{name: subScale, kind: ScaleGVK, verbs: []string{verbGet, verbPatch, verbUpdate},
		newFunc: func() runtime.Object { return &autoscalingv1.Scale{} },
		serve: func(h *handlers, verb string) HandlerFunc {
			switch verb {
			case verbGet:
				return h.getScale
			case verbUpdate:
				return h.updateScale
			}
			return h.patchScale
		}}
}

// scaleOf is the autoscaling/v1 Scale of obj, read as res's
// registration says (registry.Resource.Scale).
func scaleOf(res *registry.Resource, obj runtime.Object) (*autoscalingv1.Scale, error) {
	if res.Scale == nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("no scale for %s", res.Plural))
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	spec, cur, sel := res.Scale.Replicas(obj)
	selector, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Name: m.GetName(), Namespace: m.GetNamespace(), UID: m.GetUID(),
			ResourceVersion: m.GetResourceVersion(), CreationTimestamp: m.GetCreationTimestamp()},
		Spec:   autoscalingv1.ScaleSpec{Replicas: spec},
		Status: autoscalingv1.ScaleStatus{Replicas: cur, Selector: selector.String()},
	}, nil
}

// getScale serves GET .../scale.
func (h *handlers) getScale(w http.ResponseWriter, r *http.Request, p Params) error {
	o, err := negotiate(r)
	if err != nil {
		return err
	}
	obj, err := h.e.store.Get(r.Context(), p.Namespace, p.Name, nil)
	if err != nil {
		return err
	}
	sc, err := scaleOf(h.e.res, obj)
	if err != nil {
		return err
	}
	h.s.writeObject(w, r, http.StatusOK, sc, o)
	return nil
}

// updateScale serves PUT .../scale.
func (h *handlers) updateScale(w http.ResponseWriter, r *http.Request, p Params) error {
	sw, err := h.s.ReadScaleWrite(r)
	if err != nil {
		return err
	}
	return h.writeScale(w, r, p, sw)
}

// patchScale serves PATCH .../scale: JSON patch, a merge patch (a
// strategic merge patch of a Scale, which has no lists, merges the same)
// or a server-side apply of a Scale.
func (h *handlers) patchScale(w http.ResponseWriter, r *http.Request, p Params) error {
	return h.updateScale(w, r, p)
}

// ScalePatcher applies patch, of type pt, to a Scale: JSON patch, or a
// merge patch (a strategic merge patch of a Scale, which has no lists,
// merges the same). Deployments, ReplicaSets and custom resources share
// it.
func ScalePatcher(pt types.PatchType, patch []byte) func(cur *autoscalingv1.Scale) ([]byte, error) {
	return func(cur *autoscalingv1.Scale) ([]byte, error) {
		doc, err := json.Marshal(cur)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		if pt == types.JSONPatchType {
			ops, err := jsonpatch.DecodePatch(patch)
			if err != nil {
				return nil, apierrors.NewBadRequest(err.Error())
			}
			out, err := ops.Apply(doc)
			if err != nil {
				return nil, invalidPatch(err)
			}
			return out, nil
		}
		out, err := jsonpatch.MergePatch(doc, patch)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		return out, nil
	}
}

// writeScale sets spec.replicas from the Scale sw makes of the current
// one, through the resource's own update (its generation is bumped), and
// answers the new Scale. The write is recorded in the object's
// managedFields under subresource scale, its replicas as spec.replicas.
// Mutating admission runs on the resized object, validating admission
// just before it is stored, as for any update.
func (h *handlers) writeScale(w http.ResponseWriter, r *http.Request, p Params, sw *ScaleWrite) error {
	o, err := negotiate(r)
	if err != nil {
		return err
	}
	attrs := h.admissionAttributes(r, admission.Update, subScale, p.Namespace, p.Name, sw.DryRun())
	out, _, err := h.e.store.Update(r.Context(), p.Namespace, p.Name, func(ctx context.Context, current runtime.Object) (runtime.Object, error) {
		cur, err := scaleOf(h.e.res, current)
		if err != nil {
			return nil, err
		}
		if cur.ResourceVersion == "" {
			return nil, apierrors.NewNotFound(h.e.res.GroupResource(), p.Name)
		}
		sc, err := sw.Write(current, h.e.gv, fieldpath.MakePathOrDie("spec", "replicas"), cur)
		if err != nil {
			return nil, err
		}
		if err := h.checkScale(sc, cur); err != nil {
			return nil, err
		}
		old := current.DeepCopyObject()
		h.e.res.Scale.SetReplicas(current, sc.Spec.Replicas)
		a := *attrs
		a.Object, a.OldObject = current, old
		return current, h.s.admit(ctx, &a)
	}, nil, h.s.updateValidator(attrs), registry.Options{DryRun: sw.DryRun()})
	if err != nil {
		return err
	}
	if !sw.DryRun() {
		h.traceStored(r.Context(), "update (scale)", out)
	}
	sc, err := scaleOf(h.e.res, out)
	if err != nil {
		return err
	}
	h.s.writeObject(w, r, http.StatusOK, sc, o)
	return nil
}

// checkScale validates a Scale as upstream's scale storage does.
func (h *handlers) checkScale(sc, cur *autoscalingv1.Scale) error {
	if sc.Name != "" && sc.Name != cur.Name {
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", sc.Name, cur.Name))
	}
	if sc.ResourceVersion != "" && sc.ResourceVersion != cur.ResourceVersion {
		return apierrors.NewConflict(h.e.res.GroupResource(), cur.Name, fmt.Errorf("%s", "the object has been modified; please apply your changes to the latest version and try again"))
	}
	if errs := apivalidation.ValidateNonnegativeField(int64(sc.Spec.Replicas), field.NewPath("spec", "replicas")); len(errs) > 0 {
		return apierrors.NewInvalid(ScaleGVK.GroupKind(), cur.Name, errs)
	}
	return nil
}

// installServedSubresource adds the route of verb on sub, a subresource
// with handlers of its own, at path.
func (s *Server) installServedSubresource(ws *restful.WebService, e *Endpoint, sub *subresource, path, scope, verb string) {
	h := &handlers{s: s, e: e, sub: sub}
	fn, kind := s.RouteFunction(ws, sub.serve(h, verb)), e.res.Kind.Kind
	var b *restful.RouteBuilder
	var opVerb, doc string
	switch verb {
	case verbGet:
		b, opVerb, doc = ws.GET(path).To(fn), "read", "read "+sub.name+" of the specified "+kind
	case verbUpdate:
		b, opVerb, doc = ws.PUT(path).To(fn), "replace", "replace "+sub.name+" of the specified "+kind
	case verbPatch:
		b, opVerb, doc = ws.PATCH(path).To(fn), "patch", "partially update "+sub.name+" of the specified "+kind
	default:
		return
	}
	ws.Route(subresourceMedia(b, verb).Operation(opVerb + opGroup(e.gv) + scope + kind + exported(sub.name)).Doc(doc))
}
