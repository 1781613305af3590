// Command kubesim runs a small, real Kubernetes control plane in one process
// and shows how a pod comes to life. See README.md.
package main
