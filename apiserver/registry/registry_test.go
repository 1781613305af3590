package registry_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/internal/etcdtest"
)

func newRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	e := etcdtest.Start(t)
	r, err := registry.New(registry.StoreConfig{Client: e.Client(), BookmarkInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Bootstrap(context.Background()); err != nil {
		t.Fatal(err)
	}
	return r
}

func newPod(name string) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}
	registry.DefaultPod(p)
	return p
}

func mustCreatePod(t *testing.T, r *registry.Registry, p *corev1.Pod) *corev1.Pod {
	t.Helper()
	out, err := r.Pods.Create(context.Background(), "default", p, nil, registry.Options{})
	if err != nil {
		t.Fatalf("create pod %s: %v", p.Name, err)
	}
	return out.(*corev1.Pod)
}

func getPod(t *testing.T, r *registry.Registry, name string) *corev1.Pod {
	t.Helper()
	out, err := r.Pods.Get(context.Background(), "default", name, nil)
	if err != nil {
		t.Fatalf("get pod %s: %v", name, err)
	}
	return out.(*corev1.Pod)
}

func bind(t *testing.T, r *registry.Registry, name, node string) {
	t.Helper()
	_, err := r.Binder.Bind(context.Background(), "default", name, &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Name: name}, Target: corev1.ObjectReference{Kind: "Node", Name: node},
	}, registry.Options{})
	if err != nil {
		t.Fatalf("bind %s: %v", name, err)
	}
}

func wantStatus(t *testing.T, err error, code int32, msg string) {
	t.Helper()
	var se apierrors.APIStatus
	if err == nil {
		t.Fatalf("err = nil, want %d %q", code, msg)
	}
	se, ok := err.(apierrors.APIStatus)
	if !ok {
		t.Fatalf("err = %v (%T), want an API status %d", err, err, code)
	}
	if se.Status().Code != code || !strings.Contains(se.Status().Message, msg) {
		t.Fatalf("err = %d %q, want %d containing %q", se.Status().Code, se.Status().Message, code, msg)
	}
}

func TestCreate(t *testing.T) {
	r := newRegistry(t)
	ctx := context.Background()
	p := mustCreatePod(t, r, newPod("nginx"))
	if p.UID == "" || p.CreationTimestamp.IsZero() || p.Generation != 1 || p.ResourceVersion == "" {
		t.Errorf("created pod uid=%q creationTimestamp=%v generation=%d rv=%q, want all set (generation 1)", p.UID, p.CreationTimestamp, p.Generation, p.ResourceVersion)
	}
	if p.Status.Phase != corev1.PodPending || p.Status.QOSClass != corev1.PodQOSBestEffort {
		t.Errorf("status = %s/%s, want Pending/BestEffort", p.Status.Phase, p.Status.QOSClass)
	}
	if p.Namespace != "default" {
		t.Errorf("namespace = %q, want the request's", p.Namespace)
	}

	tests := []struct {
		name string
		pod  func() *corev1.Pod
		ns   string
		code int32
		msg  string
	}{
		{"duplicate", func() *corev1.Pod { return newPod("nginx") }, "default", 409, `pods "nginx" already exists`},
		{"namespace mismatch", func() *corev1.Pod { p := newPod("x"); p.Namespace = "other"; return p }, "default", 400, "the namespace of the provided object does not match the namespace sent on the request"},
		{"invalid name", func() *corev1.Pod { return newPod("Bad_Name") }, "default", 422, `Pod "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain`},
		{"no name", func() *corev1.Pod { return newPod("") }, "default", 422, "metadata.name: Required value: name or generateName is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.Pods.Create(ctx, tt.ns, tt.pod(), nil, registry.Options{})
			wantStatus(t, err, tt.code, tt.msg)
		})
	}

	t.Run("generateName", func(t *testing.T) {
		seen := map[string]bool{}
		for i := 0; i < 5; i++ {
			p := newPod("")
			p.GenerateName = "web-"
			out, err := r.Pods.Create(ctx, "default", p, nil, registry.Options{})
			if err != nil {
				t.Fatal(err)
			}
			name := out.(*corev1.Pod).Name
			if !strings.HasPrefix(name, "web-") || len(name) != len("web-")+5 || seen[name] {
				t.Errorf("generated name %q: want web- plus 5 fresh characters", name)
			}
			seen[name] = true
		}
	})

	t.Run("qos", func(t *testing.T) {
		p := newPod("guaranteed")
		p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: mustQ("500m"), corev1.ResourceMemory: mustQ("64Mi")}
		registry.DefaultPod(p)
		if got := mustCreatePod(t, r, p).Status.QOSClass; got != corev1.PodQOSGuaranteed {
			t.Errorf("qos = %s, want Guaranteed (limits only, requests default to them)", got)
		}
		p = newPod("burstable")
		p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: mustQ("100m")}
		if got := mustCreatePod(t, r, p).Status.QOSClass; got != corev1.PodQOSBurstable {
			t.Errorf("qos = %s, want Burstable", got)
		}
	})
}

