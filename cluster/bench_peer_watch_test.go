package cluster_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/cluster"
)

// BenchmarkWatchFanOutVsPeer is P4 over the network, beside the real
// kube-apiserver: peerWatchers client-go watches of the pods of a
// namespace (spread over peerWatchConns clients, a connection each, over
// HTTPS on loopback), on kubesim's API server and on the peer's (as
// BenchmarkPodCreateVsPeer starts them: JSON storage, both writing an
// audit log at level Metadata, fsync on), all open through the run.
// In each of peerRounds rounds each side in turn (kubesim first in odd
// rounds) gets peerWatchPods pod creates at peerWatchRate a second; an
// event's delay is from the start of its create's POST to the decoded
// ADDED event in a watcher (client-go's decoding in this process
// included, on both sides alike). It reports each side's p50 and p99
// and the ratio of the p99s (below 1: kubesim's events arrive sooner),
// the events that did not arrive within a minute (missing-events), and
// how many watches the server ended and the watcher opened again from
// the last resourceVersion it saw (rewatches: the watch cache ends a
// watcher too slow to take its events).
// Without the peer's binaries it skips. Run it with -benchtime=1x.
func BenchmarkWatchFanOutVsPeer(b *testing.B) {
	inst := findPeer(b)
	c := startAPIOnly(b, true, func(cfg *cluster.Config) { cfg.StorageMediaType = apiserver.StorageMediaTypeJSON })
	peer := startPeer(b, inst, []string{"--storage-media-type=" + apiserver.StorageMediaTypeJSON}, true)
	sides := []*watchSide{
		{name: "kubesim", cs: newBenchClients(b, c.Kubeconfig, peerWatchConns)},
		{name: "peer", cs: newBenchClients(b, peer.kubeconfig, peerWatchConns)},
	}
	ctx, cancel := context.WithCancel(context.Background())
	// Runs before the servers stop (cleanups run last-in first-out).
	b.Cleanup(func() {
		cancel()
		for _, s := range sides {
			s.wg.Wait()
		}
	})
	for _, s := range sides {
		s.open(b, ctx)
	}
	b.ResetTimer()
	for round := range peerRounds {
		order := slices.Clone(sides)
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, s := range order {
			s.round(b, fmt.Sprintf("r%d", round+1))
		}
	}
	b.StopTimer()
	var p99 [2]time.Duration
	for i, s := range sides {
		p99[i] = percentileOf(s.delays, 0.99)
		b.ReportMetric(msOf(percentileOf(s.delays, 0.5)), s.name+"-p50-ms")
		b.ReportMetric(msOf(p99[i]), s.name+"-p99-ms")
		b.ReportMetric(float64(s.missing), s.name+"-missing-events")
		b.ReportMetric(float64(s.rewatches.Load()), s.name+"-rewatches")
	}
	b.ReportMetric(float64(p99[0])/float64(max(p99[1], 1)), "kubesim/peer-p99-ratio")
}

const (
	peerWatchers   = 1000
	peerWatchConns = 10
	peerWatchPods  = 60
	peerWatchRate  = 20 // creates a second
)

// watchSide is one API server's watchers and the delays they saw.
type watchSide struct {
	name string
	cs   []kubernetes.Interface

	sent      sync.Map       // pod name → time.Time its POST started
	wg        sync.WaitGroup // the watches' goroutines
	rewatches atomic.Int64   // watches the server ended and the watcher opened again
	seen      []atomic.Int64
	mu        sync.Mutex
	delays    []time.Duration
	missing   int
}

