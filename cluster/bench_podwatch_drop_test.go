package cluster_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesim/kubesim/cluster/clustertest"
	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/internal/waitfor"
)

// TestPodsRunningSurvivesDroppedWatch: BenchmarkPodToRunning's watch
// (podsRunning) stops reading while pods far larger than its buffers go
// by, until the API server's watch cache drops it as unresponsive (its
// 10-change buffer full past the dispatch budget); read again, it watches
// again from the last resourceVersion it saw and counts every pod Running,
// with the re-watch counted. Each pod carries 100 KiB of annotation so
// that its events fill the HTTP/2 stream's flow-control window (client-go
// lets the server send 4 MiB ahead) in a few dozen events.
func TestPodsRunningSurvivesDroppedWatch(t *testing.T) {
	const pods = 60
	c := clustertest.Start(t)
	admin, err := c.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	dropped := watchDropped(t, c.Recorder, "/api/v1/namespaces/default/pods?")
	v := newValve()
	// How many pods had been seen Running when the informer watched
	// again: what a watch that never watches again would have counted.
	var rwp atomic.Pointer[podsRunning]
	atRewatch := make(chan int, 1)
	wrap := func(in watch.Interface) watch.Interface {
		if rw := rwp.Load(); rw != nil {
			select {
			case atRewatch <- rw.count():
			default:
			}
		}
		return v.wrap(in)
	}
	rw := watchPodsRunning(t, admin, metav1.NamespaceDefault, wrap)
	rwp.Store(rw)
	v.shut()
	ballast := strings.Repeat("x", 100<<10)
	for i := range pods {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("big-%03d", i), Annotations: map[string]string{"kubesim.test/ballast": ballast}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}},
		}
		if _, err := admin.CoreV1().Pods(metav1.NamespaceDefault).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create %s: %v", pod.Name, err)
		}
	}
	select {
	case term := <-dropped:
		t.Logf("the watch cache dropped %s (buffer %d/%d, results %d/%d, waited %v)",
			term.URI, term.Queued, term.BufferSize, term.ResultQueued, term.ResultSize, term.Waited)
	case <-time.After(waitfor.Bound):
		t.Fatalf("the API server did not drop the stalled watch in %v (%d pods seen Running)", waitfor.Bound, rw.count())
	}
	if got := rw.rewatches(); got != 0 {
		t.Fatalf("re-watches while stalled = %d, want 0", got)
	}
	v.release()
	eventually(t, fmt.Sprintf("%d pods seen Running", pods), func() (bool, string) {
		n := rw.count()
		return n == pods, fmt.Sprintf("%d seen Running, %d re-watches, %d re-lists", n, rw.rewatches(), rw.relists())
	})
	if rw.rewatches() < 1 {
		t.Fatalf("re-watches = %d, want at least 1 after the server dropped the watch", rw.rewatches())
	}
	if n := <-atRewatch; n >= pods {
		t.Errorf("the first watch saw all %d pods Running before it ended: it was not dropped early enough to test the re-watch", n)
	} else {
		t.Logf("the first watch had seen %d of %d pods Running when it ended", n, pods)
	}
	t.Logf("%d re-watches, %d re-lists", rw.rewatches(), rw.relists())
}

// watchDropped returns a channel that receives the first flow event of
// the watch cache dropping a watcher whose request URI starts with
// prefix. The subscription ends with the test.
func watchDropped(t *testing.T, r *flow.Recorder, prefix string) <-chan flow.WatchTermination {
	sub := r.Subscribe(1 << 14)
	out := make(chan flow.WatchTermination, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range sub.Events() {
			if term := ev.Terminated; term != nil && strings.HasPrefix(term.URI, prefix) {
				select {
				case out <- *term:
				default:
				}
			}
		}
	}()
	t.Cleanup(func() {
		sub.Close()
		<-done
	})
	return out
}

// valve lets a test stop a watch's reader: while shut, the streams it
// wraps hand on no event, so that client-go stops reading their HTTP
// stream. It starts open. Safe for concurrent use.
type valve struct {
	mu   sync.Mutex
	open chan struct{} // closed while open
}

func newValve() *valve {
	open := make(chan struct{})
	close(open)
	return &valve{open: open}
}

// shut stops the wrapped streams at their next event.
func (v *valve) shut() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.open = make(chan struct{})
}

// release lets the streams go on.
func (v *valve) release() {
	v.mu.Lock()
	defer v.mu.Unlock()
	select {
	case <-v.open:
	default:
		close(v.open)
	}
}

// pass waits until v is open; false if stop came first.
func (v *valve) pass(stop <-chan struct{}) bool {
	v.mu.Lock()
	open := v.open
	v.mu.Unlock()
	select {
	case <-open:
		return true
	case <-stop:
		return false
	}
}

// wrap returns in with every event passing v first.
func (v *valve) wrap(in watch.Interface) watch.Interface {
	w := &valveWatch{in: in, out: make(chan watch.Event), stop: make(chan struct{}), done: make(chan struct{})}
	go w.forward(v)
	return w
}

// valveWatch is a watch.Interface whose events pass a valve. Its
// goroutine (forward) ends with the inner stream or Stop, which waits for
// it.
type valveWatch struct {
	in   watch.Interface
	out  chan watch.Event
	stop chan struct{}
	once sync.Once
	done chan struct{}
}

func (w *valveWatch) forward(v *valve) {
	defer close(w.done)
	defer close(w.out)
	for ev := range w.in.ResultChan() {
		if !v.pass(w.stop) {
			return
		}
		select {
		case w.out <- ev:
		case <-w.stop:
			return
		}
	}
}

// Stop stops the inner stream and waits for the forwarding to end.
func (w *valveWatch) Stop() {
	w.once.Do(func() {
		close(w.stop)
		w.in.Stop()
	})
	<-w.done
}

// ResultChan is the events that passed the valve; closed when the inner
// stream ends or Stop is called.
func (w *valveWatch) ResultChan() <-chan watch.Event { return w.out }