func TestUpdate(t *testing.T) {
	r := newRegistry(t)
	ctx := context.Background()
	created := mustCreatePod(t, r, newPod("nginx"))

	put := func(s *registry.Store, obj *corev1.Pod) (*corev1.Pod, error) {
		out, _, err := s.Update(ctx, "default", obj.Name, func(context.Context, runtime.Object) (runtime.Object, error) { return obj, nil }, nil, nil, registry.Options{})
		if err != nil {
			return nil, err
		}
		return out.(*corev1.Pod), nil
	}

	t.Run("stale resourceVersion", func(t *testing.T) {
		p := created.DeepCopy()
		p.Labels = map[string]string{"a": "1"}
		if _, err := put(r.Pods, p.DeepCopy()); err != nil {
			t.Fatal(err)
		}
		p.Labels = map[string]string{"a": "2"}
		_, err := put(r.Pods, p) // still carries the old resourceVersion
		wantStatus(t, err, 409, `Operation cannot be fulfilled on pods "nginx": the object has been modified; please apply your changes to the latest version and try again`)
	})

	t.Run("main resource keeps status, bumps generation on spec change", func(t *testing.T) {
		p := getPod(t, r, "nginx")
		p.Status.Phase = corev1.PodRunning
		p.Spec.ActiveDeadlineSeconds = ptr.To[int64](60)
		out, err := put(r.Pods, p)
		if err != nil {
			t.Fatal(err)
		}
		if out.Status.Phase != corev1.PodPending {
			t.Errorf("phase = %s after PUT pods, want the status kept (Pending)", out.Status.Phase)
		}
		if out.Generation != 2 {
			t.Errorf("generation = %d, want 2 after a spec change", out.Generation)
		}
	})

	t.Run("status subresource keeps spec", func(t *testing.T) {
		p := getPod(t, r, "nginx")
		p.Status.Phase = corev1.PodRunning
		p.Spec.Containers[0].Image = "httpd"
		out, err := put(r.PodStatus, p)
		if err != nil {
			t.Fatal(err)
		}
		if out.Status.Phase != corev1.PodRunning || out.Spec.Containers[0].Image != "nginx" {
			t.Errorf("after PUT pods/status: phase %s image %s, want Running and nginx (spec change dropped)", out.Status.Phase, out.Spec.Containers[0].Image)
		}
	})

	t.Run("no-op keeps resourceVersion", func(t *testing.T) {
		p := getPod(t, r, "nginx")
		out, err := put(r.Pods, p.DeepCopy())
		if err != nil {
			t.Fatal(err)
		}
		if out.ResourceVersion != p.ResourceVersion {
			t.Errorf("rv %s -> %s on an update that changes nothing", p.ResourceVersion, out.ResourceVersion)
		}
	})

	t.Run("missing object", func(t *testing.T) {
		_, err := put(r.Pods, newPod("ghost"))
		wantStatus(t, err, 404, `pods "ghost" not found`)
	})

	t.Run("name mismatch", func(t *testing.T) {
		p := getPod(t, r, "nginx")
		_, _, err := r.Pods.Update(ctx, "default", "other", func(context.Context, runtime.Object) (runtime.Object, error) { return p, nil }, nil, nil, registry.Options{})
		wantStatus(t, err, 404, `pods "other" not found`)
	})

	t.Run("immutable metadata", func(t *testing.T) {
		p := getPod(t, r, "nginx")
		p.UID = types.UID("changed")
		_, err := put(r.Pods, p)
		wantStatus(t, err, 422, "metadata.uid: Invalid value")
	})
}

