// Package metricsversion tells k8s.io/component-base's metrics which
// Kubernetes version the process is, before its global registry
// (legacyregistry) is made.
//
// component-base hides a deprecated metric once enough releases have
// passed since its deprecation, and it reads the release from
// BuildVersion when a registry is created: for legacyregistry, while the
// program initializes. A binary built without kube's -ldflags is
// "v0.0.0-master" there, so every deprecated metric would stay shown;
// kube-apiserver v1.37 hides apiserver_storage_objects, for one. This
// package's init sets BuildVersion to the version of the k8s.io/api
// module the binary is built with (v0.37.2 is Kubernetes v1.37.2). The
// Go specification initializes, among the packages whose imports are all
// initialized, the one first by import path: this package
// (github.com/...) imports only component-base/metrics, as
// legacyregistry does besides Prometheus' packages, so it is initialized
// before k8s.io/component-base/metrics/legacyregistry in any binary that
// links both. Import it for its effect only.
package metricsversion
