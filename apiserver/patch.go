package apiserver

import (
	"bytes"
	"context"
	stdjson "encoding/json"
	"fmt"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"sigs.k8s.io/json"

	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/request"
)

// patchTypes are the patch formats this server applies. Server-side apply
// (application/apply-patch+yaml) is not among them: the server answers it
// with 415, as one without server-side apply does.
var patchTypes = []string{string(types.JSONPatchType), string(types.MergePatchType), string(types.StrategicMergePatchType)}

// maxJSONPatchOperations caps the operations of one JSON patch.
const maxJSONPatchOperations = 10000

// patch serves PATCH on an object (or its subresource): the patch is
// applied to the current object inside the update loop, so a concurrent
// change is never lost.
func (h *handlers) patch(w http.ResponseWriter, r *http.Request, p Params) error {
	store, subresource := h.store(), h.subresourceName()
	o, err := negotiate(r)
	if err != nil {
		return err
	}
	pt := types.PatchType(ParseMediaType(r.Header.Get("Content-Type")))
	if !contains(patchTypes, string(pt)) {
		return UnsupportedMediaType(patchTypes)
	}
	var opts metav1.PatchOptions
	if err := decodeQuery(r, &opts); err != nil {
		return err
	}
	if errs := metav1validation.ValidatePatchOptions(&opts, pt); len(errs) > 0 {
		return optionsError("PatchOptions", errs)
	}
	body, err := readBody(r, h.s.cfg.MaxRequestBodyBytes)
	if err != nil {
		return err
	}
	if !stdjson.Valid(body) {
		return apierrors.NewBadRequest("invalid JSON patch")
	}
	validation := fieldValidation(opts.FieldValidation)
	dryRun := len(opts.DryRun) > 0
	attrs := h.admissionAttributes(r, admission.Update, subresource, p.Namespace, p.Name, dryRun)
	request.TraceFrom(r.Context()).Step("decoded", "ok", fmt.Sprintf("%d bytes of %s", len(body), pt), "contentType", string(pt), "bytes", fmt.Sprint(len(body)))
	apply := func(ctx context.Context, current runtime.Object) (runtime.Object, error) {
		m, err := meta.Accessor(current)
		if err != nil {
			return nil, err
		}
		if m.GetResourceVersion() == "" {
			// Nothing to patch (the object does not exist).
			return nil, apierrors.NewNotFound(h.e.res.GroupResource(), p.Name)
		}
		obj, ws, err := h.applyPatch(current, pt, body, validation)
		if err != nil {
			return nil, err
		}
		recordWarnings(ctx, ws)
		a := *attrs
		a.Object, a.OldObject = obj, current
		return obj, h.s.admit(ctx, &a)
	}
	out, _, err := store.Update(r.Context(), p.Namespace, p.Name, apply, nil, h.updateValidator(attrs, dryRun), registry.Options{DryRun: dryRun})
	if err != nil {
		return err
	}
	if !dryRun {
		h.traceStored(r.Context(), "update (patch)", out)
	}
	h.s.writeObject(w, r, http.StatusOK, out, o)
	return nil
}

// applyPatch applies a patch to current and decodes the result.
func (h *handlers) applyPatch(current runtime.Object, pt types.PatchType, patch []byte, validation string) (runtime.Object, []string, error) {
	var cur bytes.Buffer
	if err := registry.Codec.Encode(current, &cur); err != nil {
		return nil, nil, apierrors.NewInternalError(err)
	}
	var patched []byte
	var warnings []string
	strict := validation != metav1.FieldValidationIgnore
	switch pt {
	case types.JSONPatchType:
		if strict {
			var ops []map[string]any
			strictErrs, err := json.UnmarshalStrict(patch, &ops)
			if err != nil {
				return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
			}
			for _, e := range strictErrs {
				warnings = append(warnings, fmt.Sprintf("json patch %v", e))
			}
		}
		ops, err := jsonpatch.DecodePatch(patch)
		if err != nil {
			return nil, nil, apierrors.NewBadRequest(err.Error())
		}
		if len(ops) > maxJSONPatchOperations {
			return nil, nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOperations, len(ops)))
		}
		if patched, err = ops.Apply(cur.Bytes()); err != nil {
			return nil, nil, invalidPatch(err)
		}
	case types.MergePatchType:
		var err error
		if patched, err = jsonpatch.MergePatch(cur.Bytes(), patch); err != nil {
			if err == jsonpatch.ErrBadJSONPatch {
				return nil, nil, apierrors.NewBadRequest(err.Error())
			}
			return nil, nil, err // upstream returns it as it is: a 500
		}
	case types.StrategicMergePatchType:
		var err error
		if patched, err = strategicpatch.StrategicMergePatch(cur.Bytes(), patch, h.e.res.NewFunc()); err != nil {
			switch err {
			case mergepatch.ErrBadJSONDoc, mergepatch.ErrBadPatchFormatForPrimitiveList, mergepatch.ErrBadPatchFormatForRetainKeys,
				mergepatch.ErrBadPatchFormatForSetElementOrderList, mergepatch.ErrUnsupportedStrategicMergePatchFormat:
				return nil, nil, apierrors.NewBadRequest(err.Error())
			case mergepatch.ErrNoListOfLists, mergepatch.ErrPatchContentNotMatchRetainKeys:
				return nil, nil, invalidPatch(err)
			}
			return nil, nil, err // as upstream's interpretStrategicMergePatchError: a 500
		}
	}
	gvk := h.e.gvk()
	obj, _, err := registry.StrictJSON.Decode(patched, &gvk, h.e.res.NewFunc())
	if err != nil {
		strictErr, isStrict := runtime.AsStrictDecodingError(err)
		switch {
		case isStrict && validation == metav1.FieldValidationStrict:
			return nil, nil, apierrors.NewBadRequest(err.Error())
		case isStrict && validation == metav1.FieldValidationWarn:
			for _, e := range strictErr.Errors() {
				warnings = append(warnings, e.Error())
			}
		case isStrict:
		default:
			return nil, nil, apierrors.NewBadRequest(err.Error())
		}
	}
	if got := obj.GetObjectKind().GroupVersionKind(); got != gvk {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("the patch changed the object's apiVersion or kind to %s, want %s", got, gvk))
	}
	more, err := h.patchedDecoded(obj, validation)
	if err != nil {
		return nil, nil, err
	}
	warnings = append(warnings, more...)
	if h.e.res.Default != nil {
		h.e.res.Default(obj, false)
	}
	return obj, warnings, nil
}

// invalidPatch is the 422 kube-apiserver gives for a JSON patch that does
// not apply: NewGenericServerResponse's, whose message is the generic one
// of a 422 and whose details name no cause, so the client does not learn
// which operation failed (upstream does not say either).
func invalidPatch(err error) error {
	return apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
}

// patchedDecoded runs the resource's Decoded hook, if any, on a patched
// object: its warnings, or a strict decoding error as a 400.
func (h *handlers) patchedDecoded(obj runtime.Object, validation string) ([]string, error) {
	if h.e.res.Decoded == nil {
		return nil, nil
	}
	more, err := h.e.res.Decoded(obj, validation)
	if runtime.IsStrictDecodingError(err) {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	return more, err
}
