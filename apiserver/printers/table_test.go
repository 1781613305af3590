package printers_test

import (
	"errors"
	"net/http"
	"reflect"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	rbacv1beta1 "k8s.io/api/rbac/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// column is the part of a column definition kubectl acts on: it prints
// Name in upper case, and only with -o wide when Priority is not 0.
type column struct {
	Name     string
	Type     string
	Format   string
	Priority int32
}

func columnsOf(table *metav1.Table) []column {
	var cols []column
	for _, c := range table.ColumnDefinitions {
		cols = append(cols, column{c.Name, c.Type, c.Format, c.Priority})
	}
	return cols
}

// TestColumns checks the headers of each kind against kube-apiserver's.
func TestColumns(t *testing.T) {
	name := column{"Name", "string", "name", 0}
	age := column{"Age", "string", "", 0}
	str := func(n string) column { return column{n, "string", "", 0} }
	wide := func(n string) column { return column{n, "string", "", 1} }
	bindings := []column{name, str("Role"), age, wide("Users"), wide("Groups"), wide("ServiceAccounts")}
	generic := []column{name, {"Created At", "date", "", 0}}

	tests := []struct {
		name string
		obj  runtime.Object
		want []column
	}{
		{"pods", &corev1.PodList{}, []column{name, str("Ready"), str("Status"), str("Restarts"), age,
			wide("IP"), wide("Node"), wide("Nominated Node"), wide("Readiness Gates")}},
		{"nodes", &corev1.NodeList{}, []column{name, str("Status"), str("Roles"), age, str("Version"),
			wide("Internal-IP"), wide("External-IP"), wide("OS-Image"), wide("Kernel-Version"), wide("Container-Runtime")}},
		{"namespaces", &corev1.NamespaceList{}, []column{name, str("Status"), age}},
		{"events", &corev1.EventList{}, []column{str("Last Seen"), str("Type"), str("Reason"), str("Object"),
			wide("Subobject"), wide("Source"), str("Message"), wide("First Seen"), wide("Count"), {"Name", "string", "name", 1}}},
		{"leases", &coordinationv1.LeaseList{}, []column{name, str("Holder"), age}},
		{"rolebindings", &rbacv1.RoleBindingList{}, bindings},
		{"clusterrolebindings", &rbacv1.ClusterRoleBindingList{}, bindings},
		{"roles", &rbacv1.RoleList{}, generic},
		{"clusterroles", &rbacv1.ClusterRoleList{}, generic},
		{"limitranges (Name and Created At, as upstream)", &corev1.LimitRangeList{}, generic},
		{"configmaps", &corev1.ConfigMapList{}, []column{name, str("Data"), age}},
		{"secrets", &corev1.SecretList{}, []column{name, str("Type"), str("Data"), age}},
		{"serviceaccounts", &corev1.ServiceAccountList{}, []column{name, age}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table := MustTable(t, tt.obj, printers.Options{})
			if got := columnsOf(table); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("columns = %+v\nwant      %+v", got, tt.want)
			}
			for _, c := range table.ColumnDefinitions {
				if c.Description == "" {
					t.Errorf("column %q has no description", c.Name)
				}
			}
		})
	}
}

