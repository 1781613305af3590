// Package controlplane holds the controllers kube-apiserver runs beside
// its API for the control plane itself, as upstream keeps them under
// pkg/controlplane/controller and pkg/controlplane/reconcilers:
//
//   - the identity lease controller, which keeps an API server's Lease in
//     kube-system (identitylease.go);
//   - the garbage collector of expired identity Leases (leasegc.go, as
//     upstream's apiserverleasegc);
//   - the kubernetes service controller, which keeps the kubernetes
//     Service in default (kubernetesservice.go);
//   - the lease endpoint reconciler it calls, which lists every live API
//     server in that Service's Endpoints and EndpointSlice (reconciler.go).
//
// It depends on package registry, not on package apiserver: the
// controllers read and write through the registry's stores, in the
// process, where upstream's use a loopback client. Package apiserver
// starts them from its post-start hooks with the server's configuration
// and owns their goroutines. Each type's doc says who may call it and
// from how many goroutines.
package controlplane
