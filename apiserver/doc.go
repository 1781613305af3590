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
//
// With a flow.Recorder (Config.Recorder) the server records the trace of
// every request (Stage 0) and every write of a pod to etcd, and the stages
// of the creation of the pods created through it: 1 (admitted), 2
// (persisted), 3 (the scheduler's watch frame), 5 (binding persisted), 6
// (the kubelet's watch frame), 7 (the kubelet's status patch) and 8
// (status persisted), each with the evidence taken where it happened (see
// flowstages.go). With a flow.Gate (Config.Gate) it holds a pod at the
// gate's API server points, once per pod, without timing out requests or
// closing watches.
package apiserver
