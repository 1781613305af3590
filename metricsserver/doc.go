// Package metricsserver is kubesim's metrics server: a small aggregated
// API server for metrics.k8s.io/v1beta1, the Resource Metrics API that
// `kubectl top` (and the HorizontalPodAutoscaler) reads, reached through
// the aggregator's proxy as a real cluster's metrics-server is. It is a
// component: it reaches the API server only through client-go, over
// HTTPS, and never imports package apiserver.
//
// A Server listens on its own loopback address (HTTPS, with a serving
// certificate for metrics-server.kube-system.svc, the name the
// aggregator verifies), has its own go-restful Container, and serves:
//
//   - discovery: /apis, /apis/metrics.k8s.io and
//     /apis/metrics.k8s.io/v1beta1 (nodes and pods, verbs get and list);
//   - NodeMetrics: /apis/metrics.k8s.io/v1beta1/nodes[/<name>];
//   - PodMetrics: /apis/metrics.k8s.io/v1beta1/pods and
//     /apis/metrics.k8s.io/v1beta1/namespaces/<ns>/pods[/<name>];
//   - /healthz, /livez and /readyz (readyz once its informers synced).
//
// Lists take a labelSelector and a fieldSelector (metadata.name,
// metadata.namespace); items are sorted by namespace and name; a missing
// item is a 404 Status ("nodemetrics.metrics.k8s.io \"x\" not found").
//
// Authentication is metrics-server's requestheader authentication: a
// request must come with a client certificate verified against
// Config.RequestHeaderCA whose CN is one of Config.AllowedNames (the
// aggregator's proxy certificate); the user is then the X-Remote-User
// header, with the groups of X-Remote-Group and the extra of
// X-Remote-Extra-*. Anything else is 401. Where kubesim differs: a real
// metrics-server also accepts client certificates and tokens of its own
// callers (TokenReview) and asks kube-apiserver whether the user may read
// metrics (SubjectAccessReview); kubesim's serves only the aggregator,
// whose handler chain has already authorized the request, and does not
// authorize again. It does not serve Tables either.
//
// Usage is simulated. A real metrics-server scrapes every kubelet's
// /metrics/resource endpoint every 15 s (--metric-resolution) and reports
// the CPU rate over the window between two scrapes and the working-set
// memory; kubesim's kubelets run no containers, so the metrics server
// computes the usage from the pods and nodes it watches (Usage, in
// model.go):
//
//   - a pod has metrics once its phase is Running, one entry per running
//     container;
//   - a container uses a fixed share, between 20% and 80%, of its cpu
//     request (its limit without a request, 100m without either), and
//     likewise of its memory request (limit, or 64Mi): the share is
//     derived from a hash of namespace/pod/container, so the numbers
//     differ between containers but stay the same from one read to the
//     next;
//   - a node that is Ready uses the sum of its running pods plus the
//     system's own 100m of cpu and 512Mi of memory;
//   - the Timestamp is the start of the current 15 s window, the Window
//     15 s.
//
// New binds the listener (so URL is known); Run starts the informers and
// serves until its context is done, then returns once every goroutine it
// started has ended; Close releases a Server that will not Run.
package metricsserver
