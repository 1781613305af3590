package storage

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// CompactRevKey is the etcd key through which the API servers sharing an
// etcd agree on who compacts: its value is the revision compacted last,
// its version counts the compactions (upstream's compact_rev_key, at the
// root of the keyspace, outside /registry).
const CompactRevKey = "compact_rev_key"

// DefaultCompactionInterval is kube-apiserver's --etcd-compaction-interval.
const DefaultCompactionInterval = 5 * time.Minute

// Compactor discards etcd's history periodically, as the compactor
// kube-apiserver's storage factory starts (k8s.io/apiserver's
// storage/etcd3/compact.go): at every tick of its interval it compacts
// to the revision it saw at the previous tick, so that etcd keeps between
// one and two intervals of history. Reads at a compacted revision then
// fail with 410 Expired, as do watches served by etcd (a watch cache
// keeps its own history).
//
// API servers sharing one etcd take turns through CompactRevKey: a tick
// writes the key only if its version is the one this compactor saw last,
// in one transaction, and compacts only if that write succeeded; a
// compactor that loses learns the key's version and tries again at its
// next tick. So one compaction happens per interval however many API
// servers run, and if the one that compacts stops, another takes over
// within two intervals.
//
// The interval is wall-clock time. Run is called once; CompactRevision
// may be called from any goroutine.
type Compactor struct {
	client   *clientv3.Client
	interval time.Duration
	logf     func(format string, args ...any)
	// after makes the ticks (time.After; tests send their own), and
	// tickDone, when set, is told after each tick what it compacted.
	after    func(time.Duration) <-chan time.Time
	tickDone func(compacted int64)

	mu        sync.Mutex
	compacted int64
}

// NewCompactor returns a compactor of client's etcd every interval
// (which must be positive), reporting each compaction and each failure
// to logf (nil: nowhere).
func NewCompactor(client *clientv3.Client, interval time.Duration, logf func(format string, args ...any)) *Compactor {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &Compactor{client: client, interval: interval, logf: logf, after: time.After}
}

// CompactRevision is the newest revision known to be compacted, by this
// compactor or by another API server's (0: none yet).
func (c *Compactor) CompactRevision() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.compacted
}

func (c *Compactor) noteCompacted(rev int64) {
	c.mu.Lock()
	c.compacted = max(c.compacted, rev)
	c.mu.Unlock()
}

// Run compacts at every interval until ctx is done. The first tick comes
// one interval after Run starts and compacts nothing: it only records the
// revision the second tick compacts to.
func (c *Compactor) Run(ctx context.Context) {
	var state compactState
	for {
		select {
		case <-c.after(c.interval):
		case <-ctx.Done():
			return
		}
		compacted, err := c.tick(ctx, &state)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			c.logf("etcd: compaction failed: %v", err)
		case compacted != 0:
			c.logf("etcd: compacted history up to revision %d (the revision at the previous tick, %s ago); reads at older revisions now get 410 Expired", compacted, c.interval)
		}
		if c.tickDone != nil {
			c.tickDone(compacted)
		}
	}
}

// compactState is what a compactor remembers between ticks: the version
// of CompactRevKey it expects, and the revision it saw at its last tick.
type compactState struct {
	version, rev int64
}

// tick takes this interval's turn: if CompactRevKey still has the version
// s expects, it writes the previous tick's revision there and compacts to
// it (nothing on the first tick); otherwise another compactor took the
// turn, and s learns its version. Either way s.rev becomes the current
// revision. It returns the revision compacted (0: none).
func (c *Compactor) tick(ctx context.Context, s *compactState) (int64, error) {
	resp, err := c.client.Txn(ctx).If(
		clientv3.Compare(clientv3.Version(CompactRevKey), "=", s.version),
	).Then(
		clientv3.OpPut(CompactRevKey, strconv.FormatInt(s.rev, 10)),
	).Else(
		clientv3.OpGet(CompactRevKey),
	).Commit()
	if err != nil {
		return 0, err
	}
	prev := s.rev
	s.rev = resp.Header.Revision
	if !resp.Succeeded {
		kvs := resp.Responses[0].GetResponseRange().Kvs
		if len(kvs) == 0 {
			// Deleted since the comparison failed: start over.
			s.version = 0
			return 0, nil
		}
		s.version = kvs[0].Version
		if rev, err := strconv.ParseInt(string(kvs[0].Value), 10, 64); err == nil {
			c.noteCompacted(rev)
		}
		return 0, nil
	}
	s.version++
	if prev == 0 {
		return 0, nil // the first turn: nothing seen before it to compact
	}
	if _, err := c.client.Compact(ctx, prev); err != nil {
		if errors.Is(err, rpctypes.ErrCompacted) {
			// A compaction from outside (Cluster.CompactEtcd) went further.
			return 0, fmt.Errorf("revision %d was already compacted", prev)
		}
		return 0, fmt.Errorf("compact to revision %d: %w", prev, err)
	}
	c.noteCompacted(prev)
	return prev, nil
}