// TestColumnDescriptions checks that descriptions are the API documentation
// of the field each column shows, as kube-apiserver serves them.
func TestColumnDescriptions(t *testing.T) {
	meta := metav1.ObjectMeta{}.SwaggerDoc()
	tests := []struct {
		obj    runtime.Object
		column string
		want   string
	}{
		{&corev1.Pod{}, "Name", meta["name"]},
		{&corev1.Pod{}, "Age", meta["creationTimestamp"]},
		{&corev1.Pod{}, "IP", corev1.PodStatus{}.SwaggerDoc()["podIP"]},
		{&corev1.Pod{}, "Status", "The aggregate status of the containers in this pod."},
		{&corev1.Node{}, "Version", corev1.NodeSystemInfo{}.SwaggerDoc()["kubeletVersion"]},
		{&corev1.Node{}, "Roles", "The roles of the node"},
		{&corev1.Namespace{}, "Status", "The status of the namespace"},
		{&corev1.Event{}, "Subobject", corev1.ObjectReference{}.SwaggerDoc()["fieldPath"]},
		{&corev1.Event{}, "Last Seen", corev1.Event{}.SwaggerDoc()["lastTimestamp"]},
		{&coordinationv1.Lease{}, "Holder", coordinationv1.LeaseSpec{}.SwaggerDoc()["holderIdentity"]},
		// kube-apiserver documents ROLE with the rbac/v1beta1 text.
		{&rbacv1.RoleBinding{}, "Role", rbacv1beta1.RoleBinding{}.SwaggerDoc()["roleRef"]},
		{&rbacv1.ClusterRoleBinding{}, "Users", "Users in the clusterRoleBinding"},
		{&rbacv1.Role{}, "Created At", meta["creationTimestamp"]},
	}
	for _, tt := range tests {
		t.Run(reflect.TypeOf(tt.obj).Elem().Name()+"/"+tt.column, func(t *testing.T) {
			table := MustTable(t, tt.obj, printers.Options{})
			for _, c := range table.ColumnDefinitions {
				if c.Name == tt.column {
					if c.Description != tt.want {
						t.Errorf("description = %q, want %q", c.Description, tt.want)
					}
					return
				}
			}
			t.Errorf("no column %q", tt.column)
		})
	}
}

func TestNamespaceCells(t *testing.T) {
	tests := []struct {
		ns   *corev1.Namespace
		want []any
	}{
		{&corev1.Namespace{
			ObjectMeta: metav1.ObjectMeta{Name: "default", CreationTimestamp: ago(400 * day)},
			Status:     corev1.NamespaceStatus{Phase: corev1.NamespaceActive},
		}, []any{"default", "Active", "400d"}},
		{&corev1.Namespace{
			ObjectMeta: metav1.ObjectMeta{Name: "old", CreationTimestamp: ago(3 * 365 * day), DeletionTimestamp: agoPtr(time.Second)},
			Status:     corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating},
		}, []any{"old", "Terminating", "3y"}},
	}
	for _, tt := range tests {
		t.Run(tt.ns.Name, func(t *testing.T) {
			if got := MustRow(t, tt.ns); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("cells = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLeaseCells(t *testing.T) {
	tests := []struct {
		name  string
		lease *coordinationv1.Lease
		want  []any
	}{
		{"node heartbeat", &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: "node-1", Namespace: "kube-node-lease", CreationTimestamp: ago(2 * time.Hour)},
			Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr("node-1"), LeaseDurationSeconds: ptr(int32(40))},
		}, []any{"node-1", "node-1", "120m"}},
		{"leader election", &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: "kube-scheduler", Namespace: "kube-system", CreationTimestamp: ago(9 * time.Hour)},
			Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr("control-plane_5b0c7f0e-3a1d-4c2e-9d5c-0b7a2f4e1c9d")},
		}, []any{"kube-scheduler", "control-plane_5b0c7f0e-3a1d-4c2e-9d5c-0b7a2f4e1c9d", "9h"}},
		{"released", &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: "free", Namespace: "default", CreationTimestamp: ago(7 * time.Hour)},
		}, []any{"free", "", "7h"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MustRow(t, tt.lease); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("cells = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBindingCells(t *testing.T) {
	subjects := []rbacv1.Subject{
		{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "jane"},
		{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "system:masters"},
		{Kind: rbacv1.ServiceAccountKind, Namespace: "kube-system", Name: "default"},
		{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "bob"},
		{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "devs"},
		{Kind: rbacv1.ServiceAccountKind, Namespace: "default", Name: "builder"},
	}
	tests := []struct {
		name string
		obj  runtime.Object
		want []any
	}{
		{"rolebinding", &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "read-pods", Namespace: "default", CreationTimestamp: ago(6 * time.Minute)},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "pod-reader"},
			Subjects:   subjects,
		}, []any{"read-pods", "Role/pod-reader", "6m", "jane, bob", "system:masters, devs", "kube-system/default, default/builder"}},
		{"rolebinding to a clusterrole, service account only", &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "sa-view", Namespace: "default", CreationTimestamp: ago(6 * time.Minute)},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "default", Name: "app"}},
		}, []any{"sa-view", "ClusterRole/view", "6m", "", "", "default/app"}},
		{"clusterrolebinding", &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "cluster-admin", CreationTimestamp: ago(3 * day)},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "system:masters"}},
		}, []any{"cluster-admin", "ClusterRole/cluster-admin", "3d", "", "system:masters", ""}},
		{"clusterrolebinding without subjects", &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "empty", CreationTimestamp: ago(3 * day)},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		}, []any{"empty", "ClusterRole/view", "3d", "", "", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MustRow(t, tt.obj); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("cells = %q\nwant    %q", got, tt.want)
			}
		})
	}
}

