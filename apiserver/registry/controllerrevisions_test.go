package registry_test

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// TestControllerRevisionValidation: a revision is created only with a
// JSON object as data and a revision not below 0, and its data never
// changes, with upstream's messages.
func TestControllerRevisionValidation(t *testing.T) {
	r := newRegistry(t)
	ctx := context.Background()
	st := r.Store(registry.ControllerRevisions)
	rev := func(name string, n int64, data string) *appsv1.ControllerRevision {
		cr := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: name}, Revision: n}
		if data != "" {
			cr.Data = runtime.RawExtension{Raw: []byte(data)}
		}
		return cr
	}
	for _, tt := range []struct {
		obj  *appsv1.ControllerRevision
		want string
	}{
		{rev("none", 1, ""), "data: Required value: data is mandatory"},
		{rev("neg", -1, `{"a":1}`), "revision: Invalid value: -1: must be greater than or equal to 0"},
		{rev("list", 1, `[1]`), "data: Required value: data must be a valid JSON object"},
	} {
		_, err := st.Create(ctx, "default", tt.obj, nil, registry.Options{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("create %s: %v, want %q", tt.obj.Name, err, tt.want)
		}
	}
	if _, err := st.Create(ctx, "default", rev("web-1", 1, `{"spec":{}}`), nil, registry.Options{}); err != nil {
		t.Fatal(err)
	}
	_, _, err := st.Update(ctx, "default", "web-1", func(_ context.Context, cur runtime.Object) (runtime.Object, error) {
		cr := cur.(*appsv1.ControllerRevision).DeepCopy()
		cr.Data = runtime.RawExtension{Raw: []byte(`{"spec":{"x":1}}`)}
		return cr, nil
	}, nil, nil, registry.Options{})
	if err == nil || !strings.Contains(err.Error(), "data: Invalid value") || !strings.Contains(err.Error(), "field is immutable") {
		t.Errorf("changing data: %v, want field is immutable", err)
	}
}
