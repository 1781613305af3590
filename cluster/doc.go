// Package cluster is kubesim's assembler: it starts the whole control
// plane in one process (embedded etcd, the API server, the scheduler, a
// kubelet per simulated node) and stops it again. It is what main, the
// scenario runner, tests and benchmarks use, and with main the only
// package that imports every component; the components themselves reach
// each other only through the API server's HTTP API.
//
// Tests of any package start a cluster with clustertest.Start.
package cluster
