package registry

// The warnings of a write: what upstream's registry strategies return from
// WarningsOnCreate and WarningsOnUpdate (pkg/registry/<group>/<kind>/
// strategy.go), which rest.BeforeCreate and BeforeUpdate add to the
// request's warning recorder once validation has passed (Store does the
// same, see beforeCreate). Where a strategy calls an exported function
// (GetWarningsForPod, GetWarningsForPodTemplate, GetWarningsForService,
// GetWarningsForIP, GetWarningsForCIDR) it is called here, on the object
// converted to the internal type as validation is; where the strategy's
// own function is unexported, its equivalent is written here with
// upstream's text, on the v1 object (whose fields it reads are the
// internal type's). Kinds whose strategy returns nil have none.

import (
	"context"
	"crypto/tls"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	serviceutil "k8s.io/kubernetes/pkg/api/service"
	"k8s.io/kubernetes/pkg/apis/apps"
	upappsv1 "k8s.io/kubernetes/pkg/apis/apps/v1"
	"k8s.io/kubernetes/pkg/apis/core"
	upcorev1 "k8s.io/kubernetes/pkg/apis/core/v1"
)

// upstreamWarnings returns a Strategy.WarningsOnCreate that converts the
// object to the internal type and runs warn, an upstream warning
// function. An object that does not convert draws none (its validation
// has failed already).
func upstreamWarnings[V, I any](convert convertFunc[V, I], warn func(ctx context.Context, obj *I) []string) func(ctx context.Context, obj runtime.Object) []string {
	return func(ctx context.Context, obj runtime.Object) []string {
		in, errs := toInternal(obj, convert)
		if errs != nil {
			return nil
		}
		return warn(ctx, in)
	}
}

// upstreamWarningsOnUpdate is upstreamWarnings for
// Strategy.WarningsOnUpdate.
func upstreamWarningsOnUpdate[V, I any](convert convertFunc[V, I], warn func(ctx context.Context, obj, old *I) []string) func(ctx context.Context, obj, old runtime.Object) []string {
	return func(ctx context.Context, obj, old runtime.Object) []string {
		in, errs := toInternal(obj, convert)
		if errs != nil {
			return nil
		}
		oldIn, errs := toInternal(old, convert)
		if errs != nil {
			return nil
		}
		return warn(ctx, in, oldIn)
	}
}

// dnsLabelNameWarning is the name warning of the pod, deployment and
// replica set strategies' WarningsOnCreate: a name that is not a DNS
// label (a dot in it) makes odd hostnames. what is upstream's wording of
// where the name goes.
func dnsLabelNameWarning(name, what string) []string {
	if msgs := utilvalidation.IsDNS1123Label(name); len(msgs) != 0 {
		return []string{fmt.Sprintf("metadata.name: this is used in %s, which can result in surprising behavior; a DNS label is recommended: %v", what, msgs)}
	}
	return nil
}

// The pod strategies' warnings (pkg/registry/core/pod/strategy.go):
// podStrategy.WarningsOnCreate (the name, then GetWarningsForPod; its
// WarningsOnUpdate returns nil) and podStatusStrategy.WarningsOnUpdate.
var warnPodCreate = upstreamWarnings(upcorev1.Convert_v1_Pod_To_core_Pod, func(ctx context.Context, p *core.Pod) []string {
	warnings := dnsLabelNameWarning(p.Name, "the Pod's hostname")
	return append(warnings, podutil.GetWarningsForPod(ctx, p, nil)...)
})

func warnPodStatusUpdate(ctx context.Context, obj, old runtime.Object) []string {
	p := obj.(*corev1.Pod)
	var warnings []string
	for i, ip := range p.Status.PodIPs {
		warnings = append(warnings, utilvalidation.GetWarningsForIP(field.NewPath("status", "podIPs").Index(i).Child("ip"), ip.IP)...)
	}
	for i, ip := range p.Status.HostIPs {
		warnings = append(warnings, utilvalidation.GetWarningsForIP(field.NewPath("status", "hostIPs").Index(i).Child("ip"), ip.IP)...)
	}
	return warnings
}

