package cluster_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// latencyRate is the steady rate of the latency benchmark's creates.
const latencyRate = 20

// BenchmarkPodLatency measures how long one pod takes from its POST to
// being seen Running by a watch when pods come at a steady 20 a second
// (not as fast as they can: what a user of a busy cluster waits), on 100
// and on 1,000 nodes at speed 0. Beside it, in the same run, raw etcd
// puts of a stored pod's bytes at the same rate. Each op is one pod;
// run it with -benchtime 200x (ten seconds of creates). It reports:
//
//	p50-ms, p99-ms     POST → Running, median and 99th percentile
//	etcd-put-p99-ms    the raw puts' 99th percentile
//	p99/etcd-put-p99   the two 99th percentiles divided
func BenchmarkPodLatency(b *testing.B) {
	for _, nodes := range []int{100, 1000} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) { benchPodLatency(b, nodes) })
	}
}

func benchPodLatency(b *testing.B, nodes int) {
	c, admin, _ := startBenchCluster(b, nodes, nil)
	clients := newBenchClients(b, c.Kubeconfig, 1)
	ctx := context.Background()
	watched := watchRunning(b, admin)
	b.ResetTimer()
	var mu sync.Mutex
	sent := map[string]time.Time{}
	steadily(b.N, func(i int) {
		name := fmt.Sprintf("lat-%09d", i)
		mu.Lock()
		sent[name] = time.Now()
		mu.Unlock()
		if _, err := clients[0].CoreV1().Pods("default").Create(ctx, benchPod(name), metav1.CreateOptions{}); err != nil {
			b.Error(err)
		}
	})
	running := watched.wait(b, b.N)
	b.StopTimer()
	delays := make([]time.Duration, 0, b.N)
	for name, at := range running {
		delays = append(delays, at.Sub(sent[name]))
	}
	value := storedPodValue(b, c, "lat")
	puts := make([]time.Duration, b.N)
	steadily(b.N, func(i int) {
		start := time.Now()
		if _, err := c.EtcdClient().Put(ctx, fmt.Sprintf("/bench/lat-%09d", i), value); err != nil {
			b.Error(err)
		}
		puts[i] = time.Since(start)
	})
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	p99, put99 := percentileOf(delays, 0.99), percentileOf(puts, 0.99)
	b.ReportMetric(ms(percentileOf(delays, 0.5)), "p50-ms")
	b.ReportMetric(ms(p99), "p99-ms")
	b.ReportMetric(ms(put99), "etcd-put-p99-ms")
	b.ReportMetric(float64(p99)/float64(max(put99, 1)), "p99/etcd-put-p99")
}

// steadily calls op(0..n-1), each in its own goroutine, started
// latencyRate a second on a ticker, and waits for them all.
func steadily(n int, op func(i int)) {
	tick := time.NewTicker(time.Second / latencyRate)
	defer tick.Stop()
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			op(i)
		}()
		<-tick.C
	}
	wg.Wait()
}

// percentileOf is the q-quantile of ds (nearest rank); 0 for none.
func percentileOf(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// runningWatch records when an informer first saw each pod Running.
type runningWatch struct {
	mu      sync.Mutex
	running map[string]time.Time
	changed chan struct{}
}

// watchRunning starts an informer on the default namespace's pods.
func watchRunning(b *testing.B, admin kubernetes.Interface) *runningWatch {
	rw := &runningWatch{running: map[string]time.Time{}, changed: make(chan struct{}, 1)}
	seen := func(obj any) {
		p, ok := obj.(*corev1.Pod)
		if !ok || p.Status.Phase != corev1.PodRunning {
			return
		}
		rw.mu.Lock()
		if _, dup := rw.running[p.Name]; !dup {
			rw.running[p.Name] = time.Now()
		}
		rw.mu.Unlock()
		select {
		case rw.changed <- struct{}{}:
		default:
		}
	}
	b.Cleanup(informPods(b, admin, "", seen))
	return rw
}

// wait waits (at most 5 minutes) until n pods were seen Running and
// returns when each was.
func (rw *runningWatch) wait(b *testing.B, n int) map[string]time.Time {
	deadline := time.After(5 * time.Minute)
	for {
		rw.mu.Lock()
		if len(rw.running) >= n {
			defer rw.mu.Unlock()
			return maps.Clone(rw.running)
		}
		got := len(rw.running)
		rw.mu.Unlock()
		select {
		case <-rw.changed:
		case <-deadline:
			b.Fatalf("only %d of %d pods Running after 5 minutes", got, n)
		}
	}
}
