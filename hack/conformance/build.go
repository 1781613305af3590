package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// release is the Kubernetes release kubesim serves and whose suite runs.
const release = "v1.37.2"

// tools are the binaries built from hack/conformance/e2e: the suite, the
// runner that runs it in parallel processes, and kubectl of the same
// release for the sig-cli tests (the suite runs `kubectl`).
type tools struct{ e2e, ginkgo, kubectl string }

// versionFlags stamp the release into the binaries, as upstream's build
// does; without them kubectl reports v0.0.0-master.
func versionFlags() string {
	v, c := "k8s.io/component-base/version", "k8s.io/client-go/pkg/version"
	f := ""
	for _, p := range []string{v, c} {
		f += fmt.Sprintf("-X %s.gitVersion=%s -X %s.gitMajor=1 -X %s.gitMinor=37 -X %s.gitTreeState=clean ", p, release, p, p, p)
	}
	return f
}

// ensureTools builds the tools into binDir unless they are there already
// (or rebuild is set), printing how long each build took.
func ensureTools(binDir string, rebuild bool) (tools, error) {
	t := tools{
		e2e:     filepath.Join(binDir, "e2e.test"),
		ginkgo:  filepath.Join(binDir, "ginkgo"),
		kubectl: filepath.Join(binDir, "kubectl"),
	}
	mod, err := e2eModuleDir()
	if err != nil {
		return t, err
	}
	builds := []struct {
		out  string
		args []string
	}{
		{t.e2e, []string{"test", "-c", "-ldflags", versionFlags(), "-o", t.e2e, "k8s.io/kubernetes/test/e2e"}},
		{t.ginkgo, []string{"build", "-o", t.ginkgo, "github.com/onsi/ginkgo/v2/ginkgo"}},
		{t.kubectl, []string{"build", "-ldflags", versionFlags(), "-o", t.kubectl, "k8s.io/kubernetes/cmd/kubectl"}},
	}
	for _, b := range builds {
		if _, err := os.Stat(b.out); err == nil && !rebuild {
			continue
		}
		start := time.Now()
		cmd := exec.Command("go", b.args...)
		cmd.Dir = mod
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return t, fmt.Errorf("go %v: %v", b.args, err)
		}
		fmt.Fprintf(os.Stderr, "conformance: built %s in %s\n", filepath.Base(b.out), time.Since(start).Round(time.Second))
	}
	return t, nil
}
