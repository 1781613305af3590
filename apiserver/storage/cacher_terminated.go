package storage

import (
	"context"
	"math"
	"time"
)

// Bounds of a watcher's channels, as kube-apiserver's watch cache sizes
// them (k8s.io/apiserver/pkg/storage/cacher, watch_cache_history.go:
// minWatchChanSize, maxWatchChanSizeWithoutIndex,
// maxWatchChanSizeWithIndexAndTrigger, maxWatchChanSizeWithIndexWithoutTrigger).
const (
	minWatchChannelSize                = 10
	maxWatchChannelSize                = 100
	maxWatchChannelSizeIndexed         = 10
	maxWatchChannelSizeIndexedResource = 1000
)

// watchChannelSize is the size of each of a cache watcher's two buffers
// (the changes the cache hands it, the events it has made of them), by
// kube-apiserver's rule: about one second of the cache's history, its
// capacity divided by the seconds a change is kept, at least 10 and at
// most 100; for a resource with a WatchIndex (pods' spec.nodeName), at
// most 10 for a watcher that pins the field (it sees only its own
// changes), at most 1000 for one that does not (it sees them all). With
// the default history of 100 changes kept 75 s, that is 10.
func watchChannelSize(capacity int, fresh time.Duration, indexedResource, indexedWatcher bool) int {
	n := minWatchChannelSize
	if s := fresh.Seconds(); s > 0 {
		n = int(math.Ceil(float64(capacity) / s))
	}
	limit := maxWatchChannelSize
	switch {
	case indexedWatcher:
		limit = maxWatchChannelSizeIndexed
	case indexedResource:
		limit = maxWatchChannelSizeIndexedResource
	}
	return min(max(n, minWatchChannelSize), limit)
}

// WatcherTerminated is what the watch cache knows when it gives up on a
// watcher whose buffer stayed full (kube-apiserver logs "Forcing ...
// watcher close due to unresponsiveness" and counts it in
// apiserver_terminated_watchers_total): the watcher's stream then ends and
// its client watches again from the last resourceVersion it read.
type WatcherTerminated struct {
	// Key is what the watcher watched ("/registry/configmaps/default/").
	Key string
	// BufferSize is the capacity of the buffer the cache fills (the
	// changes handed to the watcher, not yet made into events), Queued
	// how many it held: all of them. The cache discards them.
	BufferSize, Queued int
	// ResultSize is the capacity of the watcher's buffer of events for the
	// HTTP handler, ResultQueued how many it held. Those still reach the
	// client before its stream ends.
	ResultSize, ResultQueued int
	// LastQueued is the revision of the last change the buffer took,
	// GaveUpAt that of the change it had no room for.
	LastQueued, GaveUpAt int64
	// Waited is how long the cache waited for room (the dispatch budget it
	// had: at most 100 ms, refilled by 50 ms a second).
	Waited time.Duration
	// Time is when the cache gave up.
	Time time.Time
}

type terminatedKey struct{}

// WithWatcherTerminated returns a context for a Watch that calls f if the
// watch cache gives up on that watcher. f is called once at most, from
// the cache's goroutine: it must not block.
func WithWatcherTerminated(ctx context.Context, f func(WatcherTerminated)) context.Context {
	return context.WithValue(ctx, terminatedKey{}, f)
}

// onTerminated is the function WithWatcherTerminated put in ctx, or nil.
func onTerminated(ctx context.Context) func(WatcherTerminated) {
	f, _ := ctx.Value(terminatedKey{}).(func(WatcherTerminated))
	return f
}
