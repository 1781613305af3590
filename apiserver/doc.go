// Package apiserver is kubesim's API server: the Kubernetes REST API over
// HTTP, built on go-restful, backed by etcd through package registry.
//
// The request path follows kube-apiserver: a handler chain (built in one
// function, inside out) wraps one go-restful Container that has a
// WebService per group-version (/api/v1, /apis/coordination.k8s.io/v1) and
// a Route per verb and path. Routes only dispatch; the handlers are plain
// http handlers that decode the request, call the registry and encode the
// answer as JSON, YAML or a Table, or as a metav1.Status on error.
//
// Clients see what kube-apiserver would show them: discovery (legacy and
// aggregated), OpenAPI v3, watches as chunked JSON streams, the same status
// codes, reasons and messages.
package apiserver
