package printers

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// Options controls ToTable.
type Options struct {
	NoHeaders bool      // omit ColumnDefinitions (as for watch events after the first)
	Now       time.Time // the clock for AGE/LAST SEEN cells; zero means time.Now()
}

// ToTable converts one object, or a list (*corev1.PodList etc.), into a Table.
// Each row's Object.Object is the item itself (the caller later replaces it
// according to includeObject). For a list, Table.ListMeta copies the list's
// resourceVersion, continue and remainingItemCount; for a single object,
// Table.ResourceVersion is the object's resourceVersion.
//
// Every column is filled, the priority-1 (-o wide) ones included; kubectl
// picks the columns it prints. An object, or a list item, without metadata
// yields an *apierrors.StatusError with code 406 and reason NotAcceptable; a
// nil obj is a plain error. ToTable does not modify obj and is safe for
// concurrent use.
func ToTable(obj runtime.Object, opts Options) (*metav1.Table, error) {
	if obj == nil || isNilPointer(obj) {
		return nil, fmt.Errorf("printers: cannot convert a nil %T to a Table", obj)
	}
	p := printer{now: opts.Now}
	if p.now.IsZero() {
		p.now = time.Now()
	}

	var (
		columns []metav1.TableColumnDefinition
		rows    []metav1.TableRow
	)
	switch o := obj.(type) {
	case *corev1.Pod:
		columns, rows = podColumns, []metav1.TableRow{p.pod(o)}
	case *corev1.PodList:
		columns, rows = podColumns, eachRow(o.Items, p.pod)
	case *corev1.Node:
		columns, rows = nodeColumns, []metav1.TableRow{p.node(o)}
	case *corev1.NodeList:
		columns, rows = nodeColumns, eachRow(o.Items, p.node)
	case *corev1.Namespace:
		columns, rows = namespaceColumns, []metav1.TableRow{p.namespace(o)}
	case *corev1.NamespaceList:
		columns, rows = namespaceColumns, eachRow(o.Items, p.namespace)
	case *corev1.Event:
		columns, rows = eventColumns, []metav1.TableRow{p.event(o)}
	case *corev1.EventList:
		columns, rows = eventColumns, eachRow(o.Items, p.event)
	case *coordinationv1.Lease:
		columns, rows = leaseColumns, []metav1.TableRow{p.lease(o)}
	case *coordinationv1.LeaseList:
		columns, rows = leaseColumns, eachRow(o.Items, p.lease)
	case *rbacv1.RoleBinding:
		columns, rows = roleBindingColumns, []metav1.TableRow{p.roleBinding(o)}
	case *rbacv1.RoleBindingList:
		columns, rows = roleBindingColumns, eachRow(o.Items, p.roleBinding)
	case *rbacv1.ClusterRoleBinding:
		columns, rows = clusterRoleBindingColumns, []metav1.TableRow{p.clusterRoleBinding(o)}
	case *rbacv1.ClusterRoleBindingList:
		columns, rows = clusterRoleBindingColumns, eachRow(o.Items, p.clusterRoleBinding)
	case *apiregv1.APIService:
		columns, rows = apiServiceColumns, []metav1.TableRow{p.apiService(o)}
	case *apiregv1.APIServiceList:
		columns, rows = apiServiceColumns, eachRow(o.Items, p.apiService)
	default:
		var ok bool
		if columns, rows, ok = p.objectTable(obj); ok {
			break
		}
		// Role, ClusterRole and everything else without a dedicated printer
		// get the generic table, as in kube-apiserver.
		var err error
		if rows, err = defaultRows(obj); err != nil {
			return nil, err
		}
		columns = defaultColumns
	}

	table := &metav1.Table{Rows: rows}
	if !opts.NoHeaders {
		// A copy, so that a caller editing its table cannot change the next one.
		table.ColumnDefinitions = slices.Clone(columns)
	}
	if l, err := meta.ListAccessor(obj); err == nil {
		table.ResourceVersion = l.GetResourceVersion()
		table.Continue = l.GetContinue()
		table.RemainingItemCount = l.GetRemainingItemCount()
	} else if c, err := meta.CommonAccessor(obj); err == nil {
		table.ResourceVersion = c.GetResourceVersion()
	}
	return table, nil
}

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

// eachRow prints every item of a typed list, passing a pointer into the
// list's own slice so that each row refers to the item itself.
func eachRow[T any](items []T, row func(*T) metav1.TableRow) []metav1.TableRow {
	rows := make([]metav1.TableRow, 0, len(items))
	for i := range items {
		rows = append(rows, row(&items[i]))
	}
	return rows
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
