package storage_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesim/kubesim/apiserver/storage"
)

// tickedCompactor is a running compactor driven tick by tick.
type tickedCompactor struct {
	tick chan<- time.Time
	done <-chan int64
	stop func()
	logs *lineLog
}

func startTickedCompactor(t *testing.T, client *clientv3.Client) *tickedCompactor {
	t.Helper()
	logs := &lineLog{}
	c, tick, done := storage.NewTickedCompactor(client, logs.printf)
	ctx, cancel := context.WithCancel(context.Background())
	finished := make(chan struct{})
	go func() { c.Run(ctx); close(finished) }()
	stop := sync.OnceFunc(func() { cancel(); <-finished })
	t.Cleanup(stop)
	return &tickedCompactor{tick: tick, done: done, stop: stop, logs: logs}
}

// ticks once and returns the revision compacted (0: none).
func (tc *tickedCompactor) ticks(t *testing.T) int64 {
	t.Helper()
	select {
	case tc.tick <- time.Now():
	case <-time.After(waitTimeout):
		t.Fatalf("compactor did not take its tick within %v", waitTimeout)
	}
	select {
	case rev := <-tc.done:
		return rev
	case <-time.After(waitTimeout):
		t.Fatalf("compactor did not finish its tick within %v", waitTimeout)
	}
	return 0
}

type lineLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *lineLog) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *lineLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func putRev(t *testing.T, client *clientv3.Client, k, v string) int64 {
	t.Helper()
	resp, err := client.Put(context.Background(), k, v)
	if err != nil {
		t.Fatal(err)
	}
	return resp.Header.Revision
}

func TestCompactorKeepsOneIntervalOfHistory(t *testing.T) {
	e := newStoreWith(t, false) // watches served by etcd
	ctx := context.Background()
	tc := startTickedCompactor(t, e.client)
	// A watch from firstRV starts with the change at oldRV.
	firstRV := rvOf(t, mustCreate(t, e.store, pod("default", "first", nil)))
	oldRV := rvOf(t, mustCreate(t, e.store, pod("default", "old", nil)))

	if rev := tc.ticks(t); rev != 0 {
		t.Fatalf("first tick compacted revision %d, want none (it only notes the revision)", rev)
	}
	newRV := rvOf(t, mustCreate(t, e.store, pod("default", "new", nil)))
	tickRev := tc.ticks(t)
	if tickRev <= oldRV || tickRev >= newRV {
		t.Fatalf("second tick compacted to %d, want the first tick's revision, between %d and %d", tickRev, oldRV, newRV)
	}

	if _, err := e.client.Get(ctx, key("default", "old"), clientv3.WithRev(oldRV)); !errors.Is(err, rpctypes.ErrCompacted) {
		t.Errorf("Get at revision %d older than two ticks: err = %v, want %v", oldRV, err, rpctypes.ErrCompacted)
	}
	if _, err := e.client.Get(ctx, key("default", "new"), clientv3.WithRev(newRV)); err != nil {
		t.Errorf("Get at revision %d of the newest interval: %v", newRV, err)
	}
	if code := watchErrorCode(t, e.store, firstRV); code != http.StatusGone {
		t.Errorf("watch from %d (its first change compacted): code %d, want 410", firstRV, code)
	}
	if code := watchErrorCode(t, e.store, tickRev); code != 0 {
		t.Errorf("watch from %d (the newest interval): ERROR %d, want its events", tickRev, code)
	}
	if !strings.Contains(tc.logs.String(), fmt.Sprintf("compacted history up to revision %d", tickRev)) {
		t.Errorf("log does not record the compaction:\n%s", tc.logs)
	}
}

// watchErrorCode watches from rv and returns the code of the ERROR event
// that starts the stream (0: it started with another event, -1: it
// ended without any).
func watchErrorCode(t *testing.T, s *storage.Store, rv int64) int32 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	w, err := s.Watch(ctx, "/registry/pods/", storage.ListOptions{ResourceVersion: fmt.Sprint(rv)})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ev, ok := <-w.ResultChan()
	switch {
	case !ok:
		return -1
	case ev.Type != watch.Error:
		return 0
	}
	st, _ := ev.Object.(*metav1.Status)
	if st == nil {
		return 0
	}
	return st.Code
}

func TestCompactorsSharingEtcdTakeTurns(t *testing.T) {
	e := newStoreWith(t, false)
	a, b := startTickedCompactor(t, e.client), startTickedCompactor(t, e.client)
	putRev(t, e.client, "/registry/x", "1")

	if ra, rb := a.ticks(t), b.ticks(t); ra != 0 || rb != 0 {
		t.Fatalf("first ticks compacted %d and %d, want none", ra, rb)
	}
	for i := range 3 {
		putRev(t, e.client, "/registry/x", fmt.Sprint(i))
		ra, rb := a.ticks(t), b.ticks(t)
		if ra == 0 || rb != 0 {
			t.Fatalf("round %d: a compacted %d, b %d; want a alone (it won the first turn)", i, ra, rb)
		}
	}
	// a stops: b takes the turn on its next tick but one.
	a.stop()
	var took int64
	for i := 0; i < 2 && took == 0; i++ {
		putRev(t, e.client, "/registry/x", "after")
		took = b.ticks(t)
	}
	if took == 0 {
		t.Fatal("b did not compact within two ticks of a stopping")
	}
}
