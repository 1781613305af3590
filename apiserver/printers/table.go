package printers

import (
	"fmt"
	"net/http"
	"reflect"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
)

// printer holds what every row needs besides the object: the clock.
type printer struct {
	now time.Time
}

// since renders the time elapsed from t to p.now the way kubectl's AGE column
// reads ("5m", "3d4h"); a zero time is "<unknown>".
func (p printer) since(t time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(p.now.Sub(t))
}

// defaultColumns are the columns of the generic table, which kube-apiserver
// uses for kinds without a dedicated printer (Role and ClusterRole among them).
var defaultColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Created At", Type: "date", Description: objectMetaDoc["creationTimestamp"]},
}

// defaultRows prints obj, or each item of obj if it is a list, as a name and
// an RFC 3339 UTC creation time.
func defaultRows(obj runtime.Object) ([]metav1.TableRow, error) {
	rows := []metav1.TableRow{}
	add := func(o runtime.Object) error {
		if o == nil || isNilPointer(o) {
			return notAcceptable(kindOf(o))
		}
		m, err := meta.Accessor(o)
		if err != nil {
			return notAcceptable(kindOf(o))
		}
		rows = append(rows, metav1.TableRow{
			Cells:  []any{m.GetName(), m.GetCreationTimestamp().UTC().Format(time.RFC3339)},
			Object: runtime.RawExtension{Object: o},
		})
		return nil
	}
	if meta.IsListType(obj) {
		if err := meta.EachListItem(obj, add); err != nil {
			return nil, err
		}
		return rows, nil
	}
	if err := add(obj); err != nil {
		return nil, err
	}
	return rows, nil
}

// notAcceptable is the error for an object that has no metadata to print:
// HTTP 406 with reason NotAcceptable, as kube-apiserver answers a Table
// request for such a resource.
func notAcceptable(what string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotAcceptable,
		Reason:  metav1.StatusReasonNotAcceptable,
		Message: fmt.Sprintf("the resource %s does not support being converted to a Table", what),
	}}
}

// kindOf names obj for an error message: its kind if set, else its Go type.
func kindOf(obj runtime.Object) string {
	if obj == nil || isNilPointer(obj) {
		return fmt.Sprintf("%T", obj)
	}
	if kind := obj.GetObjectKind().GroupVersionKind().Kind; kind != "" {
		return kind
	}
	return reflect.TypeOf(obj).String()
}

// isNilPointer reports whether obj is a typed nil pointer, which the type
// switch in ToTable would otherwise dereference.
func isNilPointer(obj runtime.Object) bool {
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// objectMetaDoc holds the API documentation of ObjectMeta fields, the source
// of the Name and Age column descriptions.
var objectMetaDoc = metav1.ObjectMeta{}.SwaggerDoc()
