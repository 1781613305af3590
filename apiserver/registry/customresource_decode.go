package registry

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/apiextensions"
	"github.com/kubesim/kubesim/apiserver/printers"
)

// coerceBy returns the Decoded hook of a custom resource: it prunes and
// coerces a decoded object with the version's schema, as upstream's
// decoder does, and reports the fields pruned as upstream does under the
// request's fieldValidation: Strict fails with `unknown field
// "spec.foo"` (a strict decoding error), Warn (the default) adds each as
// a warning, Ignore drops them silently.
func coerceBy(sch *apiextensions.Schema) func(obj runtime.Object, validation string) ([]string, error) {
	return func(obj runtime.Object, validation string) ([]string, error) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return nil, apierrors.NewInternalError(fmt.Errorf("decoded %T, want an Unstructured", obj))
		}
		unknown, err := sch.Coerce(u.Object, validation != metav1.FieldValidationIgnore)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		if len(unknown) == 0 {
			return nil, nil
		}
		msgs := make([]string, len(unknown))
		for i, path := range unknown {
			msgs[i] = fmt.Sprintf(`unknown field "%s"`, path)
		}
		if validation != metav1.FieldValidationStrict {
			return msgs, nil
		}
		errs := make([]error, len(msgs))
		for i, m := range msgs {
			errs[i] = errors.New(m)
		}
		return nil, runtime.NewStrictDecodingError(errs)
	}
}

// customTable adapts the Table convertor of a CRD version to the
// printers' interface.
func customTable(tc apiextensions.TableConvertor) printers.TableConvertor {
	return printers.TableConvertorFunc(func(obj runtime.Object, opts printers.Options) (*metav1.Table, error) {
		return tc(obj, opts.NoHeaders)
	})
}
