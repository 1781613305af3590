package registry

import (
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	_ "k8s.io/kubernetes/pkg/apis/networking/install" // legacyscheme: networking's versions, conversions and declarative validation
	upnetworkingv1 "k8s.io/kubernetes/pkg/apis/networking/v1"
	"k8s.io/kubernetes/pkg/registry/networking/ingress"
	"k8s.io/kubernetes/pkg/registry/networking/ingressclass"
	"k8s.io/kubernetes/pkg/registry/networking/networkpolicy"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// Ingresses is networking.k8s.io/v1 ingresses, with upstream's
// strategies (pkg/registry/networking/ingress): status (the load
// balancer's addresses) only through ingresses/status, a change of spec
// bumps the generation, and the deprecated kubernetes.io/ingress.class
// annotation earns a warning. Nothing routes traffic to them: kubesim
// runs no ingress controller, as kind without an addon.
var Ingresses = &Resource{
	Kind:        networkingv1.SchemeGroupVersion.WithKind("Ingress"),
	Plural:      "ingresses",
	Singular:    "ingress",
	ShortNames:  []string{"ing"},
	Namespaced:  true,
	NewFunc:     func() runtime.Object { return &networkingv1.Ingress{} },
	NewListFunc: func() runtime.Object { return &networkingv1.IngressList{} },
	Table:       printers.Ingresses,
	Default:     upstreamDefaults[networkingv1.Ingress](nil, upnetworkingv1.Convert_v1_Ingress_To_networking_Ingress, upnetworkingv1.Convert_networking_Ingress_To_v1_Ingress),
	Strategy:    upstreamStrategy(ingress.Strategy, "", upnetworkingv1.Convert_v1_Ingress_To_networking_Ingress, upnetworkingv1.Convert_networking_Ingress_To_v1_Ingress),
	Status:      &IngressStatusStrategy,
}

// IngressStatusStrategy is the strategy of ingresses/status.
var IngressStatusStrategy = upstreamStrategy(ingress.StatusStrategy, "status", upnetworkingv1.Convert_v1_Ingress_To_networking_Ingress, upnetworkingv1.Convert_networking_Ingress_To_v1_Ingress)

// IngressClasses is networking.k8s.io/v1 ingressclasses, cluster-scoped,
// with upstream's strategy (pkg/registry/networking/ingressclass).
var IngressClasses = &Resource{
	Kind:        networkingv1.SchemeGroupVersion.WithKind("IngressClass"),
	Plural:      "ingressclasses",
	Singular:    "ingressclass",
	NewFunc:     func() runtime.Object { return &networkingv1.IngressClass{} },
	NewListFunc: func() runtime.Object { return &networkingv1.IngressClassList{} },
	Table:       printers.IngressClasses,
	Default:     upstreamDefaults(upnetworkingv1.SetObjectDefaults_IngressClass, upnetworkingv1.Convert_v1_IngressClass_To_networking_IngressClass, upnetworkingv1.Convert_networking_IngressClass_To_v1_IngressClass),
	Strategy:    upstreamStrategy(ingressclass.Strategy, "", upnetworkingv1.Convert_v1_IngressClass_To_networking_IngressClass, upnetworkingv1.Convert_networking_IngressClass_To_v1_IngressClass),
}

// NetworkPolicies is networking.k8s.io/v1 networkpolicies, with
// upstream's defaults (policyTypes, TCP ports) and strategy
// (pkg/registry/networking/networkpolicy). No pod's traffic is filtered
// by them: kubesim has no network plugin.
var NetworkPolicies = &Resource{
	Kind:        networkingv1.SchemeGroupVersion.WithKind("NetworkPolicy"),
	Plural:      "networkpolicies",
	Singular:    "networkpolicy",
	ShortNames:  []string{"netpol"},
	Namespaced:  true,
	NewFunc:     func() runtime.Object { return &networkingv1.NetworkPolicy{} },
	NewListFunc: func() runtime.Object { return &networkingv1.NetworkPolicyList{} },
	Table:       printers.NetworkPolicies,
	Default:     upstreamDefaults(upnetworkingv1.SetObjectDefaults_NetworkPolicy, upnetworkingv1.Convert_v1_NetworkPolicy_To_networking_NetworkPolicy, upnetworkingv1.Convert_networking_NetworkPolicy_To_v1_NetworkPolicy),
	Strategy:    upstreamStrategy(networkpolicy.Strategy, "", upnetworkingv1.Convert_v1_NetworkPolicy_To_networking_NetworkPolicy, upnetworkingv1.Convert_networking_NetworkPolicy_To_v1_NetworkPolicy),
}
