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
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/json"

	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/request"
)

// patchTypes are the patch formats this server applies, in the order
// kube-apiserver lists them: JSON patch, merge patch, strategic merge
// patch and server-side apply (application/apply-patch+yaml; its CBOR
// form is behind a feature gate that v1.37 leaves off).
var patchTypes = []string{string(types.JSONPatchType), string(types.MergePatchType), string(types.StrategicMergePatchType), string(types.ApplyYAMLPatchType)}

// maxJSONPatchOperations caps the operations of one JSON patch.
const maxJSONPatchOperations = 10000

// patch serves PATCH on an object (or its subresource): the patch is
// applied to the current object inside the update loop, so a concurrent
// change is never lost. The write is recorded in managedFields (an
// Update by the request's manager); a server-side apply merges the
// applied configuration by its field manager and, on the resource
// itself, creates a missing object (201).
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
	opts, body, err := h.patchRequest(r, pt)
	if err != nil {
		return err
	}
	dryRun := len(opts.DryRun) > 0
	attrs := h.admissionAttributes(r, admission.Update, subresource, p.Namespace, p.Name, dryRun)
	createAttrs := *attrs
	createAttrs.Operation = admission.Create
	request.TraceFrom(r.Context()).Step("decoded", "ok", fmt.Sprintf("%d bytes of %s", len(body), pt), "contentType", string(pt), "bytes", fmt.Sprint(len(body)))
	isApply := pt == types.ApplyYAMLPatchType
	manager := managerName(opts.FieldManager, r.UserAgent())
	mutate := func(ctx context.Context, current runtime.Object) (runtime.Object, error) {
		m, err := meta.Accessor(current)
		if err != nil {
			return nil, err
		}
		exists := m.GetResourceVersion() != ""
		var obj runtime.Object
		switch {
		case isApply:
			obj, err = h.serverSideApply(ctx, current, exists, body, opts)
		case !exists:
			// Nothing to patch (the object does not exist).
			return nil, apierrors.NewNotFound(h.e.res.GroupResource(), p.Name)
		default:
			obj, err = h.patchTracked(ctx, current, pt, body, fieldValidation(opts.FieldValidation), manager)
		}
		if err != nil {
			return nil, err
		}
		a := *attrs
		if exists {
			a.OldObject = current
		} else {
			a.Operation = admission.Create
		}
		a.Object = obj
		return obj, h.admitKeepingManagedFields(ctx, &a)
	}
	out, created, err := store.Update(r.Context(), p.Namespace, p.Name, mutate, h.s.validator(&createAttrs), h.updateValidator(attrs, dryRun),
		registry.Options{DryRun: dryRun, AllowCreate: isApply && subresource == ""})
	if err != nil {
		return err
	}
	if !dryRun {
		h.traceStored(r.Context(), "update (patch)", out)
	}
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	h.s.writeObject(w, r, code, out, o)
	return nil
}

// patchRequest reads and checks a PATCH's options (fieldManager required
// for apply, force only for apply) and body (valid JSON, or for apply
// YAML that reads as JSON), with upstream's answers.
func (h *handlers) patchRequest(r *http.Request, pt types.PatchType) (*metav1.PatchOptions, []byte, error) {
	var opts metav1.PatchOptions
	if err := decodeQuery(r, &opts); err != nil {
		return nil, nil, err
	}
	if errs := metav1validation.ValidatePatchOptions(&opts, pt); len(errs) > 0 {
		return nil, nil, optionsError("PatchOptions", errs)
	}
	body, err := readBody(r, h.s.cfg.MaxRequestBodyBytes)
	if err != nil {
		return nil, nil, err
	}
	if pt == types.ApplyYAMLPatchType {
		if _, err := yaml.ToJSON(body); err != nil {
			return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("error encoding patch: %v", err))
		}
	} else if !stdjson.Valid(body) {
		return nil, nil, apierrors.NewBadRequest("invalid JSON patch")
	}
	return &opts, body, nil
}

// patchTracked applies a JSON, merge or strategic merge patch to current
// and records the change in managedFields as an Update by manager.
func (h *handlers) patchTracked(ctx context.Context, current runtime.Object, pt types.PatchType, body []byte, validation, manager string) (runtime.Object, error) {
	obj, ws, err := h.applyPatch(current, pt, body, validation)
	if err != nil {
		return nil, err
	}
	recordWarnings(ctx, ws)
	return h.trackUpdate(current, obj, manager), nil
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
