package controllers_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestKubectlRunCommands runs containers whose command lines end with
// the real kubectl (skipped without one on PATH): `kubectl run --rm -i`
// prints what the command wrote, exits with its code and deletes the
// pod; busybox's wget reaches a Service with ready endpoints (what
// `helm test` of `helm create`'s chart runs) and fails on a name no
// Service has.
func TestKubectlRunCommands(t *testing.T) {
	c, admin := startCluster(t)
	k := newKubectl(t, c)
	ctx := context.Background()

	r := k.run(t, "", "run", "tmp", "--rm", "-i", "--restart=Never", "--image=busybox", "--", "echo", "hi")
	if r.err != nil || !strings.HasPrefix(r.stdout, "hi\npod \"tmp\" deleted") || r.stderr != "" {
		t.Fatalf("kubectl run -- echo hi: %v\nstdout:\n%s\nstderr:\n%s\nwant hi, the deletion and nothing on stderr", r.err, r.stdout, r.stderr)
	}
	if _, err := admin.CoreV1().Pods("default").Get(ctx, "tmp", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("pod tmp after kubectl run --rm: %v, want NotFound", err)
	}

	r = k.run(t, "", "run", "fails", "--rm", "-i", "--restart=Never", "--image=busybox", "--", "sh", "-c", "echo oops; exit 3")
	if code := exitCode(r.err); code != 3 || !strings.HasPrefix(r.stdout, "oops\n") || !strings.Contains(r.stderr, "pod default/fails terminated (Error)") {
		t.Errorf("kubectl run -- sh -c 'echo oops; exit 3': exit code %d\nstdout:\n%s\nstderr:\n%s\nwant 3, oops, and kubectl's terminated (Error)", code, r.stdout, r.stderr)
	}

	k.must(t, "create", "deployment", "web", "--image=nginx")
	k.must(t, "expose", "deployment", "web", "--port=80")
	waitFor(t, "service web to have a ready endpoint", func(ctx context.Context) (bool, error) {
		ep, err := admin.CoreV1().Endpoints("default").Get(ctx, "web", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil && len(ep.Subsets) > 0 && len(ep.Subsets[0].Addresses) > 0, err
	})
	r = k.run(t, "", "run", "wget", "--rm", "-i", "--restart=Never", "--image=busybox", "--", "wget", "web:80")
	if r.err != nil || !strings.HasPrefix(r.stdout, "Connecting to web:80 (") || !strings.Contains(r.stdout, "'index.html' saved\n") {
		t.Errorf("kubectl run -- wget web:80: %v\nstdout:\n%s\nstderr:\n%s\nwant BusyBox wget's success", r.err, r.stdout, r.stderr)
	}
	r = k.run(t, "", "run", "nowhere", "--rm", "-i", "--restart=Never", "--image=busybox", "--", "wget", "nope:80")
	if code := exitCode(r.err); code != 1 || !strings.HasPrefix(r.stdout, "wget: bad address 'nope:80'\n") {
		t.Errorf("kubectl run -- wget nope:80: exit code %d\nstdout:\n%s\nstderr:\n%s\nwant 1 and wget's bad address", code, r.stdout, r.stderr)
	}
}

// exitCode is the exit code of a finished kubectl (0 for no error).
func exitCode(err error) int {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
