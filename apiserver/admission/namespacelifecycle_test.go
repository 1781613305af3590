package admission_test

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// The registry's namespace cache is what the server gives the plugin.
var _ admission.NamespaceLister = (*registry.NamespaceCache)(nil)

// fakeNamespaces answers Phase from a map; a missing name is NotFound as
// the registry says it.
type fakeNamespaces struct {
	phases map[string]corev1.NamespacePhase
	err    error
	asked  []string
	live   []string // names asked with LivePhase
	// stale, if set, is what the cache says instead of phases.
	stale map[string]corev1.NamespacePhase
}

func (f *fakeNamespaces) LivePhase(ctx context.Context, name string) (corev1.NamespacePhase, error) {
	f.live = append(f.live, name)
	return f.lookup(f.phases, name)
}

func (f *fakeNamespaces) Phase(_ context.Context, name string) (corev1.NamespacePhase, error) {
	f.asked = append(f.asked, name)
	if f.stale != nil {
		return f.lookup(f.stale, name)
	}
	return f.lookup(f.phases, name)
}

func (f *fakeNamespaces) lookup(phases map[string]corev1.NamespacePhase, name string) (corev1.NamespacePhase, error) {
	if f.err != nil {
		return "", f.err
	}
	p, ok := phases[name]
	if !ok {
		return "", apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
	}
	return p, nil
}

func TestNamespaceLifecycle(t *testing.T) {
	nsAttrs := func(op admission.Operation, name string) *admission.Attributes {
		return &admission.Attributes{
			Operation: op,
			Kind:      corev1.SchemeGroupVersion.WithKind("Namespace"),
			Resource:  corev1.SchemeGroupVersion.WithResource("namespaces"),
			Name:      name,
			Object:    &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}},
		}
	}
	nodeAttrs := &admission.Attributes{Operation: admission.Create, Kind: nodeGVK, Resource: nodesGVR, Name: "n1",
		Object: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}}
	generated := simplePod("")
	generated.GenerateName = "web-"
	tests := []struct {
		name        string
		a           *admission.Attributes
		wantHandled bool
		wantAsked   bool
		want        wantErr
	}{
		{"create in an active namespace", podAttrs(admission.Create, "default", simplePod("p")), true, true, wantErr{}},
		{"create in a missing namespace", podAttrs(admission.Create, "nope", simplePod("p")), true, true,
			wantErr{404, metav1.StatusReasonNotFound, `namespaces "nope" not found`}},
		{"create in a terminating namespace", podAttrs(admission.Create, "going", simplePod("p")), true, true,
			forbidden(`pods "p" is forbidden: unable to create new content in namespace going because it is being terminated`)},
		{"generateName is quoted when there is no name", podAttrs(admission.Create, "going", generated), true, true,
			forbidden(`pods "web-" is forbidden: unable to create new content in namespace going because it is being terminated`)},
		{"update in a terminating namespace", podAttrs(admission.Update, "going", simplePod("p")), false, false, wantErr{}},
		{"delete in a missing namespace", podAttrs(admission.Delete, "nope", simplePod("p")), false, false, wantErr{}},
		{"cluster-scoped object", nodeAttrs, false, false, wantErr{}},
		{"creating a namespace", nsAttrs(admission.Create, "new"), false, false, wantErr{}},
		{"deleting default", nsAttrs(admission.Delete, "default"), true, false,
			forbidden(`namespaces "default" is forbidden: this namespace may not be deleted`)},
		{"deleting kube-system", nsAttrs(admission.Delete, "kube-system"), true, false,
			forbidden(`namespaces "kube-system" is forbidden: this namespace may not be deleted`)},
		{"deleting kube-public", nsAttrs(admission.Delete, "kube-public"), true, false,
			forbidden(`namespaces "kube-public" is forbidden: this namespace may not be deleted`)},
		{"deleting another namespace", nsAttrs(admission.Delete, "going"), true, false, wantErr{}},
		{"access review in a missing namespace", &admission.Attributes{Operation: admission.Create, Namespace: "nope",
			Resource: schema.GroupVersionResource{Group: "authorization.k8s.io", Version: "v1", Resource: "localsubjectaccessreviews"}}, false, false, wantErr{}},
		{"binding in a terminating namespace", &admission.Attributes{Operation: admission.Create, Namespace: "going", Name: "p",
			Resource: podsGVR, Subresource: "binding", Object: &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p"}}}, true, true,
			forbidden(`pods "p" is forbidden: unable to create new content in namespace going because it is being terminated`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := &fakeNamespaces{phases: map[string]corev1.NamespacePhase{
				"default": corev1.NamespaceActive, "going": corev1.NamespaceTerminating,
			}}
			l := admission.NewNamespaceLifecycle(ns)
			fields, handled, err := l.Admit(context.Background(), tt.a)
			checkErr(t, err, tt.want)
			if fields != nil {
				t.Errorf("fields = %q, want none: it changes nothing", fields)
			}
			if handled != tt.wantHandled {
				t.Errorf("handled = %v, want %v", handled, tt.wantHandled)
			}
			if asked := len(ns.asked) > 0; asked != tt.wantAsked {
				t.Errorf("asked the lister: %v, want %v", asked, tt.wantAsked)
			}
		})
	}
}

