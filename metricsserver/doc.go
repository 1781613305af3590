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
//   - an idle container uses a fixed share of its cpu request (its limit
//     without a request, 100m without either), between 1% and 9%, and a
//     fixed share of its memory request (limit, or 64Mi), between 20% and
//     79%: the shares are derived from a hash of namespace/pod/container,
//     so the numbers differ between containers but stay the same from one
//     read to the next. Idle cpu is low, as an idle server's is (the HPA
//     walkthrough's php-apache shows 0%/50%), so that an HPA without load
//     stays at, or comes back to, its minimum;
//   - load comes from the knob CPULoadAnnotation: a Service annotated
//     kubesim.io/cpu-load: "900m" stands for clients that keep that much
//     cpu busy every second in the Service's pods (the HPA walkthrough's
//     load generator, `while true; do wget -q -O- http://php-apache;
//     done`). The load is spread evenly over the Service's ready
//     endpoints, as kube-proxy spreads connections: the distinct pods its
//     EndpointSlices list with a Ready condition true (or unset); on each,
//     it goes to the container that declares one of the slice's ports as
//     a containerPort, else to the first container, on top of its idle
//     share. A pod that is not ready (so not yet an endpoint) gets none;
//     the endpoints that turn ready share it at once. Removing the
//     annotation (or a value that is not a positive quantity) removes the
//     load. To read Services and EndpointSlices the metrics server's
//     ClusterRole has rules a real metrics-server's has not;
//   - a node that is Ready uses the sum of its running pods (with their
//     load) plus the system's own 100m of cpu and 512Mi of memory;
//   - the Timestamp is the start of the current 15 s window, the Window
//     15 s. Usage is not averaged over the window: a change of load shows
//     in the next read.
//
// New binds the listener (so URL is known); Run starts the informers and
// serves until its context is done, then returns once every goroutine it
// started has ended; Close releases a Server that will not Run.
package metricsserver
