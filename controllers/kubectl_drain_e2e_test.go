package controllers_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestKubectlDrainWaitsForPDB: a Deployment of 2 with a
// PodDisruptionBudget of minAvailable 2; `kubectl drain` of a node with
// one of its pods cordons the node and then retries the eviction, which
// the API server refuses with upstream's 429 message, until the budget
// is relaxed to 1; then the pod is evicted, the drain finishes, and the
// Deployment makes the pod again on the other node. Skipped when kubectl
// is not on PATH.
func TestKubectlDrainWaitsForPDB(t *testing.T) {
	c, admin := startNodes(t, 2)
	k := newKubectl(t, c)
	k.mustPrint(t, "deployment.apps/web created\n", "create", "deployment", "web", "--image=nginx", "--replicas=2")
	k.must(t, "rollout", "status", "deployment/web", "--timeout="+waitTimeout.String())
	k.mustPrint(t, "poddisruptionbudget.policy/web created\n", "create", "pdb", "web", "--selector=app=web", "--min-available=2")
	waitPDB(t, admin, "web", 2, 0)
	node := k.must(t, "get", "pods", "-l", "app=web", "-o", "jsonpath={.items[0].spec.nodeName}")

	drain := k.start(t, "drain", node, "--ignore-daemonsets", "--timeout="+waitTimeout.String())
	const refused = "Cannot evict pod as it would violate the pod's disruption budget."
	waitFor(t, "kubectl drain to be refused by the budget", func(context.Context) (bool, error) {
		return strings.Contains(drain.stderr(), refused), nil
	})
	k.mustPrint(t, "poddisruptionbudget.policy/web patched\n", "patch", "pdb", "web", "--type=merge", "-p", `{"spec":{"minAvailable":1}}`)
	r := drain.wait()
	if r.err != nil || !strings.Contains(r.stdout, "node/"+node+" cordoned\n") || !strings.HasSuffix(r.stdout, "node/"+node+" drained\n") {
		t.Fatalf("kubectl drain: %v\nstdout:\n%s\nstderr:\n%s", r.err, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "(will retry after 5s): "+refused) {
		t.Errorf("kubectl drain's stderr %q does not show the retried 429", r.stderr)
	}
	wantPods(t, admin, 2, "nginx")
	waitPDB(t, admin, "web", 2, 1)
}

// waitPDB waits until the PodDisruptionBudget name reports healthy pods
// and allowed disruptions.
func waitPDB(t *testing.T, admin kubernetes.Interface, name string, healthy, allowed int32) {
	t.Helper()
	waitFor(t, "the disruption controller's status of "+name, func(ctx context.Context) (bool, error) {
		pdb, err := admin.PolicyV1().PodDisruptionBudgets("default").Get(ctx, name, metav1.GetOptions{})
		return err == nil && pdb.Status.CurrentHealthy == healthy && pdb.Status.DisruptionsAllowed == allowed &&
			pdb.Status.ObservedGeneration == pdb.Generation, err
	})
}

// background is a kubectl run that goes on while the test acts.
type background struct {
	cmd            *exec.Cmd
	mu             sync.Mutex
	stdout, errOut bytes.Buffer
	done           chan error
}

// start starts kubectl args, to be waited for with wait.
func (k *kubectl) start(t *testing.T, args ...string) *background {
	t.Helper()
	full := append([]string{"--kubeconfig", k.kubeconfig, "--cache-dir", filepath.Join(k.home, "cache")}, args...)
	b := &background{cmd: exec.Command(k.bin, full...), done: make(chan error, 1)}
	b.cmd.Env = append(os.Environ(), "HOME="+k.home, "KUBECONFIG="+k.kubeconfig)
	b.cmd.Stdout, b.cmd.Stderr = lockedWriter{&b.mu, &b.stdout}, lockedWriter{&b.mu, &b.errOut}
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { b.done <- b.cmd.Wait() }()
	t.Cleanup(func() {
		_ = b.cmd.Process.Kill()
		<-b.done
	})
	return b
}

// stderr is what the run printed on stderr so far.
func (b *background) stderr() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.errOut.String()
}

// wait waits for the run to end (kubectl's own --timeout bounds it).
func (b *background) wait() kubectlResult {
	err := <-b.done
	b.done <- err
	b.mu.Lock()
	defer b.mu.Unlock()
	return kubectlResult{stdout: b.stdout.String(), stderr: b.errOut.String(), err: err}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
