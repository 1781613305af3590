package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/munnerz/goautoneg"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/apiextensions"
	"github.com/kubesim/kubesim/apiserver/printers"
)

// decodedHook, when an endpoint has one, runs on each object the
// handlers decode from a request body or get from applying a patch,
// before defaults: it may change the object and returns the warnings to
// add, or an error. A runtime strict decoding error is reported as the
// handlers report their own (a 400 with fieldValidation=Strict).
type decodedHook func(obj runtime.Object, validation string) ([]string, error)

// coerce prunes and coerces a decoded custom resource with its schema,
// as upstream's decoder does, and reports the fields pruned as upstream
// does under the request's fieldValidation: Strict fails with
// `unknown field "spec.foo"` (strict decoding error), Warn (the default)
// adds each as a warning, Ignore drops them silently.
func (v *crdVersion) coerce(obj runtime.Object, validation string) ([]string, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("decoded %T, want an Unstructured", obj))
	}
	track := validation != metav1.FieldValidationIgnore
	unknown, err := v.stores.Schema.Coerce(u.Object, track)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	var errs []error
	for _, path := range unknown {
		errs = append(errs, fmt.Errorf(`unknown field "%s"`, path))
	}
	switch {
	case len(errs) == 0:
		return nil, nil
	case validation == metav1.FieldValidationStrict:
		return nil, runtime.NewStrictDecodingError(errs)
	}
	warnings := make([]string, len(errs))
	for i, e := range errs {
		warnings[i] = e.Error()
	}
	return warnings, nil
}

// tableConvertFunc turns an object (or list) into a Table, as
// printers.ToTable does for the built-in kinds.
type tableConvertFunc func(obj runtime.Object, opts printers.Options) (*metav1.Table, error)

type tableConvertorKey struct{}

// withTableConvertor makes convert the Table conversion of the
// request's responses (a custom resource's columns).
func withTableConvertor(ctx context.Context, convert tableConvertFunc) context.Context {
	return context.WithValue(ctx, tableConvertorKey{}, convert)
}

// tableConvertorFrom returns the request's Table conversion, or nil for
// the built-in printers.
func tableConvertorFrom(ctx context.Context) tableConvertFunc {
	f, _ := ctx.Value(tableConvertorKey{}).(tableConvertFunc)
	return f
}

// customTable adapts a CRD version's table convertor.
func customTable(tc apiextensions.TableConvertor) tableConvertFunc {
	return func(obj runtime.Object, opts printers.Options) (*metav1.Table, error) {
		return tc(obj, opts.NoHeaders)
	}
}

// prepareRequest readies a request for the version's generic handlers:
// Tables use the version's columns, and protobuf, which custom resources
// do not speak, is taken out of the Accept header (a client accepting
// nothing else gets 406, as upstream answers).
func (v *crdVersion) prepareRequest(r *http.Request) (*http.Request, error) {
	r = r.WithContext(withTableConvertor(r.Context(), v.table))
	accept := r.Header.Get("Accept")
	if accept == "" {
		return r, nil
	}
	var kept []string
	for _, clause := range strings.Split(accept, ",") {
		c := goautoneg.ParseAccept(clause)
		if len(c) == 1 && c[0].Type == "application" && c[0].SubType == "vnd.kubernetes.protobuf" {
			continue
		}
		kept = append(kept, clause)
	}
	if len(kept) == len(strings.Split(accept, ",")) {
		return r, nil
	}
	if len(kept) == 0 {
		return r, notAcceptableMsg("only the following media types are accepted: " + strings.Join(crBodyTypes, ", "))
	}
	r.Header = r.Header.Clone()
	r.Header.Set("Accept", strings.Join(kept, ","))
	return r, nil
}
