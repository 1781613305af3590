package apiserver

import (
	"context"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversionvalidation "k8s.io/apimachinery/pkg/apis/meta/internalversion/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/request"
)

// Params are the path parameters of a route.
type Params struct {
	Namespace string
	Name      string
}

// HandlerFunc is a plain handler; RouteFunction adapts it to go-restful.
// An error it returns is answered as a metav1.Status (it must then not
// have written anything).
type HandlerFunc func(w http.ResponseWriter, r *http.Request, p Params) error

// handlers serves one endpoint: the resource itself, or with sub set one
// of its subresources (pods/status), whose store applies the
// subresource's strategy to the resource's data. get, update and patch
// serve either; the other generic handlers serve the resource. A
// subresource with a handler of its own (pods/binding: bind, in
// binding.go) names it in its endpoint.
type handlers struct {
	s   *Server
	e   *Endpoint
	sub *subresource
}

// store is the store the handlers read and write: the subresource's, or
// the endpoint's.
func (h *handlers) store() *registry.Store {
	if h.sub != nil {
		return h.sub.store
	}
	return h.e.store
}

// subresourceName is the name of the subresource served ("status"), or ""
// for the resource itself.
func (h *handlers) subresourceName() string {
	if h.sub != nil {
		return h.sub.name
	}
	return ""
}

// get serves GET on an object (or its subresource).
func (h *handlers) get(w http.ResponseWriter, r *http.Request, p Params) error {
	store := h.store()
	o, err := negotiate(r, asTable, asPartial)
	if err != nil {
		return err
	}
	o.table = h.e.res.TableConvertor()
	var opts metav1.GetOptions
	if err := decodeQuery(r, &opts); err != nil {
		return err
	}
	if h.sub == nil && h.e.computed != nil {
		obj, err := h.e.computed.get(h.s, r.Context(), p.Name)
		if err != nil {
			return err
		}
		h.s.writeObject(w, r, http.StatusOK, obj, o)
		return nil
	}
	obj, err := store.Get(r.Context(), p.Namespace, p.Name, &opts)
	if err != nil {
		return err
	}
	if m, err := meta.Accessor(obj); err == nil {
		key := store.Key(p.Namespace, p.Name)
		request.TraceFrom(r.Context()).Step("read", "ok", fmt.Sprintf("etcd get %s: revision %s", key, m.GetResourceVersion()), "key", key, "revision", m.GetResourceVersion())
	}
	h.s.writeObject(w, r, http.StatusOK, obj, o)
	return nil
}

// list serves GET on a collection: a list, or a watch with ?watch=true.
func (h *handlers) list(w http.ResponseWriter, r *http.Request, p Params) error {
	return h.listOrWatch(w, r, p, false)
}

// watch serves the legacy /watch/... paths.
func (h *handlers) watch(w http.ResponseWriter, r *http.Request, p Params) error {
	return h.listOrWatch(w, r, p, true)
}

// listOrWatch serves GET on a collection, or with forceWatch (or
// ?watch=true) a watch of it; under /watch/.../NAME the watch is of the
// one object, a metadata.name field selector.
func (h *handlers) listOrWatch(w http.ResponseWriter, r *http.Request, p Params, forceWatch bool) error {
	opts, err := listOptions(r)
	if err != nil {
		return err
	}
	if forceWatch {
		opts.Watch = true
	}
	if p.Name != "" {
		// /watch/.../NAME watches one object: a metadata.name selector.
		byName := fields.OneTermEqualSelector("metadata.name", p.Name)
		if opts.FieldSelector == nil || opts.FieldSelector.Empty() {
			opts.FieldSelector = byName
		} else {
			if v, ok := opts.FieldSelector.RequiresExactMatch("metadata.name"); ok && v != p.Name {
				return apierrors.NewBadRequest(fmt.Sprintf("fieldSelector metadata.name=%s doesn't match requested name %q", v, p.Name))
			}
			opts.FieldSelector = fields.AndSelectors(opts.FieldSelector, byName)
		}
	}
	if errs := metainternalversionvalidation.ValidateListOptions(opts, true); len(errs) > 0 {
		return optionsError("ListOptions", errs)
	}
	if opts.Watch {
		if !h.e.has(verbWatch) {
			return apierrors.NewMethodNotSupported(schema.GroupResource{Group: h.e.gv.Group, Resource: h.e.res.Plural}, verbWatch)
		}
		traceWatchChoice(r, forceWatch, opts.ResourceVersion)
		return h.s.serveWatch(w, r, h.e, p.Namespace, opts)
	}
	o, err := negotiate(r, asTable, asPartialList)
	if err != nil {
		return err
	}
	o.table = h.e.res.TableConvertor()
	if h.e.computed != nil {
		list, err := h.e.computed.list(h.s, r.Context(), opts)
		if err != nil {
			return err
		}
		h.s.writeObject(w, r, http.StatusOK, list, o)
		return nil
	}
	list, err := h.e.store.List(r.Context(), p.Namespace, opts)
	if err != nil {
		return err
	}
	if lm, err := meta.ListAccessor(list); err == nil {
		request.TraceFrom(r.Context()).Step("read", "ok", fmt.Sprintf("etcd range under %s: %d objects at revision %s",
			h.e.store.Storage().Prefix(), meta.LenList(list), lm.GetResourceVersion()),
			"prefix", h.e.store.Storage().Prefix(), "count", fmt.Sprint(meta.LenList(list)), "revision", lm.GetResourceVersion())
	}
	h.s.writeObject(w, r, http.StatusOK, list, o)
	return nil
}