// TestDefaultTable checks the generic table: the name and the creation time
// as an RFC 3339 UTC timestamp, which kubectl prints as is under CREATED AT.
func TestDefaultTable(t *testing.T) {
	created := metav1.NewTime(time.Date(2025, time.May, 20, 9, 30, 15, 0, time.FixedZone("CEST", 2*60*60)))
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("example.com/v1")
	u.SetKind("Widget")
	u.SetName("w1")
	u.SetCreationTimestamp(created)

	tests := []struct {
		name string
		obj  runtime.Object
		want [][]any
	}{
		{"role", &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "pod-reader", Namespace: "default", CreationTimestamp: created}},
			[][]any{{"pod-reader", "2025-05-20T07:30:15Z"}}},
		{"clusterrole list", &rbacv1.ClusterRoleList{Items: []rbacv1.ClusterRole{
			{ObjectMeta: metav1.ObjectMeta{Name: "admin", CreationTimestamp: created}},
			{ObjectMeta: metav1.ObjectMeta{Name: "view", CreationTimestamp: metav1.NewTime(now)}},
		}}, [][]any{{"admin", "2025-05-20T07:30:15Z"}, {"view", "2025-06-01T12:00:00Z"}}},
		{"any kind with metadata", &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "kube-root-ca.crt", CreationTimestamp: created}},
			[][]any{{"kube-root-ca.crt", "2025-05-20T07:30:15Z"}}},
		{"unstructured", u, [][]any{{"w1", "2025-05-20T07:30:15Z"}}},
		{"unstructured list", &unstructured.UnstructuredList{Items: []unstructured.Unstructured{*u}}, [][]any{{"w1", "2025-05-20T07:30:15Z"}}},
		{"empty list", &rbacv1.RoleList{}, [][]any{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table := MustTable(t, tt.obj, printers.Options{})
			got := [][]any{}
			for _, r := range table.Rows {
				got = append(got, r.Cells)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("rows = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestListsAndRowObjects checks, for every supported list kind, that each
// item gives one row in order, that the row's object is the item itself, and
// that the table carries the list's metadata.
func TestListsAndRowObjects(t *testing.T) {
	lm := metav1.ListMeta{ResourceVersion: "1234", Continue: "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ", RemainingItemCount: ptr(int64(7))}
	om := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name, ResourceVersion: "99"} }
	for _, list := range []runtime.Object{
		&corev1.PodList{ListMeta: lm, Items: []corev1.Pod{{ObjectMeta: om("a")}, {ObjectMeta: om("b")}}},
		&corev1.NodeList{ListMeta: lm, Items: []corev1.Node{{ObjectMeta: om("a")}, {ObjectMeta: om("b")}}},
		&corev1.NamespaceList{ListMeta: lm, Items: []corev1.Namespace{{ObjectMeta: om("a")}, {ObjectMeta: om("b")}}},
		&corev1.EventList{ListMeta: lm, Items: []corev1.Event{{ObjectMeta: om("a")}, {ObjectMeta: om("b")}}},
		&coordinationv1.LeaseList{ListMeta: lm, Items: []coordinationv1.Lease{{ObjectMeta: om("a")}, {ObjectMeta: om("b")}}},
		&rbacv1.RoleList{ListMeta: lm, Items: []rbacv1.Role{{ObjectMeta: om("a")}, {ObjectMeta: om("b")}}},
		&rbacv1.ClusterRoleList{ListMeta: lm, Items: []rbacv1.ClusterRole{{ObjectMeta: om("a")}, {ObjectMeta: om("b")}}},
		&rbacv1.RoleBindingList{ListMeta: lm, Items: []rbacv1.RoleBinding{{ObjectMeta: om("a")}, {ObjectMeta: om("b")}}},
		&rbacv1.ClusterRoleBindingList{ListMeta: lm, Items: []rbacv1.ClusterRoleBinding{{ObjectMeta: om("a")}, {ObjectMeta: om("b")}}},
	} {
		t.Run(reflect.TypeOf(list).Elem().Name(), func(t *testing.T) {
			table := MustTable(t, list, printers.Options{})
			if !reflect.DeepEqual(table.ListMeta, lm) {
				t.Errorf("ListMeta = %+v, want %+v", table.ListMeta, lm)
			}
			// Pointers to the list's own items.
			items := reflect.ValueOf(list).Elem().FieldByName("Items")
			var want []any
			for i := range items.Len() {
				want = append(want, items.Index(i).Addr().Interface())
			}
			if len(table.Rows) != len(want) {
				t.Fatalf("%d rows, want %d", len(table.Rows), len(want))
			}
			for i, r := range table.Rows {
				if r.Object.Object != want[i] {
					t.Errorf("row %d object = %p, want the list's item %d (%p)", i, r.Object.Object, i, want[i])
				}
				if len(r.Cells) != len(table.ColumnDefinitions) {
					t.Errorf("row %d has %d cells for %d columns", i, len(r.Cells), len(table.ColumnDefinitions))
				}
			}
			nameCol := -1
			for i, c := range table.ColumnDefinitions {
				if c.Format == "name" {
					nameCol = i
				}
			}
			if got := []any{table.Rows[0].Cells[nameCol], table.Rows[1].Cells[nameCol]}; !reflect.DeepEqual(got, []any{"a", "b"}) {
				t.Errorf("names = %q, want [a b] in list order", got)
			}
		})
	}
}

func TestSingleObjectResourceVersion(t *testing.T) {
	for _, obj := range []runtime.Object{
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", ResourceVersion: "42"}},
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r", ResourceVersion: "42"}},
	} {
		t.Run(reflect.TypeOf(obj).Elem().Name(), func(t *testing.T) {
			table := MustTable(t, obj, printers.Options{})
			want := metav1.ListMeta{ResourceVersion: "42"}
			if !reflect.DeepEqual(table.ListMeta, want) {
				t.Errorf("ListMeta = %+v, want %+v", table.ListMeta, want)
			}
			if len(table.Rows) != 1 || table.Rows[0].Object.Object != obj {
				t.Errorf("rows = %+v, want one row holding the object", table.Rows)
			}
		})
	}
}

func TestEmptyListHasNoRows(t *testing.T) {
	table := MustTable(t, &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "5"}}, printers.Options{})
	if table.Rows == nil || len(table.Rows) != 0 {
		t.Errorf("rows = %#v, want an empty, non-nil slice", table.Rows)
	}
	if len(table.ColumnDefinitions) != 9 {
		t.Errorf("%d columns, want the 9 pod columns even without rows", len(table.ColumnDefinitions))
	}
}

