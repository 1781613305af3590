package controllers_test

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
	"github.com/kubesim/kubesim/kubelet"
)

// TestKubectlAutoscale: `kubectl autoscale deployment web --min=1
// --max=5 --cpu-percent=50` makes an HPA that upstream's controller
// acts on, reading kubesim's metrics server: with 900m of load on the
// Service (kubesim.io/cpu-load) the Deployment grows to its maximum of
// 5, and with the load removed it comes back to 1 once the downscale
// stabilization window (5 min divided by the speed) has passed.
// Skipped when kubectl is not on PATH.
func TestKubectlAutoscale(t *testing.T) {
	c := clustertest.Start(t, func(cfg *cluster.Config) {
		cfg.Nodes = []kubelet.NodeSpec{kubelet.DefaultNodeSpec("node-1"), kubelet.DefaultNodeSpec("node-2")}
	})
	admin, err := c.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	k := newKubectl(t, c)
	k.mustPrint(t, "deployment.apps/web created\n", "create", "deployment", "web", "--image=nginx", "--port=80")
	k.mustPrint(t, "deployment.apps/web resource requirements updated\n", "set", "resources", "deployment/web", "--requests=cpu=100m")
	k.must(t, "rollout", "status", "deployment/web", "--timeout="+waitTimeout.String())
	k.mustPrint(t, "service/web exposed\n", "expose", "deployment", "web", "--port=80")
	k.mustPrint(t, "horizontalpodautoscaler.autoscaling/web autoscaled\n", "autoscale", "deployment", "web", "--min=1", "--max=5", "--cpu-percent=50")

	k.mustPrint(t, "service/web annotated\n", "annotate", "service", "web", "kubesim.io/cpu-load=900m")
	wantScale(t, admin, 5)
	k.mustPrint(t, "service/web annotated\n", "annotate", "service", "web", "kubesim.io/cpu-load-")
	wantScale(t, admin, 1)
}

// wantScale waits until the HPA web and its Deployment both say n
// replicas.
func wantScale(t *testing.T, admin kubernetes.Interface, n int32) {
	t.Helper()
	waitProgress(t, fmt.Sprintf("the autoscaler to bring web to %d replicas", n), func(ctx context.Context) (bool, string, error) {
		hpa, err := admin.AutoscalingV2().HorizontalPodAutoscalers("default").Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		d, err := admin.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		progress := fmt.Sprintf("hpa desired %d current %d, deployment %d", hpa.Status.DesiredReplicas, hpa.Status.CurrentReplicas, *d.Spec.Replicas)
		return hpa.Status.DesiredReplicas == n && *d.Spec.Replicas == n, progress, nil
	})
}
