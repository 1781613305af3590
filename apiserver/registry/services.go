package registry

import (
	"fmt"
	"net"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// Services is the core/v1 services resource. Its store allocates each
// Service's cluster IP from the service CIDR and its node ports from the
// node-port range (ServiceAllocator) before validation, as upstream's
// service REST does; status changes only through services/status.
var Services = &Resource{
	Kind:         corev1.SchemeGroupVersion.WithKind("Service"),
	Plural:       "services",
	Singular:     "service",
	ShortNames:   []string{"svc"},
	Categories:   []string{"all"},
	Namespaced:   true,
	NewFunc:      func() runtime.Object { return &corev1.Service{} },
	NewListFunc:  func() runtime.Object { return &corev1.ServiceList{} },
	Status:       &ServiceStatusStrategy,
	Table:        printers.Services,
	Default:      defaultService,
	ValidateName: validation.NameIsDNS1035Label,
	Strategy: Strategy{
		PrepareForCreate: func(obj runtime.Object) {
			s := obj.(*corev1.Service)
			s.Status = corev1.ServiceStatus{}
			normalizeClusterIPs(s)
		},
		PrepareForUpdate:         prepareServiceForUpdate,
		Validate:                 func(obj runtime.Object) field.ErrorList { return validateService(obj.(*corev1.Service)) },
		ValidateUpdate:           validateServiceUpdate,
		AllowUnconditionalUpdate: true,
	},
}

// ServiceStatusStrategy is the strategy of services/status.
var ServiceStatusStrategy = Strategy{
	PrepareForUpdate: func(obj, old runtime.Object) {
		obj.(*corev1.Service).Spec = old.(*corev1.Service).Spec
	},
	AllowUnconditionalUpdate: true,
}

// defaultService fills in upstream's v1 defaults (SetDefaults_Service).
func defaultService(obj runtime.Object) []string {
	s := &obj.(*corev1.Service).Spec
	var d defaulted
	if s.SessionAffinity == "" {
		s.SessionAffinity = corev1.ServiceAffinityNone
		d.add("spec.sessionAffinity", s.SessionAffinity)
	}
	if s.Type == "" {
		s.Type = corev1.ServiceTypeClusterIP
		d.add("spec.type", s.Type)
	}
	for i := range s.Ports {
		p := &s.Ports[i]
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
			d.add(fmt.Sprintf("spec.ports[%d].protocol", i), p.Protocol)
		}
		if p.TargetPort == intstr.FromInt32(0) || p.TargetPort == intstr.FromString("") {
			p.TargetPort = intstr.FromInt32(p.Port)
			d.add(fmt.Sprintf("spec.ports[%d].targetPort", i), p.Port)
		}
	}
	if (s.Type == corev1.ServiceTypeNodePort || s.Type == corev1.ServiceTypeLoadBalancer) && s.ExternalTrafficPolicy == "" {
		s.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
		d.add("spec.externalTrafficPolicy", s.ExternalTrafficPolicy)
	}
	if s.InternalTrafficPolicy == nil && s.Type != corev1.ServiceTypeExternalName {
		p := corev1.ServiceInternalTrafficPolicyCluster
		s.InternalTrafficPolicy = &p
		d.add("spec.internalTrafficPolicy", p)
	}
	if s.Type == corev1.ServiceTypeLoadBalancer && s.AllocateLoadBalancerNodePorts == nil {
		on := true
		s.AllocateLoadBalancerNodePorts = &on
		d.add("spec.allocateLoadBalancerNodePorts", on)
	}
	return d
}

// normalizeClusterIPs makes clusterIP and clusterIPs[0] agree, as
// upstream's strategy does.
func normalizeClusterIPs(s *corev1.Service) {
	switch {
	case s.Spec.ClusterIP != "" && len(s.Spec.ClusterIPs) == 0:
		s.Spec.ClusterIPs = []string{s.Spec.ClusterIP}
	case s.Spec.ClusterIP == "" && len(s.Spec.ClusterIPs) > 0:
		s.Spec.ClusterIP = s.Spec.ClusterIPs[0]
	}
}

