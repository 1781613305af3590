package apiserver

import (
	"context"
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversionvalidation "k8s.io/apimachinery/pkg/apis/meta/internalversion/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// params are the path parameters of a route.
type params struct {
	namespace string
	name      string
}

// handlerFunc is a plain handler; routes adapt it to go-restful.
type handlerFunc func(w http.ResponseWriter, r *http.Request, p params)

// handlers serves one endpoint.
type handlers struct {
	s *Server
	e *endpoint
}

// immortalNamespaces cannot be deleted.
var immortalNamespaces = sets.New(metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic)

func (h *handlers) get(w http.ResponseWriter, r *http.Request, p params) {
	h.getFrom(h.e.store, w, r, p)
}

func (h *handlers) getFrom(store *registry.Store, w http.ResponseWriter, r *http.Request, p params) {
	o, err := negotiate(r, asTable, asPartial)
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	var opts metav1.GetOptions
	if err := decodeQuery(r, &opts); err != nil {
		h.s.writeError(w, r, err)
		return
	}
	obj, err := store.Get(r.Context(), p.namespace, p.name, &opts)
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	h.s.writeObject(w, r, http.StatusOK, obj, o)
}

// list serves GET on a collection: a list, or a watch with ?watch=true.
func (h *handlers) list(w http.ResponseWriter, r *http.Request, p params) {
	h.listOrWatch(w, r, p, false)
}

// watch serves the legacy /watch/... paths.
func (h *handlers) watch(w http.ResponseWriter, r *http.Request, p params) {
	h.listOrWatch(w, r, p, true)
}

func (h *handlers) listOrWatch(w http.ResponseWriter, r *http.Request, p params, forceWatch bool) {
	opts, err := listOptions(r)
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	if forceWatch {
		opts.Watch = true
	}
	if p.name != "" {
		// /watch/.../NAME watches one object: a metadata.name selector.
		byName := fields.OneTermEqualSelector("metadata.name", p.name)
		if opts.FieldSelector == nil || opts.FieldSelector.Empty() {
			opts.FieldSelector = byName
		} else {
			if v, ok := opts.FieldSelector.RequiresExactMatch("metadata.name"); ok && v != p.name {
				h.s.writeError(w, r, apierrors.NewBadRequest(fmt.Sprintf("fieldSelector metadata.name=%s doesn't match requested name %q", v, p.name)))
				return
			}
			opts.FieldSelector = fields.AndSelectors(opts.FieldSelector, byName)
		}
	}
	if errs := metainternalversionvalidation.ValidateListOptions(opts, true); len(errs) > 0 {
		h.s.writeError(w, r, optionsError("ListOptions", errs))
		return
	}
	if opts.Watch {
		h.s.serveWatch(w, r, h.e, p.namespace, opts)
		return
	}
	o, err := negotiate(r, asTable, asPartialList)
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	list, err := h.e.store.List(r.Context(), p.namespace, opts)
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	h.s.writeObject(w, r, http.StatusOK, list, o)
}

// admitNamespace is the namespace lifecycle check on creates: the
// namespace must exist and not be terminating.
func (h *handlers) admitNamespace(ctx context.Context, namespace, name string) error {
	if !h.e.res.Namespaced {
		return nil
	}
	phase, err := h.s.namespaces.Phase(ctx, namespace)
	if err != nil {
		return err
	}
	if phase == corev1.NamespaceTerminating {
		err := apierrors.NewForbidden(h.e.res.GroupResource(), name,
			fmt.Errorf("unable to create new content in namespace %s because it is being terminated", namespace))
		err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
			Type:    corev1.NamespaceTerminatingCause,
			Message: fmt.Sprintf("namespace %s is being terminated", namespace),
			Field:   "metadata.namespace",
		})
		return err
	}
	return nil
}

func (h *handlers) create(w http.ResponseWriter, r *http.Request, p params) {
	o, err := negotiate(r)
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	opts, err := createOptions(r)
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	body, err := readBody(r, h.s.cfg.MaxRequestBodyBytes)
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	obj, warnings, err := decodeBody(r, body, h.e.gvk(), h.e.res.NewFunc(), fieldValidation(opts.FieldValidation))
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	if h.e.res.Default != nil {
		h.e.res.Default(obj)
	}
	m, _ := meta.Accessor(obj)
	if err := h.admitNamespace(r.Context(), p.namespace, m.GetName()); err != nil {
		h.s.writeError(w, r, err)
		return
	}
	out, err := h.e.store.Create(r.Context(), p.namespace, obj, nil, registry.Options{DryRun: len(opts.DryRun) > 0})
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	addWarnings(w, warnings)
	h.s.writeObject(w, r, http.StatusCreated, out, o)
}

