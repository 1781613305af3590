package controllers_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestKubectlDeploymentLifecycle drives a Deployment with the real
// kubectl, as a class would: create, rollout status, scale, set image,
// rollout status, rollout undo (kubectl patches the template itself),
// delete (the garbage collector removes the ReplicaSets and pods).
// Skipped when kubectl is not on PATH.
func TestKubectlDeploymentLifecycle(t *testing.T) {
	bin, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl not on PATH")
	}
	c, admin := startCluster(t)
	run := func(want string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		defer cancel()
		out, err := exec.CommandContext(ctx, bin, append([]string{"--kubeconfig", c.Kubeconfig}, args...)...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), want) {
			t.Fatalf("kubectl %s: %v\n%s\nwant %q in it", strings.Join(args, " "), err, out, want)
		}
		return string(out)
	}
	run("deployment.apps/web created", "create", "deployment", "web", "--image=nginx", "--replicas=3")
	run(`deployment "web" successfully rolled out`, "rollout", "status", "deployment/web", "--timeout=50s")
	run("deployment.apps/web scaled", "scale", "deployment/web", "--replicas=5")
	run(`deployment "web" successfully rolled out`, "rollout", "status", "deployment/web", "--timeout=50s")
	run("deployment.apps/web image updated", "set", "image", "deployment/web", "nginx=nginx:1.27")
	run(`deployment "web" successfully rolled out`, "rollout", "status", "deployment/web", "--timeout=50s")
	run("deployment.apps/web rolled back", "rollout", "undo", "deployment/web")
	run(`deployment "web" successfully rolled out`, "rollout", "status", "deployment/web", "--timeout=50s")
	all := run("deployment.apps/web   5/5     5            5", "get", "all")
	if strings.Count(all, "replicaset.apps/web-") != 2 {
		t.Errorf("kubectl get all lists %d replicasets, want 2:\n%s", strings.Count(all, "replicaset.apps/web-"), all)
	}
	d, err := admin.AppsV1().Deployments("default").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil || d.Spec.Template.Spec.Containers[0].Image != "nginx" || d.Annotations["deployment.kubernetes.io/revision"] != "3" {
		t.Fatalf("after the undo: %v, want image nginx at revision 3", err)
	}
	run(`deployment.apps "web" deleted`, "delete", "deployment", "web")
	waitFor(t, "the garbage collector to remove the replicasets and pods", func(ctx context.Context) (bool, error) {
		rss, err := admin.AppsV1().ReplicaSets("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return false, err
		}
		pods, err := admin.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		return err == nil && len(rss.Items) == 0 && len(pods.Items) == 0, err
	})
	if _, err := admin.AppsV1().Deployments("default").Get(context.Background(), "web", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("deployment after kubectl delete: %v, want NotFound", err)
	}
}