func TestDeletePods(t *testing.T) {
	ctx := context.Background()

	t.Run("unbound pod goes at once", func(t *testing.T) {
		r := newRegistry(t)
		p := mustCreatePod(t, r, newPod("nginx"))
		out, deleted, err := r.Pods.Delete(ctx, "default", "nginx", nil, nil)
		if err != nil || !deleted {
			t.Fatalf("delete: deleted=%v err=%v", deleted, err)
		}
		// The pod removed, as upstream's pod store returns it.
		if got, ok := out.(*corev1.Pod); !ok || got.Name != "nginx" || got.UID != p.UID {
			t.Errorf("answer %+v, want the pod nginx removed", out)
		}
		if _, err := r.Pods.Get(ctx, "default", "nginx", nil); !apierrors.IsNotFound(err) {
			t.Errorf("get after delete: %v", err)
		}
	})

	t.Run("bound pod is deleted gracefully", func(t *testing.T) {
		r := newRegistry(t)
		mustCreatePod(t, r, newPod("nginx"))
		bind(t, r, "nginx", "node-1")
		w, err := r.Pods.Watch(ctx, "default", &metainternalversion.ListOptions{ResourceVersion: getPod(t, r, "nginx").ResourceVersion})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		before := time.Now()
		out, deleted, err := r.Pods.Delete(ctx, "default", "nginx", nil, nil)
		after := time.Now()
		if err != nil || deleted {
			t.Fatalf("delete: deleted=%v err=%v, want kept for its grace period", deleted, err)
		}
		p := out.(*corev1.Pod)
		if p.DeletionTimestamp == nil || p.DeletionGracePeriodSeconds == nil || *p.DeletionGracePeriodSeconds != 30 {
			t.Fatalf("deletionTimestamp=%v grace=%v, want set with the spec's 30s", p.DeletionTimestamp, p.DeletionGracePeriodSeconds)
		}
		// About 30 s after the delete, measured on either side of the
		// request (however long a busy machine took over it); the
		// stored timestamp has whole seconds.
		if d, e := p.DeletionTimestamp.Sub(before), p.DeletionTimestamp.Sub(after); d < 28*time.Second || e > 32*time.Second {
			t.Errorf("deletionTimestamp is %v after the request started and %v after it returned, want about 30s", d, e)
		}
		if ev := next(t, w); ev.Type != watch.Modified {
			t.Errorf("watch saw %s, want MODIFIED", ev.Type)
		}

		// A second delete with a longer period changes nothing.
		_, deleted, err = r.Pods.Delete(ctx, "default", "nginx", nil, &metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](60)})
		if err != nil || deleted || *getPod(t, r, "nginx").DeletionGracePeriodSeconds != 30 {
			t.Errorf("longer period: deleted=%v err=%v grace=%d, want unchanged 30", deleted, err, *getPod(t, r, "nginx").DeletionGracePeriodSeconds)
		}
		// A shorter one shortens it.
		_, _, err = r.Pods.Delete(ctx, "default", "nginx", nil, &metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](5)})
		if err != nil || *getPod(t, r, "nginx").DeletionGracePeriodSeconds != 5 {
			t.Errorf("shorter period: err=%v, want grace 5", err)
		}
		// Zero (what the kubelet sends) removes it.
		_, deleted, err = r.Pods.Delete(ctx, "default", "nginx", nil, &metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
		if err != nil || !deleted {
			t.Fatalf("grace 0: deleted=%v err=%v", deleted, err)
		}
		for _, want := range []watch.EventType{watch.Modified, watch.Modified, watch.Deleted} {
			if ev := next(t, w); ev.Type != want {
				t.Errorf("watch saw %s, want %s", ev.Type, want)
			}
		}
	})

	t.Run("request grace period wins", func(t *testing.T) {
		r := newRegistry(t)
		mustCreatePod(t, r, newPod("nginx"))
		bind(t, r, "nginx", "node-1")
		out, _, err := r.Pods.Delete(ctx, "default", "nginx", nil, &metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](7)})
		if err != nil || *out.(*corev1.Pod).DeletionGracePeriodSeconds != 7 {
			t.Fatalf("err=%v, want grace 7", err)
		}
	})

	t.Run("preconditions", func(t *testing.T) {
		r := newRegistry(t)
		mustCreatePod(t, r, newPod("nginx"))
		_, _, err := r.Pods.Delete(ctx, "default", "nginx", nil, &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptr.To(types.UID("nope"))}})
		wantStatus(t, err, 409, `Operation cannot be fulfilled on Pod "nginx": the UID in the precondition (nope) does not match the UID in record (`)
		_, _, err = r.Pods.Delete(ctx, "default", "nginx", nil, &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: ptr.To("1")}})
		wantStatus(t, err, 409, "the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (")
	})

	t.Run("finalizers hold the object", func(t *testing.T) {
		r := newRegistry(t)
		p := newPod("held")
		p.Finalizers = []string{"example.com/hold"}
		mustCreatePod(t, r, p)
		out, deleted, err := r.Pods.Delete(ctx, "default", "held", nil, nil)
		if err != nil || deleted || out.(*corev1.Pod).DeletionTimestamp == nil {
			t.Fatalf("delete: deleted=%v err=%v, want held with a deletionTimestamp", deleted, err)
		}
		cur := getPod(t, r, "held")
		cur.Finalizers = nil
		if _, _, err := r.Pods.Update(ctx, "default", "held", func(context.Context, runtime.Object) (runtime.Object, error) { return cur, nil }, nil, nil, registry.Options{}); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Pods.Get(ctx, "default", "held", nil); !apierrors.IsNotFound(err) {
			t.Errorf("after removing the last finalizer: get err = %v, want not found", err)
		}
	})

	t.Run("deletecollection", func(t *testing.T) {
		r := newRegistry(t)
		for _, n := range []string{"a", "b", "c"} {
			p := newPod(n)
			if n != "c" {
				p.Labels = map[string]string{"app": "web"}
			}
			mustCreatePod(t, r, p)
		}
		opts := &metainternalversion.ListOptions{}
		opts.LabelSelector, _ = labelsParse("app=web")
		if _, err := r.Pods.DeleteCollection(ctx, "default", nil, &metav1.DeleteOptions{}, opts); err != nil {
			t.Fatal(err)
		}
		list, _ := r.Pods.List(ctx, "default", nil)
		if items := list.(*corev1.PodList).Items; len(items) != 1 || items[0].Name != "c" {
			t.Errorf("left %v, want only c", items)
		}
	})
}