func (h *handlers) update(w http.ResponseWriter, r *http.Request, p params) {
	h.updateIn(h.e.store, w, r, p)
}

// updateIn serves PUT on the resource or a subresource served by store.
func (h *handlers) updateIn(store *registry.Store, w http.ResponseWriter, r *http.Request, p params) {
	o, err := negotiate(r)
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	opts, err := updateOptions(r)
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	body, err := readBody(r, h.s.cfg.MaxRequestBodyBytes)
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	obj, warnings, err := decodeBody(r, body, h.e.gvk(), h.e.res.NewFunc(), fieldValidation(opts.FieldValidation))
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	if h.e.res.Default != nil {
		h.e.res.Default(obj)
	}
	m, _ := meta.Accessor(obj)
	if m.GetName() != p.name {
		h.s.writeError(w, r, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", m.GetName(), p.name)))
		return
	}
	createValidation := func(ctx context.Context, _ runtime.Object) error { return h.admitNamespace(ctx, p.namespace, p.name) }
	out, created, err := store.Update(r.Context(), p.namespace, p.name, func(context.Context, runtime.Object) (runtime.Object, error) {
		return obj.DeepCopyObject(), nil
	}, createValidation, nil, registry.Options{DryRun: len(opts.DryRun) > 0})
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	addWarnings(w, warnings)
	h.s.writeObject(w, r, code, out, o)
}

func (h *handlers) delete(w http.ResponseWriter, r *http.Request, p params) {
	o, err := negotiate(r)
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	opts, err := deleteOptions(r, h.s.cfg.MaxRequestBodyBytes)
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	if h.e.res == registry.Namespaces && immortalNamespaces.Has(p.name) {
		h.s.writeError(w, r, apierrors.NewForbidden(h.e.res.GroupResource(), p.name, fmt.Errorf("this namespace may not be deleted")))
		return
	}
	out, deleted, err := h.e.delete(r.Context(), p.namespace, p.name, nil, opts)
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	code := http.StatusOK
	// 202 when the object stays and the client asked for dependents to
	// be deleted first (compatibility rule of kube-apiserver).
	if !deleted && opts.OrphanDependents != nil && !*opts.OrphanDependents {
		code = http.StatusAccepted
	}
	h.s.writeObject(w, r, code, out, o)
}

func (h *handlers) deleteCollection(w http.ResponseWriter, r *http.Request, p params) {
	o, err := negotiate(r)
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	listOpts, err := listOptions(r)
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	if errs := metainternalversionvalidation.ValidateListOptions(listOpts, true); len(errs) > 0 {
		h.s.writeError(w, r, optionsError("ListOptions", errs))
		return
	}
	opts, err := deleteOptions(r, h.s.cfg.MaxRequestBodyBytes)
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	out, err := h.e.store.DeleteCollection(r.Context(), p.namespace, nil, opts, listOpts)
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	h.s.writeObject(w, r, http.StatusOK, out, o)
}

// bind serves POST pods/NAME/binding and the legacy POST bindings.
func (h *handlers) bind(w http.ResponseWriter, r *http.Request, p params) {
	o, err := negotiate(r)
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	opts, err := createOptions(r)
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	body, err := readBody(r, h.s.cfg.MaxRequestBodyBytes)
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	gvk := corev1.SchemeGroupVersion.WithKind("Binding")
	obj, warnings, err := decodeBody(r, body, gvk, &corev1.Binding{}, fieldValidation(opts.FieldValidation))
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	binding := obj.(*corev1.Binding)
	name := p.name
	if name == "" { // legacy POST namespaces/NS/bindings names the pod in the body
		name = binding.Name
	}
	st, err := h.s.reg.Binder.Bind(r.Context(), p.namespace, name, binding, registry.Options{DryRun: len(opts.DryRun) > 0})
	if err != nil {
		h.s.writeError(w, r, err)
		return
	}
	st.Code = http.StatusCreated
	addWarnings(w, warnings)
	h.s.writeObject(w, r, http.StatusCreated, st, o)
}
