package controllers_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/cluster"
)

// kubectl runs the real kubectl on PATH against one cluster, with a HOME
// and a discovery cache of its own (never the user's).
type kubectl struct {
	bin, kubeconfig, home string
}

// kubectlResult is what one finished kubectl run printed; err is nil
// when it exited 0.
type kubectlResult struct {
	stdout, stderr string
	err            error
}

// newKubectl skips the test when kubectl is not on PATH.
func newKubectl(t *testing.T, c *cluster.Cluster) *kubectl {
	t.Helper()
	bin, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl not on PATH")
	}
	return &kubectl{bin: bin, kubeconfig: c.Kubeconfig, home: t.TempDir()}
}

// run runs kubectl args with stdin to completion (commandTimeout at
// most).
func (k *kubectl) run(t *testing.T, stdin string, args ...string) kubectlResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	full := append([]string{"--kubeconfig", k.kubeconfig, "--cache-dir", filepath.Join(k.home, "cache")}, args...)
	cmd := exec.CommandContext(ctx, k.bin, full...)
	cmd.Env = append(os.Environ(), "HOME="+k.home, "KUBECONFIG="+k.kubeconfig)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if exit := (*exec.ExitError)(nil); err != nil && !errors.As(err, &exit) {
		t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	return kubectlResult{stdout: stdout.String(), stderr: stderr.String(), err: err}
}

// must runs kubectl args and fails the test unless it exits 0 with
// nothing on stderr (no warnings either); it returns stdout.
func (k *kubectl) must(t *testing.T, args ...string) string {
	t.Helper()
	r := k.run(t, "", args...)
	if r.err != nil || r.stderr != "" {
		t.Fatalf("kubectl %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.err, r.stdout, r.stderr)
	}
	return r.stdout
}

// mustPrint runs kubectl args as must does and fails the test unless
// stdout is exactly want.
func (k *kubectl) mustPrint(t *testing.T, want string, args ...string) {
	t.Helper()
	if got := k.must(t, args...); got != want {
		t.Fatalf("kubectl %s printed %q, want %q", strings.Join(args, " "), got, want)
	}
}

// mustFail runs kubectl args and fails the test unless it exits non-zero;
// it returns stderr.
func (k *kubectl) mustFail(t *testing.T, args ...string) string {
	t.Helper()
	r := k.run(t, "", args...)
	if r.err == nil {
		t.Fatalf("kubectl %s succeeded, want it to fail\nstdout:\n%s", strings.Join(args, " "), r.stdout)
	}
	return r.stderr
}

// table splits kubectl's table output into rows of whitespace-separated
// cells; blank lines (between the kinds of get all) start a new table.
func table(out string) [][][]string {
	var tables [][][]string
	var rows [][]string
	for _, line := range strings.Split(out, "\n") {
		if strings.TrimSpace(line) == "" {
			if rows != nil {
				tables = append(tables, rows)
			}
			rows = nil
			continue
		}
		rows = append(rows, strings.Fields(line))
	}
	if rows != nil {
		tables = append(tables, rows)
	}
	return tables
}

// controllerRuns says whether the controller manager runs the controller
// name, from its service account in kube-system: the manager makes every
// controller's account before it starts any, so once one controller has
// acted the answer holds. It lets a test tell a controller another part
// of kubesim has not built yet from one that is broken.
func controllerRuns(t *testing.T, admin kubernetes.Interface, name string) bool {
	t.Helper()
	_, err := admin.CoreV1().ServiceAccounts("kube-system").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}