func TestNoHeaders(t *testing.T) {
	for _, obj := range []runtime.Object{
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "c"}},
	} {
		t.Run(reflect.TypeOf(obj).Elem().Name(), func(t *testing.T) {
			table := MustTable(t, obj, printers.Options{NoHeaders: true})
			if table.ColumnDefinitions != nil {
				t.Errorf("ColumnDefinitions = %+v, want none", table.ColumnDefinitions)
			}
			if len(table.Rows) != 1 || len(table.Rows[0].Cells) == 0 {
				t.Errorf("rows = %+v, want one row with cells", table.Rows)
			}
		})
	}
}

// TestColumnsAreCopies checks that a caller editing one table's columns does
// not change the next table.
func TestColumnsAreCopies(t *testing.T) {
	first := MustTable(t, &corev1.Pod{}, printers.Options{})
	first.ColumnDefinitions[0].Name = "changed"
	second := MustTable(t, &corev1.Pod{}, printers.Options{})
	if got := second.ColumnDefinitions[0].Name; got != "Name" {
		t.Errorf("first column of a new table = %q, want %q", got, "Name")
	}
}

// TestZeroNowUsesWallClock checks that Options.Now defaults to the current
// time.
func TestZeroNowUsesWallClock(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "n", CreationTimestamp: metav1.NewTime(time.Now().Add(-3 * time.Hour))}}
	table, err := toTable(ns, printers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := table.Rows[0].Cells[2]; got != "3h" {
		t.Errorf("AGE = %q, want %q", got, "3h")
	}
}

