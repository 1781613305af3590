package registry

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	upcorev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// Services is the core/v1 services resource. Its store allocates each
// Service's cluster IP from the service CIDR and its node ports from the
// node-port range (ServiceAllocator) before validation, after
// patchAllocatedValues and normalizeClusterIPs, as upstream's service REST
// does; status changes only through services/status.
var Services = &Resource{
	Kind:                corev1.SchemeGroupVersion.WithKind("Service"),
	Plural:              "services",
	ReturnDeletedObject: true,
	Singular:            "service",
	ShortNames:          []string{"svc"},
	Categories:          []string{"all"},
	Namespaced:          true,
	NewFunc:             func() runtime.Object { return &corev1.Service{} },
	NewListFunc:         func() runtime.Object { return &corev1.ServiceList{} },
	Status:              &ServiceStatusStrategy,
	Table:               printers.Services,
	Default:             defaultService,
	Strategy: Strategy{
		PrepareForCreate: func(obj runtime.Object) {
			obj.(*corev1.Service).Status = corev1.ServiceStatus{}
		},
		PrepareForUpdate: func(obj, old runtime.Object) {
			obj.(*corev1.Service).Status = old.(*corev1.Service).Status
		},
		Validate:                 validateService,
		ValidateUpdate:           validateServiceUpdate,
		WarningsOnCreate:         warnServiceCreate,
		WarningsOnUpdate:         warnServiceUpdate,
		AllowUnconditionalUpdate: true,
	},
}

// ServiceStatusStrategy is the strategy of services/status.
var ServiceStatusStrategy = Strategy{
	PrepareForUpdate: func(obj, old runtime.Object) {
		obj.(*corev1.Service).Spec = old.(*corev1.Service).Spec
	},
	ValidateUpdate:           validateServiceStatus,
	WarningsOnUpdate:         warnServiceStatusUpdate,
	AllowUnconditionalUpdate: true,
}

// The defaults and validation of services are upstream's svcStrategy and
// serviceStatusStrategy (pkg/registry/core/service/strategy.go).
var (
	defaultService        = upstreamDefaults(upcorev1.SetObjectDefaults_Service, upcorev1.Convert_v1_Service_To_core_Service, upcorev1.Convert_core_Service_To_v1_Service)
	validateService       = upstreamValidate(upcorev1.Convert_v1_Service_To_core_Service, corevalidation.ValidateServiceCreate)
	validateServiceUpdate = upstreamValidateUpdate(upcorev1.Convert_v1_Service_To_core_Service, corevalidation.ValidateServiceUpdate)
	validateServiceStatus = upstreamValidateSubresource("status", upcorev1.Convert_v1_Service_To_core_Service, corevalidation.ValidateServiceStatusUpdate)
)

// normalizeClusterIPs makes clusterIP and clusterIPs agree before the
// allocation and validation of a create (old nil) or an update, divining
// what the client meant, as upstream's service REST does in beginCreate
// and beginUpdate (normalizeClusterIPs in
// pkg/registry/core/service/storage/storage.go, on v1 types): a client
// that sets only clusterIP gets clusterIPs; on an update, clusterIPs
// left out with clusterIP unchanged are kept, and a clusterIP cleared or
// changed with clusterIPs unchanged clears or replaces them (validation
// then refuses the change).
func normalizeClusterIPs(s, old *corev1.Service) {
	if old == nil {
		if s.Spec.ClusterIP != "" && len(s.Spec.ClusterIPs) == 0 {
			s.Spec.ClusterIPs = []string{s.Spec.ClusterIP}
		}
		return
	}
	if len(old.Spec.ClusterIPs) > 0 && len(s.Spec.ClusterIPs) == 0 && old.Spec.ClusterIP == s.Spec.ClusterIP {
		s.Spec.ClusterIPs = old.Spec.ClusterIPs
	}
	if old.Spec.ClusterIP == s.Spec.ClusterIP || !slices.Equal(old.Spec.ClusterIPs, s.Spec.ClusterIPs) {
		return
	}
	if old.Spec.ClusterIP != "" && s.Spec.ClusterIP == "" {
		s.Spec.ClusterIPs = nil
	} else {
		s.Spec.ClusterIPs = []string{s.Spec.ClusterIP}
	}
}

// patchAllocatedValues keeps, on an update, what the server allocated and
// the new object leaves out (a PUT of the same manifest without clusterIP
// or nodePort), as upstream's patchAllocatedValues
// (pkg/registry/core/service/storage/storage.go): the cluster IPs, node
// ports by port name unless another port uses them, and the health check
// node port.
func patchAllocatedValues(s, old *corev1.Service) {
	if needsClusterIP(old) && needsClusterIP(s) {
		if s.Spec.ClusterIP == "" {
			s.Spec.ClusterIP = old.Spec.ClusterIP
		}
		if len(s.Spec.ClusterIPs) == 0 && len(old.Spec.ClusterIPs) > 0 {
			s.Spec.ClusterIPs = old.Spec.ClusterIPs
		}
	}
	if needsNodePorts(old) && needsNodePorts(s) {
		patchNodePorts(s, old)
	}
	if needsHealthCheckNodePort(old) && needsHealthCheckNodePort(s) && s.Spec.HealthCheckNodePort == 0 {
		s.Spec.HealthCheckNodePort = old.Spec.HealthCheckNodePort
	}
}

// patchNodePorts gives each port without a node port the one the old
// port of its name had, unless a port of both objects uses it.
func patchNodePorts(s, old *corev1.Service) {
	used := func(svc *corev1.Service) sets.Set[int32] {
		u := sets.New[int32]()
		for _, p := range svc.Spec.Ports {
			if p.NodePort != 0 {
				u.Insert(p.NodePort)
			}
		}
		return u
	}
	inBoth := used(old).Intersection(used(s))
	byName := map[string]int32{}
	for _, p := range old.Spec.Ports {
		byName[p.Name] = p.NodePort
	}
	for i := range s.Spec.Ports {
		if p := &s.Spec.Ports[i]; p.NodePort == 0 && !inBoth.Has(byName[p.Name]) {
			p.NodePort = byName[p.Name]
		}
	}
}

func needsClusterIP(s *corev1.Service) bool { return s.Spec.Type != corev1.ServiceTypeExternalName }

func needsNodePorts(s *corev1.Service) bool {
	return s.Spec.Type == corev1.ServiceTypeNodePort ||
		(s.Spec.Type == corev1.ServiceTypeLoadBalancer && (s.Spec.AllocateLoadBalancerNodePorts == nil || *s.Spec.AllocateLoadBalancerNodePorts))
}

func needsHealthCheckNodePort(s *corev1.Service) bool {
	return s.Spec.Type == corev1.ServiceTypeLoadBalancer && s.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
}

func isHeadless(s *corev1.Service) bool { return s.Spec.ClusterIP == corev1.ClusterIPNone }
