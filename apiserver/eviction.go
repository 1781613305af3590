package apiserver

import (
	"net/http"

	policyv1 "k8s.io/api/policy/v1"
	policyv1beta1 "k8s.io/api/policy/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"sigs.k8s.io/yaml"

	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// subEviction is pods/eviction.
const subEviction = "eviction"

// evictionSubresource is pods/eviction: a create of a policy/v1 Eviction
// (policy/v1beta1 is read too, as upstream's EvictionREST accepts both)
// that deletes the pod if its disruption budget allows (ev's Evict).
func evictionSubresource(ev *registry.Evictor) subresource {
	return subresource{name: subEviction, kind: registry.EvictionGVK, verbs: []string{verbCreate},
		newFunc: func() runtime.Object { return &policyv1.Eviction{} },
		create: func(h *handlers, w http.ResponseWriter, r *http.Request, p Params) error {
			return h.evict(w, r, p, ev)
		}}
}

// evict serves POST pods/NAME/eviction: it decodes the Eviction, runs
// mutating admission on it, then has ev evict the pod (validating
// admission runs there, as upstream's createValidation), and answers the
// Status ev returns: 201 Success, or its own code.
func (h *handlers) evict(w http.ResponseWriter, r *http.Request, p Params, ev *registry.Evictor) error {
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
	eviction, warnings, err := decodeEviction(r, body, fieldValidation(opts.FieldValidation))
	if err != nil {
		return err
	}
	traceDecoded(r.Context(), r.Header.Get("Content-Type"), body, eviction, warnings, nil)
	recordWarnings(r.Context(), warnings)
	dryRun := len(opts.DryRun) > 0
	attrs := h.admissionAttributes(r, admission.Create, subEviction, p.Namespace, p.Name, dryRun)
	attrs.Kind, attrs.Object = registry.EvictionGVK, eviction
	if err := h.s.admit(r.Context(), attrs); err != nil {
		return err
	}
	st, err := ev.Evict(r.Context(), p.Namespace, p.Name, eviction, opts.DryRun, h.s.validator(attrs))
	if err != nil {
		return err
	}
	if st.Code == 0 {
		st.Code = http.StatusCreated
	}
	h.s.writeObject(w, r, int(st.Code), st, o)
	return nil
}

// decodeEviction reads a policy/v1 Eviction, or a policy/v1beta1 one
// (JSON or YAML), which it converts to v1: the two have the same fields.
func decodeEviction(r *http.Request, body []byte, validation string) (*policyv1.Eviction, []string, error) {
	mt := ParseMediaType(r.Header.Get("Content-Type"))
	if v1beta1, isYAML := isV1beta1Eviction(mt, body); v1beta1 {
		dec := json.NewSerializerWithOptions(json.DefaultMetaFactory, upstreamScheme, upstreamScheme, json.SerializerOptions{Yaml: isYAML})
		obj, _, err := dec.Decode(body, nil, &policyv1beta1.Eviction{})
		if err != nil {
			return nil, nil, apierrors.NewBadRequest(err.Error())
		}
		old := obj.(*policyv1beta1.Eviction)
		out := &policyv1.Eviction{ObjectMeta: old.ObjectMeta, DeleteOptions: old.DeleteOptions}
		out.GetObjectKind().SetGroupVersionKind(registry.EvictionGVK)
		return out, nil, nil
	}
	obj, warnings, err := decodeBody(r, body, registry.EvictionGVK, &policyv1.Eviction{}, validation)
	if err != nil {
		return nil, nil, err
	}
	return obj.(*policyv1.Eviction), warnings, nil
}

// isV1beta1Eviction reports whether a JSON or YAML body is a
// policy/v1beta1 Eviction, and whether it is YAML.
func isV1beta1Eviction(mediaType string, body []byte) (v1beta1, isYAML bool) {
	data := body
	switch mediaType {
	case "", mediaJSON:
	case mediaYAML:
		isYAML = true
		var err error
		if data, err = yaml.YAMLToJSON(body); err != nil {
			return false, false
		}
	default:
		return false, false
	}
	gvk, err := json.DefaultMetaFactory.Interpret(data)
	return err == nil && gvk != nil && *gvk == policyv1beta1.SchemeGroupVersion.WithKind("Eviction"), isYAML
}