func TestObjectsWithoutMetadata(t *testing.T) {
	tests := []struct {
		name string
		obj  runtime.Object
	}{
		{"status", &metav1.Status{Status: metav1.StatusFailure, Code: 404}},
		{"discovery document", &metav1.APIResourceList{GroupVersion: "v1"}},
		{"list of items without metadata", &metav1.List{Items: []runtime.RawExtension{{Raw: []byte(`{}`)}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table, err := toTable(tt.obj, printers.Options{Now: now})
			if err == nil {
				t.Fatalf("ToTable(%T) = %+v, want an error", tt.obj, table)
			}
			if !apierrors.IsNotAcceptable(err) {
				t.Errorf("error %v is not NotAcceptable", err)
			}
			var status apierrors.APIStatus
			if !errors.As(err, &status) || status.Status().Code != http.StatusNotAcceptable {
				t.Errorf("error %v does not carry HTTP status 406", err)
			}
		})
	}
}

func TestNilObject(t *testing.T) {
	for _, obj := range []runtime.Object{nil, (*corev1.Pod)(nil), (*rbacv1.RoleList)(nil)} {
		if _, err := toTable(obj, printers.Options{Now: now}); err == nil {
			t.Errorf("ToTable(%#v) succeeded, want an error", obj)
		}
	}
}

// TestConcurrentUse runs ToTable on one shared list from many goroutines;
// run with -race to catch shared mutable state.
func TestConcurrentUse(t *testing.T) {
	list := &corev1.PodList{Items: []corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "a", CreationTimestamp: ago(time.Minute)}, Status: corev1.PodStatus{Phase: corev1.PodSucceeded}},
		{ObjectMeta: metav1.ObjectMeta{Name: "b", CreationTimestamp: ago(time.Minute)}, Status: corev1.PodStatus{Phase: corev1.PodFailed}},
	}}
	want := MustTable(t, list, printers.Options{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			got, err := toTable(list, printers.Options{Now: now})
			if err != nil {
				t.Error(err)
				return
			}
			got.Rows[0].Conditions[0].Message = "scribbled"
			got.ColumnDefinitions[1].Name = "scribbled"
		})
	}
	wg.Wait()
	again := MustTable(t, list, printers.Options{})
	if !reflect.DeepEqual(again, want) {
		t.Errorf("tables changed after other callers edited theirs:\n got %+v\nwant %+v", again, want)
	}
}
