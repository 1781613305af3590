package controllers_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestKubectlCreateContainerConfigError: a pod whose envFrom names a
// ConfigMap that does not exist waits with CreateContainerConfigError
// and the kubelet's message, with a Failed event; once `kubectl create
// configmap` makes it, the kubelet's next sync starts the container and
// its command line sees the variable. Skipped when kubectl is not on
// PATH.
func TestKubectlCreateContainerConfigError(t *testing.T) {
	c, admin := startNodes(t, 1)
	k := newKubectl(t, c)
	const pod = `apiVersion: v1
kind: Pod
metadata: {name: app}
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: [sh, -c, 'echo "mode=$MODE"; while true; do sleep 1; done']
    envFrom: [{configMapRef: {name: app-config}}]
`
	if r := k.run(t, pod, "apply", "-f", "-"); r.err != nil {
		t.Fatalf("kubectl apply: %v %s", r.err, r.stderr)
	}
	want := `configmap "app-config" not found`
	waitWaiting(t, admin, "app", "CreateContainerConfigError", want)
	waitFor(t, "the Failed event", func(ctx context.Context) (bool, error) {
		return strings.Contains(k.must(t, "describe", "pod", "app"), "Error: "+want), nil
	})
	if got := k.must(t, "get", "pod", "app", "--no-headers"); !strings.Contains(got, "CreateContainerConfigError") {
		t.Errorf("kubectl get pod: %q, want the status CreateContainerConfigError", got)
	}
	k.mustPrint(t, "configmap/app-config created\n", "create", "configmap", "app-config", "--from-literal=MODE=blue")
	k.must(t, "wait", "--for=condition=Ready", "pod/app", "--timeout="+waitTimeout.String())
	waitFor(t, "the container's log", func(ctx context.Context) (bool, error) {
		r := k.run(t, "", "logs", "app")
		return r.err == nil && strings.Contains(r.stdout, "mode=blue\n"), nil
	})
}

// TestKubectlErrImagePull: a misspelt image (ngnix:latst) cannot be
// pulled: ErrImagePull with the kubelet's and containerd's message, then
// ImagePullBackOff, with upstream's events; a tag nginx does not have
// is containerd's NotFound.
func TestKubectlErrImagePull(t *testing.T) {
	c, admin := startNodes(t, 1)
	k := newKubectl(t, c)
	k.mustPrint(t, "pod/web created\n", "run", "web", "--image=ngnix:latst")
	denied := `failed to pull and unpack image "docker.io/library/ngnix:latst": failed to resolve reference "docker.io/library/ngnix:latst": pull access denied, repository does not exist or may require authorization`
	// At speed 0 the back-off is short: the status may show either
	// reason, and the ImagePullBackOff's message carries the pull's.
	waitWaiting(t, admin, "web", "", denied)
	waitWaiting(t, admin, "web", "ImagePullBackOff", `Back-off pulling image "ngnix:latst": ErrImagePull: rpc error: code = Unknown desc = `+denied)
	waitFor(t, "the pull events", func(ctx context.Context) (bool, error) {
		out := k.must(t, "describe", "pod", "web")
		for _, s := range []string{`Failed to pull image "ngnix:latst": rpc error: code = Unknown desc = ` + denied, "Error: ErrImagePull", `Back-off pulling image "ngnix:latst"`, "Error: ImagePullBackOff"} {
			if !strings.Contains(out, s) {
				return false, nil
			}
		}
		return true, nil
	})
	k.mustPrint(t, "pod/tag created\n", "run", "tag", "--image=nginx:latst")
	waitWaiting(t, admin, "tag", "", `docker.io/library/nginx:latst: not found`)
}

// waitWaiting waits until the pod's first container waits with reason
// (any reason if empty) and a message that contains msg.
func waitWaiting(t *testing.T, admin kubernetes.Interface, pod, reason, msg string) {
	t.Helper()
	waitFor(t, pod+" waiting with "+reason, func(ctx context.Context) (bool, error) {
		p, err := admin.CoreV1().Pods("default").Get(ctx, pod, metav1.GetOptions{})
		if err != nil || len(p.Status.ContainerStatuses) == 0 {
			return false, nil
		}
		w := p.Status.ContainerStatuses[0].State.Waiting
		return w != nil && (reason == "" || w.Reason == reason) && strings.Contains(w.Message, msg) && p.Status.Phase == corev1.PodPending, nil
	})
}