// The deployment and replica set strategies' warnings
// (pkg/registry/apps/deployment/strategy.go, replicaset/strategy.go): on
// create the name and GetWarningsForPodTemplate, on an update that
// changed the generation (the spec) GetWarningsForPodTemplate of the new
// and old templates. Their status strategies have none.
var (
	warnDeploymentCreate = upstreamWarnings(upappsv1.Convert_v1_Deployment_To_apps_Deployment, func(ctx context.Context, d *apps.Deployment) []string {
		warnings := dnsLabelNameWarning(d.Name, "Pod names and hostnames")
		return append(warnings, podutil.GetWarningsForPodTemplate(ctx, field.NewPath("spec", "template"), &d.Spec.Template, nil)...)
	})
	warnDeploymentUpdate = upstreamWarningsOnUpdate(upappsv1.Convert_v1_Deployment_To_apps_Deployment, func(ctx context.Context, d, old *apps.Deployment) []string {
		if d.Generation == old.Generation {
			return nil
		}
		return podutil.GetWarningsForPodTemplate(ctx, field.NewPath("spec", "template"), &d.Spec.Template, &old.Spec.Template)
	})
	warnReplicaSetCreate = upstreamWarnings(upappsv1.Convert_v1_ReplicaSet_To_apps_ReplicaSet, func(ctx context.Context, rs *apps.ReplicaSet) []string {
		warnings := dnsLabelNameWarning(rs.Name, "Pod names and hostnames")
		return append(warnings, podutil.GetWarningsForPodTemplate(ctx, field.NewPath("spec", "template"), &rs.Spec.Template, nil)...)
	})
	warnReplicaSetUpdate = upstreamWarningsOnUpdate(upappsv1.Convert_v1_ReplicaSet_To_apps_ReplicaSet, func(ctx context.Context, rs, old *apps.ReplicaSet) []string {
		if rs.Generation == old.Generation {
			return nil
		}
		return podutil.GetWarningsForPodTemplate(ctx, field.NewPath("spec", "template"), &rs.Spec.Template, &old.Spec.Template)
	})
)

// The service strategies' warnings (pkg/registry/core/service/strategy.go):
// GetWarningsForService on create and update, and, for services/status,
// serviceStatusStrategy.WarningsOnUpdate's check of the load balancer
// ingress IPs.
var (
	warnServiceCreate = upstreamWarnings(upcorev1.Convert_v1_Service_To_core_Service, func(_ context.Context, s *core.Service) []string {
		return serviceutil.GetWarningsForService(s, nil)
	})
	warnServiceUpdate = upstreamWarningsOnUpdate(upcorev1.Convert_v1_Service_To_core_Service, func(_ context.Context, s, old *core.Service) []string {
		return serviceutil.GetWarningsForService(s, old)
	})
)

func warnServiceStatusUpdate(ctx context.Context, obj, old runtime.Object) []string {
	var warnings []string
	fldPath := field.NewPath("status", "loadBalancer", "ingress")
	for i, ingress := range obj.(*corev1.Service).Status.LoadBalancer.Ingress {
		if len(ingress.IP) > 0 {
			warnings = append(warnings, utilvalidation.GetWarningsForIP(fldPath.Index(i), ingress.IP)...)
		}
	}
	return warnings
}

// warnSecret is warningsForSecret (pkg/registry/core/secret/strategy.go),
// the secret strategy's warnings on create and update: a TLS secret whose
// key does not match its certificate.
func warnSecret(obj runtime.Object) []string {
	s := obj.(*corev1.Secret)
	if s.Type != corev1.SecretTypeTLS {
		return nil
	}
	if _, err := tls.X509KeyPair(s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey]); err != nil {
		return []string{err.Error()}
	}
	return nil
}

// warnNode is nodeWarnings (pkg/registry/core/node/strategy.go), the node
// strategy's warnings on create and update; nodes/status has none.
func warnNode(obj runtime.Object) []string {
	n := obj.(*corev1.Node)
	var warnings []string
	if n.Spec.ConfigSource != nil {
		warnings = append(warnings, "spec.configSource: the feature is removed")
	}
	if len(n.Spec.DoNotUseExternalID) > 0 {
		warnings = append(warnings, "spec.externalID: this field is deprecated, and is unused by Kubernetes")
	}
	for i, cidr := range n.Spec.PodCIDRs {
		warnings = append(warnings, utilvalidation.GetWarningsForCIDR(field.NewPath("spec", "podCIDRs").Index(i), cidr)...)
	}
	return warnings
}

// The labels by which upstream's strategies know the writes of its
// controllers and skip their IP checks: LabelManagedBy and ControllerName
// of pkg/controller/endpoint, and discoveryv1.LabelManagedBy with the
// ControllerName of pkg/controller/endpointslice and
// endpointslicemirroring.
const (
	endpointsLabelManagedBy                = "endpoints.kubernetes.io/managed-by"
	endpointsControllerName                = "endpoint-controller"
	endpointSliceControllerName            = "endpointslice-controller.k8s.io"
	endpointSliceMirroringControllerName   = "endpointslicemirroring-controller.k8s.io"
	enforceMountableSecretsAnnotation      = "kubernetes.io/enforce-mountable-secrets"
	enforceMountableSecretsDeprecationText = "deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets"
)

