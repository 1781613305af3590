package registry

import (
	"fmt"
	"net"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// Endpoints is the core/v1 endpoints resource: plain storage with
// upstream's validation of addresses and ports. The Endpoints of a Service
// are written by the endpoints controller (kubesim's controller manager,
// when it runs) and, for the kubernetes Service, by the API servers'
// lease endpoint reconciler (WriteKubernetesEndpoints).
var Endpoints = &Resource{
	Kind:         corev1.SchemeGroupVersion.WithKind("Endpoints"),
	Plural:       "endpoints",
	Singular:     "endpoints",
	ShortNames:   []string{"ep"},
	Namespaced:   true,
	NewFunc:      func() runtime.Object { return &corev1.Endpoints{} },
	NewListFunc:  func() runtime.Object { return &corev1.EndpointsList{} },
	Table:        printers.Endpoints,
	Default:      defaultEndpoints,
	ValidateName: validation.NameIsDNSSubdomain,
	Strategy: Strategy{
		Validate:                 func(obj runtime.Object) field.ErrorList { return validateEndpoints(obj.(*corev1.Endpoints)) },
		ValidateUpdate:           func(obj, _ runtime.Object) field.ErrorList { return validateEndpoints(obj.(*corev1.Endpoints)) },
		AllowCreateOnUpdate:      true,
		AllowUnconditionalUpdate: true,
	},
}

// defaultEndpoints sets each port's protocol to TCP when unset.
func defaultEndpoints(obj runtime.Object) []string {
	var d defaulted
	for i := range obj.(*corev1.Endpoints).Subsets {
		ss := &obj.(*corev1.Endpoints).Subsets[i]
		for j := range ss.Ports {
			if ss.Ports[j].Protocol == "" {
				ss.Ports[j].Protocol = corev1.ProtocolTCP
				d.add("subsets.ports.protocol", corev1.ProtocolTCP)
			}
		}
	}
	return d
}

// validateEndpoints checks every subset's addresses and ports as
// upstream's validateEndpointSubsets.
func validateEndpoints(ep *corev1.Endpoints) field.ErrorList {
	var errs field.ErrorList
	for i := range ep.Subsets {
		ss, p := &ep.Subsets[i], field.NewPath("subsets").Index(i)
		if len(ss.Addresses) == 0 && len(ss.NotReadyAddresses) == 0 {
			errs = append(errs, field.Required(p, "must specify `addresses` or `notReadyAddresses`"))
		}
		for j, a := range ss.Addresses {
			errs = append(errs, validateEndpointIP(a.IP, p.Child("addresses").Index(j).Child("ip"))...)
		}
		for j, a := range ss.NotReadyAddresses {
			errs = append(errs, validateEndpointIP(a.IP, p.Child("notReadyAddresses").Index(j).Child("ip"))...)
		}
		for j := range ss.Ports {
			errs = append(errs, validateEndpointPort(&ss.Ports[j], len(ss.Ports) > 1, p.Child("ports").Index(j))...)
		}
	}
	return errs
}

// validateEndpointIP refuses what cannot be an endpoint: not an IP, or an
// unspecified, loopback, link-local or multicast one.
func validateEndpointIP(ip string, p *field.Path) field.ErrorList {
	parsed := net.ParseIP(ip)
	switch {
	case parsed == nil:
		return field.ErrorList{field.Invalid(p, ip, "must be a valid IP address")}
	case parsed.IsUnspecified():
		return field.ErrorList{field.Invalid(p, ip, fmt.Sprintf("may not be unspecified (%v)", ip))}
	case parsed.IsLoopback():
		return field.ErrorList{field.Invalid(p, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)")}
	case parsed.IsLinkLocalUnicast():
		return field.ErrorList{field.Invalid(p, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)")}
	case parsed.IsLinkLocalMulticast():
		return field.ErrorList{field.Invalid(p, ip, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)")}
	}
	return nil
}

func validateEndpointPort(port *corev1.EndpointPort, requireName bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case requireName && port.Name == "":
		errs = append(errs, field.Required(p.Child("name"), ""))
	case port.Name != "":
		errs = append(errs, dns1123Label(port.Name, p.Child("name"))...)
	}
	for _, msg := range utilvalidation.IsValidPortNum(int(port.Port)) {
		errs = append(errs, field.Invalid(p.Child("port"), port.Port, msg))
	}
	switch {
	case port.Protocol == "":
		errs = append(errs, field.Required(p.Child("protocol"), ""))
	case !contains(portProtocols, string(port.Protocol)):
		errs = append(errs, field.NotSupported(p.Child("protocol"), port.Protocol, portProtocols))
	}
	return errs
}
