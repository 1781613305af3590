// Package apiserver is the generic part of kubesim's API server (what
// k8s.io/apiserver is to kube-apiserver): the Kubernetes REST API over
// HTTPS with HTTP/2 and HTTP/1.1 (plain HTTP without Config.TLS), built on
// go-restful, backed by etcd through package registry. Package serverchain
// builds the servers of the delegation chain on it (the aggregator in
// package aggregatorserver, the apiextensions server in package
// apiextensionsserver; kube-apiserver, still in this package) and is what
// callers use.
//
// serverchain.New builds a Server on a Config (NewGeneric, then the chain,
// InstallChain) and binds its listener, so that its URL is known before it
// serves. Run starts the watch caches and the namespace
// and RBAC caches, serves once they are
// ready, then runs the post-start hooks (AddPostStartHook), each in its
// own goroutine, as kube-apiserver does: the built-in ones write what
// every cluster starts with (start-system-namespaces-controller: the
// system namespaces; rbac/bootstrap-roles: the default RBAC policy), and
// /readyz passes once every hook has finished. When its context is done
// Run first runs the pre-shutdown hooks while it still serves (the
// bootstrap controller's takes this server out of the kubernetes
// Endpoints), then ends every request (watches too), waits for all it
// started and returns. Close releases a Server that will not Run. A Server serves
// concurrent requests; New, Run and Close belong to its one owner.
//
// The request path follows kube-apiserver: a handler chain, built in one
// function (filters.BuildHandlerChain) inside out, runs the filters
// (request info, audit id, trace, panic recovery, cache control, timeout,
// authentication, audit, impersonation, in-flight limits, authorization)
// around the servers of the chain; kube-apiserver's is a go-restful
// Container that has a WebService per group-version (/api/v1,
// /apis/coordination.k8s.io/v1 ...) and a Route per verb and path. Routes
// only dispatch; the handlers are plain http handlers, the same for every
// resource, that decode the request (JSON, YAML or protobuf), run mutating
// admission, call the registry (which runs the strategy, validation and
// then validating admission just before the write) and encode the answer
// as JSON, YAML, protobuf or a Table, or as a metav1.Status on error. What
// the server does for one resource besides serving it is a hook on that
// resource's endpoint (endpoints.go), not a test in the handlers.
//
// Clients see what kube-apiserver would show them: discovery (legacy and
// aggregated), OpenAPI v3, watches as streams of events each flushed as it
// is written (one chunk per event with HTTP/1.1), the same status codes,
// reasons and messages.
//
// With a flow.Recorder (Config.Recorder) the server records the trace of
// every request (Stage 0) and every write of a pod to etcd, and the stages
// of the creation of the pods created through it: 1 (admitted), 2
// (persisted), 3 (the scheduler's watch frame), 5 (binding persisted), 6
// (the kubelet's watch frame), 7 (the kubelet's status patch) and 8
// (status persisted), each with the evidence taken where it happened (see
// flowevidence.go; the hooks of the pods endpoint capture 1, 3, 6 and 7).
// With a flow.Gate (Config.Gate) it holds a pod at the gate's API server
// points, once per pod, without timing out requests or closing watches.
package apiserver
