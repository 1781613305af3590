package registry_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// TestIngresses: upstream's strategies: the status only through
// ingresses/status, generation 1 at creation; upstream's 422.
func TestIngresses(t *testing.T) {
	r := newRegistry(t)
	ctx := context.Background()
	st, status := r.Store(registry.Ingresses), r.StatusStore(registry.Ingresses)
	backend := networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}
	in := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: networkingv1.IngressSpec{DefaultBackend: &backend}}
	in.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "10.0.0.1"}}
	out, err := st.Create(ctx, "default", in, nil, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ing := out.(*networkingv1.Ingress)
	if ing.Generation != 1 || len(ing.Status.LoadBalancer.Ingress) != 0 {
		t.Errorf("created: generation %d status %v, want 1 and none", ing.Generation, ing.Status)
	}
	s := ing.DeepCopy()
	s.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "10.0.0.2"}}
	got, _, err := status.Update(ctx, "default", "web", replaceWith(s), nil, nil, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g := got.(*networkingv1.Ingress); len(g.Status.LoadBalancer.Ingress) != 1 || g.Status.LoadBalancer.Ingress[0].IP != "10.0.0.2" {
		t.Errorf("status update: %v", g.Status)
	}
	bad := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "bad"}}
	_, err = st.Create(ctx, "default", bad, nil, registry.Options{})
	wantStatus(t, err, 422, `Ingress.networking.k8s.io "bad" is invalid: spec: Invalid value: `)
}

// TestNetworkPolicyDefaults: a policy with ingress rules gets
// policyTypes [Ingress] and its ports protocol TCP, as upstream defaults.
func TestNetworkPolicyDefaults(t *testing.T) {
	np := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "np", Namespace: "default"},
		Spec: networkingv1.NetworkPolicySpec{Ingress: []networkingv1.NetworkPolicyIngressRule{{Ports: []networkingv1.NetworkPolicyPort{{}}}}}}
	registry.NetworkPolicies.Default(np, false)
	if len(np.Spec.PolicyTypes) != 1 || np.Spec.PolicyTypes[0] != networkingv1.PolicyTypeIngress || *np.Spec.Ingress[0].Ports[0].Protocol != corev1.ProtocolTCP {
		t.Errorf("defaulted: policyTypes %v protocol %v", np.Spec.PolicyTypes, np.Spec.Ingress[0].Ports[0].Protocol)
	}
}
