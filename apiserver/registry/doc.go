// Package registry holds what the API server knows about each resource it
// serves, and the stores that serve them.
//
// A Resource describes one: its names, scope and key in etcd
// (/registry/<plural>/[<namespace>/]<name>), the defaults filled in when a
// request body is decoded (Default), which fields selectors may use, and
// its Strategy — what the server fills in on create, what a client may not
// change on update, how it is validated — and how it is deleted
// (gracefully, for pods bound to a node; through finalizers). The
// built-in kinds default and validate with kube-apiserver's own packages
// (upstream.go), so that a bad object gets kube-apiserver's answer.
//
// A Store applies a strategy on top of the etcd storage: the resource's,
// or a subresource's on the same data (pods/status, nodes/status,
// namespaces/status and finalize); Binder serves pods/binding,
// DeleteNamespace the start of a namespace's deletion (the controller
// manager's namespace controller, an API client, does the rest). They return API errors
// (apierrors.StatusError) carrying kube-apiserver's codes, reasons and
// messages; the HTTP layer only encodes them. Registry holds every store
// and runs their watch caches; NamespaceCache, ServiceAccountCache and
// RBACCache keep, fed by watches, what admission and authorization read
// on every request. Scheme and the codecs know every type served;
// StorageCodec is the one of the values in etcd (JSON, or protobuf as
// kube-apiserver's --storage-media-type chooses; either is read).
//
// Everything here is safe for concurrent use.
package registry
