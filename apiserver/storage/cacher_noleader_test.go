package storage_test

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesim/kubesim/apiserver/storage"
	"github.com/kubesim/kubesim/internal/embedetcd"
	"github.com/kubesim/kubesim/internal/pki"
)

// noLeaderTimeout bounds each wait of these tests: a member without
// quorum steps down after an election timeout and ends require-leader
// watches after three more.
const noLeaderTimeout = 30 * time.Second

// members is a three-member etcd cluster on loopback (TLS, no fsync).
type members struct {
	cfgs  []*embedetcd.MemberConfig
	mu    sync.Mutex
	run   []*embedetcd.Member
	files pki.EtcdFiles
}

func startMembers(t *testing.T) *members {
	t.Helper()
	dir := t.TempDir()
	pcfg := pki.NewConfig(dir)
	pcfg.Dir = filepath.Join(dir, "pki")
	files, err := pki.CreateEtcdPKI(pcfg)
	if err != nil {
		t.Fatal(err)
	}
	ms := &members{files: files, run: make([]*embedetcd.Member, 3)}
	var initial []string
	for i := range 3 {
		name := fmt.Sprintf("m%d", i+1)
		cfg := embedetcd.NewMemberConfig(name, filepath.Join(dir, name))
		cfg.UnsafeNoFsync = true
		cfg.ListenClientURLs = []url.URL{{Scheme: "https", Host: freePort(t)}}
		cfg.ListenPeerURLs = []url.URL{{Scheme: "https", Host: freePort(t)}}
		cfg.TLS = embedetcd.MemberTLS{CAFile: files.CACert, ServerCert: files.ServerCert, ServerKey: files.ServerKey, PeerCert: files.PeerCert, PeerKey: files.PeerKey}
		initial = append(initial, name+"="+cfg.ListenPeerURLs[0].String())
		ms.cfgs = append(ms.cfgs, cfg)
	}
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i, cfg := range ms.cfgs {
		cfg.InitialCluster = strings.Join(initial, ",")
		wg.Go(func() { errs[i] = ms.start(i) })
	}
	wg.Wait()
	t.Cleanup(func() {
		for i := range ms.cfgs {
			ms.stop(i)
		}
	})
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return ms
}

func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func (ms *members) start(i int) error {
	ctx, cancel := context.WithTimeout(context.Background(), noLeaderTimeout)
	defer cancel()
	m, err := embedetcd.StartMember(ctx, ms.cfgs[i])
	if err == nil {
		ms.mu.Lock()
		ms.run[i] = m
		ms.mu.Unlock()
	}
	return err
}

func (ms *members) stop(i int) {
	ms.mu.Lock()
	m := ms.run[i]
	ms.run[i] = nil
	ms.mu.Unlock()
	if m != nil {
		m.Close()
	}
}

// client returns a client of every member, closed when the test ends.
func (ms *members) client(t *testing.T) *clientv3.Client {
	t.Helper()
	tc, err := transport.TLSInfo{CertFile: ms.files.ClientCert, KeyFile: ms.files.ClientKey, TrustedCAFile: ms.files.CACert}.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	var eps []string
	for _, cfg := range ms.cfgs {
		eps = append(eps, cfg.ListenClientURLs[0].String())
	}
	c, err := clientv3.New(clientv3.Config{Endpoints: eps, TLS: tc, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// storeOnMembers is a pod store on ms with its watch cache running and
// keeping its watchers for grace without a leader.
func storeOnMembers(t *testing.T, ms *members, grace time.Duration) *storage.Store {
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

// loseQuorum stops two of the three members and waits until the watch
// cache's etcd watch has ended with "no leader".
func loseQuorum(t *testing.T, ms *members, s *storage.Store) {
	t.Helper()
	ms.stop(1)
	ms.stop(2)
	waitFor(t, `the cache's etcd watch to end with "no leader"`, func() bool { return storage.NoLeaderErrors(s) > 0 })
}

// createWhenLeader creates p once the members elect a leader again.
func createWhenLeader(t *testing.T, ms *members, s *storage.Store, p *corev1.Pod) *corev1.Pod {
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
	ms := startMembers(t)
	s := storeOnMembers(t, ms, storage.DefaultNoLeaderGrace)
	a := mustCreate(t, s, pod("default", "a", nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := s.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: a.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

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
	ms := startMembers(t)
	s := storeOnMembers(t, ms, time.Millisecond)
	a := mustCreate(t, s, pod("default", "a", nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := s.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: a.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

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
	_, err = s.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: a.ResourceVersion})
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