// open makes the default ServiceAccount (the peer has one already) and
// starts peerWatchers watches of the pods in the default namespace from
// the resourceVersion of a list (the watches' goroutines end when ctx is
// done; s.wg waits for them), each recording the delay of every ADDED
// event whose pod has a sent time, then waits until every watch has seen
// a first pod.
func (s *watchSide) open(b *testing.B, ctx context.Context) {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	if _, err := s.cs[0].CoreV1().ServiceAccounts(metav1.NamespaceDefault).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		b.Fatalf("%s: create the default service account: %v", s.name, err)
	}
	list, err := s.cs[0].CoreV1().Pods(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatalf("%s: list pods: %v", s.name, err)
	}
	s.seen = make([]atomic.Int64, peerWatchers)
	for w := range peerWatchers {
		pods := s.cs[w%len(s.cs)].CoreV1().Pods(metav1.NamespaceDefault)
		wi, err := pods.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
		if err != nil {
			b.Fatalf("%s: watch %d: %v", s.name, w, err)
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.watch(ctx, w, list.ResourceVersion, wi, func(rv string) (watch.Interface, error) {
				return pods.Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
			})
		}()
	}
	s.createAndWait(b, ctx, []string{"fanout-" + s.name + "-ready"}, false)
}

// watch reads one watcher's events (its watch wi started at rv) until
// ctx is done. When the server
// ends its watch (kube-apiserver's watch cache ends a watcher too slow
// to take its events), it watches again from the last resourceVersion
// it saw, as a client-go Reflector does, counting it in s.rewatches; an
// error event or a failed watch ends it (the rest of its events then
// count as missing).
func (s *watchSide) watch(ctx context.Context, w int, rv string, wi watch.Interface, again func(rv string) (watch.Interface, error)) {
	var local []time.Duration
	defer s.flush(&local)
	for {
		for ev := range wi.ResultChan() {
			pod, ok := ev.Object.(*corev1.Pod)
			if !ok || ev.Type != watch.Added {
				if ev.Type == watch.Error {
					wi.Stop()
					return
				}
				continue
			}
			rv = pod.ResourceVersion
			if t, ok := s.sent.Load(pod.Name); ok {
				local = append(local, time.Since(t.(time.Time)))
			}
			s.seen[w].Add(1)
			if len(local) >= peerWatchPods {
				s.flush(&local)
			}
		}
		wi.Stop()
		if ctx.Err() != nil {
			return
		}
		s.rewatches.Add(1)
		var err error
		if wi, err = again(rv); err != nil {
			return
		}
	}
}

func (s *watchSide) flush(local *[]time.Duration) {
	s.mu.Lock()
	s.delays = append(s.delays, *local...)
	s.mu.Unlock()
	*local = (*local)[:0]
}

// round creates peerWatchPods pods at peerWatchRate a second and waits
// for every watcher to see them.
func (s *watchSide) round(b *testing.B, tag string) {
	names := make([]string, peerWatchPods)
	for i := range names {
		names[i] = fmt.Sprintf("fanout-%s-%03d", tag, i)
	}
	s.createAndWait(b, context.Background(), names, true)
}

// createAndWait creates the pods, a tick of 1/peerWatchRate apart (each
// POST in a goroutine of its own, so a slow answer does not delay the
// next), then waits up to a minute for every watcher to count them;
// events that do not arrive are counted as missing. Only measured pods
// have their delays recorded.
func (s *watchSide) createAndWait(b *testing.B, ctx context.Context, names []string, measured bool) {
	want := make([]int64, peerWatchers)
	for w := range want {
		want[w] = s.seen[w].Load() + int64(len(names))
	}
	tick := time.NewTicker(time.Second / peerWatchRate)
	defer tick.Stop()
	errs := make(chan error, len(names))
	for i, name := range names {
		if i > 0 {
			<-tick.C
		}
		go func() {
			if measured {
				s.sent.Store(name, time.Now())
			}
			_, err := s.cs[i%len(s.cs)].CoreV1().Pods(metav1.NamespaceDefault).Create(ctx, benchPod(name), metav1.CreateOptions{})
			errs <- err
		}()
	}
	for range names {
		if err := <-errs; err != nil {
			b.Fatalf("%s: create: %v", s.name, err)
		}
	}
	deadline := time.Now().Add(time.Minute)
	for w := 0; w < peerWatchers; {
		if s.seen[w].Load() >= want[w] {
			w++
			continue
		}
		if time.Now().After(deadline) {
			for ; w < peerWatchers; w++ {
				s.missing += int(max(want[w]-s.seen[w].Load(), 0))
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// msOf is d in milliseconds.
func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
