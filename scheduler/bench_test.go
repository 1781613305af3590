package scheduler

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/internal/flow"
)

// BenchmarkScheduling measures scheduling throughput in memory: pods go
// through the queue, the plugins (against the snapshot), the assumption
// and a binder that confirms at once, as the informer would, without any
// API call. It reports pods/s for clusters of 100, 1,000 and 5,000 nodes
// (from 1,000 nodes on, each attempt filters only until it has
// numFeasibleNodesToFind nodes: 420 and 500). "recorded" also builds the
// flow evidence for every attempt, which a subscriber reads;
// "recorder-without-readers" has a Recorder that nobody subscribed to, so
// the evidence should not be built at all.
//
//	go test ./scheduler/ -run '^$' -bench Scheduling
func BenchmarkScheduling(b *testing.B) {
	for _, c := range []struct {
		nodes int
		rec   recording
	}{{100, noRecorder}, {1000, noRecorder}, {1000, recorderWithoutReaders}, {5000, noRecorder}, {5000, recordedAndRead}} {
		name := fmt.Sprintf("nodes=%d", c.nodes)
		switch c.rec {
		case recorderWithoutReaders:
			name += "/recorder-without-readers"
		case recordedAndRead:
			name += "/recorded"
		}
		b.Run(name, func(b *testing.B) { benchmarkScheduling(b, c.nodes, c.rec) })
	}
}

// recording is how a benchmark case records flow events.
type recording int

const (
	noRecorder recording = iota
	// recorderWithoutReaders: a Recorder nobody subscribed to.
	recorderWithoutReaders
	// recordedAndRead: a Recorder with a subscriber draining it.
	recordedAndRead
)

// confirmingBinder binds by confirming the assumed pod in the cache.
type confirmingBinder struct{ cache *schedulerCache }

func (c confirmingBinder) Bind(_ context.Context, pod *corev1.Pod, node string) error {
	bound := pod.DeepCopy()
	bound.Spec.NodeName = node
	c.cache.AddPod(bound)
	return nil
}

func benchmarkScheduling(b *testing.B, numNodes int, rec recording) {
	cfg := &Config{SchedulerName: DefaultSchedulerName, InitialBackoff: DefaultInitialBackoff, MaxBackoff: DefaultMaxBackoff,
		TieBreaker: NewRandomTieBreaker(1)}
	if rec != noRecorder {
		cfg.Recorder = flow.NewRecorder()
	}
	if rec == recordedAndRead {
		sub := cfg.Recorder.Subscribe(1 << 16)
		defer sub.Close()
		go func() {
			for range sub.Events() {
			}
		}()
	}
	s := newScheduler(cfg)
	s.binder = confirmingBinder{cache: s.cache}
	for i := range numNodes {
		s.cache.AddNode(makeNode(fmt.Sprintf("node-%05d", i), "32", "128Gi", 110))
	}
	// Pods are scheduled in batches; between batches (timer stopped) the
	// bound pods go away again, so that nodes never fill up.
	const batch = 1000
	ctx := context.Background()
	pods := make([]*corev1.Pod, 0, batch)
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; {
		b.StopTimer()
		for _, p := range pods {
			bound := p.DeepCopy()
			bound.Spec.NodeName = "x"
			s.cache.RemovePod(bound)
		}
		pods = pods[:0]
		for i := range min(batch, b.N-done) {
			p := makePod(fmt.Sprintf("pod-%d", done+i), withRequests("100m", "128Mi"))
			p.UID = types.UID(p.Name)
			pods = append(pods, p)
		}
		b.StartTimer()
		for _, p := range pods {
			s.queue.Add(p)
		}
		for range pods {
			qp, _ := s.queue.Pop()
			s.scheduleOne(ctx, qp)
		}
		s.apiWG.Wait()
		done += len(pods)
	}
	b.StopTimer()
	if got := len(s.queue.contents().Unschedulable); got != 0 {
		b.Fatalf("%d pods found no node", got)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pods/s")
}
