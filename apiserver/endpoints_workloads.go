package apiserver

import (
	appsv1 "k8s.io/api/apps/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// appsGroup serves apps/v1: deployments and replicasets, each with its
// status and scale subresources.
func appsGroup(reg *registry.Registry) *group {
	gv := appsv1.SchemeGroupVersion
	status := func(kind string, store *registry.Store) subresource {
		return subresource{name: subStatus, kind: gv.WithKind(kind), verbs: []string{verbGet, verbPatch, verbUpdate}, store: store}
	}
	return &group{gv: gv, endpoints: []*endpoint{
		{gv: gv, res: registry.Deployments, store: reg.Deployments, verbs: allVerbs, subresources: []subresource{
			scaleSubresource(), status("Deployment", reg.DeploymentStatus)}},
		{gv: gv, res: registry.ReplicaSets, store: reg.ReplicaSets, verbs: allVerbs, subresources: []subresource{
			scaleSubresource(), status("ReplicaSet", reg.ReplicaSetStatus)}},
	}}
}

// discoveryGroup serves discovery.k8s.io/v1 endpointslices.
func discoveryGroup(reg *registry.Registry) *group {
	gv := discoveryv1.SchemeGroupVersion
	return &group{gv: gv, endpoints: []*endpoint{
		{gv: gv, res: registry.EndpointSlices, store: reg.EndpointSlices, verbs: allVerbs},
	}}
}