// prepareServiceForUpdate keeps the status, and what the server allocated
// that the new object leaves out (a PUT without clusterIP or nodePort), as
// upstream's patchAllocatedValues does.
func prepareServiceForUpdate(obj, old runtime.Object) {
	s, o := obj.(*corev1.Service), old.(*corev1.Service)
	s.Status = o.Status
	if needsClusterIP(o) && needsClusterIP(s) && s.Spec.ClusterIP == "" && len(s.Spec.ClusterIPs) == 0 {
		s.Spec.ClusterIP, s.Spec.ClusterIPs = o.Spec.ClusterIP, o.Spec.ClusterIPs
		if s.Spec.IPFamilyPolicy == nil {
			s.Spec.IPFamilyPolicy, s.Spec.IPFamilies = o.Spec.IPFamilyPolicy, o.Spec.IPFamilies
		}
	}
	normalizeClusterIPs(s)
	if needsNodePorts(o) && needsNodePorts(s) {
		byPort := map[int32]int32{}
		for _, p := range o.Spec.Ports {
			byPort[p.Port] = p.NodePort
		}
		for i := range s.Spec.Ports {
			if s.Spec.Ports[i].NodePort == 0 {
				s.Spec.Ports[i].NodePort = byPort[s.Spec.Ports[i].Port]
			}
		}
	}
}

func needsClusterIP(s *corev1.Service) bool { return s.Spec.Type != corev1.ServiceTypeExternalName }

func needsNodePorts(s *corev1.Service) bool {
	return s.Spec.Type == corev1.ServiceTypeNodePort ||
		(s.Spec.Type == corev1.ServiceTypeLoadBalancer && (s.Spec.AllocateLoadBalancerNodePorts == nil || *s.Spec.AllocateLoadBalancerNodePorts))
}

func isHeadless(s *corev1.Service) bool { return s.Spec.ClusterIP == corev1.ClusterIPNone }

var serviceTypes = []string{string(corev1.ServiceTypeClusterIP), string(corev1.ServiceTypeExternalName),
	string(corev1.ServiceTypeLoadBalancer), string(corev1.ServiceTypeNodePort)}

