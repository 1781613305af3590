package cluster_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/metricsserver"
)

// startMetricsCluster starts two nodes, the scheduler and the metrics
// server, with the aggregator checking remote APIServices every 100 ms.
func startMetricsCluster(t *testing.T) *cluster.Cluster {
	t.Helper()
	return clustertest.Start(t, func(cfg *cluster.Config) {
		cfg.Scheduler, cfg.Nodes, cfg.AttachNodes = true, kubelet.DefaultNodes(2), false
		cfg.MetricsServer, cfg.AggregatorProbePeriod = true, 100*time.Millisecond
	})
}

// apiServiceRow returns kubectl get apiservices' row for name.
func apiServiceRow(t *testing.T, k *kubectl, name string) string {
	t.Helper()
	for _, r := range table(k.must(t, "get", "apiservices")) {
		if r[0] == name {
			return joined(r)
		}
	}
	return ""
}

// TestKubectlTop: kubectl get apiservices lists the local APIServices and
// the metrics server's, all Available; kubectl top pods and top nodes
// print the usage the metrics server simulates, reached through the
// aggregator.
func TestKubectlTop(t *testing.T) {
	t.Parallel()
	c := startMetricsCluster(t)
	k := newKubectl(t, c)
	eventually(t, "v1beta1.metrics.k8s.io Available", func() (bool, string) {
		row := apiServiceRow(t, k, "v1beta1.metrics.k8s.io")
		return strings.HasPrefix(row, "v1beta1.metrics.k8s.io kube-system/metrics-server True "), row
	})
	out := k.must(t, "get", "apiservices")
	t.Logf("kubectl get apiservices:\n%s", out)
	rows := table(out)
	if got := joined(rows[0]); got != "NAME SERVICE AVAILABLE AGE" {
		t.Errorf("header = %q, want NAME SERVICE AVAILABLE AGE", got)
	}
	for _, name := range []string{"v1.", "v1.apiextensions.k8s.io", "v1.authorization.k8s.io", "v1.coordination.k8s.io", "v1.rbac.authorization.k8s.io"} {
		if row := apiServiceRow(t, k, name); !strings.HasPrefix(row, name+" Local True ") {
			t.Errorf("row of %s = %q, want %s Local True <age>", name, row, name)
		}
	}

	k.mustWith(t, podManifest("web", "nginx:1.27"), "apply", "-f", "-")
	admin, err := c.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	var pod *corev1.Pod
	eventually(t, "pod web Running", func() (bool, string) {
		p, err := admin.CoreV1().Pods("default").Get(context.Background(), "web", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		pod = p
		return p.Status.Phase == corev1.PodRunning, string(p.Status.Phase)
	})
	u := metricsserver.ContainerUsage(pod, &pod.Spec.Containers[0])
	wantCPU, wantMem := fmt.Sprintf("%dm", u.Cpu().MilliValue()), fmt.Sprintf("%dMi", u.Memory().Value()/(1<<20))
	var top string
	eventually(t, "kubectl top pods to list web", func() (bool, string) {
		r := k.run(t, "", "top", "pods")
		top = r.stdout
		return r.err == nil && strings.Contains(r.stdout, "web"), r.stdout + r.stderr
	})
	t.Logf("kubectl top pods:\n%s", top)
	rows = table(top)
	if got, want := joined(rows[0]), "NAME CPU(cores) MEMORY(bytes)"; got != want {
		t.Errorf("top pods header = %q, want %q", got, want)
	}
	if got, want := joined(rows[1]), "web "+wantCPU+" "+wantMem; got != want {
		t.Errorf("top pods row = %q, want %q (the simulated usage of web's container)", got, want)
	}

	// The student, bound to view, may read metrics: metrics-server's
	// system:aggregated-metrics-reader is aggregated into view.
	student := *k
	student.kubeconfig = c.StudentKubeconfig
	if r := student.run(t, "", "top", "pods"); r.err != nil || !strings.Contains(r.stdout, "web") {
		t.Errorf("kubectl top pods as the student: %v\n%s%s", r.err, r.stdout, r.stderr)
	}

	top = k.must(t, "top", "nodes")
	t.Logf("kubectl top nodes:\n%s", top)
	rows = table(top)
	if len(rows) != 3 || rows[0][0] != "NAME" || rows[0][1] != "CPU(cores)" {
		t.Fatalf("top nodes = %q, want a header and node-1, node-2", rows)
	}
	for _, r := range rows[1:] {
		want := metricsserver.NodeUsage(nil) // the system's share alone
		if r[0] == pod.Spec.NodeName {
			want = metricsserver.NodeUsage([]*corev1.Pod{pod})
		}
		if got, cpu := r[1], fmt.Sprintf("%dm", want.Cpu().MilliValue()); got != cpu {
			t.Errorf("%s cpu = %s, want %s", r[0], got, cpu)
		}
		if got, mem := r[3], fmt.Sprintf("%dMi", want.Memory().Value()/(1<<20)); got != mem {
			t.Errorf("%s memory = %s, want %s", r[0], got, mem)
		}
	}
}

// TestMetricsBackendStopped: with the metrics server stopped the
// APIService turns Available=False (FailedDiscoveryCheck) and requests for
// metrics.k8s.io get upstream's 503; started again, it turns True.
func TestMetricsBackendStopped(t *testing.T) {
	t.Parallel()
	c := startMetricsCluster(t)
	k := newKubectl(t, c)
	eventually(t, "v1beta1.metrics.k8s.io Available", func() (bool, string) {
		row := apiServiceRow(t, k, "v1beta1.metrics.k8s.io")
		return strings.Contains(row, " True "), row
	})
	if err := c.StopMetricsServer(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "v1beta1.metrics.k8s.io False (FailedDiscoveryCheck)", func() (bool, string) {
		row := apiServiceRow(t, k, "v1beta1.metrics.k8s.io")
		return strings.HasPrefix(row, "v1beta1.metrics.k8s.io kube-system/metrics-server False (FailedDiscoveryCheck) "), row
	})
	t.Logf("kubectl get apiservice v1beta1.metrics.k8s.io:\n%s", k.must(t, "get", "apiservice", "v1beta1.metrics.k8s.io"))
	msg := k.must(t, "get", "apiservice", "v1beta1.metrics.k8s.io", "-o", "jsonpath={.status.conditions[0].message}")
	if want := "failing or missing response from https://" + c.MetricsServerAddr() + "/apis/metrics.k8s.io/v1beta1: "; !strings.HasPrefix(msg, want) {
		t.Errorf("message = %q, want it to start with %q", msg, want)
	}
	r := k.run(t, "", "get", "--raw", "/apis/metrics.k8s.io/v1beta1/nodes")
	t.Logf("kubectl get --raw /apis/metrics.k8s.io/v1beta1/nodes: %v\nstderr: %s", r.err, r.stderr)
	if r.err == nil || !strings.Contains(r.stderr, "Error from server (ServiceUnavailable): the server is currently unable to handle the request") {
		t.Errorf("raw GET of nodes: %v, stderr %q; want kubectl's ServiceUnavailable", r.err, r.stderr)
	}
	if err := c.StartMetricsServer(context.Background()); err != nil {
		t.Fatal(err)
	}
	eventually(t, "v1beta1.metrics.k8s.io True again", func() (bool, string) {
		row := apiServiceRow(t, k, "v1beta1.metrics.k8s.io")
		return strings.HasPrefix(row, "v1beta1.metrics.k8s.io kube-system/metrics-server True "), row
	})
}

// TestMetricsAfterRestart: a cluster started again on its data dir finds
// the APIService of the previous run; the metrics server's new address
// in the Service table makes the aggregator check it at once (not at its
// next period, here an hour), as a real one reacts to the Service's
// endpoints.
func TestMetricsAfterRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	start := func() *cluster.Cluster {
		return clustertest.Start(t, func(cfg *cluster.Config) {
			cfg.DataDir, cfg.Scheduler, cfg.Nodes, cfg.AttachNodes = dir, false, kubelet.DefaultNodes(1), false
			cfg.MetricsServer, cfg.AggregatorProbePeriod = true, time.Hour
		})
	}
	for run := 1; run <= 2; run++ {
		c := start()
		k := newKubectl(t, c)
		eventually(t, fmt.Sprintf("run %d: v1beta1.metrics.k8s.io Available", run), func() (bool, string) {
			row := apiServiceRow(t, k, "v1beta1.metrics.k8s.io")
			return strings.HasPrefix(row, "v1beta1.metrics.k8s.io kube-system/metrics-server True "), row
		})
		if err := c.Close(); err != nil {
			t.Fatalf("run %d: Close: %v", run, err)
		}
	}
}