func TestNamespaceLifecycleTerminatingCause(t *testing.T) {
	ns := &fakeNamespaces{phases: map[string]corev1.NamespacePhase{"going": corev1.NamespaceTerminating}}
	_, _, err := admission.NewNamespaceLifecycle(ns).Admit(context.Background(), podAttrs(admission.Create, "going", simplePod("p")))
	st := err.(apierrors.APIStatus).Status()
	want := metav1.StatusDetails{Name: "p", Kind: "pods", Causes: []metav1.StatusCause{{
		Type:    corev1.NamespaceTerminatingCause,
		Message: "namespace going is being terminated",
		Field:   "metadata.namespace",
	}}}
	if st.Details == nil || st.Details.Name != want.Name || st.Details.Kind != want.Kind || len(st.Details.Causes) != 1 || st.Details.Causes[0] != want.Causes[0] {
		t.Errorf("details = %+v, want %+v", st.Details, want)
	}
}

// Right after a namespace's deletion is admitted the cache may still say
// Active: creates there read the phase from storage.
func TestNamespaceLifecycleLiveLookupAfterDelete(t *testing.T) {
	ctx := context.Background()
	ns := &fakeNamespaces{
		phases: map[string]corev1.NamespacePhase{"team": corev1.NamespaceTerminating, "other": corev1.NamespaceActive},
		stale:  map[string]corev1.NamespacePhase{"team": corev1.NamespaceActive, "other": corev1.NamespaceActive},
	}
	l := admission.NewNamespaceLifecycle(ns)
	if _, _, err := l.Admit(ctx, podAttrs(admission.Create, "team", simplePod("early"))); err != nil {
		t.Fatalf("before the delete the cache answers: %v", err)
	}
	del := &admission.Attributes{Operation: admission.Delete, Name: "team",
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}}
	if _, _, err := l.Admit(ctx, del); err != nil {
		t.Fatal(err)
	}
	_, _, err := l.Admit(ctx, podAttrs(admission.Create, "team", simplePod("late")))
	checkErr(t, err, forbidden(`pods "late" is forbidden: unable to create new content in namespace team because it is being terminated`))
	if _, _, err := l.Admit(ctx, podAttrs(admission.Create, "other", simplePod("p"))); err != nil {
		t.Errorf("other namespace: %v", err)
	}
	if len(ns.live) != 1 || ns.live[0] != "team" {
		t.Errorf("live lookups = %v, want [team]", ns.live)
	}
}

func TestNamespaceLifecycleListerError(t *testing.T) {
	ns := &fakeNamespaces{err: errors.New("etcd is down")}
	_, _, err := admission.NewNamespaceLifecycle(ns).Admit(context.Background(), podAttrs(admission.Create, "default", simplePod("p")))
	checkErr(t, err, wantErr{500, metav1.StatusReasonInternalError, "Internal error occurred: etcd is down"})
}