// readObject reads and decodes a request body as the endpoint's kind,
// applies defaults, traces both, and records the decoding's warnings.
func (h *handlers) readObject(r *http.Request, validation string) (runtime.Object, error) {
	body, err := readBody(r, h.s.cfg.MaxRequestBodyBytes)
	if err != nil {
		return nil, err
	}
	obj, warnings, err := decodeBody(r, body, h.e.gvk(), h.e.res.NewFunc(), fieldValidation(validation))
	if err == nil && h.e.res.Decoded != nil {
		var more []string
		if more, err = h.e.res.Decoded(obj, fieldValidation(validation)); runtime.IsStrictDecodingError(err) {
			gvk := h.e.gvk()
			err = decodeError(err, &gvk, gvk, body)
		}
		warnings = append(warnings, more...)
	}
	if err != nil {
		request.TraceFrom(r.Context()).Step("decoded", "failed", err.Error())
		return nil, err
	}
	var defaulted []string
	if h.e.res.Default != nil {
		defaulted = h.e.res.Default(obj, request.TraceFrom(r.Context()).Recording())
	}
	traceDecoded(r.Context(), r.Header.Get("Content-Type"), body, obj, warnings, defaulted)
	recordWarnings(r.Context(), warnings)
	return obj, nil
}

// create serves POST on a collection: decode and default the body, record
// its fields in managedFields (an Update by the request's manager), run
// mutating admission, then store it through the registry with validating
// admission (wrapped, unless it is a dry run, in the endpoint's
// admitCreate hook). It answers 201 with the object stored.
func (h *handlers) create(w http.ResponseWriter, r *http.Request, p Params) error {
	o, err := negotiate(r)
	if err != nil {
		return err
	}
	opts, err := createOptions(r)
	if err != nil {
		return err
	}
	obj, err := h.readObject(r, opts.FieldValidation)
	if err != nil {
		return err
	}
	obj = h.trackUpdate(h.e.res.NewFunc(), obj, managerName(opts.FieldManager, r.UserAgent()))
	m, _ := meta.Accessor(obj)
	dryRun := len(opts.DryRun) > 0
	attrs := h.admissionAttributes(r, admission.Create, "", p.Namespace, m.GetName(), dryRun)
	attrs.Object = obj
	if err := h.admitKeepingManagedFields(r.Context(), attrs); err != nil {
		return err
	}
	validate, failed := h.s.validator(attrs), func() {}
	if h.e.admitCreate != nil && !dryRun {
		validate, failed = h.e.admitCreate(h.s, validate)
	}
	out, err := h.e.store.Create(r.Context(), p.Namespace, obj, validate, registry.Options{DryRun: dryRun})
	if err != nil {
		failed()
		return err
	}
	if !dryRun {
		h.traceStored(r.Context(), "create", out)
	}
	h.s.writeObject(w, r, http.StatusCreated, out, o)
	return nil
}

