package printers

import (
	"fmt"
	"reflect"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TableConvertor turns an object, or a list of them, into the Table that
// `kubectl get` prints (upstream's rest.TableConvertor). Every resource's
// registration names one: a Handler of this package for a built-in kind,
// Default for a kind without columns of its own, the CRD's printer
// columns for a custom resource.
type TableConvertor interface {
	ConvertToTable(obj runtime.Object, opts Options) (*metav1.Table, error)
}

// Options controls a conversion.
type Options struct {
	NoHeaders bool      // omit ColumnDefinitions (as for watch events after the first)
	Now       time.Time // the clock for AGE/LAST SEEN cells; zero means time.Now()
}

// Handler is the Table conversion of one built-in kind, as a handler of
// upstream's TableGenerator (printers.TableHandler): the kind's columns
// and the row of one object. It converts an object of its kind or a list
// of them; any other object gets the generic table of Default. It is
// immutable and safe for concurrent use.
type Handler struct {
	kind    reflect.Type // the pointer type of one object (*corev1.Pod)
	columns []metav1.TableColumnDefinition
	row     func(printer, runtime.Object) metav1.TableRow
}

// tableHandler makes the Handler of the kind whose objects are *T: every
// column is filled, the priority-1 (-o wide) ones included; kubectl picks
// the columns it prints.
func tableHandler[T any, PT interface {
	*T
	runtime.Object
}](columns []metav1.TableColumnDefinition, row func(printer, PT) metav1.TableRow) *Handler {
	return &Handler{
		kind:    reflect.TypeFor[PT](),
		columns: columns,
		row:     func(p printer, obj runtime.Object) metav1.TableRow { return row(p, obj.(PT)) },
	}
}

// ConvertToTable converts obj, one object or a list (*corev1.PodList
// etc.). Each row's Object.Object is the item itself (the caller later
// replaces it according to includeObject). For a list, Table.ListMeta
// copies the list's resourceVersion, continue and remainingItemCount; for
// a single object, Table.ResourceVersion is the object's
// resourceVersion. An object, or a list item, without metadata yields an
// *apierrors.StatusError with code 406 and reason NotAcceptable; a nil obj
// is a plain error. It does not modify obj.
func (h *Handler) ConvertToTable(obj runtime.Object, opts Options) (*metav1.Table, error) {
	if obj == nil || isNilPointer(obj) {
		return nil, fmt.Errorf("printers: cannot convert a nil %T to a Table", obj)
	}
	rows, ok, err := h.rows(obj, newPrinter(opts))
	if err != nil {
		return nil, err
	}
	if !ok {
		return Default.ConvertToTable(obj, opts)
	}
	return newTable(obj, h.columns, rows, opts), nil
}

// rows prints obj if it is of h's kind, or each item of a list of them;
// ok is false for any other object.
func (h *Handler) rows(obj runtime.Object, p printer) (rows []metav1.TableRow, ok bool, err error) {
	if reflect.TypeOf(obj) == h.kind {
		return []metav1.TableRow{h.row(p, obj)}, true, nil
	}
	if !meta.IsListType(obj) || !h.listsKind(obj) {
		return nil, false, nil
	}
	// ExtractList hands back pointers into the list's own slice, so each
	// row refers to the item itself.
	items, err := meta.ExtractList(obj)
	if err != nil {
		return nil, false, err
	}
	rows = make([]metav1.TableRow, 0, len(items))
	for _, item := range items {
		rows = append(rows, h.row(p, item))
	}
	return rows, true, nil
}

// Converts reports whether obj is an object of h's kind or a list of them.
func (h *Handler) Converts(obj runtime.Object) bool {
	return obj != nil && (reflect.TypeOf(obj) == h.kind || h.listsKind(obj))
}

// listsKind reports whether obj is a typed list whose items are h's kind.
func (h *Handler) listsKind(obj runtime.Object) bool {
	t := reflect.TypeOf(obj)
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return false
	}
	items, ok := t.Elem().FieldByName("Items")
	return ok && items.Type.Kind() == reflect.Slice && reflect.PointerTo(items.Type.Elem()) == h.kind
}

// defaultTable is the generic table, which kube-apiserver uses for kinds
// without a dedicated printer (Role and ClusterRole among them).
type defaultTable struct{}

// Default converts any object with metadata, or list of them, into the
// generic table: a name and an RFC 3339 UTC creation time per object.
var Default TableConvertor = defaultTable{}

// ConvertToTable is Handler.ConvertToTable with the generic columns.
func (defaultTable) ConvertToTable(obj runtime.Object, opts Options) (*metav1.Table, error) {
	if obj == nil || isNilPointer(obj) {
		return nil, fmt.Errorf("printers: cannot convert a nil %T to a Table", obj)
	}
	rows, err := defaultRows(obj)
	if err != nil {
		return nil, err
	}
	return newTable(obj, defaultColumns, rows, opts), nil
}

// newTable assembles the Table of obj from its columns and rows.
func newTable(obj runtime.Object, columns []metav1.TableColumnDefinition, rows []metav1.TableRow, opts Options) *metav1.Table {
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
	return table
}

// newPrinter returns the printer of a conversion with opts's clock.
func newPrinter(opts Options) printer {
	p := printer{now: opts.Now}
	if p.now.IsZero() {
		p.now = time.Now()
	}
	return p
}

// TableConvertorFunc adapts a function to a TableConvertor.
type TableConvertorFunc func(obj runtime.Object, opts Options) (*metav1.Table, error)

// ConvertToTable calls f.
func (f TableConvertorFunc) ConvertToTable(obj runtime.Object, opts Options) (*metav1.Table, error) {
	return f(obj, opts)
}