// validateService checks a Service as upstream's validateService does
// for the fields kubesim serves (no topology annotations, load-balancer
// source ranges or traffic distribution).
func validateService(s *corev1.Service) field.ErrorList {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	if len(s.Spec.Ports) == 0 && !isHeadless(s) && s.Spec.Type != corev1.ServiceTypeExternalName {
		errs = append(errs, field.Required(spec.Child("ports"), ""))
	}
	errs = append(errs, validateServiceTypeFields(s, spec)...)
	errs = append(errs, validateServicePorts(s, spec.Child("ports"))...)
	if s.Spec.Selector != nil {
		errs = append(errs, metav1validation.ValidateLabels(s.Spec.Selector, spec.Child("selector"))...)
	}
	switch s.Spec.SessionAffinity {
	case "":
		errs = append(errs, field.Required(spec.Child("sessionAffinity"), ""))
	case corev1.ServiceAffinityNone, corev1.ServiceAffinityClientIP:
	default:
		errs = append(errs, field.NotSupported(spec.Child("sessionAffinity"), s.Spec.SessionAffinity, []string{"ClientIP", "None"}))
	}
	for i, ip := range s.Spec.ClusterIPs {
		if ip != corev1.ClusterIPNone && net.ParseIP(ip) == nil {
			errs = append(errs, field.Invalid(spec.Child("clusterIPs").Index(i), ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"))
		}
	}
	switch {
	case s.Spec.Type == "":
		errs = append(errs, field.Required(spec.Child("type"), ""))
	case !contains(serviceTypes, string(s.Spec.Type)):
		errs = append(errs, field.NotSupported(spec.Child("type"), s.Spec.Type, serviceTypes))
	}
	return errs
}

// validateServiceTypeFields checks what each type forbids or needs.
func validateServiceTypeFields(s *corev1.Service, spec *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch s.Spec.Type {
	case corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort:
		if isHeadless(s) {
			errs = append(errs, field.Invalid(spec.Child("clusterIPs").Index(0), s.Spec.ClusterIPs[0], fmt.Sprintf("may not be set to 'None' for %s services", s.Spec.Type)))
		}
	case corev1.ServiceTypeExternalName:
		if len(s.Spec.ClusterIPs) > 0 {
			errs = append(errs, field.Forbidden(spec.Child("clusterIPs"), "may not be set for ExternalName services"))
		}
		if cname := strings.TrimSuffix(s.Spec.ExternalName, "."); cname != "" {
			for _, msg := range utilvalidation.IsDNS1123Subdomain(cname) {
				errs = append(errs, field.Invalid(spec.Child("externalName"), cname, msg))
			}
		} else {
			errs = append(errs, field.Required(spec.Child("externalName"), ""))
		}
	case corev1.ServiceTypeClusterIP:
		for i := range s.Spec.Ports {
			if s.Spec.Ports[i].NodePort != 0 {
				errs = append(errs, field.Forbidden(spec.Child("ports").Index(i).Child("nodePort"), "may not be used when `type` is 'ClusterIP'"))
			}
		}
	}
	return errs
}

var portProtocols = []string{string(corev1.ProtocolSCTP), string(corev1.ProtocolTCP), string(corev1.ProtocolUDP)}

// validateServicePorts checks each port, then duplicates of node ports
// and of (protocol, port) pairs, as upstream.
func validateServicePorts(s *corev1.Service, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	nodePorts := map[corev1.ServicePort]bool{}
	ports := map[corev1.ServicePort]bool{}
	for i := range s.Spec.Ports {
		sp, p := &s.Spec.Ports[i], path.Index(i)
		switch {
		case len(s.Spec.Ports) > 1 && sp.Name == "":
			errs = append(errs, field.Required(p.Child("name"), ""))
		case sp.Name != "":
			errs = append(errs, dns1123Label(sp.Name, p.Child("name"))...)
			if names[sp.Name] {
				errs = append(errs, field.Duplicate(p.Child("name"), sp.Name))
			}
			names[sp.Name] = true
		}
		for _, msg := range utilvalidation.IsValidPortNum(int(sp.Port)) {
			errs = append(errs, field.Invalid(p.Child("port"), sp.Port, msg))
		}
		switch {
		case sp.Protocol == "":
			errs = append(errs, field.Required(p.Child("protocol"), ""))
		case !contains(portProtocols, string(sp.Protocol)):
			errs = append(errs, field.NotSupported(p.Child("protocol"), sp.Protocol, portProtocols))
		}
		errs = append(errs, validatePortNumOrName(sp.TargetPort, p.Child("targetPort"))...)
		if sp.NodePort != 0 {
			key := corev1.ServicePort{Protocol: sp.Protocol, NodePort: sp.NodePort}
			if nodePorts[key] {
				errs = append(errs, field.Duplicate(p.Child("nodePort"), sp.NodePort))
			}
			nodePorts[key] = true
		}
		key := corev1.ServicePort{Protocol: sp.Protocol, Port: sp.Port}
		if ports[key] {
			errs = append(errs, field.Duplicate(p, fmt.Sprintf("%d/%s", sp.Port, sp.Protocol)))
		}
		ports[key] = true
	}
	return errs
}

// validatePortNumOrName checks a port given by number or by name.
func validatePortNumOrName(port intstr.IntOrString, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if port.Type == intstr.Int {
		for _, msg := range utilvalidation.IsValidPortNum(port.IntValue()) {
			errs = append(errs, field.Invalid(path, port.IntValue(), msg))
		}
		return errs
	}
	for _, msg := range utilvalidation.IsValidPortName(port.StrVal) {
		errs = append(errs, field.Invalid(path, port.StrVal, msg))
	}
	return errs
}

// validateServiceUpdate adds what may not change: the primary cluster IP
// once set (unless the type becomes or was ExternalName).
func validateServiceUpdate(obj, old runtime.Object) field.ErrorList {
	s, o := obj.(*corev1.Service), old.(*corev1.Service)
	var errs field.ErrorList
	if needsClusterIP(o) && needsClusterIP(s) && len(o.Spec.ClusterIPs) > 0 &&
		(len(s.Spec.ClusterIPs) == 0 || s.Spec.ClusterIPs[0] != o.Spec.ClusterIPs[0]) {
		var v any
		if len(s.Spec.ClusterIPs) > 0 {
			v = s.Spec.ClusterIPs[0]
		}
		errs = append(errs, field.Invalid(field.NewPath("spec", "clusterIPs").Index(0), v, "may not change once set"))
	}
	return append(errs, validateService(s)...)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