// update serves PUT on an object (or its subresource).
func (h *handlers) update(w http.ResponseWriter, r *http.Request, p Params) error {
	store, subresource := h.store(), h.subresourceName()
	o, err := negotiate(r)
	if err != nil {
		return err
	}
	opts, err := updateOptions(r)
	if err != nil {
		return err
	}
	obj, err := h.readObject(r, opts.FieldValidation)
	if err != nil {
		return err
	}
	m, _ := meta.Accessor(obj)
	if m.GetName() != p.Name {
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", m.GetName(), p.Name))
	}
	dryRun := len(opts.DryRun) > 0
	attrs := h.admissionAttributes(r, admission.Update, subresource, p.Namespace, p.Name, dryRun)
	createAttrs := *attrs
	createAttrs.Operation = admission.Create
	manager := managerName(opts.FieldManager, r.UserAgent())
	out, created, err := store.Update(r.Context(), p.Namespace, p.Name, func(ctx context.Context, current runtime.Object) (runtime.Object, error) {
		next := h.trackUpdate(current, obj.DeepCopyObject(), manager)
		a := *attrs
		if cm, err := meta.Accessor(current); err == nil && cm.GetResourceVersion() == "" {
			a.Operation = admission.Create // PUT that creates
		} else {
			a.OldObject = current
		}
		a.Object = next
		return next, h.admitKeepingManagedFields(ctx, &a)
	}, h.s.validator(&createAttrs), h.updateValidator(attrs, dryRun), registry.Options{DryRun: dryRun, UID: m.GetUID()})
	if err != nil {
		return err
	}
	if !dryRun {
		h.traceStored(r.Context(), "update", out)
	}
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	h.s.writeObject(w, r, code, out, o)
	return nil
}

// delete serves DELETE on an object. It answers what the registry
// returns (the object while it stays, for a graceful deletion or
// finalizers; once it is gone, or when its deletion was already under
// way, a Success Status, or the object for the resources upstream
// returns it of: pods, services, service accounts, namespaces) with 200, or 202 when the object stays and the
// client asked (orphanDependents=false) for its dependents to go first.
func (h *handlers) delete(w http.ResponseWriter, r *http.Request, p Params) error {
	o, err := negotiate(r)
	if err != nil {
		return err
	}
	opts, err := deleteOptions(r, h.s.cfg.MaxRequestBodyBytes)
	if err != nil {
		return err
	}
	attrs := h.admissionAttributes(r, admission.Delete, "", p.Namespace, p.Name, len(opts.DryRun) > 0)
	out, deleted, err := h.e.delete(r.Context(), p.Namespace, p.Name, h.s.validator(attrs), opts)
	if err != nil {
		return err
	}
	if deleted {
		key := h.e.store.Key(p.Namespace, p.Name)
		request.TraceFrom(r.Context()).Step("stored", "ok", "etcd delete "+key, "key", key)
	} else if len(opts.DryRun) == 0 {
		h.traceStored(r.Context(), "update (graceful deletion)", out)
	}
	code := http.StatusOK
	// 202 when the object stays and the client asked for dependents to
	// be deleted first (compatibility rule of kube-apiserver).
	if !deleted && opts.OrphanDependents != nil && !*opts.OrphanDependents {
		code = http.StatusAccepted
	}
	h.s.writeObject(w, r, code, out, o)
	return nil
}

// deleteCollection serves DELETE on a collection: every object the list
// options select is deleted as delete would, and the answer is the list of
// them.
func (h *handlers) deleteCollection(w http.ResponseWriter, r *http.Request, p Params) error {
	o, err := negotiate(r)
	if err != nil {
		return err
	}
	listOpts, err := listOptions(r)
	if err != nil {
		return err
	}
	if errs := metainternalversionvalidation.ValidateListOptions(listOpts, true); len(errs) > 0 {
		return optionsError("ListOptions", errs)
	}
	opts, err := deleteOptions(r, h.s.cfg.MaxRequestBodyBytes)
	if err != nil {
		return err
	}
	attrs := h.admissionAttributes(r, admission.Delete, "", p.Namespace, "", len(opts.DryRun) > 0)
	validate := func(ctx context.Context, obj runtime.Object) error {
		a := *attrs
		if m, err := meta.Accessor(obj); err == nil {
			a.Name = m.GetName()
		}
		return h.s.validator(&a)(ctx, obj)
	}
	out, err := h.e.store.DeleteCollection(r.Context(), p.Namespace, validate, opts, listOpts)
	if err != nil {
		return err
	}
	h.s.writeObject(w, r, http.StatusOK, out, o)
	return nil
}