func TestBinding(t *testing.T) {
	ctx := context.Background()
	r := newRegistry(t)
	mustCreatePod(t, r, newPod("nginx"))
	st, err := r.Binder.Bind(ctx, "default", "nginx", &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Target: corev1.ObjectReference{Kind: "Node", Name: "node-1"}}, registry.Options{})
	if err != nil || st.Status != metav1.StatusSuccess {
		t.Fatalf("bind: %v %v", st, err)
	}
	p := getPod(t, r, "nginx")
	if p.Spec.NodeName != "node-1" {
		t.Errorf("nodeName = %q", p.Spec.NodeName)
	}
	var sched *corev1.PodCondition
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodScheduled {
			sched = &p.Status.Conditions[i]
		}
	}
	if sched == nil || sched.Status != corev1.ConditionTrue || sched.LastTransitionTime.IsZero() {
		t.Errorf("PodScheduled = %+v, want True with a transition time", sched)
	}

	tests := []struct {
		name    string
		pod     string
		binding corev1.Binding
		code    int32
		msg     string
	}{
		{"already bound", "nginx", corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Target: corev1.ObjectReference{Name: "node-2"}}, 409,
			`Operation cannot be fulfilled on pods/binding "nginx": pod nginx is already assigned to node "node-1"`},
		{"missing pod", "ghost", corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "ghost"}, Target: corev1.ObjectReference{Name: "node-2"}}, 404, `pods "ghost" not found`},
		// Upstream's BindingREST returns ValidatePodBinding's errors as an
		// aggregate, which kube-apiserver answers with a 500.
		{"no target", "nginx", corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}}, 500, "target.name: Required value"},
		{"name mismatch", "nginx", corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "other"}, Target: corev1.ObjectReference{Name: "n"}}, 400, "name in URL does not match name in Binding object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.Binder.Bind(ctx, "default", tt.pod, &tt.binding, registry.Options{})
			wantStatus(t, err, tt.code, tt.msg)
		})
	}

	t.Run("being deleted", func(t *testing.T) {
		p := newPod("doomed")
		p.Finalizers = []string{"example.com/hold"}
		mustCreatePod(t, r, p)
		if _, _, err := r.Pods.Delete(ctx, "default", "doomed", nil, nil); err != nil {
			t.Fatal(err)
		}
		_, err := r.Binder.Bind(ctx, "default", "doomed", &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "doomed"}, Target: corev1.ObjectReference{Name: "node-1"}}, registry.Options{})
		wantStatus(t, err, 409, `Operation cannot be fulfilled on pods/binding "doomed": pod doomed is being deleted, cannot be assigned to a host`)
	})
}

