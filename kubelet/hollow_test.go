package kubelet_test

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/pki"
	"github.com/kubesim/kubesim/kubelet"
)

// impersonatingNodeClient is the admin acting as system:node:<name> in
// system:nodes, as the cluster's hollow kubelets do.
func impersonatingNodeClient(tb testing.TB, c *cluster.Cluster, name string) kubernetes.Interface {
	tb.Helper()
	rc, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		tb.Fatal(err)
	}
	id := pki.Node(name)
	rc.Impersonate = rest.ImpersonationConfig{UserName: id.User, Groups: id.Groups}
	rc.QPS, rc.Burst = 50, 100
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		tb.Fatal(err)
	}
	return cs
}

// TestHollowKubeletsShareOneInformer: three kubelets of one HollowHost
// each run the pods bound to their node and none of the others' (each
// pod ends Running with its own node's hostIP, started by its own
// node's kubelet); a pod bound before its kubelet started is run too (the
// host's informer already held it); a pod bound to a node without a
// kubelet stays Pending. One of the kubelets acts through impersonation,
// as the cluster's hollow kubelets do.
func TestHollowKubeletsShareOneInformer(t *testing.T) {
	c := mustStartCluster(t)
	admin := adminClient(t, c)
	host, err := kubelet.NewHollowHost(admin, 2)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		host.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})

	nodes := []string{"hollow-1", "hollow-2", "hollow-3"}
	want := map[string]string{} // pod → node
	early := "early-on-" + nodes[2]
	createBoundPod(t, admin, nginxPod(early, nil), nodes[2])
	want[early] = nodes[2]
	for i, n := range nodes {
		startKubelet(t, c, n, func(cfg *kubelet.Config) {
			cfg.Hollow = host
			if i == 0 { // through impersonation, as the cluster's hollow kubelets
				cfg.Client = impersonatingNodeClient(t, c, n)
			}
		})
	}
	// Bound before the others: by the time they run, the host's watch
	// has delivered it.
	orphan := "pod-on-no-kubelet"
	createBoundPod(t, admin, nginxPod(orphan, nil), "hollow-none")
	for _, n := range nodes {
		for j := range 2 {
			name := fmt.Sprintf("pod-%d-on-%s", j, n)
			createBoundPod(t, admin, nginxPod(name, nil), n)
			want[name] = n
		}
	}

	for name, node := range want {
		waitFor(t, name+" Running on "+node, func() (bool, error) {
			p, err := admin.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			return p.Status.Phase == corev1.PodRunning, nil
		})
		p := getPod(t, admin, name)
		if p.Status.HostIP != kubelet.DefaultNodeIP(node) {
			t.Errorf("%s: hostIP %s, want %s (node %s's)", name, p.Status.HostIP, kubelet.DefaultNodeIP(node), node)
		}
		for _, e := range podEvents(t, admin, p.UID) {
			if e.Source.Host != "" && e.Source.Host != node {
				t.Errorf("%s: event %s from the kubelet of %s, want only %s's", name, e.Reason, e.Source.Host, node)
			}
		}
	}
	if p := getPod(t, admin, orphan); p.Status.Phase != corev1.PodPending || p.Status.HostIP != "" {
		t.Errorf("%s (bound to a node without a kubelet): phase %s, hostIP %q; want Pending, none", orphan, p.Status.Phase, p.Status.HostIP)
	}
}
