package admission_test

import (
	"context"
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubesim/kubesim/apiserver/admission"
)

// newResourceQuota returns the plugin over the quota q (in its
// informer's cache and in the client, which the test reads back).
func newResourceQuota(t *testing.T, q *corev1.ResourceQuota) (*admission.ResourceQuota, *fake.Clientset) {
	t.Helper()
	client := fake.NewClientset(q)
	f := informers.NewSharedInformerFactory(client, 0)
	if err := f.Core().V1().ResourceQuotas().Informer().GetIndexer().Add(q); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	p, err := admission.NewResourceQuota(f, client, stop)
	if err != nil {
		t.Fatal(err)
	}
	return p, client
}

func quota(name string, hard, used corev1.ResourceList) *corev1.ResourceQuota {
	return &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", ResourceVersion: "1"},
		Spec:       corev1.ResourceQuotaSpec{Hard: hard},
		Status:     corev1.ResourceQuotaStatus{Hard: hard, Used: used},
	}
}

// TestResourceQuotaRefuses checks the refusals with the real
// kube-apiserver's messages (kubectl create quota q --hard=pods=2, two
// pods, then a third; a quota on requests.cpu and limits.memory and a
// pod that sets neither, or asks for too much).
func TestResourceQuotaRefuses(t *testing.T) {
	q := resource.MustParse
	pods := quota("q", corev1.ResourceList{corev1.ResourcePods: q("2")}, corev1.ResourceList{corev1.ResourcePods: q("2")})
	compute := quota("cq", corev1.ResourceList{corev1.ResourceRequestsCPU: q("1"), corev1.ResourceLimitsMemory: q("1Gi")},
		corev1.ResourceList{corev1.ResourceRequestsCPU: q("0"), corev1.ResourceLimitsMemory: q("0")})
	tests := []struct {
		name      string
		quota     *corev1.ResourceQuota
		resources corev1.ResourceRequirements
		want      string
	}{
		{"over pods", pods, corev1.ResourceRequirements{},
			`pods "p" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2`},
		{"unspecified", compute, corev1.ResourceRequirements{},
			`pods "p" is forbidden: failed quota: cq: must specify limits.memory for: p; requests.cpu for: p`},
		{"over cpu", compute, corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: q("2")}, Limits: corev1.ResourceList{corev1.ResourceMemory: q("100Mi")}},
			`pods "p" is forbidden: exceeded quota: cq, requested: requests.cpu=2, used: requests.cpu=0, limited: requests.cpu=1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := newResourceQuota(t, tt.quota)
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "p", Image: "nginx", Resources: tt.resources}}}}
			handled, err := p.Validate(context.Background(), podAttrs(admission.Create, "default", pod))
			if !handled {
				t.Error("not handled")
			}
			checkErr(t, err, wantErr{http.StatusForbidden, metav1.StatusReasonForbidden, tt.want})
		})
	}
}

// TestResourceQuotaCharges checks that an admitted create raises the
// quota's status.used, as upstream's plugin does before the write, and
// that a dry run does not.
func TestResourceQuotaCharges(t *testing.T) {
	q := resource.MustParse
	for _, dryRun := range []bool{false, true} {
		p, client := newResourceQuota(t, quota("q", corev1.ResourceList{corev1.ResourcePods: q("2")}, corev1.ResourceList{corev1.ResourcePods: q("1")}))
		a := podAttrs(admission.Create, "default", simplePod("p"))
		a.DryRun = dryRun
		if handled, err := p.Validate(context.Background(), a); !handled || err != nil {
			t.Fatalf("dry run %v: handled %v, err %v", dryRun, handled, err)
		}
		got, err := client.CoreV1().ResourceQuotas("default").Get(context.Background(), "q", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := "2"
		if dryRun {
			want = "1"
		}
		if used := got.Status.Used[corev1.ResourcePods]; used.String() != want {
			t.Errorf("dry run %v: used pods = %s, want %s", dryRun, used.String(), want)
		}
	}
}

// TestResourceQuotaSkips checks what is not the plugin's business:
// deletes and cluster-scoped objects.
func TestResourceQuotaSkips(t *testing.T) {
	q := resource.MustParse
	p, _ := newResourceQuota(t, quota("q", corev1.ResourceList{corev1.ResourcePods: q("0")}, corev1.ResourceList{corev1.ResourcePods: q("0")}))
	del := podAttrs(admission.Delete, "default", simplePod("p"))
	node := &admission.Attributes{Operation: admission.Create, Kind: nodeGVK, Resource: nodesGVR, Name: "n", Object: &corev1.Node{}}
	for name, a := range map[string]*admission.Attributes{"delete": del, "node": node} {
		if handled, err := p.Validate(context.Background(), a); handled || err != nil {
			t.Errorf("%s: handled %v, err %v; want skipped", name, handled, err)
		}
	}
}
