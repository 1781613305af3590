package cluster_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/kubelet"
)

// deploymentReadyTimeout bounds one rollout of the benchmark; past it the
// benchmark fails with how far the pods got.
const deploymentReadyTimeout = 10 * time.Minute

// BenchmarkDeploymentReady measures the whole control plane at work on
// one Deployment: from its create through the API until an informer has
// seen every one of its pods Ready. The deployment controller makes the
// ReplicaSet, the replicaset controller the pods (slow-start batches of
// at most 500), the scheduler binds them, the kubelets start them and
// report status; no simulated delays (speed 0), fsync off. Beside it, in
// the same run and on the same etcd member, after each rollout: raw etcd
// puts, as many as there are replicas, of a stored pod's bytes, from 16
// clients. Each b.N is one Deployment (the previous one is deleted, and
// its pods gone, outside the timer). It reports:
//
//	ns/op              wall time from the create to the last pod Ready
//	created-s          ... to the last pod created (seen by the informer)
//	scheduled-s        ... to the last pod bound to a node
//	ready-s            ... to the last pod Ready (ns/op in seconds)
//	pods-ready/s       replicas divided by ready-s
//	etcd-puts/s        the raw puts' rate
//	e2e/etcd-ratio     pods-ready/s over etcd-puts/s: the share of etcd's
//	                   speed a pod's way to Ready keeps
//	etcd-writes/pod    revisions the rollout used per pod (every write the
//	                   components made: pods, bindings, statuses, events,
//	                   ReplicaSet and Deployment status, node leases)
//
// The smaller size shows how the figures scale. Like every benchmark it
// runs only with -bench; run it alone, once per size:
//
//	go test ./cluster -run '^$' -bench DeploymentReady -benchtime 1x
func BenchmarkDeploymentReady(b *testing.B) {
	for _, size := range []struct{ replicas, nodes int }{{100, 10}, {1000, 100}} {
		b.Run(fmt.Sprintf("replicas=%d/nodes=%d", size.replicas, size.nodes), func(b *testing.B) {
			benchDeploymentReady(b, int32(size.replicas), size.nodes)
		})
	}
}

// rolloutTimes are when, after the Deployment's create, the last of its
// pods was created, bound and Ready.
type rolloutTimes struct{ created, scheduled, ready time.Duration }

// benchDeploymentReady runs the benchmark on a new cluster of nodes nodes.
func benchDeploymentReady(b *testing.B, replicas int32, nodes int) {
	ctx := context.Background()
	c, admin, _ := startBenchCluster(b, nodes, func(cfg *cluster.Config) { cfg.MetricsServer = false })
	etcd := c.EtcdClient()
	var rawTime, e2e time.Duration
	var sum rolloutTimes
	var writes int64
	var seq atomic.Int64
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		name := fmt.Sprintf("bench-%d", i)
		if i > 0 {
			deleteDeploymentAndWait(b, admin, fmt.Sprintf("bench-%d", i-1))
		}
		before := etcdRevision(b, c)
		b.StartTimer()
		t := rolloutToReady(b, admin, name, replicas)
		b.StopTimer()
		writes += etcdRevision(b, c) - before
		sum.created, sum.scheduled, sum.ready = sum.created+t.created, sum.scheduled+t.scheduled, sum.ready+t.ready
		e2e += t.ready
		value := storedPodValue(b, c, name)
		d, err := runConcurrent(int(replicas), 16, func(int) error {
			_, err := etcd.Put(ctx, fmt.Sprintf("/bench/raw-%09d", seq.Add(1)), value)
			return err
		})
		if err != nil {
			b.Fatalf("etcd put: %v", err)
		}
		rawTime += d
	}
	n := float64(b.N)
	rawRate := n * float64(replicas) / rawTime.Seconds()
	readyRate := n * float64(replicas) / e2e.Seconds()
	b.ReportMetric(float64(e2e.Nanoseconds())/n, "ns/op")
	b.ReportMetric(sum.created.Seconds()/n, "created-s")
	b.ReportMetric(sum.scheduled.Seconds()/n, "scheduled-s")
	b.ReportMetric(sum.ready.Seconds()/n, "ready-s")
	b.ReportMetric(readyRate, "pods-ready/s")
	b.ReportMetric(rawRate, "etcd-puts/s")
	b.ReportMetric(readyRate/rawRate, "e2e/etcd-ratio")
	b.ReportMetric(float64(writes)/(n*float64(replicas)), "etcd-writes/pod")
}

