package printers

import (
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// serviceColumns are the columns of `kubectl get services`; SELECTOR
// appears with -o wide.
var serviceColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Type", Type: "string", Description: corev1.ServiceSpec{}.SwaggerDoc()["type"]},
	{Name: "Cluster-IP", Type: "string", Description: corev1.ServiceSpec{}.SwaggerDoc()["clusterIP"]},
	{Name: "External-IP", Type: "string", Description: corev1.ServiceSpec{}.SwaggerDoc()["externalIPs"]},
	{Name: "Port(s)", Type: "string", Description: corev1.ServiceSpec{}.SwaggerDoc()["ports"]},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
	{Name: "Selector", Type: "string", Priority: 1, Description: corev1.ServiceSpec{}.SwaggerDoc()["selector"]},
}

// service prints NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE SELECTOR.
func (p printer) service(s *corev1.Service) metav1.TableRow {
	clusterIP := "<none>"
	if len(s.Spec.ClusterIPs) > 0 {
		clusterIP = s.Spec.ClusterIPs[0]
	}
	ports := servicePorts(s.Spec.Ports)
	if ports == "" {
		ports = "<none>"
	}
	return metav1.TableRow{
		Cells: []any{s.Name, string(s.Spec.Type), clusterIP, serviceExternalIP(s), ports,
			p.since(s.CreationTimestamp.Time), labels.FormatLabels(s.Spec.Selector)},
		Object: runtime.RawExtension{Object: s},
	}
}

// servicePorts renders "80/TCP" or, with a node port, "80:30080/TCP".
func servicePorts(ports []corev1.ServicePort) string {
	pieces := make([]string, len(ports))
	for i, sp := range ports {
		pieces[i] = fmt.Sprintf("%d/%s", sp.Port, sp.Protocol)
		if sp.NodePort > 0 {
			pieces[i] = fmt.Sprintf("%d:%d/%s", sp.Port, sp.NodePort, sp.Protocol)
		}
	}
	return strings.Join(pieces, ",")
}

// serviceExternalIP is the EXTERNAL-IP cell, as upstream fills it per
// type (a load balancer without ingress yet is "<pending>").
func serviceExternalIP(s *corev1.Service) string {
	switch s.Spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort:
		if len(s.Spec.ExternalIPs) > 0 {
			return strings.Join(s.Spec.ExternalIPs, ",")
		}
		return "<none>"
	case corev1.ServiceTypeLoadBalancer:
		var ips []string
		if lb := loadBalancerIngress(s.Status.LoadBalancer); lb != "" {
			ips = strings.Split(lb, ",")
		}
		ips = append(ips, s.Spec.ExternalIPs...)
		if len(ips) == 0 {
			return "<pending>"
		}
		return strings.Join(ips, ",")
	case corev1.ServiceTypeExternalName:
		return s.Spec.ExternalName
	}
	return "<unknown>"
}

// loadBalancerIngress lists the ingress IPs or host names, sorted and
// without duplicates.
func loadBalancerIngress(st corev1.LoadBalancerStatus) string {
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

// endpointsColumns are the columns of `kubectl get endpoints`.
var endpointsColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Endpoints", Type: "string", Description: corev1.Endpoints{}.SwaggerDoc()["subsets"]},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
}

// endpoints prints NAME ENDPOINTS AGE: up to three ip:port, then
// "+ N more...".
func (p printer) endpoints(ep *corev1.Endpoints) metav1.TableRow {
	return metav1.TableRow{
		Cells:  []any{ep.Name, formatEndpoints(ep), p.since(ep.CreationTimestamp.Time)},
		Object: runtime.RawExtension{Object: ep},
	}
}

func formatEndpoints(ep *corev1.Endpoints) string {
	if len(ep.Subsets) == 0 {
		return "<none>"
	}
	const most = 3
	var list []string
	count := 0
	add := func(s string) {
		count++
		if len(list) < most {
			list = append(list, s)
		}
	}
	for _, ss := range ep.Subsets {
		if len(ss.Ports) == 0 {
			for _, a := range ss.Addresses {
				add(a.IP)
			}
			continue
		}
		for _, port := range ss.Ports {
			for _, a := range ss.Addresses {
				add(net.JoinHostPort(a.IP, strconv.Itoa(int(port.Port))))
			}
		}
	}
	out := strings.Join(list, ",")
	if count > most {
		return fmt.Sprintf("%s + %d more...", out, count-most)
	}
	return out
}

// Services prints services.
var Services = tableHandler(serviceColumns, printer.service)

// Endpoints prints endpoints.
var Endpoints = tableHandler(endpointsColumns, printer.endpoints)