func TestFieldSelectors(t *testing.T) {
	ctx := context.Background()
	r := newRegistry(t)
	mustCreatePod(t, r, newPod("a"))
	mustCreatePod(t, r, newPod("b"))
	bind(t, r, "b", "node-1")
	tests := []struct {
		store *registry.Store
		sel   string
		want  int
		code  int32
		msg   string
	}{
		{r.Pods, "spec.nodeName=node-1", 1, 0, ""},
		{r.Pods, "spec.nodeName=", 1, 0, ""},
		{r.Pods, "spec.nodeName!=node-1,metadata.name!=zzz", 1, 0, ""},
		{r.Pods, "spec.schedulerName=default-scheduler,status.phase=Pending", 2, 0, ""},
		{r.Pods, "spec.image=nginx", 0, 400, "field label not supported: spec.image"},
		{r.Leases, "spec.holderIdentity=x", 0, 400, `"spec.holderIdentity" is not a known field selector: only "metadata.name", "metadata.namespace"`},
	}
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			sel, err := fields.ParseSelector(tt.sel)
			if err != nil {
				t.Fatal(err)
			}
			list, err := tt.store.List(ctx, "default", &metainternalversion.ListOptions{FieldSelector: sel})
			if tt.code != 0 {
				wantStatus(t, err, tt.code, tt.msg)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n := len(list.(*corev1.PodList).Items); n != tt.want {
				t.Errorf("%d pods, want %d", n, tt.want)
			}
		})
	}
}

func TestNamespaceLifecycle(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := newRegistry(t)
	list, err := r.Namespaces.List(ctx, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ns := range list.(*corev1.NamespaceList).Items {
		names = append(names, ns.Name)
		if ns.Status.Phase != corev1.NamespaceActive || ns.Labels[corev1.LabelMetadataName] != ns.Name {
			t.Errorf("namespace %s: phase %s labels %v", ns.Name, ns.Status.Phase, ns.Labels)
		}
	}
	if strings.Join(names, ",") != "default,kube-node-lease,kube-public,kube-system" {
		t.Errorf("bootstrap namespaces = %v", names)
	}
	if err := r.Bootstrap(ctx); err != nil {
		t.Errorf("second bootstrap: %v", err)
	}

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}
	if _, err := r.Namespaces.Create(ctx, "", ns, nil, registry.Options{}); err != nil {
		t.Fatal(err)
	}
	p := newPod("x")
	if _, err := r.Pods.Create(ctx, "team", p, nil, registry.Options{}); err != nil {
		t.Fatal(err)
	}
	out, deleted, err := registry.DeleteNamespace(ctx, r.Namespaces, "team", nil, nil)
	if err != nil || deleted || out.(*corev1.Namespace).Status.Phase != corev1.NamespaceTerminating {
		t.Fatalf("delete namespace: %v deleted=%v err=%v, want Terminating", out, deleted, err)
	}
	// The registry alone empties nothing: the pod stays, the namespace
	// stays Terminating with its kubernetes finalizer.
	if _, err := r.Pods.Get(ctx, "team", "x", nil); err != nil {
		t.Errorf("pod in the terminating namespace: %v, want it still there", err)
	}
	_, deleted, err = registry.DeleteNamespace(ctx, r.Namespaces, "team", nil, nil)
	if err != nil || deleted {
		t.Fatalf("second delete with the finalizer left: deleted=%v err=%v, want neither", deleted, err)
	}
	// Dropping the last spec.finalizer through namespaces/finalize
	// removes it, as the namespace controller's finalize does.
	_, _, err = r.NamespaceFinalize.Update(ctx, "", "team", func(_ context.Context, cur runtime.Object) (runtime.Object, error) {
		n := cur.(*corev1.Namespace)
		n.Spec.Finalizers = nil
		return n, nil
	}, nil, nil, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Namespaces.Get(ctx, "", "team", nil); !apierrors.IsNotFound(err) {
		t.Errorf("namespace after its last finalizer went: err = %v, want NotFound", err)
	}
}

func next(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev := <-w.ResultChan():
		return ev
	case <-time.After(waitTimeout):
		t.Fatalf("no watch event in %v", waitTimeout)
	}
	return watch.Event{}
}
