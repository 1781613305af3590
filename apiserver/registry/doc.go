// Package registry holds what the API server knows about each resource it
// serves: its names, scope and key in etcd, and its strategy — what the
// server fills in on create, what a client may not change on update, how it
// is validated, which fields selectors may use, and how it is deleted
// (gracefully, for pods bound to a node; through finalizers).
//
// Store applies a strategy on top of the etcd storage and returns API
// errors (apierrors.StatusError) carrying kube-apiserver's codes, reasons
// and messages; the HTTP layer only encodes them. Everything here is safe for
// concurrent use.
package registry
