package cluster_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// podsRunning follows the pods of one namespace with a client-go
// informer and counts the distinct pods it has seen Running. The
// informer's Reflector is what keeps the count whole when the API server
// ends a watch: closed (the watch cache drops a watcher that fell behind,
// kube-apiserver's "Forcing watcher close due to unresponsiveness"; a
// watch's timeout), it watches again from the last resourceVersion it
// saw; ended by an error event or 410 Gone, it lists again and watches
// from the list. A pod seen Running once stays counted. Its methods are
// safe for concurrent use.
type podsRunning struct {
	mu      sync.Mutex
	running map[string]bool
	changed chan struct{} // closed and replaced when running grows

	// streams counts the watch streams the informer opened (the first
	// one and every re-watch), lists the lists it made (a LIST, or a
	// watch that streams the list first: sendInitialEvents).
	streams, lists atomic.Int64
	stop           func()
}

// watchPodsRunning starts a podsRunning on cs's pods of namespace ns
// and waits until its informer has synced; the test's cleanup stops it.
// wrap, if not nil, is applied to every watch stream the informer opens
// (a test slows the reader with it).
func watchPodsRunning(tb testing.TB, cs kubernetes.Interface, ns string, wrap func(watch.Interface) watch.Interface) *podsRunning {
	tb.Helper()
	rw := &podsRunning{running: map[string]bool{}, changed: make(chan struct{})}
	pods := cs.CoreV1().Pods(ns)
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			rw.lists.Add(1)
			return pods.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			w, err := pods.Watch(ctx, o)
			if err != nil {
				return nil, err
			}
			rw.streams.Add(1)
			if o.SendInitialEvents != nil && *o.SendInitialEvents {
				rw.lists.Add(1)
			}
			if wrap != nil {
				w = wrap(w)
			}
			return w, nil
		},
	}
	_, informer := cache.NewInformerWithOptions(cache.InformerOptions{
		ListerWatcher: lw,
		ObjectType:    &corev1.Pod{},
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc:    rw.seen,
			UpdateFunc: func(_, obj any) { rw.seen(obj) },
		},
		Transform: benchPodSummary,
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		informer.RunWithContext(ctx)
	}()
	rw.stop = sync.OnceFunc(func() {
		cancel()
		<-done
	})
	tb.Cleanup(rw.stop)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		tb.Fatal("pod informer did not sync")
	}
	return rw
}

// seen counts obj if it is a pod Running.
func (rw *podsRunning) seen(obj any) {
	p, ok := obj.(*corev1.Pod)
	if !ok || p.Status.Phase != corev1.PodRunning {
		return
	}
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.running[p.Name] {
		return
	}
	rw.running[p.Name] = true
	close(rw.changed)
	rw.changed = make(chan struct{})
}

// count is how many distinct pods have been seen Running.
func (rw *podsRunning) count() int {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	return len(rw.running)
}

// waitFor waits until n pods have been seen Running; it returns an error
// saying how many were when ctx ends first.
func (rw *podsRunning) waitFor(ctx context.Context, n int) error {
	for {
		rw.mu.Lock()
		got, changed := len(rw.running), rw.changed
		rw.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("%d of %d pods seen Running (%d re-watches, %d re-lists): %w",
				got, n, rw.rewatches(), rw.relists(), ctx.Err())
		}
	}
}

// rewatches is how many watch streams the informer opened after its
// first: each time a watch ended, whatever ended it.
func (rw *podsRunning) rewatches() int64 { return max(rw.streams.Load()-1, 0) }

// relists is how many lists the informer made after its first (after a
// 410 Gone or a watch's error).
func (rw *podsRunning) relists() int64 { return max(rw.lists.Load()-1, 0) }
