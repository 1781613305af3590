package admission_test

import (
	"context"
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubesim/kubesim/apiserver/admission"
)

// newLimitRanger returns the plugin over the LimitRanges objs, in its
// informer's cache and in the client's live list.
func newLimitRanger(t *testing.T, objs ...*corev1.LimitRange) *admission.LimitRanger {
	t.Helper()
	var ros []runtime.Object
	for _, o := range objs {
		ros = append(ros, o)
	}
	client := fake.NewClientset(ros...)
	f := informers.NewSharedInformerFactory(client, 0)
	for _, o := range objs {
		if err := f.Core().V1().LimitRanges().Informer().GetIndexer().Add(o); err != nil {
			t.Fatal(err)
		}
	}
	p, err := admission.NewLimitRanger(f, client)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func containerLimitRange() *corev1.LimitRange {
	q := resource.MustParse
	return &corev1.LimitRange{
		ObjectMeta: metav1.ObjectMeta{Name: "lr", Namespace: "l"},
		Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
			Type:           corev1.LimitTypeContainer,
			Default:        corev1.ResourceList{corev1.ResourceCPU: q("500m"), corev1.ResourceMemory: q("256Mi")},
			DefaultRequest: corev1.ResourceList{corev1.ResourceCPU: q("100m"), corev1.ResourceMemory: q("128Mi")},
			Max:            corev1.ResourceList{corev1.ResourceCPU: q("1")},
		}}},
	}
}

// TestLimitRangerDefaults checks that a pod without requests and limits
// gets the LimitRange's defaults and upstream's annotation, as the real
// kube-apiserver gives them (kubectl run d --image=nginx in a namespace
// with the LimitRange).
func TestLimitRangerDefaults(t *testing.T) {
	p := newLimitRanger(t, containerLimitRange())
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "l"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "d", Image: "nginx",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m")}}}}}}
	a := podAttrs(admission.Create, "l", pod)
	fields, handled, err := p.Admit(context.Background(), a)
	if err != nil || !handled {
		t.Fatalf("Admit: handled %v, err %v", handled, err)
	}
	got := a.Object.(*corev1.Pod)
	want := "LimitRanger plugin set: memory request for container d; cpu, memory limit for container d"
	if v := got.Annotations["kubernetes.io/limit-ranger"]; v != want {
		t.Errorf("annotation = %q, want %q", v, want)
	}
	res := got.Spec.Containers[0].Resources
	if r := res.Requests[corev1.ResourceCPU]; r.String() != "200m" {
		t.Errorf("requests.cpu = %s, want the pod's own 200m", r.String())
	}
	if r := res.Requests[corev1.ResourceMemory]; r.String() != "128Mi" {
		t.Errorf("requests.memory = %s, want 128Mi", r.String())
	}
	if l := res.Limits[corev1.ResourceCPU]; l.String() != "500m" {
		t.Errorf("limits.cpu = %s, want 500m", l.String())
	}
	wantFields := []string{"spec.containers[0].resources.requests.memory=128Mi", "spec.containers[0].resources.limits.cpu=500m", "spec.containers[0].resources.limits.memory=256Mi"}
	if len(fields) != len(wantFields) {
		t.Fatalf("fields = %q, want %q", fields, wantFields)
	}
	for i := range fields {
		if fields[i] != wantFields[i] {
			t.Errorf("fields[%d] = %q, want %q", i, fields[i], wantFields[i])
		}
	}
}

// TestLimitRangerValidate checks upstream's refusals, with the real
// kube-apiserver's messages.
func TestLimitRangerValidate(t *testing.T) {
	p := newLimitRanger(t, containerLimitRange())
	q := resource.MustParse
	tests := []struct {
		name      string
		resources corev1.ResourceRequirements
		want      wantErr
	}{
		{"within", corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: q("1")}}, wantErr{}},
		{"over max", corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: q("2")}},
			wantErr{http.StatusForbidden, metav1.StatusReasonForbidden, `pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2`}},
		{"no limit", corev1.ResourceRequirements{},
			wantErr{http.StatusForbidden, metav1.StatusReasonForbidden, `pods "big" is forbidden: maximum cpu usage per Container is 1.  No limit is specified`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "big", Namespace: "l"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "big", Image: "nginx", Resources: tt.resources}}}}
			handled, err := p.Validate(context.Background(), podAttrs(admission.Create, "l", pod))
			if !handled {
				t.Error("not handled")
			}
			checkErr(t, err, tt.want)
		})
	}
}

// TestLimitRangerSkips checks what is not the plugin's business: pod
// updates, subresources, other kinds, deletes.
func TestLimitRangerSkips(t *testing.T) {
	p := newLimitRanger(t, containerLimitRange())
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "l"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "d"}}}}
	update, status, del := podAttrs(admission.Create, "l", pod), podAttrs(admission.Create, "l", pod), podAttrs(admission.Create, "l", pod)
	update.Operation, update.OldObject = admission.Update, pod.DeepCopy()
	status.Subresource = "status"
	del.Operation, del.Object, del.OldObject = admission.Delete, nil, pod
	for name, a := range map[string]*admission.Attributes{"update": update, "status": status, "delete": del} {
		if _, handled, err := p.Admit(context.Background(), a); handled || err != nil {
			t.Errorf("%s: handled %v, err %v; want skipped", name, handled, err)
		}
	}
	if len(pod.Spec.Containers[0].Resources.Limits) != 0 {
		t.Errorf("a skipped pod was defaulted: %v", pod.Spec.Containers[0].Resources)
	}
}
