//go:build tools

// Package e2e only pins upstream's end-to-end suite, k8s.io/kubernetes/test/e2e,
// so that hack/conformance can build it with `go test -c` from this module,
// with the ginkgo runner and the kubectl of the same release.
// It is a module of its own so that the main module's go.mod and `go test ./...`
// never see the suite's dependencies. It is never compiled (build tag "tools").
package e2e

import (
	// The runner that runs e2e.test's specs in parallel processes.
	_ "github.com/onsi/ginkgo/v2/ginkgo"
	// kubectl of the suite's own version, for the sig-cli tests.
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/test/e2e"
)
