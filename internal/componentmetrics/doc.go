// Package componentmetrics serves each control-plane component's
// /metrics from the one registry the process has.
//
// Upstream runs kube-apiserver, kube-scheduler and
// kube-controller-manager as three processes, each with its own
// k8s.io/component-base legacyregistry, which its /metrics serves.
// kubesim runs them in one process, so their metrics land in one
// legacyregistry: the API server's (k8s.io/apiserver's endpoints and
// etcd3 metrics), the scheduler's (k8s.io/kubernetes/pkg/scheduler/
// metrics), the workqueues of every controller (component-base's
// workqueue provider, which client-go's queues use) and upstream's
// controllers' own. A View says which families, and which series of the
// shared ones, belong to a component: each component's /metrics serves
// its view, with the process's own series (go_*, process_*,
// component-base's meta metrics) in every view, as each upstream process
// has them.
package componentmetrics
