package printers

import (
	"fmt"
	"sort"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ingressColumns are the columns of `kubectl get ingress` (upstream's
// ingressColumnDefinitions).
var ingressColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Class", Type: "string", Description: "The name of the IngressClass resource that should be used for additional configuration"},
	{Name: "Hosts", Type: "string", Description: "Hosts that incoming requests are matched against before the ingress rule"},
	{Name: "Address", Type: "string", Description: "Address is a list containing ingress points for the load-balancer"},
	{Name: "Ports", Type: "string", Description: "Ports of TLS configurations that open"},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
}

// ingress prints NAME CLASS HOSTS ADDRESS PORTS AGE as upstream's
// printIngress does for a server-side table (wide: the address is not
// clipped).
func (p printer) ingress(in *networkingv1.Ingress) metav1.TableRow {
	class := "<none>"
	if in.Spec.IngressClassName != nil {
		class = *in.Spec.IngressClassName
	}
	ports := "80"
	if len(in.Spec.TLS) != 0 {
		ports = "80, 443"
	}
	return metav1.TableRow{
		Cells:  []any{in.Name, class, ingressHosts(in.Spec.Rules), ingressAddress(in.Status.LoadBalancer), ports, p.since(in.CreationTimestamp.Time)},
		Object: runtime.RawExtension{Object: in},
	}
}

// ingressHosts lists the rules' hosts up to three, then "+ N more..."
// (N counts the rules past three), "*" if none names a host, as
// upstream's formatHosts.
func ingressHosts(rules []networkingv1.IngressRule) string {
	const most = 3
	var hosts []string
	more := false
	for _, r := range rules {
		if len(hosts) == most {
			more = true
		}
		if !more && r.Host != "" {
			hosts = append(hosts, r.Host)
		}
	}
	if len(hosts) == 0 {
		return "*"
	}
	out := strings.Join(hosts, ",")
	if more {
		out = fmt.Sprintf("%s + %d more...", out, len(rules)-most)
	}
	return out
}

// ingressAddress lists the load balancer's IPs (or host names), sorted
// and without duplicates.
func ingressAddress(st networkingv1.IngressLoadBalancerStatus) string {
	seen := map[string]bool{}
	var out []string
	for _, in := range st.Ingress {
		v := in.IP
		if v == "" {
			v = in.Hostname
		}
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// Ingresses prints ingresses.
var Ingresses = tableHandler(ingressColumns, printer.ingress)

// ingressClassColumns are the columns of `kubectl get ingressclass`.
var ingressClassColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Controller", Type: "string", Description: "Controller that is responsible for handling this class"},
	{Name: "Parameters", Type: "string", Description: "A reference to a resource with additional parameters"},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
}

// ingressClass prints NAME CONTROLLER PARAMETERS AGE, the default class
// named "NAME (default)" (upstream's printIngressClass).
func (p printer) ingressClass(c *networkingv1.IngressClass) metav1.TableRow {
	name := c.Name
	if c.Annotations[networkingv1.AnnotationIsDefaultIngressClass] == "true" {
		name += " (default)"
	}
	params := "<none>"
	if ref := c.Spec.Parameters; ref != nil {
		params = ref.Kind
		if ref.APIGroup != nil {
			params += "." + *ref.APIGroup
		}
		params += "/" + ref.Name
	}
	return metav1.TableRow{
		Cells:  []any{name, c.Spec.Controller, params, p.since(c.CreationTimestamp.Time)},
		Object: runtime.RawExtension{Object: c},
	}
}

// IngressClasses prints ingress classes.
var IngressClasses = tableHandler(ingressClassColumns, printer.ingressClass)

// networkPolicyColumns are the columns of `kubectl get networkpolicy`.
var networkPolicyColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Pod-Selector", Type: "string", Description: networkingv1.NetworkPolicySpec{}.SwaggerDoc()["podSelector"]},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
}

// networkPolicy prints NAME POD-SELECTOR AGE.
func (p printer) networkPolicy(np *networkingv1.NetworkPolicy) metav1.TableRow {
	return metav1.TableRow{
		Cells:  []any{np.Name, metav1.FormatLabelSelector(&np.Spec.PodSelector), p.since(np.CreationTimestamp.Time)},
		Object: runtime.RawExtension{Object: np},
	}
}

// NetworkPolicies prints network policies.
var NetworkPolicies = tableHandler(networkPolicyColumns, printer.networkPolicy)
