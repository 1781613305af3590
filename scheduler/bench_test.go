package scheduler

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/internal/flow"
)

// BenchmarkScheduling measures scheduling throughput in memory: pods go
// through the queue, the plugins (against the snapshot), the assumption
// and a binder that confirms at once, as the informer would, without any
// API call. It reports pods/s for clusters of 100, 1,000 and 5,000 nodes
// (from 1,000 nodes on, each attempt filters only until it has
// numFeasibleNodesToFind nodes: 420 and 500).
//
// "recorded" also builds the flow evidence for every attempt, which a
// subscriber reads; "recorder-without-readers" has a Recorder that nobody
// subscribed to, so the evidence should not be built at all. These two
// take turns, every 100 pods, with a scheduler of as many nodes without a
// Recorder, and report their pods/s as a share of that one's
// (x-no-recorder), measured in the same run: on a busy machine the ratio
// is steadier than either figure. Their ns/op, B/op and allocs/op cover
// both schedulers.
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
	rig := newBenchRig(b, numNodes, rec)
	var baseline *benchRig
	if rec != noRecorder {
		baseline = newBenchRig(b, numNodes, noRecorder)
	}
	// Pods are scheduled in batches; between batches (timer stopped) the
	// bound pods go away again, so that nodes never fill up. Two
	// schedulers take turns every 100 pods of a batch, each going first
	// every other turn.
	const batch = 1000
	turn := batch
	if baseline != nil {
		turn = 100
	}
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += batch {
		n := min(batch, b.N-done)
		b.StopTimer()
		rig.prepare(done, n)
		if baseline != nil {
			baseline.prepare(done, n)
		}
		b.StartTimer()
		for lo := 0; lo < n; lo += turn {
			hi := min(lo+turn, n)
			first, second := rig, baseline
			if (done+lo)/turn%2 == 1 {
				first, second = baseline, rig
			}
			for _, r := range []*benchRig{first, second} {
				if r != nil {
					r.schedule(lo, hi)
				}
			}
		}
	}
	b.StopTimer()
	rig.check(b)
	b.ReportMetric(float64(b.N)/rig.elapsed.Seconds(), "pods/s")
	if baseline != nil {
		baseline.check(b)
		b.ReportMetric(baseline.elapsed.Seconds()/rig.elapsed.Seconds(), "x-no-recorder")
	}
}

// benchRig is one in-memory scheduler of the benchmark with its nodes.
type benchRig struct {
	s       *Scheduler
	pods    []*corev1.Pod // the last batch
	elapsed time.Duration // spent scheduling
}

func newBenchRig(b *testing.B, numNodes int, rec recording) *benchRig {
	cfg := &Config{SchedulerName: DefaultSchedulerName, InitialBackoff: DefaultInitialBackoff, MaxBackoff: DefaultMaxBackoff,
		TieBreaker: NewRandomTieBreaker(1)}
	if rec != noRecorder {
		cfg.Recorder = flow.NewRecorder()
	}
	if rec == recordedAndRead {
		sub := cfg.Recorder.Subscribe(1 << 16)
		b.Cleanup(sub.Close)
		go func() {
			for range sub.Events() {
			}
		}()
	}
	s := newScheduler(cfg, nil)
	s.binder = confirmingBinder{cache: s.cache}
	for i := range numNodes {
		s.cache.AddNode(makeNode(fmt.Sprintf("node-%05d", i), "32", "128Gi", 110))
	}
	return &benchRig{s: s}
}

// prepare removes the last batch's pods and makes n new ones.
func (r *benchRig) prepare(first, n int) {
	for _, p := range r.pods {
		bound := p.DeepCopy()
		bound.Spec.NodeName = "x"
		r.s.cache.RemovePod(bound)
	}
	r.pods = r.pods[:0]
	for i := range n {
		p := makePod(fmt.Sprintf("pod-%d", first+i), withRequests("100m", "128Mi"))
		p.UID = types.UID(p.Name)
		r.pods = append(r.pods, p)
	}
}

// schedule queues the batch's pods [lo, hi) and schedules them.
func (r *benchRig) schedule(lo, hi int) {
	start := time.Now()
	ctx := context.Background()
	for _, p := range r.pods[lo:hi] {
		r.s.queue.Add(p)
	}
	for range hi - lo {
		qp, _ := r.s.queue.Pop()
		r.s.scheduleOne(ctx, qp)
	}
	r.s.apiWG.Wait()
	r.elapsed += time.Since(start)
}

func (r *benchRig) check(b *testing.B) {
	if got := len(r.s.queue.contents().Unschedulable); got != 0 {
		b.Fatalf("%d pods found no node", got)
	}
}