// startBenchCluster starts the whole cluster on nodes nodes at speed 0
// with fsync off, changed by configure (if not nil), and waits for every
// node to be Ready. It returns the cluster, an admin client and the
// configuration it started with.
func startBenchCluster(b *testing.B, nodes int, configure func(*cluster.Config)) (*cluster.Cluster, kubernetes.Interface, *cluster.Config) {
	cfg := cluster.NewConfig()
	cfg.Port = 0
	cfg.DataDir = b.TempDir()
	cfg.UnsafeNoFsync = true
	cfg.Speed = 0
	cfg.Nodes = kubelet.DefaultNodes(nodes)
	if configure != nil {
		configure(cfg)
	}
	c, err := cluster.Start(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := c.Close(); err != nil {
			b.Errorf("close cluster: %v", err)
		}
	})
	admin, err := c.AdminClient()
	if err != nil {
		b.Fatal(err)
	}
	waitNodesReady(b, admin, nodes)
	return c, admin, cfg
}

// waitNodesReady waits until the cluster has nodes Nodes, all Ready: at
// most a minute, and 60 ms more a node past the hundredth.
func waitNodesReady(b *testing.B, admin kubernetes.Interface, nodes int) {
	waitNodesReadyWithin(b, admin, nodes, time.Minute+time.Duration(max(0, nodes-100))*60*time.Millisecond)
}

// waitNodesReadyWithin waits at most timeout until the cluster has nodes
// Nodes, all Ready, and fails saying how many were. It lists them every
// 50 ms, or every 2 s past a hundred nodes (a list of 1,000 nodes is not
// free).
func waitNodesReadyWithin(b *testing.B, admin kubernetes.Interface, nodes int, timeout time.Duration) {
	b.Helper()
	poll := 50 * time.Millisecond
	if nodes > 100 {
		poll = 2 * time.Second
	}
	ready := 0
	benchWaitEvery(b, timeout, poll, fmt.Sprintf("%d nodes Ready", nodes), func(ctx context.Context) (bool, string) {
		list, err := admin.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err == nil {
			ready = 0
			for i := range list.Items {
				if nodeReady(&list.Items[i]) {
					ready++
				}
			}
		}
		return err == nil && ready == nodes && len(list.Items) == nodes, fmt.Sprintf("%d Ready", ready)
	})
}

// rolloutToReady creates a Deployment name of replicas pods and follows
// its pods with an informer (which watches again when the API server
// drops its watch, as the watch cache does with a reader that falls
// behind) until every one is Ready.
func rolloutToReady(b *testing.B, admin kubernetes.Interface, name string, replicas int32) rolloutTimes {
	ctx, cancel := context.WithTimeout(context.Background(), deploymentReadyTimeout)
	defer cancel()
	var mu sync.Mutex
	var t rolloutTimes
	var start time.Time
	created, bound, ready := map[string]bool{}, map[string]bool{}, map[string]bool{}
	allReady := make(chan struct{})
	seen := func(obj any) {
		p, ok := obj.(*corev1.Pod)
		if !ok {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		mark := func(set map[string]bool, at *time.Duration) {
			if !set[p.Name] {
				set[p.Name] = true
				*at = time.Since(start)
			}
		}
		mark(created, &t.created)
		if p.Spec.NodeName != "" {
			mark(bound, &t.scheduled)
		}
		if podIsReady(p) {
			mark(ready, &t.ready)
			if int32(len(ready)) == replicas {
				close(allReady)
			}
		}
	}
	stop := informPods(b, admin, "app="+name, seen)
	defer stop()
	mu.Lock()
	start = time.Now()
	mu.Unlock()
	if _, err := admin.AppsV1().Deployments("default").Create(ctx, benchDeployment(name, replicas), metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	select {
	case <-allReady:
	case <-ctx.Done():
		mu.Lock()
		defer mu.Unlock()
		b.Fatalf("after %v: %d pods created, %d bound, %d Ready of %d", time.Since(start), len(created), len(bound), len(ready), replicas)
	}
	mu.Lock()
	defer mu.Unlock()
	return t
}

// informPods starts an informer on the default namespace's pods that
// match selector (all for ""), calling seen with every pod added or
// updated, and waits until it has synced; stop stops it.
func informPods(b *testing.B, admin kubernetes.Interface, selector string, seen func(obj any)) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	factory := informers.NewSharedInformerFactoryWithOptions(admin, 0, informers.WithNamespace("default"),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = selector }),
		informers.WithTransform(benchPodSummary))
	inf := factory.Core().V1().Pods().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: seen, UpdateFunc: func(_, obj any) { seen(obj) }}); err != nil {
		cancel()
		b.Fatal(err)
	}
	factory.Start(ctx.Done())
	stop = func() {
		cancel() // before Shutdown: the informer stops with ctx
		factory.Shutdown()
	}
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		stop()
		b.Fatal("pod informer did not sync")
	}
	return stop
}

