package storage_test

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesim/kubesim/apiserver/storage"
	"github.com/kubesim/kubesim/internal/embedetcd"
	"github.com/kubesim/kubesim/internal/etcdtest"
)

// noLeaderTimeout bounds each wait of these tests: a member without
// quorum steps down after an election timeout and ends require-leader
// watches after three more. It is generous, so that only a hang reaches
// it, never a slow machine.
const noLeaderTimeout = waitTimeout

// members is a three-member etcd cluster on loopback (TLS, no fsync).
type members struct{ *embedetcd.LocalCluster }

func startMembers(t *testing.T) members {
	t.Helper()
	lc, _ := etcdtest.StartCluster(t, 3)
	return members{lc}
}

// stop stops member i (0: m1).
func (ms members) stop(t *testing.T, i int) {
	t.Helper()
	if err := ms.Stop(ms.Names()[i]); err != nil {
		t.Fatal(err)
	}
}

// start starts the stopped member i again.
func (ms members) start(i int) error {
	ctx, cancel := context.WithTimeout(context.Background(), noLeaderTimeout)
	defer cancel()
	return ms.Restart(ctx, ms.Names()[i])
}

// client returns a client of every member, closed when the test ends.
func (ms members) client(t *testing.T) *clientv3.Client {
	t.Helper()
	c, err := ms.Client(5 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// storeOnMembers is a pod store on ms with its watch cache running and
// keeping its watchers for grace without a leader.
func storeOnMembers(t *testing.T, ms members, grace time.Duration) *storage.Store {
	t.Helper()
	s, err := storage.New(storage.Config{
		Client:      ms.client(t),
		Codec:       storeCodec(),
		Prefix:      prefix,
		NewFunc:     func() runtime.Object { return &corev1.Pod{} },
		NewListFunc: func() runtime.Object { return &corev1.PodList{} },
	})
	if err != nil {
		t.Fatal(err)
	}
	storage.SetNoLeaderGrace(s, grace)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, "the watch cache to run", func() bool { return storage.WatchCacheRunning(s) })
	return s
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(noLeaderTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// watchOnMembers is a store on three members (storeOnMembers), the pod
// a created in it, and a watch from a's revision, stopped when the test
// ends.
func watchOnMembers(t *testing.T, grace time.Duration) (members, *storage.Store, *corev1.Pod, watch.Interface) {
	t.Helper()
	ms := startMembers(t)
	s := storeOnMembers(t, ms, grace)
	a := mustCreate(t, s, pod("default", "a", nil))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w, err := s.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: a.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return ms, s, a, w
}

// loseQuorum stops two of the three members and waits until the watch
// cache's etcd watch has ended with "no leader".
func loseQuorum(t *testing.T, ms members, s *storage.Store) {
	t.Helper()
	ms.stop(t, 1)
	ms.stop(t, 2)
	waitFor(t, `the cache's etcd watch to end with "no leader"`, func() bool { return storage.NoLeaderErrors(s) > 0 })
}

// createWhenLeader creates p once the members elect a leader again.
func createWhenLeader(t *testing.T, ms members, s *storage.Store, p *corev1.Pod) *corev1.Pod {
	t.Helper()
	c := ms.client(t)
	waitFor(t, "a quorum read", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_, err := c.Get(ctx, "health")
		return err == nil
	})
	return mustCreate(t, s, p)
}

// TestWatchCacheKeepsWatchersWithoutLeader: when the member the cache
// watches ends its watch with "no leader" (two of three members
// stopped), the cache keeps its watchers and its history and watches
// again from the revision it reached, as kube-apiserver's cacher retries
// for 30 s: a watcher sees nothing end, and once a member is back it
// gets the next create, in order.
func TestWatchCacheKeepsWatchersWithoutLeader(t *testing.T) {
	ms, s, _, w := watchOnMembers(t, storage.DefaultNoLeaderGrace)

	loseQuorum(t, ms, s)
	select {
	case ev, ok := <-w.ResultChan():
		t.Fatalf("without a leader the watch delivered %v (open %v), want nothing", ev, ok)
	default:
	}
	if !storage.WatchCacheRunning(s) {
		t.Fatal("the watch cache stopped without a leader, want it to keep serving")
	}
	if err := ms.start(1); err != nil {
		t.Fatal(err)
	}
	b := createWhenLeader(t, ms, s, pod("default", "b", nil))
	select {
	case ev, ok := <-w.ResultChan():
		p, isPod := ev.Object.(*corev1.Pod)
		if !ok || ev.Type != watch.Added || !isPod || p.Name != "b" || p.ResourceVersion != b.ResourceVersion {
			t.Fatalf("after the leader is back the watch delivered %v %v (open %v), want ADDED b at %s", ev.Type, ev.Object, ok, b.ResourceVersion)
		}
	case <-time.After(noLeaderTimeout):
		t.Fatal("the watch delivered nothing after the leader came back")
	}
	t.Logf(`%d watches of etcd ended with "no leader"; the watcher carried on`, storage.NoLeaderErrors(s))
}

// TestWatchCacheEndsWatchersAfterNoLeaderGrace: past the grace without a
// leader the cache ends every watch (its stream closes, with no ERROR
// event, as kube-apiserver's cacher terminates its watchers) and a new
// watch gets 429 until a member is back and the cache runs again.
func TestWatchCacheEndsWatchersAfterNoLeaderGrace(t *testing.T) {
	ms, s, a, w := watchOnMembers(t, time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	loseQuorum(t, ms, s)
	deadline := time.After(noLeaderTimeout)
	for open := true; open; {
		select {
		case ev, ok := <-w.ResultChan():
			if ok {
				t.Errorf("the watch delivered %v %v before it ended, want nothing", ev.Type, ev.Object)
			}
			open = ok
		case <-deadline:
			t.Fatal("the watch did not end past the grace without a leader")
		}
	}
	waitFor(t, "the watch cache to stop", func() bool { return !storage.WatchCacheRunning(s) })
	_, err := s.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: a.ResourceVersion})
	if !apierrors.IsTooManyRequests(err) {
		t.Errorf("a watch while the cache is down: %v, want 429", err)
	}
	if err := ms.start(1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the watch cache to run again", func() bool { return storage.WatchCacheRunning(s) })
	if _, err := s.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: a.ResourceVersion}); err != nil {
		t.Errorf("a watch once a member is back: %v", err)
	}
}
