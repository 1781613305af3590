// Package cluster starts kubesim's control plane in one process: embedded
// etcd and the API server (the scheduler and kubelets join in later
// stages). It is what main, tests and benchmarks use; it is the only
// package that imports every component.
package cluster
