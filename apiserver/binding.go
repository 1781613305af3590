package apiserver

import (
	"net/http"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// bindingSubresource is pods/binding: a create of a v1 Binding that sets
// the pod's node (the scheduler's POST, stage 4).
func bindingSubresource() subresource {
	return subresource{name: subBinding, kind: corev1.SchemeGroupVersion.WithKind("Binding"), verbs: []string{verbCreate},
		newFunc: func() runtime.Object { return &corev1.Binding{} }, create: (*handlers).bind}
}

// bind serves POST pods/NAME/binding and the legacy POST
// namespaces/NS/bindings (which names the pod in the body): it decodes the
// Binding, runs admission on it and has the registry's Binder set the
// pod's node, and answers 201 with a Success Status.
func (h *handlers) bind(w http.ResponseWriter, r *http.Request, p Params) error {
	o, err := negotiate(r)
	if err != nil {
		return err
	}
	opts, err := createOptions(r)
	if err != nil {
		return err
	}
	body, err := readBody(r, h.s.cfg.MaxRequestBodyBytes)
	if err != nil {
		return err
	}
	gvk := corev1.SchemeGroupVersion.WithKind("Binding")
	obj, warnings, err := decodeBody(r, body, gvk, &corev1.Binding{}, fieldValidation(opts.FieldValidation))
	if err != nil {
		return err
	}
	traceDecoded(r.Context(), r.Header.Get("Content-Type"), body, obj, warnings, nil)
	recordWarnings(r.Context(), warnings)
	binding := obj.(*corev1.Binding)
	name := p.Name
	if name == "" { // legacy POST namespaces/NS/bindings names the pod in the body
		name = binding.Name
	}
	dryRun := len(opts.DryRun) > 0
	attrs := h.admissionAttributes(r, admission.Create, subBinding, p.Namespace, name, dryRun)
	attrs.Kind, attrs.Object = gvk, binding
	if err := h.s.admit(r.Context(), attrs); err != nil {
		return err
	}
	if err := h.s.validator(attrs)(r.Context(), binding); err != nil {
		return err
	}
	st, err := h.s.reg.Binder.Bind(r.Context(), p.Namespace, name, binding, registry.Options{DryRun: dryRun})
	if err != nil {
		return err
	}
	if !dryRun {
		if pod, err := h.e.store.Get(r.Context(), p.Namespace, name, nil); err == nil {
			h.traceStored(r.Context(), "update (spec.nodeName="+binding.Target.Name+")", pod)
		}
	}
	st.Code = http.StatusCreated
	h.s.writeObject(w, r, http.StatusCreated, st, o)
	return nil
}
