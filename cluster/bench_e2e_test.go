package cluster_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/kubelet"
)

// BenchmarkPodToRunning measures the whole flow: pods created through the
// API (16 clients) until a watch has seen every one Running, on 100 nodes
// with no simulated delays (speed 0) — the API server, etcd, the scheduler
// and the kubelets at work together. Beside it, in the same run and on the
// same etcd member, raw etcd puts of values of a stored pod's size. It
// reports pods/s, puts/s and their ratio. Fsync is off on both sides.
func BenchmarkPodToRunning(b *testing.B) {
	ctx := context.Background()
	cfg := cluster.NewConfig()
	cfg.Port = 0
	cfg.DataDir = b.TempDir()
	cfg.UnsafeNoFsync = true
	cfg.Speed = 0
	cfg.Nodes = kubelet.DefaultNodes(100)
	c, err := cluster.Start(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	admin, err := c.AdminClient()
	if err != nil {
		b.Fatal(err)
	}
	// Wait for the 100 nodes.
	deadline := time.Now().Add(time.Minute)
	for {
		list, err := admin.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err == nil && len(list.Items) == 100 {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("100 nodes not registered within a minute")
		}
		time.Sleep(50 * time.Millisecond)
	}
	clients := newBenchClients(b, c.Kubeconfig, 16)
	var seq atomic.Int64
	value := ""

	b.ResetTimer()
	// Through the whole system.
	w, err := admin.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	running := map[string]bool{}
	allRunning := make(chan struct{})
	var once sync.Once
	go func() {
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok || ev.Type == watch.Deleted || p.Status.Phase != corev1.PodRunning {
				continue
			}
			running[p.Name] = true
			if len(running) == b.N {
				once.Do(func() { close(allRunning) })
			}
		}
	}()
	start := time.Now()
	if _, err := runConcurrent(b.N, 16, func(client int) error {
		name := fmt.Sprintf("e2e-%09d", seq.Add(1))
		_, err := clients[client].CoreV1().Pods("default").Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}},
		}, metav1.CreateOptions{})
		return err
	}); err != nil {
		b.Fatal(err)
	}
	select {
	case <-allRunning:
	case <-time.After(5 * time.Minute):
		b.Fatalf("only %d of %d pods Running after 5 minutes", len(running), b.N)
	}
	e2e := time.Since(start)
	w.Stop()

	// Raw etcd puts of the same size, same member.
	resp, err := c.Etcd().Client().Get(ctx, "/registry/pods/default/e2e-000000001")
	if err != nil || len(resp.Kvs) != 1 {
		b.Fatalf("read a stored pod: %v", err)
	}
	value = string(resp.Kvs[0].Value)
	etcd := c.Etcd().Client()
	raw, err := runConcurrent(b.N, 16, func(int) error {
		_, err := etcd.Put(ctx, fmt.Sprintf("/bench/raw-%09d", seq.Add(1)), value)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(e2e.Nanoseconds())/float64(b.N), "ns/op")
	b.ReportMetric(float64(b.N)/e2e.Seconds(), "pods-running/s")
	b.ReportMetric(float64(b.N)/raw.Seconds(), "etcd-puts/s")
	b.ReportMetric((float64(b.N)/e2e.Seconds())/(float64(b.N)/raw.Seconds()), "e2e/etcd-ratio")
}
