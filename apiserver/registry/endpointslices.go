package registry

import (
	"fmt"
	"net"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// Limits of an EndpointSlice, upstream's.
const (
	maxSliceEndpoints = 1000
	maxSliceAddresses = 100
	maxSlicePorts     = 100
)

// EndpointSlices is discovery.k8s.io/v1 endpointslices: plain storage
// with upstream's validation of address type, addresses and ports. The
// endpointslice controller (kubesim's controller manager, when it runs)
// writes them.
var EndpointSlices = &Resource{
	Kind:         discoveryv1.SchemeGroupVersion.WithKind("EndpointSlice"),
	Plural:       "endpointslices",
	Singular:     "endpointslice",
	Namespaced:   true,
	NewFunc:      func() runtime.Object { return &discoveryv1.EndpointSlice{} },
	NewListFunc:  func() runtime.Object { return &discoveryv1.EndpointSliceList{} },
	Table:        printers.EndpointSlices,
	Default:      defaultEndpointSlice,
	ValidateName: validation.NameIsDNSSubdomain,
	Strategy: Strategy{
		// As upstream's strategy: generation 1 at create, bumped by an
		// update that changes anything but metadata (labels count). The
		// endpointslice controller tells its own writes by it.
		PrepareForCreate: func(obj runtime.Object) { obj.(*discoveryv1.EndpointSlice).Generation = 1 },
		PrepareForUpdate: func(obj, old runtime.Object) {
			s, o := obj.(*discoveryv1.EndpointSlice), old.(*discoveryv1.EndpointSlice)
			sc, oc := *s, *o
			sc.ObjectMeta, oc.ObjectMeta = metav1.ObjectMeta{}, metav1.ObjectMeta{}
			if !apiequality.Semantic.DeepEqual(sc, oc) || !apiequality.Semantic.DeepEqual(s.Labels, o.Labels) {
				s.Generation = o.Generation + 1
			}
		},
		Validate: func(obj runtime.Object) field.ErrorList {
			return validateEndpointSlice(obj.(*discoveryv1.EndpointSlice))
		},
		ValidateUpdate: func(obj, old runtime.Object) field.ErrorList {
			s, o := obj.(*discoveryv1.EndpointSlice), old.(*discoveryv1.EndpointSlice)
			errs := validation.ValidateImmutableField(s.AddressType, o.AddressType, field.NewPath("addressType"))
			return append(errs, validateEndpointSlice(s)...)
		},
		AllowUnconditionalUpdate: true,
	},
}

// defaultEndpointSlice sets each port's protocol to TCP when unset.
func defaultEndpointSlice(obj runtime.Object) []string {
	s := obj.(*discoveryv1.EndpointSlice)
	var d defaulted
	for i := range s.Ports {
		if s.Ports[i].Protocol == nil {
			tcp := corev1.ProtocolTCP
			s.Ports[i].Protocol = &tcp
			d.add(fmt.Sprintf("ports[%d].protocol", i), tcp)
		}
	}
	return d
}

var addressTypes = []string{string(discoveryv1.AddressTypeFQDN), string(discoveryv1.AddressTypeIPv4), string(discoveryv1.AddressTypeIPv6)}

// validateEndpointSlice is upstream's ValidateEndpointSlice for the
// fields kubesim serves.
func validateEndpointSlice(s *discoveryv1.EndpointSlice) field.ErrorList {
	var errs field.ErrorList
	if !contains(addressTypes, string(s.AddressType)) {
		errs = append(errs, field.NotSupported(field.NewPath("addressType"), s.AddressType, addressTypes))
	}
	ep := field.NewPath("endpoints")
	if len(s.Endpoints) > maxSliceEndpoints {
		errs = append(errs, field.TooMany(ep, len(s.Endpoints), maxSliceEndpoints))
	}
	for i, e := range s.Endpoints {
		ap := ep.Index(i).Child("addresses")
		switch {
		case len(e.Addresses) == 0:
			errs = append(errs, field.Required(ap, "must contain at least 1 address"))
		case len(e.Addresses) > maxSliceAddresses:
			errs = append(errs, field.TooMany(ap, len(e.Addresses), maxSliceAddresses))
		}
		for j, a := range e.Addresses {
			errs = append(errs, validateSliceAddress(s.AddressType, a, ap.Index(j))...)
		}
	}
	pp := field.NewPath("ports")
	if len(s.Ports) > maxSlicePorts {
		errs = append(errs, field.TooMany(pp, len(s.Ports), maxSlicePorts))
	}
	names := map[string]bool{}
	for i, port := range s.Ports {
		p := pp.Index(i)
		if port.Name != nil && *port.Name != "" {
			errs = append(errs, dns1123Label(*port.Name, p.Child("name"))...)
		}
		name := ""
		if port.Name != nil {
			name = *port.Name
		}
		if names[name] {
			errs = append(errs, field.Duplicate(p.Child("name"), name))
		}
		names[name] = true
		if port.Protocol == nil {
			errs = append(errs, field.Required(p.Child("protocol"), ""))
		} else if !contains(portProtocols, string(*port.Protocol)) {
			errs = append(errs, field.NotSupported(p.Child("protocol"), *port.Protocol, portProtocols))
		}
		if port.Port != nil {
			for _, msg := range utilvalidation.IsValidPortNum(int(*port.Port)) {
				errs = append(errs, field.Invalid(p.Child("port"), *port.Port, msg))
			}
		}
	}
	return errs
}

// validateSliceAddress checks one address against the slice's type.
func validateSliceAddress(t discoveryv1.AddressType, a string, p *field.Path) field.ErrorList {
	ip := net.ParseIP(a)
	switch t {
	case discoveryv1.AddressTypeIPv4:
		if ip == nil || ip.To4() == nil {
			return field.ErrorList{field.Invalid(p, a, "must be a valid IPv4 address")}
		}
		return validateEndpointIP(a, p)
	case discoveryv1.AddressTypeIPv6:
		if ip == nil || ip.To4() != nil {
			return field.ErrorList{field.Invalid(p, a, "must be a valid IPv6 address")}
		}
		return validateEndpointIP(a, p)
	case discoveryv1.AddressTypeFQDN:
		return utilvalidation.IsFullyQualifiedDomainName(p, a)
	}
	return nil
}