// warnEndpoints is endpointsWarnings (pkg/registry/core/endpoint/
// strategy.go), the endpoints strategy's warnings on create and update:
// addresses in a non-standard form, unless the endpoints controller wrote
// them.
func warnEndpoints(obj runtime.Object) []string {
	ep := obj.(*corev1.Endpoints)
	if ep.Labels[endpointsLabelManagedBy] == endpointsControllerName {
		return nil
	}
	var warnings []string
	for i := range ep.Subsets {
		for j := range ep.Subsets[i].Addresses {
			fldPath := field.NewPath("subsets").Index(i).Child("addresses").Index(j).Child("ip")
			warnings = append(warnings, utilvalidation.GetWarningsForIP(fldPath, ep.Subsets[i].Addresses[j].IP)...)
		}
		for j := range ep.Subsets[i].NotReadyAddresses {
			fldPath := field.NewPath("subsets").Index(i).Child("notReadyAddresses").Index(j).Child("ip")
			warnings = append(warnings, utilvalidation.GetWarningsForIP(fldPath, ep.Subsets[i].NotReadyAddresses[j].IP)...)
		}
	}
	return warnings
}

// warnEndpointSliceCreate and warnEndpointSliceUpdate are the endpoint
// slice strategy's warnings (pkg/registry/discovery/endpointslice/
// strategy.go): warnOnDeprecatedAddressType on create, then, on both,
// warnOnBadIPs.
func warnEndpointSliceCreate(ctx context.Context, obj runtime.Object) []string {
	eps := obj.(*discoveryv1.EndpointSlice)
	var warnings []string
	if eps.AddressType == discoveryv1.AddressTypeFQDN {
		warnings = append(warnings, fmt.Sprintf("%s: FQDN endpoints are deprecated", field.NewPath("spec").Child("addressType")))
	}
	return append(warnings, warnEndpointSliceIPs(eps)...)
}

func warnEndpointSliceUpdate(ctx context.Context, obj, old runtime.Object) []string {
	return warnEndpointSliceIPs(obj.(*discoveryv1.EndpointSlice))
}

// warnEndpointSliceIPs is warnOnBadIPs: addresses in a non-standard form,
// unless one of upstream's endpoint slice controllers wrote them.
func warnEndpointSliceIPs(eps *discoveryv1.EndpointSlice) []string {
	if by := eps.Labels[discoveryv1.LabelManagedBy]; by == endpointSliceControllerName || by == endpointSliceMirroringControllerName {
		return nil
	}
	var warnings []string
	for i := range eps.Endpoints {
		for j, addr := range eps.Endpoints[i].Addresses {
			fldPath := field.NewPath("endpoints").Index(i).Child("addresses").Index(j)
			warnings = append(warnings, utilvalidation.GetWarningsForIP(fldPath, addr)...)
		}
	}
	return warnings
}

// warnServiceAccount is warnIfHasEnforceMountableSecretsAnnotation
// (pkg/registry/core/serviceaccount/strategy.go), the service account
// strategy's warnings: the deprecated annotation
// (plugin/pkg/admission/serviceaccount's
// EnforceMountableSecretsAnnotation), when a write sets it anew (old nil
// on create).
func warnServiceAccount(obj, old runtime.Object) []string {
	if old != nil {
		if _, ok := old.(*corev1.ServiceAccount).Annotations[enforceMountableSecretsAnnotation]; ok {
			return nil
		}
	}
	if _, ok := obj.(*corev1.ServiceAccount).Annotations[enforceMountableSecretsAnnotation]; ok {
		return []string{fmt.Sprintf("metadata.annotations[%s]: %s", enforceMountableSecretsAnnotation, enforceMountableSecretsDeprecationText)}
	}
	return nil
}

// onCreate and onUpdate adapt a warning function of the object (and the
// stored one) to Strategy.WarningsOnCreate and WarningsOnUpdate.
func onCreate(warn func(obj runtime.Object) []string) func(context.Context, runtime.Object) []string {
	return func(_ context.Context, obj runtime.Object) []string { return warn(obj) }
}

func onUpdate(warn func(obj runtime.Object) []string) func(context.Context, runtime.Object, runtime.Object) []string {
	return func(_ context.Context, obj, _ runtime.Object) []string { return warn(obj) }
}
