package printers_test

import (
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// TestNetworkingAndCertificateCells: ingress hosts past three and TLS
// ports, the default ingress class, a policy's selector, a CSR's
// condition and requested duration, and a component's health, as
// upstream's printers print them.
func TestNetworkingAndCertificateCells(t *testing.T) {
	rules := []networkingv1.IngressRule{{Host: "a"}, {}, {Host: "b"}, {Host: "c"}, {Host: "d"}, {Host: "e"}}
	ing := &networkingv1.Ingress{ObjectMeta: created("web"), Spec: networkingv1.IngressSpec{Rules: rules, TLS: []networkingv1.IngressTLS{{}}},
		Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "10.0.0.2"}, {Hostname: "lb"}, {IP: "10.0.0.2"}}}}}
	class := &networkingv1.IngressClass{ObjectMeta: created("nginx"), Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx",
		Parameters: &networkingv1.IngressClassParametersReference{APIGroup: ptr("k8s.example.com"), Kind: "Params", Name: "p"}}}
	class.Annotations = map[string]string{networkingv1.AnnotationIsDefaultIngressClass: "true"}
	np := &networkingv1.NetworkPolicy{ObjectMeta: created("np")}
	csr := &certificatesv1.CertificateSigningRequest{ObjectMeta: created("jane"), Spec: certificatesv1.CertificateSigningRequestSpec{
		SignerName: certificatesv1.KubeAPIServerClientSignerName, Username: "admin", ExpirationSeconds: ptr[int32](3600)},
		Status: certificatesv1.CertificateSigningRequestStatus{Certificate: []byte("x"), Conditions: []certificatesv1.CertificateSigningRequestCondition{
			{Type: certificatesv1.CertificateApproved}, {Type: certificatesv1.CertificateFailed}}}}
	cs := &corev1.ComponentStatus{ObjectMeta: metav1.ObjectMeta{Name: "scheduler"}, Conditions: []corev1.ComponentCondition{{Type: corev1.ComponentHealthy, Status: corev1.ConditionFalse, Message: "refused"}}}
	runKindCases(t, []kindCase{
		{name: "ingress", handler: printers.Ingresses, obj: ing, columns: []string{"Name", "Class", "Hosts", "Address", "Ports", "Age"},
			cells: []string{"web", "<none>", "a,b,c + 3 more...", "10.0.0.2,lb", "80, 443", "3d1h"}},
		{name: "ingressclass", handler: printers.IngressClasses, obj: class, columns: []string{"Name", "Controller", "Parameters", "Age"},
			cells: []string{"nginx (default)", "k8s.io/ingress-nginx", "Params.k8s.example.com/p", "3d1h"}},
		{name: "networkpolicy", handler: printers.NetworkPolicies, obj: np, columns: []string{"Name", "Pod-Selector", "Age"},
			cells: []string{"np", "<none>", "3d1h"}},
		{name: "csr", handler: printers.CertificateSigningRequests, obj: csr, columns: []string{"Name", "Age", "SignerName", "Requestor", "RequestedDuration", "Condition"},
			cells: []string{"jane", "3d1h", "kubernetes.io/kube-apiserver-client", "admin", "60m", "Approved,Failed,Issued"}},
		{name: "componentstatus", handler: printers.ComponentStatuses, obj: cs, columns: []string{"Name", "Status", "Message", "Error"},
			cells: []string{"scheduler", "Unhealthy", "refused", ""}},
	})
}
