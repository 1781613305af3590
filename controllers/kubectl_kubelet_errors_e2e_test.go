package controllers_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
	"github.com/kubesim/kubesim/kubelet"
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

// TestKubectlControlPlanePods: with ControlPlanePods the first node's
// kubelet keeps mirror pods of the control plane's static pods, which
// `kubectl get pods -n kube-system` lists; a stopped scheduler shows its
// pod not ready; a deleted mirror pod is made again; and `kubectl
// cluster-info dump`, which reads every container's log, exits 0.
func TestKubectlControlPlanePods(t *testing.T) {
	c := clustertest.Start(t, func(cfg *cluster.Config) {
		cfg.MetricsServer = false
		cfg.ControlPlanePods = true
		cfg.Nodes = []kubelet.NodeSpec{kubelet.DefaultNodeSpec("node-1"), kubelet.DefaultNodeSpec("node-2")}
	})
	admin, err := c.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	k := newKubectl(t, c)
	names := []string{"etcd-node-1", "kube-apiserver-node-1", "kube-controller-manager-node-1", "kube-scheduler-node-1"}
	for _, n := range names {
		k.must(t, "wait", "-n", "kube-system", "--for=condition=Ready", "pod/"+n, "--timeout="+waitTimeout.String())
	}
	out := k.must(t, "get", "pods", "-n", "kube-system", "-o", "custom-columns=NAME:.metadata.name,NODE:.spec.nodeName,MIRROR:.metadata.annotations.kubernetes\\.io/config\\.mirror,OWNER:.metadata.ownerReferences[0].kind,PRIORITY:.spec.priorityClassName", "--no-headers")
	for _, n := range names {
		if !strings.Contains(out, n+" ") || strings.Count(out, "node-1") < 4 || !strings.Contains(out, "system-node-critical") || !strings.Contains(out, "Node") {
			t.Fatalf("kubectl get pods -n kube-system:\n%s\nwant %s on node-1, a mirror owned by the Node", out, n)
		}
	}
	if err := c.StopScheduler(); err != nil {
		t.Fatal(err)
	}
	k.must(t, "wait", "-n", "kube-system", "--for=condition=Ready=false", "pod/kube-scheduler-node-1", "--timeout="+waitTimeout.String())
	if err := c.StartScheduler(); err != nil {
		t.Fatal(err)
	}
	k.must(t, "wait", "-n", "kube-system", "--for=condition=Ready", "pod/kube-scheduler-node-1", "--timeout="+waitTimeout.String())
	old := k.must(t, "get", "pod", "-n", "kube-system", "etcd-node-1", "-o", "jsonpath={.metadata.uid}")
	k.must(t, "delete", "pod", "-n", "kube-system", "etcd-node-1", "--wait=false")
	waitProgress(t, "the mirror pod made again", func(ctx context.Context) (bool, string, error) {
		p, err := admin.CoreV1().Pods("kube-system").Get(ctx, "etcd-node-1", metav1.GetOptions{})
		if err != nil {
			return false, err.Error(), nil
		}
		return string(p.UID) != old && p.DeletionTimestamp == nil, fmt.Sprintf("uid %s, deletion %v", p.UID, p.DeletionTimestamp), nil
	})
	dump := k.must(t, "cluster-info", "dump")
	if !strings.Contains(dump, "==== START logs for container kube-scheduler of pod kube-system/kube-scheduler-node-1 ====") {
		t.Errorf("kubectl cluster-info dump has no log of kube-scheduler-node-1")
	}
}
