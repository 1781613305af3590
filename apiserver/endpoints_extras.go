package apiserver

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// serverExtras are what kube-apiserver does for a few kinds besides
// storing them, by resource: each changes the endpoint its registration
// made.
//
// Pods: the stages of a pod's creation are recorded, and held at the
// gate, from inside its create, its status updates and its watches
// (flowevidence.go); pods/binding binds them, pods/eviction evicts them. Namespaces: a delete starts
// their finalization, namespaces/finalize ends it. Service accounts:
// serviceaccounts/token issues tokens. Certificate signing requests:
// certificatesigningrequests/approval approves and denies them.
// Component statuses: computed at each read (componentstatuses.go).
func serverExtras(reg *registry.Registry) map[*registry.Resource]func(*Endpoint) {
	return map[*registry.Resource]func(*Endpoint){
		registry.Pods: func(e *Endpoint) {
			e.admitCreate, e.stageFrame = (*Server).admitPodCreate, (*Server).stageFrame
			e.subresources = append(e.subresources, bindingSubresource(), evictionSubresource(registry.NewEvictor(reg)))
			for i := range e.subresources {
				if e.subresources[i].name == subStatus {
					e.subresources[i].admitUpdate = (*Server).admitPodStatus
				}
			}
		},
		registry.Namespaces: func(e *Endpoint) {
			e.delete = func(ctx context.Context, _, name string, validate registry.ValidateObjectFunc, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
				return registry.DeleteNamespace(ctx, reg.Namespaces, name, validate, opts)
			}
			e.subresources = append(e.subresources, subresource{name: subFinalize, kind: registry.Namespaces.Kind,
				verbs: []string{verbUpdate}, store: reg.NamespaceFinalize})
		},
		registry.CertificateSigningRequests: func(e *Endpoint) {
			approval := reg.Store(registry.CertificateSigningRequests).WithStrategy(registry.CertificateSigningRequestApprovalStrategy)
			e.subresources = append(e.subresources, subresource{name: subApproval, kind: registry.CertificateSigningRequests.Kind,
				verbs: []string{verbGet, verbPatch, verbUpdate}, store: approval})
		},
		registry.ComponentStatuses: func(e *Endpoint) { e.computed = componentStatusReads },
		registry.ServiceAccounts: func(e *Endpoint) {
			e.subresources = append(e.subresources, tokenSubresource())
		},
	}
}
