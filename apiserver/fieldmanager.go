package apiserver

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apiserver/pkg/warning"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kubesim/kubesim/apiserver/admission"
)

// fieldOwnership builds and keeps the field managers of one endpoint:
// one for the resource and one per subresource, each made on first use
// (kube-apiserver makes them when it installs the routes; made lazily,
// only endpoints that are written to pay for them). The zero value
// serves a built-in kind; a custom resource's endpoint is given its
// CRD's type information (UseCustomResourceFields). Safe for concurrent
// use.
type fieldOwnership struct {
	mu       sync.Mutex
	managers map[string]*managedfields.FieldManager
	// custom, if set, makes the field manager of a custom resource
	// endpoint for a subresource ("" for the resource itself).
	custom func(subresource string) (*managedfields.FieldManager, error)
}

// fieldManager returns the field manager of e's subresource sub ("" for
// the resource), or nil if none can be made for its kind (its writes
// then keep no managedFields and apply is refused).
func (e *Endpoint) fieldManager(sub string) *managedfields.FieldManager {
	f := &e.fields
	f.mu.Lock()
	defer f.mu.Unlock()
	if fm, ok := f.managers[sub]; ok {
		return fm
	}
	var fm *managedfields.FieldManager
	var err error
	if f.custom != nil {
		fm, err = f.custom(sub)
	} else {
		fm, err = builtinFieldManager(e, sub)
	}
	if err != nil {
		fm = nil
	}
	if f.managers == nil {
		f.managers = map[string]*managedfields.FieldManager{}
	}
	f.managers[sub] = fm
	return fm
}

// builtinFieldManager is upstream's default field manager for a built-in
// kind: the kind's schema from the published OpenAPI models (see
// builtinTypeConverter), objects converted through the server's scheme
// (across versions through the internal version, as kube-apiserver's hub),
// defaults as a request body gets them, and the reset fields of the
// endpoint's strategy (see builtinResetFields).
func builtinFieldManager(e *Endpoint, sub string) (*managedfields.FieldManager, error) {
	kind := e.gvk()
	res := e.res
	defaulter := defaulterFunc(func(obj runtime.Object) {
		if res.Default != nil {
			res.Default(obj, false)
		}
	})
	reset := fieldpath.NewExcludeFilterSetMap(builtinResetFields(e, sub))
	return managedfields.NewDefaultFieldManager(builtinTypeConverter(), builtinConverter{}, defaulter,
		creatorFunc(func(schema.GroupVersionKind) (runtime.Object, error) { return res.NewFunc(), nil }),
		kind, kind.GroupVersion(), sub, reset)
}

// builtinResetFields are the fields a write to sub does not take
// ownership of because the endpoint's strategy resets them: the status of
// a kind with a status subresource on the resource itself, and the spec
// on its status subresource, as upstream's strategies' GetResetFields say
// for the kinds kubesim serves (some add metadata fields, such as a
// deployment's labels on /status, which kubesim leaves out).
func builtinResetFields(e *Endpoint, sub string) map[fieldpath.APIVersion]*fieldpath.Set {
	v := fieldpath.APIVersion(e.gv.String())
	switch {
	case sub == "" && e.res.Status != nil:
		return map[fieldpath.APIVersion]*fieldpath.Set{v: fieldpath.NewSet(fieldpath.MakePathOrDie("status"))}
	case sub == subStatus:
		return map[fieldpath.APIVersion]*fieldpath.Set{v: fieldpath.NewSet(fieldpath.MakePathOrDie("spec"))}
	}
	return nil
}

// defaulterFunc adapts a func to runtime.ObjectDefaulter.
type defaulterFunc func(obj runtime.Object)

// Default implements runtime.ObjectDefaulter.
func (f defaulterFunc) Default(obj runtime.Object) { f(obj) }

// creatorFunc adapts a func to runtime.ObjectCreater.
type creatorFunc func(kind schema.GroupVersionKind) (runtime.Object, error)

// New implements runtime.ObjectCreater.
func (f creatorFunc) New(kind schema.GroupVersionKind) (runtime.Object, error) { return f(kind) }

// managerName is the name a write is recorded under in managedFields: the
// request's fieldManager, or else the part of its User-Agent before the
// first "/" ("kubectl" of "kubectl/v1.32.0 (linux/amd64) ..."), without
// unprintable characters and cut to the length a fieldManager may have,
// as kube-apiserver names it.
func managerName(fieldManager, userAgent string) string {
	if fieldManager != "" {
		return fieldManager
	}
	prefix, _, _ := strings.Cut(userAgent, "/")
	var b strings.Builder
	for _, r := range prefix {
		if !unicode.IsPrint(r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > metav1validation.FieldManagerMaxLength {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// trackUpdate records, in newObj's managedFields, the fields a create,
// update or non-apply patch by manager changes from live (an empty object
// for a create), as upstream's handlers do before mutating admission. It
// returns newObj with its managedFields set; without a field manager it
// returns newObj as it is.
func (h *handlers) trackUpdate(live, newObj runtime.Object, manager string) runtime.Object {
	fm := h.e.fieldManager(h.subresourceName())
	if fm == nil {
		return newObj
	}
	return fm.UpdateNoErrors(live, newObj, manager)
}

// admitKeepingManagedFields runs mutating admission on attrs.Object and,
// if a plugin left its managedFields invalid, puts back the ones it had
// before, with upstream's warning (the validating wrapper kube-apiserver
// puts around admission once field managers are installed).
func (h *handlers) admitKeepingManagedFields(ctx context.Context, attrs *admission.Attributes) error {
	m, err := meta.Accessor(attrs.Object)
	if err != nil {
		return h.s.admit(ctx, attrs)
	}
	before := m.GetManagedFields()
	if err := h.s.admit(ctx, attrs); err != nil {
		return err
	}
	if err := managedfields.ValidateManagedFields(m.GetManagedFields()); err != nil {
		m.SetManagedFields(before)
		warning.AddWarning(ctx, "", fmt.Sprintf(".metadata.managedFields was in an invalid state after admission; this could be caused by an outdated mutating admission controller; please fix your requests: %v", err))
	}
	return nil
}

// unstructuredKindFor is the kind target selects for u's, or an error.
func unstructuredKindFor(u *unstructured.Unstructured, target runtime.GroupVersioner) (schema.GroupVersionKind, error) {
	gvk, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{u.GroupVersionKind()})
	if !ok {
		return schema.GroupVersionKind{}, fmt.Errorf("%s cannot be converted to %v", u.GroupVersionKind(), target)
	}
	return gvk, nil
}