// benchPodSummary keeps of a pod what the benchmarks' watchers read (name,
// node, phase, conditions), so that the benchmark's own informer adds
// little to the memory the process holds per pod.
func benchPodSummary(obj any) (any, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, ResourceVersion: p.ResourceVersion},
		Spec:   corev1.PodSpec{NodeName: p.Spec.NodeName},
		Status: corev1.PodStatus{Phase: p.Status.Phase, Conditions: p.Status.Conditions}}, nil
}

// deleteDeploymentAndWait deletes the Deployment name and waits until
// none of its pods is left.
func deleteDeploymentAndWait(b *testing.B, admin kubernetes.Interface, name string) {
	ctx := context.Background()
	if err := admin.AppsV1().Deployments("default").Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		b.Fatal(err)
	}
	benchWait(b, deploymentReadyTimeout, "the pods of "+name+" gone", func(ctx context.Context) bool {
		list, err := admin.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=" + name})
		return err == nil && len(list.Items) == 0
	})
}

// benchDeployment is a Deployment of replicas nginx pods labelled
// app=name, with the defaults kubectl create deployment leaves.
func benchDeployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.27"}}},
			},
		},
	}
}

// storedPodValue is the bytes etcd holds for one pod of the Deployment
// name, the size of the raw puts.
func storedPodValue(b *testing.B, c *cluster.Cluster, name string) string {
	resp, err := c.EtcdClient().Get(context.Background(), "/registry/pods/default/"+name+"-", clientv3.WithPrefix(), clientv3.WithLimit(1))
	if err != nil || len(resp.Kvs) == 0 {
		b.Fatalf("read a stored pod of %s: %v", name, err)
	}
	return string(resp.Kvs[0].Value)
}

// etcdRevision is the etcd member's current revision.
func etcdRevision(b *testing.B, c *cluster.Cluster) int64 {
	return etcdClientRevision(b, c.EtcdClient())
}

// etcdClientRevision is etcdRevision of the etcd that etcd is a client of.
func etcdClientRevision(b *testing.B, etcd *clientv3.Client) int64 {
	resp, err := etcd.Get(context.Background(), "/registry/namespaces/default")
	if err != nil {
		b.Fatal(err)
	}
	return resp.Header.Revision
}

// benchWait polls cond every 50ms until it holds, failing the benchmark
// with what after timeout.
func benchWait(b *testing.B, timeout time.Duration, what string, cond func(ctx context.Context) bool) {
	b.Helper()
	benchWaitEvery(b, timeout, 50*time.Millisecond, what, func(ctx context.Context) (bool, string) { return cond(ctx), "" })
}

// benchWaitEvery checks cond every poll until it holds, failing after
// timeout with what and, when cond says one, where it stood last.
func benchWaitEvery(b *testing.B, timeout, poll time.Duration, what string, cond func(ctx context.Context) (bool, string)) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		ok, state := cond(ctx)
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			if state != "" {
				b.Fatalf("no %s within %v: %s", what, timeout, state)
			}
			b.Fatalf("no %s within %v", what, timeout)
		case <-time.After(poll):
		}
	}
}

// podIsReady says whether the pod has the condition Ready=True.
func podIsReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// nodeReady says whether the node has the condition Ready=True.
func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
